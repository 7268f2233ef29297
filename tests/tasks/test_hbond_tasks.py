"""T4, T8, T9: answers equal the detector's bonds; T8's move centres the bond midpoint."""

from __future__ import annotations

import re

import numpy as np
import pytest

from misi_geom import find_hbonds, hbond_pairs
from ..hbond_text import format_t9
from misi_tasks.engine.generate import generate_items
from misi_tasks.tasks.base import TaskSkipped
from misi_tasks.definitions.hbonds import ResidueLigandSpec
from misi_tasks.tasks.hbonds import ResidueLigandTask, t8_decoys

HARD_NEGATIVE_CUTOFF = ResidueLigandSpec().hard_negative_cutoff_A


@pytest.fixture(scope="module")
def items(scenes):
    return {pdb: generate_items(s, ["residue-ligand", "interaction-location", "pocket-ligand"], seed=2)
            for pdb, s in scenes.items() if pdb in ("2pyy", "4cjq")}


def test_t9_answer_equals_the_detector(items, scenes):
    for pdb, got in items.items():
        c = scenes[pdb].complex
        (item,) = got["pocket-ligand"]
        assert item.answer == format_t9(find_hbonds(c), c)
        entries = item.answer.split("; ")
        assert len(entries) == len(hbond_pairs(find_hbonds(c), c)) == len(item.metadata["hbonds"])
        for e in entries:
            assert re.fullmatch(r"[A-Z0-9]{1,4} -?\d+[A-Z]? \S+ \S+, \S+", e), e
    assert "GLU 170 N A, O29" in items["4cjq"]["pocket-ligand"][0].answer  # chain ids kept
    assert " ?, " in items["2pyy"]["pocket-ligand"][0].answer  # blank chain written ?


def test_t4_positive_and_negative(items, scenes):
    for pdb, got in items.items():
        c = scenes[pdb].complex
        labels = sorted(i.metadata["label"] for i in got["residue-ligand"])
        assert labels == ["negative", "positive"]
        pairs = hbond_pairs(find_hbonds(c), c)
        for item in got["residue-ligand"]:
            res = item.metadata["res_index"]
            sub = item.renders.extra["complex"]
            assert set(np.unique(sub.res_index[~sub.is_ligand])) == {res}
            expected = [f"{c.res_name[i]} {c.atom_name[i]}, {c.atom_name[j]}" for i, j in pairs if c.res_index[i] == res]
            if item.metadata["label"] == "negative":
                assert item.answer == "No" and not expected
            else:
                assert item.answer == "Yes: " + "; ".join(expected)
            assert len(item.images) == 6


def test_t4_negatives_are_hard_by_default_and_say_so(items, scenes):
    """Default negatives touch the ligand (<= 4.5 Å) with no H-bond; metadata says so."""
    for pdb, got in items.items():
        c = scenes[pdb].complex
        lig = c.coord[c.is_ligand & ~c.is_hydrogen]
        for item in got["residue-ligand"]:
            if item.metadata["label"] != "negative":
                assert item.metadata["negative_pool"] is None
                continue
            assert item.metadata["negative_pool"] == "hard" and item.answer == "No"
            atoms = c.coord[(c.res_index == item.metadata["res_index"]) & ~c.is_hydrogen]
            assert np.min(np.linalg.norm(atoms[:, None] - lig[None], axis=2)) <= HARD_NEGATIVE_CUTOFF


def test_t4_paper_negatives_and_fallback(scenes):
    scene = scenes["2pyy"]
    _, paper, _, pool = ResidueLigandTask(hard_negatives=False)._candidates(scene)
    _, hard, _, hard_pool = ResidueLigandTask()._candidates(scene)
    assert pool == "any" and hard_pool == "hard" and set(hard) < set(paper)
    # a complex whose ligand touches no non-bonded residue falls back to any non-bonded residue
    from misi_tasks.tasks.scene import Scene

    c = scene.complex
    far = Scene(scene.source.with_coord(c.coord + np.where(c.is_ligand[:, None], 30.0, 0.0)), scene.run_options)
    _, negatives, _, pool = ResidueLigandTask()._candidates(far)
    assert negatives and pool == "any (no hard negative)"


def test_t4_hard_negatives_touch_the_ligand(scenes):
    scene = scenes["2pyy"]
    c = scene.complex
    gen = ResidueLigandTask(hard_negatives=True)
    _, negatives, _, _ = gen._candidates(scene)
    assert negatives
    lig = c.coord[c.is_ligand & ~c.is_hydrogen]
    for r in negatives:
        atoms = c.coord[(c.res_index == r) & ~c.is_hydrogen]
        assert np.min(np.linalg.norm(atoms[:, None] - lig[None], axis=2)) <= HARD_NEGATIVE_CUTOFF


def test_t8_move_brings_the_bond_midpoint_to_the_centre(items, scenes):
    for pdb, got in items.items():
        for item in got["interaction-location"]:
            front = item.renders.extra["front"].screen
            i, j = item.metadata["hbond"]["pocket_atom"], item.metadata["hbond"]["ligand_atom"]
            dx, dy = (int(v) for v in re.fullmatch(r"move x (-?\d+), move y (-?\d+)", item.options[0]).groups())
            mid = np.array([(front.x_A[i] + front.x_A[j]) / 2 + dx, (front.y_A[i] + front.y_A[j]) / 2 + dy])
            assert np.all(np.abs(mid) <= 0.5)
            assert len(set(item.options)) == 4 and (dx, dy) != (0, 0)


@pytest.mark.parametrize("move", [(3, -2), (1, 0), (0, -7), (-1, -1), (12, 4)])
def test_t8_decoys_perturb_sign_and_magnitude(move):
    rng = np.random.default_rng(0)
    for _ in range(20):
        decoys = t8_decoys(*move, rng)
        assert len(set(decoys)) == 3 and move not in decoys and (0, 0) not in decoys
        flip, grow, both = decoys
        assert [abs(v) for v in flip] == [abs(v) for v in move]  # a pure sign change
        assert sum(a != b for a, b in zip(grow, move)) == 1  # one component's magnitude changed


def test_t9_skips_a_complex_without_hbonds(scenes):
    scene = scenes["2pyy"]
    lig_far = scene.complex.with_coord(scene.complex.coord + np.where(scene.complex.is_ligand[:, None], 30.0, 0.0))
    from misi_tasks.tasks.scene import Scene

    with pytest.raises(TaskSkipped):
        generate_items(Scene(lig_far, scene.run_options), ["pocket-ligand"])
