"""Fair items: every answer is readable from its own rows.

All checks read the dataset rows (question, answer, options, PNG images, metadata) and the input
files, never the generators' objects: the T9 chain is shown or stated; equivalent atoms are listed
for every symmetric answer atom and no T8 decoy is a sibling's answer; every residue and ligand atom
an answer names has a label drawn intact (its pixels are the label's own) inside the frame in the
image ``label_check`` names, and every bond atom shows its colour there; no label leaves any image of
any task; T1/T5/T8 state the scale the images are drawn at; T7's recorded gap is the one drawn.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import replace

import numpy as np
import pytest
from PIL import Image

from misi_geom import SE3, load_complex
from misi_geom.samples import sample_dirs
from misi_render import RenderOptions
from misi_render.labels import (
    ATOM_FILL, LIGAND_FILL, RESIDUE_FILL, font_px, render_patch, with_unique_ligand_labels,
)  # fmt: skip
from misi_tasks.engine.generate import generate_items
from misi_tasks.definitions.equivalence import SIDE_CHAIN_EQUIVALENTS
from misi_tasks.definitions.registry import TASK_NAMES, paper_tasks, task_spec
from misi_tasks.tasks.scene import Scene

HBOND_TASKS = ("residue-ligand", "interaction-location", "pocket-ligand")
FILL = {"residue": RESIDUE_FILL, "ligand": LIGAND_FILL, "atom": ATOM_FILL}


def _rows(items: dict) -> list[dict]:
    return [(it.assign_letter(0) if it.options else it).to_row() for its in items.values() for it in its]


@pytest.fixture(scope="module")
def complexes():
    """The bundled samples as loaded, with the drawn ligand labels as atom names."""
    return {d.name: with_unique_ligand_labels(load_complex(d)) for d in sample_dirs()}


@pytest.fixture(scope="module")
def hbond_rows():
    """T4, T8, T9 rows at the dataset's default size (1024 px), train counts."""
    scenes = {d.name: Scene(load_complex(d), RenderOptions(size=1024)) for d in sample_dirs()}
    return [r for pdb, s in scenes.items() for r in _rows(generate_items(s, HBOND_TASKS, seed=3, split="train",
                                                                         keep_renders=False))]


@pytest.fixture(scope="module")
def all_rows(scenes):
    """Rows of every task on every sample (256 px)."""
    rows = []
    for pdb, scene in scenes.items():
        partners = {k: v for k, v in scenes.items() if k != pdb}
        # every registered task; one may have nothing to ask about a sample (ring-stacking needs a stack)
        rows += _rows(generate_items(scene, TASK_NAMES, seed=3, split="train", partners=partners, keep_renders=False,
                                     skipped_empty=True))
    return rows


def _meta(row) -> dict:
    return json.loads(row["metadata"])


