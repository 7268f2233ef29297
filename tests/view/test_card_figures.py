"""The dataset card's figures: written beside the card, embedded, right numbers, deterministic,
and a clear note instead of figures when matplotlib is missing."""

from __future__ import annotations

import re
from collections import Counter

import pytest

pytest.importorskip("matplotlib", reason="the card figures need the misi[viz] extra")

from misi_tasks.engine import card_figures  # noqa: E402
from misi_tasks._mpl import VIZ_MISSING  # noqa: E402
from misi_tasks.definitions.registry import TASK_CODES, paper_tasks  # noqa: E402
from misi_geom.samples import sample_root  # noqa: E402

NAMES = ["items_per_task.png", "answers.png", "heavy_atoms.png", "examples.png"]


def test_the_card_embeds_four_figures_that_exist(sample_dataset):
    card = (sample_dataset / "README.md").read_text()
    embedded = re.findall(r"!\[[^\]]+\]\((figures/[^)]+)\)", card)
    assert embedded == [f"figures/{n}" for n in NAMES]
    for rel in embedded:
        data = (sample_dataset / rel).read_bytes()
        assert data.startswith(b"\x89PNG") and 5_000 < len(data) < 1_500_000, rel
    assert card.index("## Counts") < card.index("## Figures")


def test_items_figure_bars_are_the_counts_on_disk(sample_dataset):
    items = card_figures._read_rows(sample_dataset)
    counts = Counter(it["task"] for it in items)
    fig = card_figures._items_figure(items)
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    widths = [p.get_width() for p in ax.patches]  # one split (test): one bar per task
    assert labels == [f"{TASK_CODES[t]} {t}" for t in TASK_CODES if counts[t]]
    assert widths == [counts[t] for t in TASK_CODES if counts[t]]


def test_mc_letter_panels_count_the_answers(sample_dataset):
    items = card_figures._read_rows(sample_dataset)
    fig = card_figures._answers_figure(items)
    titles = {ax.get_title(): ax for ax in fig.axes}
    rows = [it for it in items if it["task"] == "rotation-rotation"]
    ax = titles[f"T6 rotation-rotation ({len(rows)})"]
    letters = Counter(it["answer"] for it in rows)
    assert [p.get_height() for p in ax.patches] == [letters[x] for x in "ABCD" if letters[x]]


def test_heavy_atoms_match_the_ligand_file(sample_dataset):
    counts = card_figures.heavy_atom_counts(sample_root(), ["1h1d", "2pyy"])
    assert set(counts) == {"1h1d", "2pyy"}
    sdf = (sample_root() / "1h1d" / "1h1d_ligand.sdf").read_text().splitlines()
    n_atoms = int(sdf[3][:3])
    heavy = sum(1 for line in sdf[4:4 + n_atoms] if line.split()[3] != "H")
    assert counts["1h1d"][1] == heavy
    assert counts["1h1d"][0] > heavy  # a pocket is bigger than its ligand


def test_the_contact_sheet_shows_a_telling_image_of_each_task(sample_dataset):
    items = card_figures._read_rows(sample_dataset)
    picks = card_figures._examples(items)
    assert set(picks) == set(paper_tasks())  # the samples hold the tasks of --task all
    assert picks["translation"][0]["image_roles"][picks["translation"][1]] == "front after"
    assert picks["docking"][0]["image_roles"][picks["docking"][1]] == "pocket and ligand front"
    assert len({it["complex_id"] for it, _ in picks.values()}) == 5  # the tasks rotate through complexes


def test_figures_are_byte_identical_when_redrawn(sample_dataset, tmp_path):
    """misi-gen took the examples from its units; redrawn from the shards, the bytes are the same."""
    before = {n: (sample_dataset / "figures" / n).read_bytes() for n in NAMES}
    card_figures.write_card_figures(sample_dataset, sample_root())
    assert {n: (sample_dataset / "figures" / n).read_bytes() for n in NAMES} == before


def test_rows_an_image_source_leaves_out_are_read_from_the_shards(sample_dataset, tmp_path):
    from misi_tasks.view.rows import read_images

    before = (sample_dataset / "figures" / "examples.png").read_bytes()
    shards = sorted((sample_dataset / "data").glob("*/*.parquet"))
    asked = []

    def every_other(rows):
        asked.extend(r["id"] for r in rows)
        return read_images(shards, {r["id"] for r in rows[::2]})

    for source in (every_other, lambda rows: {}):
        card_figures.write_card_figures(sample_dataset, sample_root(), source)
        assert (sample_dataset / "figures" / "examples.png").read_bytes() == before
    assert len(asked) == len(paper_tasks())  # one example per task of the samples (--task all)


def test_without_matplotlib_the_card_says_how_to_get_figures(monkeypatch, tmp_path):
    monkeypatch.setattr(card_figures, "have_matplotlib", lambda: False)
    text = card_figures.card_figures_markdown(tmp_path, sample_root())
    assert VIZ_MISSING in text and "misi[viz]" in text
    assert not (tmp_path / "figures").exists()


