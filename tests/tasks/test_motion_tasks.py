"""T1-T3: answers agree with the recorded motion, the screen coordinates and the pixels."""

from __future__ import annotations

import re

import numpy as np
import pytest
from skimage.registration import phase_cross_correlation

from misi_tasks.engine.generate import generate_items


@pytest.fixture(scope="module")
def items(scene):
    return generate_items(scene, ["translation", "rotation", "zooming"], seed=3)


def _grey(rv):
    return rv.image.astype(float).mean(axis=2)


def test_translation_answers_match_metadata_and_coordinates(items, scene):
    got = items["translation"]
    assert sorted(i.metadata["command"]["axis"] for i in got) == ["x", "y"]  # test split: one per axis
    for item in got:
        m = re.fullmatch(r"move ([xy]) (-?\d+)", item.answer)
        assert m, item.answer
        axis, d = m.group(1), int(m.group(2))
        assert d != 0 and -4 <= d <= 4
        assert item.metadata["command"] == {"op": "move", "axis": axis, "value": d}
        before, after = item.renders.extra["before"][0], item.renders.extra["after"]
        # the recorded motion maps before-coordinates onto after-coordinates
        motion = np.array(item.metadata["motion"])
        q = scene.camera_frame("front")
        moved = q @ motion[:, :3].T + motion[:, 3]
        np.testing.assert_allclose(after.screen.x_A, moved[:, 0], atol=1e-9)
        np.testing.assert_allclose(after.screen.y_A, moved[:, 1], atol=1e-9)
        # every projected atom moved by d * scale pixels along the axis
        shift = np.array([after.screen.x_px - before.screen.x_px, before.screen.y_px - after.screen.y_px])
        expect = np.array([d, 0.0]) if axis == "x" else np.array([0.0, d])
        np.testing.assert_allclose(shift.T, np.broadcast_to(expect * after.scale, shift.T.shape), atol=1e-6)


def test_translation_pixel_shift_matches_answer(items, scene):
    """Phase correlation between image 1 and image 4 recovers d * scale pixels."""
    for item in items["translation"]:
        axis, d = item.metadata["command"]["axis"], item.metadata["command"]["value"]
        before, after = item.renders.extra["before"][0], item.renders.extra["after"]
        (dy, dx), _, _ = phase_cross_correlation(_grey(after), _grey(before), upsample_factor=4)
        measured = dx if axis == "x" else -dy
        other = dy if axis == "x" else dx
        assert measured == pytest.approx(d * after.scale, abs=1.5)
        assert abs(other) <= 1.5


def test_rotation_turns_about_the_centroid(items, scene):
    for item in items["rotation"]:
        m = re.fullmatch(r"roll ([xyz]) (-?\d+)", item.answer)
        assert m and int(m.group(2)) % 15 == 0 and int(m.group(2)) != 0
        after = item.renders.extra["after"]
        q = scene.camera_frame("front")
        from misi_geom import SE3

        expect = SE3.rotation(m.group(1), int(m.group(2))).apply(q)
        np.testing.assert_allclose(after.screen.x_A, expect[:, 0], atol=1e-9)
        np.testing.assert_allclose(after.screen.depth, expect[:, 2], atol=1e-9)
        # the centre of rotation (centroid of the heavy atoms) stays at the screen centre
        heavy = ~scene.complex.is_hydrogen
        cx = after.screen.x_px[heavy].mean()
        assert cx == pytest.approx(scene.options.size / 2, abs=1e-6)


def test_zoom_magnifies_by_D_over_D_minus_d(items, scene):
    got = items["zooming"]
    assert len(got) == 2
    for item in got:
        d = int(re.fullmatch(r"move z (\d+)", item.answer).group(1))
        assert 40 <= d <= 60
        before, after = item.renders.extra["before"][0], item.renders.extra["after"]
        D = item.metadata["camera_after"]["distance"]
        # the prompt states D to 0.1 Å, and that is the D the images were drawn with
        stated = float(re.search(r"D = (\d+\.\d) Å", item.question).group(1))
        assert stated == round(scene.frame.distance, 1) and D == pytest.approx(stated, abs=1e-9)
        assert D - d >= 5.0
        half = scene.options.size / 2
        r0 = np.hypot(before.screen.x_px - half, before.screen.y_px - half)
        r1 = np.hypot(after.screen.x_px - half, after.screen.y_px - half)
        np.testing.assert_allclose(r1, r0 * D / (D - d), rtol=1e-9)


def test_zoom_answers_differ_visibly_from_their_neighbours(items, scene):
    """Every other allowed answer (d' != d in [40, 60]) puts some in-frame atom >= 0.5 % of the width away."""
    from misi_geom import SE3

    for item in items["zooming"]:
        d = item.metadata["command"]["value"]
        frame, opts = item.renders.extra["after"].frame, item.renders.extra["after"].options
        base, size = frame.zoomed(-frame.zoom_z), opts.size
        heavy = ~scene.complex.is_hydrogen
        q = scene.camera_frame("front")[heavy]
        after = item.renders.extra["after"].screen
        for other in range(40, 61):
            if other == d or base.distance - other < 1.5:
                continue
            s = opts.project(base.zoomed(other), SE3.move("z", other).apply(q))
            inside = ((s.x_px >= 0) & (s.x_px < size) & (s.y_px >= 0) & (s.y_px < size)
                      & (after.x_px[heavy] >= 0) & (after.x_px[heavy] < size)
                      & (after.y_px[heavy] >= 0) & (after.y_px[heavy] < size))
            gap = np.hypot(s.x_px - after.x_px[heavy], s.y_px - after.y_px[heavy])[inside]
            assert gap.size and gap.max() >= 0.005 * size, (item.id, other)


def test_zoom_skips_answers_too_close_to_a_neighbour(scene):
    """With a separation demand above what the image allows, no zoom is asked."""
    from misi_tasks.tasks.base import GenContext, TaskSkipped
    from misi_tasks.tasks.motion import ZoomingTask

    with pytest.raises(TaskSkipped, match="visible difference"):
        ZoomingTask(min_separation=2.0).generate(scene, GenContext(options=scene.run_options))
