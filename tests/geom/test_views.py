"""Canonical views (spec section 2): which side of the model faces the viewer, and which way is up.

Front = identity; Left = +90° about Y; Top = +90° about X; Back = 180° about Y; Right = -90° about Y;
Bottom = -90° about X.  Checked on every bundled complex and on random points.
"""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from misi_geom import SIX_VIEWS, THREE_VIEWS, VIEW_NAMES, fit_frame, view_rotation
from misi_geom.samples import SAMPLE_IDS

X, Y, Z = 0, 1, 2
# view: (model axis, sign) that points toward the viewer / to screen right / to screen up
VIEW_TABLE = {
    "front": {"toward": (Z, +1), "right": (X, +1), "up": (Y, +1)},
    "left": {"toward": (X, -1), "right": (Z, +1), "up": (Y, +1)},
    "top": {"toward": (Y, +1), "right": (X, +1), "up": (Z, -1)},
    "back": {"toward": (Z, -1), "right": (X, -1), "up": (Y, +1)},
    "right": {"toward": (X, +1), "right": (Z, -1), "up": (Y, +1)},
    "bottom": {"toward": (Y, -1), "right": (X, +1), "up": (Z, +1)},
}


def test_view_order():
    assert VIEW_NAMES == ("front", "left", "top", "back", "right", "bottom")
    assert THREE_VIEWS == ("front", "left", "top")
    assert SIX_VIEWS == VIEW_NAMES


def test_unknown_view_is_rejected():
    with pytest.raises(ValueError, match="unknown view"):
        view_rotation("side")


@pytest.mark.parametrize("view", VIEW_NAMES)
def test_view_rotations_are_exact_signed_permutations(view):
    r = view_rotation(view)
    assert set(np.unique(r)) <= {-1.0, 0.0, 1.0}
    assert np.isclose(np.linalg.det(r), 1.0)


def _camera_frame(coord: np.ndarray, view: str):
    """(frame, camera-frame coordinates as x_A right, y_A up, depth toward the viewer) in ``view``."""
    frame = fit_frame(coord)
    q = frame.to_camera_frame(coord, view)
    return frame, SimpleNamespace(x_A=q[:, 0], y_A=q[:, 1], depth=q[:, 2])


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
@pytest.mark.parametrize("view", VIEW_NAMES)
def test_view_puts_the_expected_side_toward_the_viewer_real_complex(samples, pdb_id, view):
    c = samples[pdb_id].heavy
    cam, s = _camera_frame(c.coord, view)
    axis, sign = VIEW_TABLE[view]["toward"]
    model = c.coord[:, axis] * sign
    # e.g. Left: the atom with the smallest x is the nearest to the viewer, the largest x the farthest
    assert s.depth[np.argmax(model)] == pytest.approx(s.depth.max())
    assert s.depth[np.argmin(model)] == pytest.approx(s.depth.min())
    r_axis, r_sign = VIEW_TABLE[view]["right"]
    u_axis, u_sign = VIEW_TABLE[view]["up"]
    assert s.x_A[np.argmax(c.coord[:, r_axis] * r_sign)] == pytest.approx(s.x_A.max())
    assert s.y_A[np.argmax(c.coord[:, u_axis] * u_sign)] == pytest.approx(s.y_A.max())


@pytest.mark.parametrize("view", VIEW_NAMES)
@given(p=arrays(np.float64, st.tuples(st.integers(1, 40), st.just(3)), elements=st.floats(-60, 60)))
def test_view_axes_random_points(view, p):
    """Camera-frame coordinates are exactly the expected signed model coordinates about the centre."""
    cam, s = _camera_frame(p, view)
    q = p - cam.center
    for key, got in (("toward", s.depth), ("right", s.x_A), ("up", s.y_A)):
        axis, sign = VIEW_TABLE[view][key]
        assert np.allclose(got, sign * q[:, axis], atol=1e-9)
    # and therefore the extreme atom along the "toward" direction is the nearest
    axis, sign = VIEW_TABLE[view]["toward"]
    assert np.isclose(s.depth[np.argmax(sign * p[:, axis])], s.depth.max())


@pytest.mark.parametrize(
    "view, turns",
    [("left", [("y", 90)]), ("top", [("x", 90)]), ("back", [("y", 90), ("y", 90)]),
     ("right", [("y", -90)]), ("bottom", [("x", -90)])],
)
def test_views_match_the_spec_rotations(view, turns):
    from misi_geom import rotation_matrix

    r = np.eye(3)
    for axis, angle in turns:
        r = rotation_matrix(axis, angle) @ r
    assert np.array_equal(view_rotation(view), r)
