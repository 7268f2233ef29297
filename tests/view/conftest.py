"""Fixtures for the gallery tests: the bundled samples generated once (all tasks, 256 px: at 128 px the
label check drops most T8/T9 items, whose labels cannot be legible there), with a
random baseline's predictions beside them."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path

import pytest

from misi_tasks.dataset import read_items
from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_geom.samples import sample_root
from misi_tasks.eval.baselines import baseline_predictions


@pytest.fixture(scope="session")
def sample_dataset(tmp_path_factory) -> Path:
    """The five bundled complexes, every task of ``--task all`` (misi-gen's default), test split, 256 px
    images (about 10 s)."""
    out = tmp_path_factory.mktemp("samples") / "ds"
    generate_dataset(GenerateConfig(input_dir=sample_root(), out_dir=out, split="test", size=256, workers=1),
                     progress=False)
    return out


@pytest.fixture(scope="session")
def random_predictions(sample_dataset, tmp_path_factory) -> Path:
    """The seeded random baseline's replies to every item, minus the first item (left unanswered)."""
    items = read_items(sample_dataset, images=False)
    preds = baseline_predictions(items, "random", seed=3)
    path = tmp_path_factory.mktemp("preds") / "random.jsonl"
    path.write_text("".join(json.dumps({"id": k, "reply": v}) + "\n" for k, v in list(preds.items())[1:]))
    return path


class PageParts(HTMLParser):
    """Collects ``href``/``src`` targets, image ``alt`` texts, figure captions and the visible text."""

    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.images: list[str] = []
        self.alts: list[str] = []
        self.captions: list[str] = []
        self.text: list[str] = []
        self._in_caption = False

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "a" and a.get("href"):
            self.links.append(a["href"])
        if tag == "link" and a.get("href") and not a["href"].startswith("data:"):
            self.links.append(a["href"])
        if tag == "script" and a.get("src"):
            self.links.append(a["src"])
        if tag == "img":
            self.images.append(a["src"])
            self.alts.append(a.get("alt", ""))
        self._in_caption = tag == "figcaption"

    def handle_endtag(self, tag):
        if tag == "figcaption":
            self._in_caption = False

    def handle_data(self, data):
        self.text.append(data)
        if self._in_caption:
            self.captions.append(data)


def parse_page(path: Path) -> PageParts:
    """Parse one page of the site."""
    p = PageParts()
    p.feed(path.read_text(encoding="utf-8"))
    return p


@pytest.fixture(scope="session")
def page_parts():
    """The function that parses one page of a site into :class:`PageParts`."""
    return parse_page