def test_an_input_that_is_not_a_folder_costs_only_the_atom_figure(sample_dataset, tmp_path):
    assert card_figures.heavy_atom_counts(tmp_path / "missing", ["1h1d"]) == {}
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "data").symlink_to(sample_dataset / "data")
    figs = card_figures.write_card_figures(ds, tmp_path / "missing")
    assert [p for _, p in figs] == ["figures/items_per_task.png", "figures/answers.png", "figures/examples.png"]


def test_the_counts_a_run_hands_over_draw_the_figure_the_input_folder_gives(sample_dataset, tmp_path):
    """misi-gen passes the heavy-atom counts its workers took while loading: the same figure, byte
    for byte, as counting the input folder again."""
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "data").symlink_to(sample_dataset / "data")
    card_figures.write_card_figures(ds, sample_root())  # no counts given: loads the complexes
    assert (ds / "figures" / "heavy_atoms.png").read_bytes() == (sample_dataset / "figures" / "heavy_atoms.png").read_bytes()


def test_handed_over_counts_draw_the_atom_figure_for_any_input(monkeypatch, sample_dataset, tmp_path):
    monkeypatch.setattr(card_figures, "heavy_atom_counts", lambda *a: pytest.fail("counts were handed over"))
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "data").symlink_to(sample_dataset / "data")
    ids = sorted({it["complex_id"] for it in card_figures._read_rows(sample_dataset)})
    atoms = {cid: (100 + k, 10 + k) for k, cid in enumerate(ids)}
    atoms["not-in-the-dataset"] = (1, 1)
    drawn = {}
    draw = card_figures._atoms_figure
    monkeypatch.setattr(card_figures, "_atoms_figure", lambda counts, of_total=None: drawn.update(counts) or draw(counts))
    figs = card_figures.write_card_figures(ds, tmp_path / "a-manifest.csv", atoms=atoms)
    assert "figures/heavy_atoms.png" in [p for _, p in figs]
    assert drawn == {c: atoms[c] for c in ids}  # the dataset's complexes, with the counts given


def test_a_large_run_loads_an_evenly_spaced_subset_of_complexes(monkeypatch, sample_dataset, tmp_path):
    seen = {}

    def fake_counts(input_dir, ids):
        seen["ids"] = list(ids)
        return {i: (100, 10) for i in ids}

    monkeypatch.setattr(card_figures, "heavy_atom_counts", fake_counts)
    monkeypatch.setattr(card_figures, "MAX_ATOM_COMPLEXES", 2)
    ds = tmp_path / "ds"
    ds.mkdir()
    (ds / "data").symlink_to(sample_dataset / "data")
    fig = card_figures._atoms_figure({i: (100, 10) for i in ["1h1d", "3pvu"]}, of_total=5)
    assert "2 of 5 complexes" in fig.axes[0].get_title()
    card_figures.write_card_figures(ds, sample_root())
    assert seen["ids"] == ["1h1d", "3pvu"]  # every 3rd of the 5 sorted ids: at most 2


def test_many_complexes_give_histograms():
    counts = {f"c{k:03d}": (200 + k, 20 + k % 7) for k in range(card_figures.MAX_COMPLEX_BARS + 1)}
    fig = card_figures._atoms_figure(counts)
    assert len(fig.axes) == 2
    assert sum(p.get_height() for p in fig.axes[0].patches) == len(counts)  # every complex counted once


def test_contact_list_answers_are_counted_per_item():
    """X2's answers (contact lists) draw one bar per number of contacts, 'No' for the empty list."""
    from misi_tasks.definitions.answers import ContactList
    from misi_tasks._mpl import new_figure

    parsed = [ContactList(()), ContactList(()), ContactList(("ARG 45 NH1 A, O1",)),
              ContactList(("ARG 45 NH1 A, O1", "GLU 7 OE1 A, N2", "LYS 9 NZ A, O3"))]
    fig = new_figure(4, 3)
    ax = fig.add_subplot(111)
    card_figures._answer_panel(ax, parsed)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["No", "1", "2", "3"]
    assert [p.get_height() for p in ax.patches] == [2, 1, 0, 1]
    assert "contacts" in ax.get_xlabel()


def test_misi_gen_hands_the_example_images_to_the_card(monkeypatch, tmp_path):
    """The workers return the images the contact sheet shows with their reports: the card reads no
    shard for them, and draws the figure the shards give."""
    import misi_tasks.view.rows as rows
    from misi_tasks.engine.generate import GenerateConfig, generate_dataset

    read = []
    real = rows.read_images
    monkeypatch.setattr(rows, "read_images", lambda shards, wanted: read.append(wanted) or real(shards, wanted))
    out = tmp_path / "ds"
    generate_dataset(GenerateConfig(input_dir=sample_root(), out_dir=out, split="test", size=128, workers=1,
                                    limit=2), progress=False)
    assert read == []
    made = (out / "figures" / "examples.png").read_bytes()
    card_figures.write_card_figures(out, sample_root())  # from the shards
    assert read and (out / "figures" / "examples.png").read_bytes() == made


def test_the_example_complexes_are_the_ones_the_contact_sheet_picks(sample_dataset):
    items = card_figures._read_rows(sample_dataset)
    wanted = card_figures.example_complexes({it["task"] for it in items}, {it["complex_id"] for it in items})
    assert {t: it["complex_id"] for t, (it, _) in card_figures._examples(items).items()} == wanted
