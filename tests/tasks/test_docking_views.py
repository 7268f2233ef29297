"""T7: every image of the displaced ligand is a view of the one displaced 3-D ligand.

The ligand is displaced once in the front camera frame; its left image must equal that displaced
ligand turned +90° about Y (top: +90° about X), on projected coordinates and on pixels.  Also: the
gap is drawn at random, every atom is in frame, and the near-equivalent answers are exactly the
allowed answers within 1 Å RMSD of the bound pose and score as the exact answer.
"""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from misi_geom import view_rotation
from misi_render import render_views
from misi_render.palette import atom_radii
from misi_tasks.tasks.commands import Move, Roll, command_motion
from misi_tasks.engine.generate import generate_items
from misi_tasks.eval.score import score_item
from misi_tasks.tasks.docking import EQUIVALENT_RMSD_A

SAMPLES = ["1h1d", "2pyy", "2w9r", "3pvu", "4cjq"]


@pytest.fixture(scope="module")
def docking(scenes):
    return {pdb: generate_items(scenes[pdb], ["docking"], seed=3)["docking"] for pdb in SAMPLES}


def _frame(screen) -> np.ndarray:
    return np.column_stack([screen.x_A, screen.y_A, screen.depth])


@pytest.mark.parametrize("pdb_id", SAMPLES)
def test_side_views_turn_the_front_frame_displaced_ligand(docking, scenes, pdb_id):
    scene = scenes[pdb_id]
    lig = scene.complex.is_ligand
    q = scene.camera_frame("front")
    for item in docking[pdb_id]:
        front, left, top = item.renders.extra["ligand"]
        cam = item.renders.extra["frame"]
        displaced = item.renders.extra["motion"].apply(q[lig])  # displaced once, in the front frame
        np.testing.assert_allclose(_frame(front.screen), displaced, atol=1e-9)
        # the together image shows the same displaced ligand, and the pocket unmoved
        together = _frame(item.renders.extra["together"].screen)
        np.testing.assert_allclose(together[lig], displaced, atol=1e-9)
        np.testing.assert_allclose(together[~lig], q[~lig], atol=1e-9)
        ligand = scene.complex[lig]
        for rv, view in ((left, "left"), (top, "top")):
            turned = displaced @ view_rotation(view).T
            np.testing.assert_allclose(_frame(rv.screen), turned, atol=1e-9)
            expect = rv.options.project(cam, turned)
            np.testing.assert_allclose(rv.screen.x_px, expect.x_px, atol=1e-6)
            np.testing.assert_allclose(rv.screen.y_px, expect.y_px, atol=1e-6)
            # pixels: the front view of the displaced ligand turned by hand is the same image
            (by_hand,) = render_views(ligand.with_coord(turned + cam.center), ["front"], frame=cam,
                                      options=rv.options)
            diff = np.abs(rv.image.astype(int) - by_hand.image.astype(int))
            assert diff.max() <= 2 and (diff > 0).mean() < 1e-3, (item.id, view)


def test_a_motion_in_side_view_axes_would_differ(docking, scenes):
    """The check above can fail: the old behaviour (motion after the view turn) moves the ligand elsewhere."""
    scene = scenes["2pyy"]
    lig = scene.complex.is_ligand
    item = docking["2pyy"][0]
    frame, motion = item.renders.extra["frame"], item.renders.extra["motion"]
    left = item.renders.extra["ligand"][1]
    wrong = motion.apply(scene.frame.to_camera_frame(scene.complex.coord[lig], "left"))  # turn, then move
    assert np.abs(_frame(left.screen) - wrong).max() > 5.0
    assert np.abs(left.options.project(frame, wrong).x_px - left.screen.x_px).max() > 5.0 * left.scale


@pytest.mark.parametrize("pdb_id", SAMPLES)
def test_every_atom_of_every_docking_image_is_in_frame(docking, scenes, pdb_id):
    for item in docking[pdb_id]:
        moved = item.renders.extra["complex"]
        rvs = item.renders.extra["pocket"] + item.renders.extra["ligand"] + [item.renders.extra["together"]]
        parts = [moved[~moved.is_ligand]] * 3 + [moved[moved.is_ligand]] * 3 + [moved]
        for rv, part in zip(rvs, parts):
            heavy = ~part.is_hydrogen
            r = atom_radii(part, "ball-and-stick")[heavy] * rv.screen.px_per_A[heavy]
            x, y = rv.screen.x_px[heavy], rv.screen.y_px[heavy]
            assert np.all((x - r >= 0) & (x + r <= rv.size) & (y - r >= 0) & (y + r <= rv.size)), (item.id, rv.name)


