"""Labels the answers rely on : chains, unique ligand labels, key atoms never hidden."""

from __future__ import annotations

import collections
from dataclasses import replace
import re

import numpy as np
import pytest

from misi_geom import SIX_VIEWS, find_hbonds
from ..hbond_text import format_t9
from ..render.reference_labels import label_requests
from misi_render import atom_radii, render_views
from misi_render.labels import LIGAND_LABEL_RULE
from misi_tasks.engine.generate import generate_items
from misi_tasks.eval.parse import parse_answer

HBOND_TASKS = ["residue-ligand", "interaction-location", "pocket-ligand"]


@pytest.fixture(scope="module")
def hb_items(scenes):
    return {pdb: generate_items(scenes[pdb], HBOND_TASKS, seed=4) for pdb in ("2w9r", "4cjq", "2pyy")}


def test_peptide_ligand_gets_unique_labels_by_the_stated_rule(scenes):
    """2w9r's peptide ligand repeats N, CA, O...: each drawn atom gets one label, file names kept where unique."""
    scene = scenes["2w9r"]
    src, c = scene.source, scene.complex
    heavy = c.is_ligand & ~c.is_hydrogen
    labels = c.atom_name[heavy].tolist()
    assert len(set(labels)) == len(labels) and scene.numbered_ligand
    counts = collections.Counter(src.atom_name[heavy].tolist())
    seen = collections.Counter()
    for name, label in zip(src.atom_name[heavy].tolist(), labels):
        if counts[name] == 1:
            assert label == name
        else:
            seen[name] += 1
            assert label == f"{name}_{seen[name]}"
    assert {"N_1", "N_2", "CA_1"} <= set(labels)
    # pocket atoms and hydrogens keep their file names
    assert np.array_equal(c.atom_name[~heavy], src.atom_name[~heavy])


def test_rendered_labels_answers_and_prompts_use_the_same_ligand_labels(hb_items, scenes):
    scene = scenes["2w9r"]
    c = scene.complex
    (front,) = scene.base_views(["front"])
    radius = np.full(len(c), 3.0)
    texts = {lab.text for lab in label_requests(c, front.screen, front.visible, radius, front.size,
                                                 residue_labels=False)}
    assert texts == set(c.atom_name[front.visible & c.is_ligand].tolist())
    (t9,) = hb_items["2w9r"]["pocket-ligand"]
    assert t9.answer == format_t9(find_hbonds(scene.source), c)
    lig_names = set(c.atom_name[c.is_ligand].tolist())
    for bond in t9.answer.split("; "):
        assert bond.split(", ")[1] in lig_names
    assert re.search(r"_\d", t9.answer), "2w9r's H-bonds involve numbered peptide atoms"
    assert parse_answer("T9", t9.answer).text == t9.answer  # the parser reads N_2 etc.
    for task in HBOND_TASKS:
        for item in hb_items["2w9r"][task]:
            assert LIGAND_LABEL_RULE in item.question
    for item in hb_items["2pyy"]["pocket-ligand"]:
        assert LIGAND_LABEL_RULE not in item.question  # no repeated names: no rule to state


def test_two_chain_pocket_labels_carry_the_chain(hb_items, scenes):
    scene = scenes["4cjq"]
    assert scene.residue_chain and not scenes["2pyy"].residue_chain
    c = scene.complex
    (front,) = scene.base_views(["front"])
    radius = np.full(len(c), 3.0)
    res_texts = [lab.text for lab in label_requests(c, front.screen, front.visible, radius, front.size,
                                                     ligand_labels=False, residue_chain=True)]
    assert res_texts and all(re.fullmatch(r"[A-Z0-9]{1,4} -?\d+[A-Z]? [A-Z?]", t) for t in res_texts)
    assert {t[-1] for t in res_texts} == {"A", "B"}
    for task in HBOND_TASKS:
        for item in hb_items["4cjq"][task]:
            assert ("chain id (for example \"ASP 29 A\")" in item.question
                    or "(name, number and chain id, since the pocket spans more than one chain)" in item.question)
    for item in hb_items["4cjq"]["residue-ligand"]:
        assert re.fullmatch(r"[A-Z0-9]{1,4} -?\d+[A-Z]? [A-Z]", item.metadata["residue"])
        assert f"Does {item.metadata['residue']} form" in item.question
    for item in hb_items["2pyy"]["residue-ligand"]:
        assert re.fullmatch(r"[A-Z0-9]{1,4} -?\d+[A-Z]?", item.metadata["residue"])


