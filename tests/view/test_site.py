"""misi-view on the bundled samples: pages, links, images by role, predictions, thumbnails, rebuilds."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from misi_tasks.dataset import read_items
from misi_tasks.eval.cli import read_predictions
from misi_tasks.definitions.registry import paper_tasks
from misi_tasks.eval.score import score_item
from misi_tasks.view import MARKER, build_site
from misi_tasks.view.cli import main
from misi_tasks.view.pages import item_page_name
from misi_tasks.view.rows import POOL_FACTOR, choose_items, row_groups
from misi_tasks.view.thumbs import THUMB_PX, VIEW_PX, thumb_names

#: the tasks of the sample dataset: misi-gen's default, ``--task all`` (the paper's nine)
TASKS = paper_tasks()

PER_TASK = 4


@pytest.fixture(scope="module")
def site(sample_dataset, random_predictions, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "site"
    build_site(sample_dataset, out, per_task=PER_TASK, predictions=random_predictions)
    return out


@pytest.fixture(scope="module")
def items(sample_dataset) -> dict[str, dict]:
    return {it["id"]: it for it in read_items(sample_dataset)}


@pytest.fixture(scope="module")
def shown(sample_dataset, items) -> dict[str, list[str]]:
    """The items the site shows: drawn as build_site draws them, by row groups."""
    groups = row_groups(sorted((sample_dataset / "data").glob("*/*.parquet")))
    return choose_items(list(items.values()), PER_TASK, 0, group_of=groups)


def _pages(site: Path) -> list[Path]:
    return sorted(site.rglob("*.html"))


def test_every_link_and_image_of_every_page_exists(site, page_parts):
    pages = _pages(site)
    assert len(pages) == 2 + len(TASKS) * (1 + PER_TASK)           # index, items.html, task and item pages
    for page in pages:
        parts = page_parts(page)
        for target in parts.links + parts.images:
            assert not target.startswith(("http:", "https:", "/")), (page, target)  # works from disk
            assert (page.parent / target.split("#")[0]).resolve().is_file(), (page, target)


def test_index_has_one_card_per_task_with_counts_and_scores(site, items, page_parts):
    text = (site / "index.html").read_text()
    counts = Counter(it["task"] for it in items.values())
    for task in TASKS:
        assert f'<section class="card" id="{task}">' in text
        assert f"{counts[task]} items: test {counts[task]}" in text
        assert f'href="{task}/index.html"' in text
    parts = page_parts(site / "index.html")
    assert sum(1 for src in parts.images if src.endswith("-k.jpg")) >= len(TASKS)   # key thumbnails
    assert "Scores of the predictions" in text and "<th>T4+</th>" in text


def test_shown_pages_are_the_drawn_items(site, shown):
    for task in TASKS:
        assert sorted(p.name for p in (site / task).glob("*-*.html")) == sorted(item_page_name(i) for i in shown[task])


def test_a_draw_by_row_groups_reads_few_groups_and_is_reproducible():
    rows = [{"id": f"docking/train/c{k:03d}/{j}", "task": "docking"} for k in range(100) for j in range(6)]
    group_of = {r["id"]: k // 64 for k, r in enumerate(rows)}  # 600 rows in 10 row groups of 64
    picks = choose_items(rows, 20, seed=3, group_of=group_of)["docking"]
    assert len(picks) == 20 and picks == choose_items(rows[::-1], 20, seed=3, group_of=group_of)["docking"]
    used = {group_of[i] for i in picks}
    assert len(used) <= -(-POOL_FACTOR * 20 // 64) + 1  # enough groups for 80 rows: 2
    assert len({i.split("/")[2] for i in picks}) >= 12  # still many complexes
    assert choose_items(rows, 20, seed=4, group_of=group_of)["docking"] != picks
    few = choose_items(rows[:50], 20, seed=3, group_of=group_of)["docking"]  # under 4 x 20 rows: all rows
    assert few == sorted(choose_items(rows[:50], 20, seed=3)["docking"])


def test_items_are_chosen_with_the_seed(items):
    rows = list(items.values())
    a, b = choose_items(rows, 3, seed=0), choose_items(rows[::-1], 3, seed=0)
    assert a == b and all(len(ids) == 3 for ids in a.values())
    assert choose_items(rows, 3, seed=1) != a  # 10+ items per task: another seed draws others
    assert choose_items(rows, 10_000, seed=0)["docking"] == sorted(i for i in items if i.startswith("docking/"))


def test_item_page_shows_images_by_role_question_options_and_answer(site, items, shown, page_parts):
    for task in TASKS:
        for item_id in shown[task]:
            row = items[item_id]
            page = site / task / item_page_name(item_id)
            parts = page_parts(page)
            text = "".join(parts.text)
            roles = row["image_roles"]
            plain = [r for r in roles if not r.startswith("option ")]
            assert parts.captions == [f"{k + 1}. {r}" for k, r in enumerate(roles) if r in plain]
            # each image of the row, in order, is shown as the JPEG of its own bytes
            img_names = [src.rsplit("/", 1)[1] for src in parts.images]
            expected = [thumb_names(im["bytes"])[1] for im in row["images"]]
            assert img_names == expected, item_id
            assert row["question"].split("\n")[0][:80] in text
            assert row["answer"] in text
            if row["options"]:
                for k, opt in enumerate(row["options"]):
                    assert f"{'ABCD'[k]}." in text and (opt in text)
                n_opt_images = sum(r.startswith("option ") for r in roles)
                assert sum("option" in a for a in parts.alts) == n_opt_images


def test_predictions_show_reply_parsed_answer_and_the_scorers_score(site, items, shown, random_predictions):
    preds = read_predictions(random_predictions)
    unanswered = next(i for i in sorted(items) if i not in preds)
    for task in TASKS:
        for item_id in shown[task]:
            html = (site / task / item_page_name(item_id)).read_text()
            s = score_item(items[item_id], preds.get(item_id))
            assert f"{s.score:.3f} ({'exact' if s.exact else 'not exact'}; {s.status})" in html
            if s.parsed is not None:
                assert f"<code>{s.parsed}</code>" in html.replace("&#x27;", "'")
            if item_id == unanswered:
                assert "(no prediction)" in html and "missing" in html


def test_oracle_predictions_score_full_marks_on_every_page(sample_dataset, items, tmp_path):
    preds = tmp_path / "oracle.jsonl"
    preds.write_text("".join(json.dumps({"id": i, "reply": it["answer"]}) + "\n" for i, it in items.items()))
    out = tmp_path / "site"
    build_site(sample_dataset, out, per_task=2, predictions=preds)
    for page in out.glob("*/*-*.html"):
        html = page.read_text()
        assert "1.000 (exact; ok)" in html and "badge bad" not in html, page
    assert "mean score 100.0%" in (out / "index.html").read_text()


def test_metadata_block_holds_hbonds_and_motions(site, items):
    t9_pages = sorted((site / "pocket-ligand").glob("*-*.html"))
    html = t9_pages[0].read_text()
    assert '<details class="meta"' in html and '<table class="hbonds">' in html
    item_id = "pocket-ligand/" + t9_pages[0].stem.replace("-", "/")
    for bond in json.loads(items[item_id]["metadata"])["hbonds"]:
        assert f"<td>{bond['pocket_atom_name']}</td><td>{bond['ligand_atom_name']}</td>" in html
    rot = sorted((site / "rotation").glob("*-*.html"))[0].read_text()
    rid = "rotation/" + sorted((site / "rotation").glob("*-*.html"))[0].stem.replace("-", "/")
    cmd = json.loads(items[rid]["metadata"])["command"]
    assert f"<code>{cmd['op']} {cmd['axis']} {cmd['value']}</code>" in rot
    assert '<pre class="matrix">' in rot


def test_thumbnails_are_small_jpegs_written_once(site, sample_dataset, random_predictions):
    jpgs = sorted((site / "img").glob("*.jpg"))
    assert jpgs
    for f in jpgs:
        with Image.open(f) as im:
            assert im.format == "JPEG"
            assert im.width <= (THUMB_PX if f.name.endswith("-s.jpg") else VIEW_PX)
    before = {f: f.stat().st_mtime_ns for f in jpgs}
    summary = build_site(sample_dataset, site, per_task=PER_TASK, predictions=random_predictions)
    assert summary.images_written == 0 and summary.images > 0
    assert {f: f.stat().st_mtime_ns for f in sorted((site / "img").glob("*.jpg"))} == before


def test_a_smaller_rebuild_removes_the_pages_and_images_it_no_longer_needs(sample_dataset, tmp_path):
    out = tmp_path / "site"
    build_site(sample_dataset, out, per_task=3)
    n_img = len(list((out / "img").iterdir()))
    build_site(sample_dataset, out, per_task=1)
    assert len(list(out.glob("*/*-*.html"))) == len(TASKS)
    assert 0 < len(list((out / "img").iterdir())) < n_img
    assert not list(out.rglob("*.tmp"))


def test_a_folder_of_other_files_is_refused(sample_dataset, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("keep me")
    assert main([str(sample_dataset), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not written by misi-view" in err and str(out) in err
    assert (out / "notes.txt").read_text() == "keep me" and not (out / MARKER).exists()


@pytest.mark.parametrize("line, message", [
    ("not json", "malformed line"),
    ('{"id": "nope/test/x/000", "reply": "A"}', "unknown item id"),
])
def test_bad_predictions_fail_with_one_line(sample_dataset, tmp_path, capsys, line, message):
    preds = tmp_path / "p.jsonl"
    preds.write_text(line + "\n")
    assert main([str(sample_dataset), "--out", str(tmp_path / "s"), "--predictions", str(preds)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err and "p.jsonl:1" in err


def test_missing_dataset_fails_with_one_line(tmp_path, capsys):
    assert main([str(tmp_path / "nothing"), "--out", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("misi-view: error:") and err.count("\n") == 1


def test_the_gallery_never_imports_numba_rendering_or_geometry():
    code = ("import sys, misi_tasks.view.cli, misi_tasks.view.site; "
            "bad = [m for m in sys.modules if m.split('.')[0] in ('numba', 'misi_render', 'misi_geom')]; "
            "print(bad); sys.exit(1 if bad else 0)")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_thumbnails_keep_the_picture(tmp_path):
    from misi_tasks.view.thumbs import write_thumbs

    rgb = np.zeros((1024, 1024, 3), np.uint8)
    rgb[:512, :, 0] = 255  # top half red, bottom half blue
    rgb[512:, :, 2] = 255
    buf = io.BytesIO()
    Image.fromarray(rgb).save(buf, format="PNG")
    th = write_thumbs(buf.getvalue(), tmp_path)
    assert th.written and not write_thumbs(buf.getvalue(), tmp_path).written
    for name, width in ((th.medium, VIEW_PX), (th.small, THUMB_PX)):
        a = np.asarray(Image.open(tmp_path / name))
        assert a.shape == (width, width, 3)
        assert (a[: width // 4, :, 0] > 230).all() and (a[-width // 4:, :, 2] > 230).all()
    grey = io.BytesIO()
    Image.fromarray(rgb[:100, :300, 0]).save(grey, format="PNG")  # mode L, not square
    th = write_thumbs(grey.getvalue(), tmp_path)
    assert Image.open(tmp_path / th.medium).mode == "RGB" and Image.open(tmp_path / th.medium).size == (300, 100)
    with pytest.raises(ValueError, match="not a readable image"):
        write_thumbs(b"not a png", tmp_path)


def test_an_interrupted_build_can_be_rerun_into_the_same_folder(sample_dataset, tmp_path, monkeypatch):
    import misi_tasks.view.site as site_mod

    out = tmp_path / "site"

    def boom(*a, **k):
        raise KeyboardInterrupt

    monkeypatch.setattr(site_mod, "task_page", boom)  # stop after the images, before the pages
    with pytest.raises(KeyboardInterrupt):
        build_site(sample_dataset, out, per_task=2)
    assert (out / MARKER).is_file() and list((out / "img").glob("*.jpg")) and not (out / "index.html").exists()
    monkeypatch.undo()
    summary = build_site(sample_dataset, out, per_task=2)
    assert summary.images_written == 0 and (out / "index.html").is_file()


@given(st.integers(0, 150), st.integers(0, 100), st.integers(6, 40), st.integers(6, 40), st.integers(0, 2**31 - 1))
@settings(max_examples=60, deadline=None)
def test_key_crop_holds_the_grey_ligand_amid_coloured_pocket_atoms(x, y, w, h, seed):
    from misi_tasks.view.thumbs import CROP_MARGIN, ligand_box

    rng = np.random.default_rng(seed)
    rgb = np.zeros((160, 200, 3), np.uint8)
    for _ in range(40):                                   # pocket carbons: purple and orange blobs, shaded
        cx, cy, r = rng.integers(0, 200), rng.integers(0, 160), rng.integers(2, 8)
        colour = np.array([(191, 153, 242), (242, 179, 102)][rng.integers(0, 2)]) * rng.uniform(0.4, 1.0)
        rgb[max(0, cy - r):cy + r, max(0, cx - r):cx + r] = colour.astype(np.uint8)
    rgb[y:y + h, x:x + w] = (144, 144, 144)              # the ligand's grey carbons
    left, top, right, bottom = ligand_box(Image.fromarray(rgb))
    x1, y1 = min(x + w, 200), min(y + h, 160)
    assert left <= x and top <= y and right >= x1 - 1 and bottom >= y1 - 1          # the ligand is inside
    side = max(x1 - x, y1 - y) * (1 + 2 * CROP_MARGIN) + 2
    assert right - left <= side and bottom - top <= side                            # and not much more


def test_key_thumbnails_are_ligand_close_ups_of_the_key_image(site, items, shown):
    from misi_tasks.view.site import key_role
    from misi_tasks.view.thumbs import key_thumb_name, ligand_box

    fractions = []
    for task in TASKS:
        for item_id in shown[task]:
            row = items[item_id]
            png = row["images"][key_role(list(row["image_roles"]))]["bytes"]
            assert (site / "img" / key_thumb_name(png)).is_file()
            with Image.open(io.BytesIO(png)) as im:
                left, top, right, bottom = ligand_box(im)
                fractions.append((right - left) * (bottom - top) / (im.width * im.height))
    # at the fixture's 128 px the labels hide a few small ligands (then the whole image is shown);
    # most key thumbnails are close-ups (at the default 1024 px all 195 sample items are: median 12%)
    assert sum(f < 0.5 for f in fractions) >= 0.75 * len(fractions), sorted(fractions)
