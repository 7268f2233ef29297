"""Camera frames in Å (spec section 2: D = R / sin(fov/2), ``move z d`` magnifies by D/(D-d)).

Pixels are ``misi_render``'s and are tested in ``tests/render/test_screen.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from misi_geom import SE3, VIEW_NAMES, CameraFrame, fit_frame
from misi_geom.samples import SAMPLE_IDS

views = st.sampled_from(VIEW_NAMES)
sample_ids = st.sampled_from(SAMPLE_IDS)
points = arrays(np.float64, st.tuples(st.integers(1, 30), st.just(3)), elements=st.floats(-80, 80))


def test_frame_distance_follows_the_spec():
    frame = fit_frame(np.array([[0.0, 0, 0], [20.0, 0, 0]]))
    r = 10.0 * 1.05  # bounding-sphere radius about the centroid plus the 5 % pad
    assert frame.radius == pytest.approx(r)
    assert frame.distance == pytest.approx(r / np.sin(np.deg2rad(15.0)))
    assert np.allclose(frame.center, [10, 0, 0])
    assert set(frame.to_dict()) == {"center", "radius", "fov_deg", "zoom_z", "distance"}  # no pixels


@st.composite
def rotations(draw, center):
    m = SE3.identity()
    for _ in range(draw(st.integers(0, 3))):
        m = m.then(SE3.rotation(draw(st.sampled_from("xyz")), draw(st.floats(-180, 180)), center=center))
    return m


@given(data=st.data(), p=points, view=views, pad=st.floats(0.0, 0.5))
def test_fitted_frame_holds_every_point_in_every_view_and_rotation(data, p, view, pad):
    """Every point, turned about the centre and seen from any view, lies within the radius of the
    centre in x and y and in front of the camera (depth below D - 1 Å)."""
    frame = fit_frame(p, pad=pad)
    moved = data.draw(rotations(frame.center)).apply(p)
    q = frame.to_camera_frame(moved, view)
    assert np.all(np.hypot(q[:, 0], q[:, 1]) <= frame.radius * (1 + 1e-9))
    assert np.all(q[:, 2] < frame.distance - 1.0)


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_fitted_frame_is_tight(samples, pdb_id):
    """The fit is not wastefully loose: the farthest atom reaches the pad (spec: fills the frame)."""
    c = samples[pdb_id].heavy
    frame = fit_frame(c.coord)
    reach = np.linalg.norm(c.coord - frame.center, axis=1).max()
    assert reach * 1.05 == pytest.approx(frame.radius)


def test_fit_about_a_given_centre_and_minimum_radius():
    p = np.array([[1.0, 0, 0], [3.0, 0, 0]])
    assert fit_frame(p, center=np.zeros(3), pad=0.0).radius == pytest.approx(3.0)
    assert fit_frame(p[:1]).radius == 2.0  # one atom: min_radius
    with pytest.raises(ValueError, match="zero points"):
        fit_frame(np.zeros((0, 3)))
    with pytest.raises(ValueError, match="non-finite"):
        fit_frame(np.array([[np.nan, 0, 0]]))


@pytest.mark.parametrize("d", [40, 47, 60])
def test_t3_zoom_range_magnifies(samples, d):
    frame = fit_frame(samples["3pvu"].heavy.coord)
    assert frame.distance > d + 1, "T3 zooms of 40-60 Å must be legal for a typical pocket"
    zoomed = frame.zoomed(d)
    assert zoomed.magnification == pytest.approx(frame.distance / (frame.distance - d)) and zoomed.magnification > 1
    assert frame.zoomed(d / 2).zoomed(d / 2).zoom_z == pytest.approx(d)


def test_zoom_into_the_camera_is_refused():
    frame = fit_frame(np.array([[0.0, 0, 0], [20.0, 0, 0]]))
    with pytest.raises(ValueError, match="zoom"):
        frame.zoomed(frame.distance)
    with pytest.raises(ValueError, match="radius"):
        CameraFrame(center=np.zeros(3), radius=0.0)


@given(radius=st.floats(2, 60), margin=st.floats(0, 10), tenths=st.integers(1, 5))
def test_widened_and_at_distance_keep_the_centre(radius, margin, tenths):
    frame = CameraFrame(center=np.array([1.0, 2.0, 3.0]), radius=radius)
    wide = frame.widened(margin)
    assert np.array_equal(wide.center, frame.center) and wide.radius == pytest.approx(radius + margin)
    target = round(frame.distance, 1) + tenths / 100  # a distance a prompt could state
    moved = frame.at_distance(target)
    assert moved.distance == pytest.approx(target, abs=1e-9)
    assert moved.radius == frame.radius and np.array_equal(moved.center, frame.center)


@given(p=points, view=views)
def test_to_camera_frame_centres_then_turns(p, view):
    from misi_geom import view_rotation

    frame = fit_frame(p)
    q = frame.to_camera_frame(p, view)
    assert np.allclose(q, (p - frame.center) @ view_rotation(view).T)
    assert np.allclose(frame.to_camera_frame(frame.center[None], view), 0.0)
