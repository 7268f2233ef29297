"""The motion commands of the answers (``move x 3``, ``roll y -30``) as small value types.

A command acts in camera axes (X right, Y up, Z toward the viewer).  A roll turns about a centre
given in camera-frame coordinates (the complex's centroid, or the ligand's for docking).

>>> str(Move("x", 3)), str(Roll("y", -30))
('move x 3', 'roll y -30')
>>> import numpy as np
>>> bool(np.allclose(Roll("z", 90).motion().apply([1.0, 0, 0]), [0, 1, 0]))
True
>>> sequence_motion([Move("x", 2), Roll("z", 90)]).apply([1.0, 0, 0]).round(6).tolist()
[2.0, 1.0, 0.0]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence, Union

import numpy as np

from misi_geom import SE3

__all__ = ["Move", "Roll", "Command", "sequence_motion", "format_commands"]


@dataclass(frozen=True)
class Move:
    """Translate by ``distance`` Å along ``axis``."""

    axis: str
    distance: int

    def __str__(self) -> str:
        return f"move {self.axis} {int(self.distance)}"

    def motion(self, center=None) -> SE3:  # centre is irrelevant for a translation
        return SE3.move(self.axis, self.distance)

    def to_dict(self) -> dict:
        return {"op": "move", "axis": self.axis, "value": int(self.distance)}


@dataclass(frozen=True)
class Roll:
    """Rotate by ``angle`` degrees about ``axis`` through a centre (camera-frame Å)."""

    axis: str
    angle: int

    def __str__(self) -> str:
        return f"roll {self.axis} {int(self.angle)}"

    def motion(self, center: Sequence[float] | np.ndarray | None = None) -> SE3:
        return SE3.rotation(self.axis, self.angle, center=center)

    def to_dict(self) -> dict:
        return {"op": "roll", "axis": self.axis, "value": int(self.angle)}


Command = Union[Move, Roll]


def sequence_motion(commands: Sequence[Command], center: Sequence[float] | np.ndarray | None = None) -> SE3:
    """The motion of ``commands`` applied in order.  Each roll turns about the object's *current*
    centre: ``center`` (default the origin) carried along by the moves made so far."""
    total = SE3.identity()
    c = np.zeros(3) if center is None else np.asarray(center, dtype=np.float64)
    for cmd in commands:
        total = total.then(cmd.motion(total.apply(c)))
    return total


def format_commands(commands: Sequence[Command]) -> str:
    """``"roll x 75, move x -14"``."""
    return ", ".join(str(c) for c in commands)
