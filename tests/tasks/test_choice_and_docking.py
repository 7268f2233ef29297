"""T5, T6 options and T7 docking: correct options follow the spec, decoys never equal them."""

from __future__ import annotations

import re

import numpy as np
import pytest

from misi_geom import SE3
from misi_tasks.tasks.commands import Move, Roll, command_motion, sequence_motion
from misi_tasks.tasks.decoys import SSIM_MAX, image_similarity
from misi_tasks.engine.generate import generate_items


def _se3(rows) -> SE3:
    return SE3.from_matrix(np.array(rows))


def _cmd(d):
    return (Move if d["op"] == "move" else Roll)(d["axis"], d["value"])


@pytest.fixture(scope="module")
def mc_items(scenes):
    return generate_items(
        scenes["2pyy"], ["translation-rotation", "rotation-rotation"], seed=5,
        partners={"1h1d": scenes["1h1d"], "4cjq": scenes["4cjq"]},
    )


def test_rotation_rotation_correct_option_applies_the_pair_twice(mc_items):
    for item in mc_items["rotation-rotation"]:
        f1, f2 = _cmd(item.metadata["f1"]), _cmd(item.metadata["f2"])
        assert isinstance(f1, Roll) and isinstance(f2, Roll) and f1.axis != f2.axis
        once = sequence_motion([f1, f2])
        assert _se3(item.metadata["demo_motion"]).allclose(once)
        motions = [_se3(m) for m in item.metadata["option_motions"]]
        assert motions[0].allclose(once.then(once), atol=1e-9)
        for decoy in motions[1:]:
            assert not decoy.allclose(motions[0], atol=1e-6)
        assert len(set(item.metadata["options_canonical"])) == 4


def test_decoy_images_differ_visibly(mc_items):
    for task in ("rotation-rotation", "translation-rotation"):
        for item in mc_items[task]:
            correct, *decoys = item.renders.options
            for rv in decoys:
                assert image_similarity(rv.image, correct.image) < SSIM_MAX


def test_no_option_looks_like_image_4_or_another_option(mc_items):
    """A T6 decoy that cancels to the identity drew image 4 again; options must all differ."""
    for task in ("rotation-rotation", "translation-rotation"):
        for item in mc_items[task]:
            opts = [rv.image for rv in item.renders.options]
            shown = item.renders.extra["demo_after"].image
            for k, img in enumerate(opts):
                if task == "rotation-rotation":
                    assert image_similarity(img, shown) < SSIM_MAX, (item.id, k)
                for other in opts[k + 1:]:
                    assert not np.array_equal(img, other) and image_similarity(img, other) < SSIM_MAX


@pytest.mark.parametrize("seed", range(40))
def test_t6_scheme_3_axis_differs_from_f1_and_f2(seed):
    """Scheme 3 turns f1 about the one axis used by neither f1 nor f2 (T6), any axis but f1's (T5)."""
    from misi_tasks.tasks.decoys import t5t6_decoy

    rng = np.random.default_rng(seed)
    a1, a2 = rng.choice(list("xyz"), 2, replace=False)
    f1, f2 = Roll(str(a1), 30), Roll(str(a2), -45)
    (g1, g2) = t5t6_decoy(3, f1, f2, rng)
    assert g1.axis not in (f1.axis, f2.axis) and g1.angle_deg == 30 and g2.axis == f2.axis and g2.angle_deg != -45
    m1, m2 = t5t6_decoy(3, Move("x", 2), Roll("y", 30), rng)
    assert m1 == Move("y", 2) and m2.axis == "y"


def test_decoys_follow_the_three_schemes(mc_items):
    for item in mc_items["translation-rotation"]:
        f1, f2 = _cmd(item.metadata["f1"]), _cmd(item.metadata["f2"])
        assert isinstance(f1, Move) and f1.axis in "xy" and isinstance(f2, Roll)
        opts = item.metadata["options_canonical"]
        parsed = [re.fullmatch(r"move ([xy]) (-?\d+), roll ([xyz]) (-?\d+)", o).groups() for o in opts]
        (ax, d, rax, a), s1, s2, s3 = [(p[0], int(p[1]), p[2], int(p[3])) for p in parsed]
        assert s1[0] == ax and s1[1] != d and np.sign(s1[1]) == np.sign(d) and s1[3] != a  # magnitudes
        assert s2[0] == ax and s2[1] == -d and s2[3] != a  # sign of f1, magnitude of f2
        assert s3[0] != ax and s3[1] == d and s3[3] != a  # axis of f1, magnitude of f2
        assert s1[2] == s2[2] == s3[2] == rax
    for item in mc_items["rotation-rotation"]:
        opts = item.metadata["options_canonical"]
        parsed = [re.fullmatch(r"roll ([xyz]) (-?\d+), roll ([xyz]) (-?\d+)", o).groups() for o in opts]
        (ax1, _, ax2, _), _, _, s3 = parsed
        assert s3[0] not in (ax1, ax2) and s3[2] == ax2  # scheme 3: an axis used by neither


def test_translation_rotation_correct_option_is_f2_f1_of_c2(mc_items, scenes):
    for item in mc_items["translation-rotation"]:
        assert item.metadata["query_complex"] != "2pyy"
        query = scenes[item.metadata["query_complex"]]
        f1, f2 = _cmd(item.metadata["f1"]), _cmd(item.metadata["f2"])
        correct = item.renders.options[0]
        q = query.camera_frame("front")
        expect = command_motion(f2, center=command_motion(f1).apply(np.zeros(3))).apply(command_motion(f1).apply(q))
        np.testing.assert_allclose(correct.screen.x_A, expect[:, 0], atol=1e-9)
        np.testing.assert_allclose(correct.screen.y_A, expect[:, 1], atol=1e-9)


@pytest.mark.parametrize("pdb_id", ["2pyy", "2w9r"])
def test_docking_answer_undoes_the_displacement(scenes, pdb_id):
    scene = scenes[pdb_id]
    (items,) = generate_items(scene, ["docking"], seed=11).values()
    assert len(items) == 3
    lig = scene.complex.is_ligand
    q = scene.camera_frame("front")
    for item in items:
        m = re.fullmatch(r"roll ([xyz]) (-?\d+), move x (-?\d+)", item.answer)
        assert m, item.answer
        axis, angle, d = m.group(1), int(m.group(2)), int(m.group(3))
        assert angle % 15 == 0 and angle != 0 and d != 0
        together = item.renders.extra["together"]
        displaced = np.column_stack([together.screen.x_A, together.screen.y_A, together.screen.depth])
        np.testing.assert_allclose(displaced[~lig], q[~lig], atol=1e-9)  # the pocket never moves
        heavy_lig = lig & ~scene.complex.is_hydrogen
        center = displaced[heavy_lig].mean(axis=0)
        undone = command_motion(Move("x", d)).apply(command_motion(Roll(axis, angle), center).apply(displaced[lig]))
        np.testing.assert_allclose(undone, q[lig], atol=1e-9)
        # no overlap with the pocket along x in the front view, and everything inside the frame
        px, lx = item.metadata["pocket_x_range"], item.metadata["ligand_x_range"]
        assert lx[0] > px[1] or lx[1] < px[0]
        heavy = ~scene.complex.is_hydrogen
        size = together.size
        assert np.all((together.screen.x_px[heavy] >= 0) & (together.screen.x_px[heavy] < size))
        assert np.all((together.screen.y_px[heavy] >= 0) & (together.screen.y_px[heavy] < size))
