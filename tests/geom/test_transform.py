"""SE(3) algebra and rotation conventions (spec section 2), checked with hypothesis."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.spatial.distance import pdist

from misi_geom import SE3, rotation_matrix

AXES = ("x", "y", "z")
UNIT = {"x": np.array([1.0, 0, 0]), "y": np.array([0, 1.0, 0]), "z": np.array([0, 0, 1.0])}

coord_values = st.floats(-200, 200, allow_nan=False, allow_infinity=False)
points = arrays(np.float64, st.tuples(st.integers(2, 30), st.just(3)), elements=coord_values)
point3 = arrays(np.float64, 3, elements=coord_values)
axes = st.sampled_from(AXES)
angles = st.floats(-360, 360, allow_nan=False)
# at least 1 degree away from any multiple of 180 degrees
generic_angles = angles.filter(lambda a: abs(a / 180.0 - round(a / 180.0)) * 180.0 >= 1.0)


@st.composite
def motions(draw) -> SE3:
    """A random rigid motion: up to three axis rotations (about random centres) and a translation."""
    m = SE3.identity()
    for _ in range(draw(st.integers(1, 3))):
        m = m.then(SE3.rotation(draw(axes), draw(angles), center=draw(st.none() | point3)))
    return m.then(SE3.translation(draw(point3)))


@given(axes, angles)
def test_rotation_matrix_is_proper_orthogonal(axis, angle):
    r = rotation_matrix(axis, angle)
    assert np.allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert np.isclose(np.linalg.det(r), 1.0)


@given(st.permutations(AXES), generic_angles, generic_angles)
def test_rotations_about_different_axes_do_not_commute(perm, a, b):
    ax1, ax2 = perm[0], perm[1]
    ab = SE3.rotation(ax1, a).then(SE3.rotation(ax2, b))
    ba = SE3.rotation(ax2, b).then(SE3.rotation(ax1, a))
    assert not ab.allclose(ba, atol=1e-6)


@given(axes, angles, angles)
def test_rotations_about_the_same_axis_commute_and_add(axis, a, b):
    ab = SE3.rotation(axis, a).then(SE3.rotation(axis, b))
    assert ab.allclose(SE3.rotation(axis, b).then(SE3.rotation(axis, a)))
    assert ab.allclose(SE3.rotation(axis, a + b))


@given(axes, angles, st.none() | point3)
def test_rotation_by_minus_angle_undoes_it(axis, a, center):
    assert np.allclose(rotation_matrix(axis, a) @ rotation_matrix(axis, -a), np.eye(3), atol=1e-12)
    m = SE3.rotation(axis, a, center=center).then(SE3.rotation(axis, -a, center=center))
    assert m.allclose(SE3.identity(), atol=1e-9)


@given(points, motions())
def test_motions_preserve_all_pairwise_distances(p, m):
    assert np.allclose(pdist(m.apply(p)), pdist(p), atol=1e-8)


@given(points, motions(), motions())
def test_composition_equals_applying_in_order(p, a, b):
    in_order = b.apply(a.apply(p))
    assert np.allclose(a.then(b).apply(p), in_order, atol=1e-8)
    assert np.allclose(b.compose(a).apply(p), in_order, atol=1e-8)
    assert np.allclose(a.then(b).as_matrix(), b.as_matrix() @ a.as_matrix(), atol=1e-8)


@given(points, motions())
def test_inverse(p, m):
    assert np.allclose(m.inverse().apply(m.apply(p)), p, atol=1e-8)
    assert np.allclose(m.apply(m.inverse().apply(p)), p, atol=1e-8)
    assert m.then(m.inverse()).allclose(SE3.identity(), atol=1e-9)
    assert np.allclose(m.inverse().as_matrix(), np.linalg.inv(m.as_matrix()), atol=1e-8)


@given(axes, angles, point3, points)
def test_rotation_about_a_centre_keeps_the_centre_fixed(axis, a, center, p):
    m = SE3.rotation(axis, a, center=center)
    assert np.allclose(m.apply(center), center, atol=1e-9)
    # and distances to the centre are kept
    assert np.allclose(np.linalg.norm(m.apply(p) - center, axis=1), np.linalg.norm(p - center, axis=1), atol=1e-8)


# (axis, vector it turns, where a +90° turn sends it): X->Y about z, Y->Z about x, Z->X about y
RIGHT_HAND = [("z", "x", "y"), ("x", "y", "z"), ("y", "z", "x")]


@pytest.mark.parametrize("axis, start, end", RIGHT_HAND)
def test_right_hand_rule_quarter_turns(axis, start, end):
    assert np.array_equal(SE3.rotation(axis, 90).apply(UNIT[start]), UNIT[end])  # exact (snapped)
    assert np.array_equal(SE3.rotation(axis, -90).apply(UNIT[end]), UNIT[start])


@pytest.mark.parametrize("axis, start, end", RIGHT_HAND)
@given(angle=angles)
def test_right_hand_rule_counter_clockwise(axis, start, end, angle):
    """Seen from the tip of the axis, a positive angle turns counter-clockwise."""
    t = np.deg2rad(angle)
    expected = np.cos(t) * UNIT[start] + np.sin(t) * UNIT[end]
    assert np.allclose(SE3.rotation(axis, angle).apply(UNIT[start]), expected, atol=1e-12)


@given(points, motions())
def test_apply_is_pure(p, m):
    before = p.copy()
    out = m.apply(p)
    assert np.array_equal(p, before)
    assert out is not p and out.shape == p.shape


@pytest.mark.parametrize("axis, d", [("x", 3.0), ("y", -4.0), ("z", 47.0)])
def test_move_is_a_translation_along_one_axis(axis, d):
    p = np.array([[1.0, 2.0, 3.0]])
    assert np.allclose(SE3.move(axis, d).apply(p), p + d * UNIT[axis])


def test_bad_axis_is_rejected():
    with pytest.raises(ValueError, match="axis"):
        rotation_matrix("w", 10)
