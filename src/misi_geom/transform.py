"""Rigid motions (SE(3)) and the six canonical views.

Conventions (spec section 2): X points right, Y up, Z toward the viewer; rotations follow the
right-hand rule, so ``rotation_matrix("z", 90)`` turns +X into +Y.  Angles are in degrees and
distances in Å.  All functions are pure: they return new arrays and leave their inputs untouched.

>>> import numpy as np
>>> p = np.array([[1.0, 0.0, 0.0]])
>>> np.round(SE3.rotation("z", 90).apply(p), 6)
array([[0., 1., 0.]])
>>> motion = SE3.rotation("y", 30, center=[1, 2, 3]).then(SE3.translation([0, 0, 5]))
>>> bool(np.allclose(motion.inverse().apply(motion.apply(p)), p))
True
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Sequence

import numpy as np

from misi_geom._typing import Coords, FloatArray, Matrix3

__all__ = [
    "Axis",
    "ViewName",
    "SE3",
    "rotation_matrix",
    "VIEW_NAMES",
    "THREE_VIEWS",
    "SIX_VIEWS",
    "view_rotation",
]

Axis = Literal["x", "y", "z"]
ViewName = Literal["front", "left", "top", "back", "right", "bottom"]

_AXIS_INDEX = {"x": 0, "y": 1, "z": 2}


def rotation_matrix(axis: Axis, angle_deg: float) -> Matrix3:
    """Right-handed rotation matrix about a coordinate axis.

    Parameters
    ----------
    axis : {"x", "y", "z"}
    angle_deg : float
        Angle in degrees; positive turns counter-clockwise when the axis points at the viewer.

    Returns
    -------
    ndarray, dtype=float64, shape=(3, 3)
    """
    try:
        i = _AXIS_INDEX[axis.lower()]
    except (KeyError, AttributeError):
        raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}") from None
    a = np.deg2rad(float(angle_deg))
    c, s = np.cos(a), np.sin(a)
    # Snap exact multiples of 90° so canonical views are exact permutations.
    c, s = (0.0 if abs(c) < 1e-15 else c), (0.0 if abs(s) < 1e-15 else s)
    j, k = (i + 1) % 3, (i + 2) % 3
    m = np.eye(3)
    m[j, j], m[j, k], m[k, j], m[k, k] = c, -s, s, c
    return m


@dataclass(frozen=True)
class SE3:
    """A rigid motion ``x -> R @ x + t`` acting on row vectors of (N, 3) coordinates.

    Build with :meth:`identity`, :meth:`rotation` (optionally about a centre) and :meth:`translation`;
    chain with :meth:`then` (``a.then(b)`` applies ``a`` first) or :meth:`compose` (``a.compose(b)``
    applies ``b`` first, like matrix products).
    """

    rotation_matrix: Matrix3 = field(default_factory=lambda: np.eye(3))
    translation_vector: FloatArray = field(default_factory=lambda: np.zeros(3))

    def __post_init__(self) -> None:
        r = np.array(self.rotation_matrix, dtype=np.float64).reshape(3, 3)
        t = np.array(self.translation_vector, dtype=np.float64).reshape(3)
        r.setflags(write=False)
        t.setflags(write=False)
        object.__setattr__(self, "rotation_matrix", r)
        object.__setattr__(self, "translation_vector", t)

    # --- constructors -------------------------------------------------------------------------
    @classmethod
    def identity(cls) -> "SE3":
        return cls()

    @classmethod
    def rotation(
        cls, axis: Axis, angle_deg: float, center: Sequence[float] | FloatArray | None = None
    ) -> "SE3":
        """Rotation by ``angle_deg`` about ``axis`` through ``center`` (default: the origin)."""
        r = rotation_matrix(axis, angle_deg)
        if center is None:
            return cls(r, np.zeros(3))
        c = np.asarray(center, dtype=np.float64).reshape(3)
        return cls(r, c - r @ c)

    @classmethod
    def translation(cls, vector: Sequence[float] | FloatArray) -> "SE3":
        """Translation by ``vector`` (Å)."""
        return cls(np.eye(3), np.asarray(vector, dtype=np.float64))

    @classmethod
    def move(cls, axis: Axis, distance: float) -> "SE3":
        """Translation by ``distance`` Å along one axis (``move x 3``)."""
        if axis not in _AXIS_INDEX:
            raise ValueError(f"axis must be 'x', 'y' or 'z', got {axis!r}")
        v = np.zeros(3)
        v[_AXIS_INDEX[axis]] = float(distance)
        return cls.translation(v)

    # --- algebra ------------------------------------------------------------------------------
    def apply(self, points: Coords) -> Coords:
        """Apply to (N, 3) or (3,) coordinates; returns a new float64 array of the same shape."""
        p = np.asarray(points, dtype=np.float64)
        return p @ self.rotation_matrix.T + self.translation_vector

    def compose(self, other: "SE3") -> "SE3":
        """``self ∘ other``: apply ``other`` first, then ``self``."""
        r = self.rotation_matrix @ other.rotation_matrix
        t = self.rotation_matrix @ other.translation_vector + self.translation_vector
        return SE3(r, t)

    def then(self, other: "SE3") -> "SE3":
        """Apply ``self`` first, then ``other``."""
        return other.compose(self)

    def inverse(self) -> "SE3":
        rt = self.rotation_matrix.T
        return SE3(rt, -rt @ self.translation_vector)

    def as_matrix(self) -> FloatArray:
        """4x4 homogeneous matrix (float64)."""
        m = np.eye(4)
        m[:3, :3] = self.rotation_matrix
        m[:3, 3] = self.translation_vector
        return m

    @classmethod
    def from_matrix(cls, matrix: FloatArray) -> "SE3":
        m = np.asarray(matrix, dtype=np.float64)
        return cls(m[:3, :3], m[:3, 3])

    def to_list(self) -> list[list[float]]:
        """JSON-friendly 3x4 ``[R | t]`` rows (for dataset metadata)."""
        return np.round(self.as_matrix()[:3], 10).tolist()

    def allclose(self, other: "SE3", atol: float = 1e-9) -> bool:
        return bool(
            np.allclose(self.rotation_matrix, other.rotation_matrix, atol=atol)
            and np.allclose(self.translation_vector, other.translation_vector, atol=atol)
        )


#: The six canonical views, in the spec's 6-view order.
VIEW_NAMES: tuple[ViewName, ...] = ("front", "left", "top", "back", "right", "bottom")
THREE_VIEWS: tuple[ViewName, ...] = VIEW_NAMES[:3]
SIX_VIEWS: tuple[ViewName, ...] = VIEW_NAMES

_VIEW_AXIS_ANGLE: dict[str, tuple[Axis, float]] = {
    "front": ("y", 0.0),
    "left": ("y", 90.0),  # the model's -X side faces the viewer
    "top": ("x", 90.0),  # the model's +Y side faces the viewer
    "back": ("y", 180.0),
    "right": ("y", -90.0),
    "bottom": ("x", -90.0),
}


def view_rotation(view: ViewName | str) -> Matrix3:
    """Model rotation (3x3, applied before projection) that produces a canonical view."""
    try:
        axis, angle = _VIEW_AXIS_ANGLE[view.lower()]
    except KeyError:
        raise ValueError(f"unknown view {view!r}; expected one of {', '.join(VIEW_NAMES)}") from None
    return rotation_matrix(axis, angle)
