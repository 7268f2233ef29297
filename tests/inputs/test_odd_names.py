"""Complex folders with odd names: glob characters are found by their own name,
names that cannot become item ids or page names are refused in one line each and listed in the
failures, and the gallery's links to the pages of ids holding ``#``, ``%`` or a space work."""

from __future__ import annotations

import shutil
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

from misi_geom.samples import sample_root
from misi_tasks.engine.generate import FAILURES_FILE, GenerateConfig, generate_dataset
from misi_tasks.inputs import discover_inputs
from misi_tasks.view import build_site

GOOD = ("a[1]", "e#1 %", "f*?")
BAD = {'b"q': "quote", "c<x>": "'<'", "d\tt": "control character"}


@pytest.fixture(scope="module")
def odd_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("odd")
    for cid in GOOD + tuple(BAD):
        (root / cid).mkdir()
        for f in (sample_root() / "1h1d").iterdir():
            shutil.copy(f, root / cid / f.name.replace("1h1d", cid))
    return root


def test_glob_characters_are_found_and_unusable_ids_are_refused_in_one_line(odd_root):
    plan = discover_inputs(odd_root)
    assert sorted(plan.sources) == sorted(GOOD)
    assert sorted(plan.failures) == sorted(['b"q', "c<x>", "d\\tt"])
    for cid, word in BAD.items():
        why = plan.failures[cid.replace("\t", "\\t")]
        assert "\n" not in why and "\t" not in why and "cannot be a complex id" in why and word in why


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        for key in ("href", "src"):
            if a.get(key) and not a[key].startswith("data:"):
                self.links.append(a[key])


def test_the_run_lists_refused_folders_and_the_gallery_links_resolve(odd_root, tmp_path):
    out = tmp_path / "ds"
    summary = generate_dataset(GenerateConfig(input_dir=odd_root, out_dir=out, tasks=("translation",),
                                              split="test", seed=1, size=64, workers=1), progress=False)
    lines = (out / FAILURES_FILE).read_text().splitlines()
    assert len(lines) == 3 and all(line.count("\t") == 1 for line in lines)
    assert sorted(summary.failed_complexes) == sorted(['b"q', "c<x>", "d\\tt"])
    site = tmp_path / "site"
    build_site(out, site, per_task=50)
    pages = sorted(site.rglob("*.html"))
    item_pages = [p.name for p in pages if p.parent.name == "translation" and p.name != "index.html"]
    assert any("#" in n for n in item_pages) and any("[" in n for n in item_pages)
    checked = 0
    for page in pages:
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for link in parser.links:
            parts = urlsplit(link)
            assert not parts.scheme and not parts.fragment and not parts.query, (page, link)
            assert (page.parent / unquote(parts.path)).is_file(), (page, link)
            checked += 1
    assert checked > 3 * len(item_pages)