def _png(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _t9_bonds(answer: str) -> list[tuple[str, str, str, str, str]]:
    return [tuple(re.fullmatch(r"(\S+) (\S+) (\S+) (\S+), (\S+)", b).groups()) for b in answer.split("; ")]


def _multi_chain(row) -> bool:
    return "since the pocket spans more than one chain" in row["question"]


def _named(row) -> tuple[set[str], set[str]]:
    """(labels the answer or question names, atoms it is about), written as ``label_check`` keys."""
    meta, task = _meta(row), row["task"]
    if task == "pocket-ligand":
        labels, atoms = set(), set()
        for res, num, atom, chain, lig in _t9_bonds(row["answer"]):
            labels |= {f"{res} {num}" + (f" {chain}" if _multi_chain(row) else ""), lig}
            atoms |= {f"{res} {num} {atom} {chain}", lig}
        return labels, atoms
    if task == "interaction-location":
        hb = meta["hbond"]
        res = f"{hb['res_name']} {hb['res_id']}" + (f" {hb['chain']}" if _multi_chain(row) else "")
        return {res, hb["ligand_atom_name"]}, {f"{hb['res_name']} {hb['res_id']} {hb['pocket_atom_name']} {hb['chain']}",
                                               hb["ligand_atom_name"]}
    labels = {meta["residue"]}
    atoms = set()
    if row["answer"] != "No":
        for bond in row["answer"][len("Yes: "):].split("; "):
            pocket, lig = bond.split(", ")
            atoms |= {pocket, lig}
    return labels | atoms, atoms


def test_every_hbond_task_is_generated(hbond_rows):
    tasks = {r["task"] for r in hbond_rows}
    assert tasks == set(HBOND_TASKS) and len(hbond_rows) >= 25


def test_t9_chain_is_shown_or_stated(hbond_rows):
    """Section 1: a single-chain pocket's chain is stated in the prompt; several chains are drawn."""
    seen = set()
    for row in (r for r in hbond_rows if r["task"] == "pocket-ligand"):
        chains = {b[3] for b in _t9_bonds(row["answer"])}
        stated = re.search(r"Every pocket residue is in chain (\S)\.", row["question"])
        if _multi_chain(row):
            assert not stated
            labels = _meta(row)["label_check"]["labels"]
            for res, num, _, chain, _ in _t9_bonds(row["answer"]):  # the chain is part of a legible label
                assert labels[f"{res} {num} {chain}"]["text"] == f"{res} {num} {chain}"
            seen.add("drawn")
        elif "?" in chains:
            assert chains == {"?"} and 'write "?" as their chain' in row["question"]
            seen.add("blank")
        else:
            assert stated and chains == {stated.group(1)}
            seen.add("stated")
    assert seen == {"drawn", "blank"}  # 4cjq has two chains, the other samples' files give none


def test_t9_states_the_one_chain_of_a_lettered_single_chain_pocket():
    """Section 1, the case the audit met (chain H): 2pyy with its pocket written as chain H."""
    c = load_complex(sample_dirs()[[d.name for d in sample_dirs()].index("2pyy")])
    c = replace(c, chain_id=np.where(c.is_ligand, c.chain_id, "H"))
    (row,) = _rows(generate_items(Scene(c, RenderOptions(size=256)), ["pocket-ligand"], split="train"))
    assert "Every pocket residue is in chain H." in row["question"] and not _multi_chain(row)
    assert {b[3] for b in _t9_bonds(row["answer"])} == {"H"}


def test_labels_the_answer_names_are_drawn_intact_inside_the_frame(hbond_rows):
    """Section 3: each named residue / ligand atom / T4 residue atom: the image ``label_check`` names
    shows that label's own pixels in its box, inside the frame, with no other label's ink in it."""
    for row in hbond_rows:
        labels, _ = _named(row)
        check = _meta(row)["label_check"]
        assert set(check["labels"]) == labels, row["id"]
        for name, rec in check["labels"].items():
            image = _png(row["images"][rec["image"]])
            size = image.shape[0]
            x0, y0, x1, y1 = (int(v) for v in rec["box"])
            assert 0 <= x0 < x1 <= size and 0 <= y0 < y1 <= size, (row["id"], name)
            expected_text = name.split()[-1] if rec["kind"] == "atom" else name
            assert rec["text"] == expected_text
            px = font_px(size, "residue" if rec["kind"] == "residue" else "atom")
            keep, paint = render_patch(rec["text"], px, FILL[rec["kind"]])
            keep, paint = keep.reshape(y1 - y0, x1 - x0), paint.reshape(y1 - y0, x1 - x0, 3)
            crop = image[y0:y1, x0:x1].astype(np.float64)
            ink = keep == 0
            assert ink.sum() > 10
            assert np.array_equal(crop[ink], np.floor(paint[ink].astype(np.float64) + 0.5)), (row["id"], name)
            for other in (LIGAND_FILL, ATOM_FILL):  # no other label's glyphs inside the box
                assert not np.all(crop[keep == 1] == other, axis=-1).any(), (row["id"], name)


def test_atoms_the_question_is_about_are_visible(hbond_rows):
    """Section 3: every bond atom is visible in the image ``label_check`` names: its pixel there is
    not background, and an O (N) atom shows red (blue)."""
    for row in hbond_rows:
        _, atoms = _named(row)
        visible = _meta(row)["label_check"]["visible"]
        assert set(visible) == atoms, row["id"]
        for name, rec in visible.items():
            image = _png(row["images"][rec["image"]])
            x, y = (int(v) for v in rec["px"])
            r, g, b = (int(v) for v in image[y, x])
            assert r + g + b > 60, (row["id"], name)
            element = name.split()[-2][0] if " " in name else name[0]
            if element == "O":
                assert r > g and r > b, (row["id"], name, (r, g, b))
            elif element == "N":
                assert b > r and b > g, (row["id"], name, (r, g, b))


def _ligand_row(c, name: str) -> int:
    return int(np.flatnonzero(c.is_ligand & (c.atom_name == name))[0])


def test_equivalent_atoms_cover_every_symmetric_answer_atom(hbond_rows, complexes):
    """Section 2: a pocket atom of the side-chain table is listed with its sibling; every listed
    ligand class holds atoms of one element and one heavy-atom degree."""
    kinds = set()
    for row in hbond_rows:
        meta, c = _meta(row), complexes[row["complex_id"]]
        classes = meta["equivalent_atoms"]
        assert classes == sorted(classes) and all(cls == sorted(cls) and len(cls) > 1 for cls in classes)
        listed = {x for cls in classes for x in cls}
        hbonds = meta["hbonds"] if "hbonds" in meta else [meta["hbond"]]
        for hb in hbonds:
            pocket = (f"{hb['res_name']} {hb['pocket_atom_name']}" if row["task"] == "residue-ligand"
                      else f"{hb['res_name']} {hb['res_id']} {hb['pocket_atom_name']} {hb['chain']}")
            group = [g for g in SIDE_CHAIN_EQUIVALENTS.get(hb["res_name"], ()) if hb["pocket_atom_name"] in g]
            assert (pocket in listed) == bool(group), (row["id"], pocket)
            if group:
                kinds.add("pocket")
        for cls in classes:
            if " " in cls[0]:
                continue
            rows = [_ligand_row(c, name) for name in cls]
            heavy = ~c.is_hydrogen
            degree = [sum(1 for a, b in c.bonds if i in (a, b) and heavy[a] and heavy[b]) for i in rows]
            assert len({str(c.element[i]) for i in rows}) == 1 and len(set(degree)) == 1, (row["id"], cls)
            kinds.add("ligand")
    assert kinds == {"pocket", "ligand"}
    t9 = {r["complex_id"]: _meta(r)["equivalent_atoms"] for r in hbond_rows if r["task"] == "pocket-ligand"}
    assert ["O28", "O29"] in t9["4cjq"]  # the carboxylate of 4cjq's ligand, read off its structure
    assert ["ARG 75 NH1 ?", "ARG 75 NH2 ?"] in t9["2pyy"]


def test_no_t8_decoy_is_a_sibling_atoms_answer(hbond_rows, complexes):
    """Section 2: the move for any bond between equivalent atoms is never offered as a decoy."""
    checked = 0
    for row in (r for r in hbond_rows if r["task"] == "interaction-location"):
        meta, c = _meta(row), complexes[row["complex_id"]]
        hb, centre = meta["hbond"], np.array(meta["camera"]["center"])
        classes = {x: cls for cls in meta["equivalent_atoms"] for x in cls}
        pocket_id = f"{hb['res_name']} {hb['res_id']} {hb['pocket_atom_name']} {hb['chain']}"
        res = c.res_index[hb["pocket_atom"]]
        pocket = [int(np.flatnonzero((c.res_index == res) & (c.atom_name == x.split()[2]))[0])
                  for x in classes.get(pocket_id, [pocket_id])]
        ligand = [_ligand_row(c, x) for x in classes.get(hb["ligand_atom_name"], [hb["ligand_atom_name"]])]
        front = c.coord - centre  # the front view's camera frame (orthographic)
        moves = {f"move x {-int(np.round((front[a, 0] + front[b, 0]) / 2))}, "
                 f"move y {-int(np.round((front[a, 1] + front[b, 1]) / 2))}" for a in pocket for b in ligand}
        assert row["options"][0] in moves  # the true bond's own move is the answer
        assert not moves & set(row["options"][1:]), row["id"]
        checked += len(moves) > 1
    assert checked


def test_every_t8_decoy_is_worse_than_the_answer_by_the_margin(hbond_rows, complexes):
    """Section 4: the bond's midpoint (rebuilt from the input file and the recorded camera) ends at
    least ``decoy_margin_A`` (0.5 Å) farther from the centre after every decoy than after the answer."""
    margin = task_spec("interaction-location").decoy_margin_A
    assert margin == 0.5
    rows = [r for r in hbond_rows if r["task"] == "interaction-location"]
    assert rows
    for row in rows:
        meta, c = _meta(row), complexes[row["complex_id"]]
        hb = meta["hbond"]
        assert meta["decoy_margin_A"] == margin  # recorded, so any scorer or audit can check it
        front = c.coord - np.array(meta["camera"]["center"])  # the front view's camera frame (orthographic)
        mid = (front[hb["pocket_atom"], :2] + front[hb["ligand_atom"], :2]) / 2
        miss = [float(np.hypot(*(mid + np.array(m.groups(), dtype=float)))) for m in (
            re.fullmatch(r"move x (-?\d+), move y (-?\d+)", o) for o in row["options"])]
        answer, *decoys = miss  # rows carry the correct option at A
        assert row["answer"] == "A" and answer <= np.sqrt(0.5) + 1e-9
        assert min(decoys) >= answer + margin, (row["id"], miss)


def test_no_label_leaves_any_image_of_any_task(all_rows):
    """Section 3: a clipped label would show text-coloured pixels on the image's edge (a label in
    frame has its outline there)."""
    assert {r["task"] for r in all_rows} >= set(paper_tasks())
    for row in all_rows:
        for k, data in enumerate(row["images"]):
            if row["task"] == "zooming" and k == 3:
                continue  # the zoomed image cuts atoms by design; its labels are placed in frame all the same
            image = _png(data)
            ring = np.concatenate([image[0], image[-1], image[:, 0], image[:, -1]])
            for fill in FILL.values():
                assert not np.all(ring == fill, axis=-1).any(), (row["id"], k)


def test_t1_t5_t8_state_the_scale_of_their_images(all_rows):
    """Section 4: "1 Å is N px" with the scale of the camera the images are drawn with (also X2,
    whose types are defined in Å)."""
    seen = set()
    for row in all_rows:
        meta = _meta(row)
        if row["task"] in ("translation", "interaction-location", "interaction-list"):
            assert f"Scale: 1 Å is {meta['camera']['scale_px_per_A']:.1f} px in every image." in row["question"]
        elif row["task"] == "translation-rotation":
            c1, c2 = (round(meta[k]["scale_px_per_A"], 1) for k in ("camera", "query_camera"))
            text = (f"Scale: 1 Å is {c1:.1f} px in every image." if c1 == c2 else
                    f"Scale: 1 Å is {c1:.1f} px in images 1-4 and {c2:.1f} px in images 5-11.")
            assert text in row["question"], row["id"]
        else:
            assert "Scale:" not in row["question"]
            continue
        seen.add(row["task"])
    assert seen == {"translation", "translation-rotation", "interaction-location", "interaction-list"}


def test_t7_records_the_gap_it_draws(all_rows, complexes):
    """Section 4: the gap between the displaced ligand and the pocket (front view x-extents), rebuilt
    from the input and the recorded motion, is ``gap_A`` and lies in the stated 2-8 Å."""
    rows = [r for r in all_rows if r["task"] == "docking"]
    for row in rows:
        meta, c = _meta(row), complexes[row["complex_id"]]
        heavy = ~c.is_hydrogen
        front = c.coord - np.array(meta["camera"]["center"])
        ligand = SE3.from_matrix(np.vstack([np.array(meta["ligand_motion"]), [0, 0, 0, 1]])).apply(front[heavy & c.is_ligand])
        pocket = front[heavy & ~c.is_ligand]
        gap = max(ligand[:, 0].min() - pocket[:, 0].max(), pocket[:, 0].min() - ligand[:, 0].max())
        assert gap == pytest.approx(meta["gap_A"], abs=1e-3) and 2.0 <= gap <= 8.0, row["id"]
    assert len(rows) == 30
