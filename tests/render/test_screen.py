"""Pixels of a camera frame (``misi_render.RenderOptions.project``): the numbers task answers use.

T1: a move of d Å shifts every atom by d * scale pixels at any image size; T3: ``move z d``
magnifies by D / (D - d); perspective agrees with orthographic in the centre plane; a fitted frame
keeps every atom inside the image in every view and rotation.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from misi_geom import SE3, VIEW_NAMES, CameraFrame, fit_frame
from misi_geom.samples import SAMPLE_IDS
from misi_render import RenderOptions
from .scenes import load_sample

views = st.sampled_from(VIEW_NAMES)
sample_ids = st.sampled_from(SAMPLE_IDS)
sizes = st.integers(8, 2048)
projections = st.sampled_from(["orthographic", "perspective"])
_HEAVY = {}


def _heavy(pdb_id: str) -> np.ndarray:
    if pdb_id not in _HEAVY:
        c = load_sample(pdb_id)
        _HEAVY[pdb_id] = c.coord[~c.is_hydrogen]
    return _HEAVY[pdb_id]


def _screen(opts: RenderOptions, frame: CameraFrame, coord, view="front", shift=None):
    """Screen coordinates in ``view``, optionally shifted in that view's camera axes (Å)."""
    q = frame.to_camera_frame(coord, view)
    return opts.project(frame, q if shift is None else shift.apply(q))


def test_scale_and_centre_follow_the_spec():
    frame = fit_frame(np.array([[0.0, 0, 0], [20.0, 0, 0]]))
    opts = RenderOptions(size=512)
    assert opts.scale(frame) == pytest.approx(512 / (2 * 10.0 * 1.05))
    s = opts.project(frame, frame.to_camera_frame(frame.center[None, :]))
    assert (s.x_px[0], s.y_px[0]) == (256.0, 256.0)
    rec = opts.camera_dict(frame)
    assert rec["size"] == 512 and rec["projection"] == "orthographic"
    assert rec["scale_px_per_A"] == round(opts.scale(frame), 6) and rec["radius"] == round(frame.radius, 6)


@given(pdb_id=sample_ids, view=views, axis=st.sampled_from("xy"), d=st.integers(-4, 4) | st.floats(-20, 20),
       size=sizes)
def test_translation_moves_every_atom_by_d_times_scale_at_any_size(pdb_id, view, axis, d, size):
    """T1: a move of d Å along a screen axis shifts every projected atom by d * scale pixels (y: screen y
    grows downward), whatever the image size."""
    c = _heavy(pdb_id)
    frame, opts = fit_frame(c), RenderOptions(size=size)
    before = _screen(opts, frame, c, view)
    after = _screen(opts, frame, c, view, SE3.move(axis, d))
    dx, dy = after.x_px - before.x_px, after.y_px - before.y_px
    k = opts.scale(frame)
    if axis == "x":
        assert np.allclose(dx, d * k) and np.allclose(dy, 0)
    else:
        assert np.allclose(dy, -d * k) and np.allclose(dx, 0)


@given(pdb_id=sample_ids, view=views, frac=st.floats(-1.0, 0.9), size=sizes)
def test_zoom_scales_distances_from_the_screen_centre(pdb_id, view, frac, size):
    """T3: ``move z d`` (``CameraFrame.zoomed(d)``) multiplies distances from the centre by D / (D - d)."""
    c = _heavy(pdb_id)
    frame, opts = fit_frame(c), RenderOptions(size=size)
    d = frac * (frame.distance - 2.0)
    half = size / 2
    before = _screen(opts, frame, c, view)
    after = _screen(opts, frame.zoomed(d), c, view)
    factor = frame.distance / (frame.distance - d)
    assert np.allclose(after.x_px - half, (before.x_px - half) * factor)
    assert np.allclose(after.y_px - half, (before.y_px - half) * factor)


@given(
    xy=arrays(np.float64, st.tuples(st.integers(1, 20), st.just(2)), elements=st.floats(-30, 30)),
    radius=st.floats(3, 40),
    size=st.integers(64, 1024),
)
def test_perspective_agrees_with_orthographic_in_the_centre_plane(xy, radius, size):
    q = np.column_stack([xy, np.zeros(len(xy))])
    frame = CameraFrame(center=np.zeros(3), radius=radius)
    ortho, persp = RenderOptions(size=size), RenderOptions(size=size, projection="perspective")
    a, b = ortho.project(frame, q), persp.project(frame, q)
    assert np.allclose(a.x_px, b.x_px) and np.allclose(a.y_px, b.y_px)
    assert np.allclose(a.px_per_A, b.px_per_A)
    # off the centre plane they differ: nearer points look larger under perspective
    near = persp.project(frame, q + [0, 0, radius / 2])
    assert np.all(near.px_per_A > b.px_per_A)


@given(xy=arrays(np.float64, st.tuples(st.integers(1, 20), st.just(2)), elements=st.floats(-30, 30)),
       frac=st.floats(0.0, 0.9))
def test_perspective_zoom_by_moving_matches_orthographic_zoom(xy, frac):
    """Perspective ignores ``zoom_z``: moving the scene d Å along +z magnifies the centre plane like
    the orthographic ``zoomed(d)`` does (the contract a renderer relies on when it does both)."""
    frame = CameraFrame(center=np.zeros(3), radius=20.0)
    d = frac * (frame.distance - 2.0)
    q = np.column_stack([xy, np.zeros(len(xy))])
    a = RenderOptions(size=256).project(frame.zoomed(d), q)
    b = RenderOptions(size=256, projection="perspective").project(frame.zoomed(d), SE3.move("z", d).apply(q))
    assert np.allclose(a.x_px, b.x_px) and np.allclose(a.y_px, b.y_px)


@st.composite
def rotations(draw, center):
    m = SE3.identity()
    for _ in range(draw(st.integers(0, 3))):
        m = m.then(SE3.rotation(draw(st.sampled_from("xyz")), draw(st.floats(-180, 180)), center=center))
    return m


@given(data=st.data(), pdb_id=sample_ids, view=views, size=st.sampled_from([256, 512, 1024]), projection=projections)
def test_fitted_frame_keeps_every_atom_in_the_image(data, pdb_id, view, size, projection):
    c = _heavy(pdb_id)
    frame, opts = fit_frame(c), RenderOptions(size=size, projection=projection)
    motion = data.draw(rotations(frame.center))
    s = _screen(opts, frame, motion.apply(c), view)
    assert s.in_front.all() and opts.in_image(s).all()


def test_options_are_checked():
    for bad, match in ((dict(size=4), "size"), (dict(projection="fisheye"), "projection"),
                       (dict(style="cartoon"), "style")):
        with pytest.raises(ValueError, match=match):
            RenderOptions(**bad)
