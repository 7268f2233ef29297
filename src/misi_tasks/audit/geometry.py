"""The audit's own geometry: commands as rigid motions, views and the camera projection, in plain numpy.

Written apart from the generator on purpose (:mod:`misi_geom.transform`, :mod:`misi_render.screen`
do the same job there): an audit that reused them would repeat their mistakes.  Everything follows
the spec (section 2): camera axes X right, Y up, Z toward the viewer; rotations by the right-hand
rule; the left view is the front view turned +90 deg about Y, top +90 deg about X, back 180 deg about
Y, right -90 deg about Y, bottom -90 deg about X.  A motion is a 4x4 matrix acting on column vectors
of front-camera-frame coordinates (Å, origin at the camera centre).

>>> import numpy as np
>>> m = motion_of("move x 2, roll z 90")
>>> apply(m, np.array([[1.0, 0, 0]])).round(6).tolist()  # rolls turn about the moved centre
[[2.0, 1.0, 0.0]]
>>> view_matrix("left") @ np.array([-1.0, 0, 0])  # the model's -X side faces the viewer
array([0., 0., 1.])
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

__all__ = ["Camera", "parse_commands", "motion_of", "turn", "shift", "apply", "view_matrix", "VIEW_TURNS",
           "symmetric_rmsd"]

_COMMAND = re.compile(r"^\s*(move|roll)\s+([xyz])\s+(-?\d+(?:\.\d+)?)\s*$")
_AXES = {"x": 0, "y": 1, "z": 2}

#: Canonical views as (axis, degrees) turns of the front view (spec section 2).
VIEW_TURNS: dict[str, tuple[str, float]] = {
    "front": ("x", 0.0), "left": ("y", 90.0), "top": ("x", 90.0),
    "back": ("y", 180.0), "right": ("y", -90.0), "bottom": ("x", -90.0),
}


def parse_commands(text: str) -> list[tuple[str, str, float]]:
    """``"roll x 75, move x -14"`` -> ``[("roll", "x", 75.0), ("move", "x", -14.0)]``; ValueError if malformed."""
    out = []
    for part in str(text).split(","):
        m = _COMMAND.match(part)
        if not m:
            raise ValueError(f"not a command: {part.strip()!r} in {text!r}")
        out.append((m.group(1), m.group(2), float(m.group(3))))
    return out


def _rot3(axis: str, deg: float) -> np.ndarray:
    c, s = np.cos(np.radians(deg)), np.sin(np.radians(deg))
    c, s = (0.0 if abs(c) < 1e-15 else c), (0.0 if abs(s) < 1e-15 else s)
    i = _AXES[axis]
    j, k = (i + 1) % 3, (i + 2) % 3
    r = np.eye(3)
    r[j, j], r[j, k], r[k, j], r[k, k] = c, -s, s, c
    return r


def view_matrix(view: str) -> np.ndarray:
    """3x3 rotation that turns front-frame coordinates into ``view``'s camera frame."""
    axis, deg = VIEW_TURNS[view]
    return _rot3(axis, deg)


def turn(axis: str, deg: float, about: np.ndarray | None = None) -> np.ndarray:
    """4x4 rotation by ``deg`` about ``axis`` through the point ``about`` (default the origin)."""
    m = np.eye(4)
    m[:3, :3] = _rot3(axis, deg)
    if about is not None:
        c = np.asarray(about, dtype=np.float64)
        m[:3, 3] = c - m[:3, :3] @ c
    return m


def shift(vector) -> np.ndarray:
    """4x4 translation by ``vector`` (Å)."""
    m = np.eye(4)
    m[:3, 3] = np.asarray(vector, dtype=np.float64)
    return m


def motion_of(commands, center=(0.0, 0.0, 0.0)) -> np.ndarray:
    """The 4x4 motion of commands applied in order (text or parsed); every roll turns about the
    object's current centre: ``center`` carried along by the motion so far."""
    cmds = parse_commands(commands) if isinstance(commands, str) else commands
    total = np.eye(4)
    c = np.append(np.asarray(center, dtype=np.float64), 1.0)
    for op, axis, value in cmds:
        if op == "move":
            step = shift(np.eye(3)[_AXES[axis]] * value)
        else:
            step = turn(axis, value, (total @ c)[:3])
        total = step @ total
    return total


def apply(motion: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Points (N, 3) moved by a 4x4 (or 3x4) motion."""
    m = np.asarray(motion, dtype=np.float64)
    return np.asarray(points, dtype=np.float64) @ m[:3, :3].T + m[:3, 3]


def as_matrix(rows) -> np.ndarray:
    """A recorded 3x4 motion (list of rows) as 4x4."""
    m = np.eye(4)
    m[:3, :] = np.asarray(rows, dtype=np.float64).reshape(3, 4)
    return m


def symmetric_rmsd(a: np.ndarray, b: np.ndarray, elements: np.ndarray) -> float:
    """RMSD from each atom of ``a`` to the nearest atom of ``b`` of its element (Å): blind to which
    of two equivalent atoms is which, so a symmetric molecule's twin poses count as the same."""
    d2 = np.full(len(a), np.inf)
    for e in np.unique(elements):
        sel = elements == e
        diff = a[sel][:, None, :] - b[sel][None, :, :]
        d2[sel] = np.min(np.einsum("ijk,ijk->ij", diff, diff), axis=1)
    return float(np.sqrt(d2.mean()))


@dataclass(frozen=True)
class Camera:
    """An image's camera as the item's metadata records it (``camera`` dicts)."""

    center: np.ndarray
    distance: float
    scale: float  # px per Å in the centre plane at zoom 0
    size: int
    projection: str
    zoom_z: float = 0.0

    @classmethod
    def from_record(cls, rec: dict) -> "Camera":
        return cls(np.asarray(rec["center"], dtype=np.float64), float(rec["distance"]),
                   float(rec["scale_px_per_A"]), int(rec["size"]), str(rec["projection"]),
                   float(rec.get("zoom_z", 0.0)))

    def key(self) -> tuple:
        """A hashable identity of this camera."""
        return (tuple(self.center.tolist()), self.distance, self.scale, self.size, self.projection, self.zoom_z)

    def front(self, model_xyz: np.ndarray) -> np.ndarray:
        """Model coordinates -> front camera frame (Å)."""
        return np.asarray(model_xyz, dtype=np.float64) - self.center

    def pixels(self, cam_xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Camera-frame points -> (x px, y px, px per Å) of this image (y grows downward)."""
        p = np.asarray(cam_xyz, dtype=np.float64)
        if self.projection == "perspective":
            k = self.scale * self.distance / np.maximum(self.distance - p[..., 2], 1e-6)
        else:
            k = np.full(p.shape[:-1], self.scale * self.distance / (self.distance - self.zoom_z))
        half = self.size / 2.0
        return half + p[..., 0] * k, half - p[..., 1] * k, k