def test_gap_is_drawn_at_random_within_its_range(docking):
    gaps = [it.metadata["gap_A"] for items in docking.values() for it in items]
    assert all(2.0 <= g <= 8.0 for g in gaps)
    assert len(set(gaps)) == len(gaps) and max(gaps) - min(gaps) > 2.0
    for items in docking.values():
        for it in items:
            px, lx, g = it.metadata["pocket_x_range"], it.metadata["ligand_x_range"], it.metadata["gap_A"]
            sep = lx[0] - px[1] if lx[0] > px[1] else px[0] - lx[1]
            assert g - 1e-3 <= sep < g + 1.0 + 1e-3  # the integer move overshoots the drawn gap by < 1 Å


def _rmsd(scene, item, answer: str) -> float:
    m = re.fullmatch(r"roll ([xyz]) (-?\d+), move x (-?\d+)", answer)
    heavy_lig = scene.complex.is_ligand & ~scene.complex.is_hydrogen
    bound = scene.camera_frame("front")[heavy_lig]
    displaced = item.renders.extra["motion"].apply(bound)
    docked = command_motion(Move("x", int(m[3]))).apply(
        command_motion(Roll(m[1], int(m[2])), displaced.mean(axis=0)).apply(displaced))
    return float(np.sqrt(np.mean(np.sum((docked - bound) ** 2, axis=1))))


@pytest.mark.parametrize("pdb_id", ["2pyy", "4cjq", "2w9r"])
def test_equivalent_answers_are_every_allowed_answer_within_1A(docking, scenes, pdb_id):
    scene = scenes[pdb_id]
    for item in docking[pdb_id]:
        assert _rmsd(scene, item, item.answer) < 1e-9
        listed = set(item.metadata["equivalent_answers"])
        assert item.answer not in listed
        brute = set()
        for axis in "xyz":
            for angle in [a for a in range(-90, 91, 15) if a]:
                for d in range(-45, 46):
                    text = f"roll {axis} {angle}, move x {d}"
                    if d and text != item.answer and _rmsd(scene, item, text) < EQUIVALENT_RMSD_A - 1e-9:
                        brute.add(text)
        assert listed == brute, item.id


def test_equivalent_answers_score_as_the_exact_answer(docking):
    items = [it for its in docking.values() for it in its if it.metadata["equivalent_answers"]]
    assert items, "the small sample ligands have near-equivalent answers"
    for it in items:
        row = {"id": it.id, "task": "docking", "answer": it.answer, "options": [],
               "metadata": json.dumps(it.metadata)}
        for eq in it.metadata["equivalent_answers"]:
            s = score_item(row, f"I think: {eq}")
            assert s.score == 1.0 and s.exact
        roll, move = it.answer.split(", ")
        off = f"{roll}, move x {int(move.split()[-1]) + 3}"
        if off not in it.metadata["equivalent_answers"]:
            assert score_item(row, off).score == pytest.approx(0.5 + 0.5 * (1 - 3 / 30))


def test_a_reply_is_scored_against_the_nearest_equivalent():
    """Hand-made T7 item: exact 'roll x 60, move x -20', equivalent 'roll x 45, move x -20'."""
    row = {"id": "docking/test/x/000", "task": "docking", "answer": "roll x 60, move x -20", "options": [],
           "metadata": json.dumps({"equivalent_answers": ["roll x 45, move x -20"]})}
    assert score_item(row, "roll x 45, move x -20").score == 1.0
    assert score_item(row, "roll x 45, move x -20").exact
    # off the equivalent by 3 Å: half roll (exact) + half move (1 - 3/30); off the truth it would be lower
    assert score_item(row, "roll x 45, move x -17").score == pytest.approx(0.5 + 0.5 * (1 - 3 / 30))
    assert not score_item(row, "roll x 45, move x -17").exact
    assert score_item(row, "roll x 30, move x -20").score == pytest.approx(0.5 * (1 - 15 / 180) + 0.5)
    assert score_item(row, "roll y 45, move x -20").score == 0.5  # wrong axis: move half only
    row_plain = dict(row, metadata="{}")
    assert score_item(row_plain, "roll x 45, move x -20").score == pytest.approx(0.5 * (1 - 15 / 180) + 0.5)
