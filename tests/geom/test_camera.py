"""Projection and camera fitting (spec section 2: orthographic default, ``move z d`` magnifies by D/(D-d))."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from misi_geom import SE3, VIEW_NAMES, Camera, fit_camera
from misi_geom.samples import SAMPLE_IDS

views = st.sampled_from(VIEW_NAMES)
sample_ids = st.sampled_from(SAMPLE_IDS)


def _screen(cam: Camera, coord, view="front", shift=None):
    """Screen coordinates in ``view``, optionally shifted in that view's camera axes (Å)."""
    q = cam.to_camera_frame(coord, view)
    return cam.project(q if shift is None else shift.apply(q))


def test_camera_distance_and_scale_follow_the_spec():
    cam = fit_camera(np.array([[0.0, 0, 0], [20.0, 0, 0]]), size=512)
    r = 10.0 * 1.05  # bounding-sphere radius about the centroid plus the 5 % pad
    assert cam.radius == pytest.approx(r)
    assert cam.distance == pytest.approx(r / np.sin(np.deg2rad(15.0)))
    assert cam.scale == pytest.approx(512 / (2 * r))
    assert np.allclose(cam.center, [10, 0, 0])


@given(pdb_id=sample_ids, view=views, axis=st.sampled_from("xy"), d=st.integers(-4, 4) | st.floats(-20, 20))
def test_translation_on_screen_moves_every_atom_by_d_times_scale(samples, pdb_id, view, axis, d):
    """T1: a move of d Å along a screen axis shifts every projected atom by d * scale pixels (y: screen y
    grows downward)."""
    c = samples[pdb_id].heavy
    cam = fit_camera(c.coord)
    before = _screen(cam, c.coord, view)
    after = _screen(cam, c.coord, view, SE3.move(axis, d))
    dx, dy = after.x_px - before.x_px, after.y_px - before.y_px
    if axis == "x":
        assert np.allclose(dx, d * cam.scale) and np.allclose(dy, 0)
    else:
        assert np.allclose(dy, -d * cam.scale) and np.allclose(dx, 0)


@given(pdb_id=sample_ids, view=views, frac=st.floats(-1.0, 0.9))
def test_zoom_scales_distances_from_the_screen_centre(samples, pdb_id, view, frac):
    """T3: ``move z d`` (``Camera.zoomed(d)``) multiplies distances from the centre by D / (D - d)."""
    c = samples[pdb_id].heavy
    cam = fit_camera(c.coord)
    d = frac * (cam.distance - 2.0)
    half = cam.size / 2
    before = _screen(cam, c.coord, view)
    after = _screen(cam.zoomed(d), c.coord, view)
    factor = cam.distance / (cam.distance - d)
    assert np.allclose(after.x_px - half, (before.x_px - half) * factor)
    assert np.allclose(after.y_px - half, (before.y_px - half) * factor)
    assert cam.zoomed(d).magnification == pytest.approx(factor)


@pytest.mark.parametrize("d", [40, 47, 60])
def test_t3_zoom_range_magnifies(samples, d):
    cam = fit_camera(samples["3pvu"].heavy.coord)
    assert cam.distance > d + 1, "T3 zooms of 40-60 Å must be legal for a typical pocket"
    zoomed = cam.zoomed(d)
    assert zoomed.magnification == pytest.approx(cam.distance / (cam.distance - d)) and zoomed.magnification > 1


def test_zoom_into_the_camera_is_refused():
    cam = fit_camera(np.array([[0.0, 0, 0], [20.0, 0, 0]]))
    with pytest.raises(ValueError, match="zoom"):
        cam.zoomed(cam.distance)


@given(
    xy=arrays(np.float64, st.tuples(st.integers(1, 20), st.just(2)), elements=st.floats(-30, 30)),
    radius=st.floats(3, 40),
    size=st.integers(64, 1024),
)
def test_perspective_agrees_with_orthographic_in_the_centre_plane(xy, radius, size):
    q = np.column_stack([xy, np.zeros(len(xy))])
    ortho = Camera(center=np.zeros(3), radius=radius, size=size)
    persp = ortho.with_projection("perspective")
    a, b = ortho.project(q), persp.project(q)
    assert np.allclose(a.x_px, b.x_px) and np.allclose(a.y_px, b.y_px)
    assert np.allclose(a.px_per_A, b.px_per_A)
    # off the centre plane they differ: nearer points look larger under perspective
    near = persp.project(q + [0, 0, radius / 2])
    assert np.all(near.px_per_A > b.px_per_A)


@given(xy=arrays(np.float64, st.tuples(st.integers(1, 20), st.just(2)), elements=st.floats(-30, 30)),
       frac=st.floats(0.0, 0.9))
def test_perspective_zoom_by_moving_matches_orthographic_zoom(xy, frac):
    """Perspective ignores ``zoom_z``: moving the scene d Å along +z magnifies the centre plane like
    the orthographic ``zoomed(d)`` does (the contract a renderer relies on when it does both)."""
    ortho = Camera(center=np.zeros(3), radius=20.0, size=256)
    d = frac * (ortho.distance - 2.0)
    q = np.column_stack([xy, np.zeros(len(xy))])
    a = ortho.zoomed(d).project(q)
    b = ortho.with_projection("perspective").zoomed(d).project(SE3.move("z", d).apply(q))
    assert np.allclose(a.x_px, b.x_px) and np.allclose(a.y_px, b.y_px)


@st.composite
def rotations(draw, center):
    m = SE3.identity()
    for _ in range(draw(st.integers(0, 3))):
        m = m.then(SE3.rotation(draw(st.sampled_from("xyz")), draw(st.floats(-180, 180)), center=center))
    return m


@pytest.mark.parametrize("projection", ["orthographic", "perspective"])
@given(data=st.data(), pdb_id=sample_ids, view=views, size=st.sampled_from([256, 512, 1024]))
def test_fit_camera_keeps_every_atom_in_the_frame(samples, projection, data, pdb_id, view, size):
    c = samples[pdb_id].heavy
    cam = fit_camera(c.coord, size=size, projection=projection)
    motion = data.draw(rotations(cam.center))
    s = _screen(cam, motion.apply(c.coord), view)
    assert s.in_front.all()
    for v in (s.x_px, s.y_px):
        assert v.min() >= 0 and v.max() <= size


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_fitted_frame_is_tight(samples, pdb_id):
    """The fit is not wastefully loose: the farthest atom reaches the pad (spec: fills the frame)."""
    c = samples[pdb_id].heavy
    cam = fit_camera(c.coord)
    reach = np.linalg.norm(c.coord - cam.center, axis=1).max()
    assert reach * cam.scale == pytest.approx(cam.size / 2 / 1.05)


def test_screen_centre_is_the_rotation_centre():
    cam = fit_camera(np.array([[1.0, 2, 3], [5.0, 6, 7]]), size=100)
    s = cam.project(cam.to_camera_frame(cam.center[None, :]))
    assert (s.x_px[0], s.y_px[0]) == (50.0, 50.0)