def _bare(options):
    """The same render options without labels."""
    return replace(options, residue_labels=False, ligand_labels=False)


def _check_key_atoms_not_hidden(labelled, bare, key, radius_A):
    """No label but a key atom's own covers a key atom's disc; on pixels, the inner half of each key
    disc outside the key labels' boxes is exactly as drawn without labels."""
    s, size = bare.screen, bare.size
    yy, xx = np.mgrid[0:size, 0:size]
    key_boxes = [p.box for p in labelled.labels if p.key]
    outside_key_labels = np.ones((size, size), dtype=bool)
    for x0, y0, x1, y1 in key_boxes:
        outside_key_labels[max(0, int(y0)) : max(0, int(y1)), max(0, int(x0)) : max(0, int(x1))] = False
    for i in np.flatnonzero(key & np.isfinite(s.px_per_A)):
        r = radius_A[i] * s.px_per_A[i]
        for p in labelled.labels:
            if not p.key:
                x0, y0, x1, y1 = p.box
                nx, ny = np.clip(s.x_px[i], x0, x1), np.clip(s.y_px[i], y0, y1)
                assert (nx - s.x_px[i]) ** 2 + (ny - s.y_px[i]) ** 2 >= r ** 2, (p.text, i)
        disc = ((xx + 0.5 - s.x_px[i]) ** 2 + (yy + 0.5 - s.y_px[i]) ** 2 <= (0.5 * r) ** 2) & outside_key_labels
        assert np.array_equal(labelled.image[disc], bare.image[disc]), i


@pytest.mark.parametrize("pdb_id", ["2w9r", "4cjq", "2pyy"])
def test_labels_never_hide_the_atoms_a_question_is_about(hb_items, scenes, pdb_id):
    scene = scenes[pdb_id]
    for item in hb_items[pdb_id]["interaction-location"]:
        key = item.renders.extra["key_atoms"] & ~scene.complex.is_hydrogen
        radius = atom_radii(scene.complex, "ball-and-stick")
        bare = render_views(scene.complex, SIX_VIEWS, frame=scene.frame, options=_bare(scene.options))
        for labelled, plain in zip(item.renders.extra["views"], bare):
            if (key & labelled.visible).any():
                assert any(p.key for p in labelled.labels)  # the bond's visible atoms are labelled
            _check_key_atoms_not_hidden(labelled, plain, key, radius)
    for item in hb_items[pdb_id]["residue-ligand"]:
        sub = item.renders.extra["complex"]
        key = (sub.res_index == item.metadata["res_index"]) & ~sub.is_hydrogen  # hydrogens are not drawn
        first = item.renders.extra["views"][0]
        bare = render_views(sub, SIX_VIEWS, frame=first.frame, options=_bare(first.options))
        for labelled, plain in zip(item.renders.extra["views"], bare):
            _check_key_atoms_not_hidden(labelled, plain, key, atom_radii(sub, "ball-and-stick"))


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from misi_geom import Complex  # noqa: E402
from misi_render.labels import unique_ligand_labels  # noqa: E402


@settings(max_examples=60, deadline=None)
@given(names=st.lists(st.sampled_from(["N", "CA", "C", "O", "N_1", "CD1", "OXT", "ABCDEFGH", "ABCDEFG"]),
                      min_size=1, max_size=40),
       hydrogens=st.lists(st.booleans(), min_size=40, max_size=40))
def test_unique_ligand_labels_are_unique_and_keep_unique_file_names(names, hydrogens):
    n = len(names)
    h = np.array(hydrogens[:n])
    c = Complex.from_atoms(np.zeros((n, 3)), ["H" if x else "C" for x in h], atom_name=names, is_ligand=[True] * n)
    labels = unique_ligand_labels(c)
    drawn = ~c.is_hydrogen
    got = labels[drawn].tolist()
    assert len(set(got)) == len(got) and all(len(x) <= 8 for x in got)
    counts = collections.Counter(np.array(names)[drawn].tolist())
    for name, label in zip(np.array(names)[drawn].tolist(), got):
        if counts[name] == 1:
            assert label == name
    assert labels[~drawn].tolist() == np.array(names)[~drawn].tolist()
