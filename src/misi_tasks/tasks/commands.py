"""The motions of the answer commands: a :class:`~misi_tasks.definitions.answers.Move` or
:class:`~misi_tasks.definitions.answers.Roll` (pure values of the answer vocabulary) applied as SE(3).

A command acts in camera axes (X right, Y up, Z toward the viewer).  A roll turns about a centre
given in camera-frame coordinates (the complex's centroid, or the ligand's for docking).

>>> import numpy as np
>>> bool(np.allclose(command_motion(Roll("z", 90)).apply([1.0, 0, 0]), [0, 1, 0]))
True
>>> sequence_motion([Move("x", 2), Roll("z", 90)]).apply([1.0, 0, 0]).round(6).tolist()
[2.0, 1.0, 0.0]
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from misi_geom import SE3
from misi_tasks.definitions.answers import Command, Move, Roll, format_commands

__all__ = ["Command", "Move", "Roll", "command_motion", "format_commands", "sequence_motion"]


def command_motion(cmd: Command, center: Sequence[float] | np.ndarray | None = None) -> SE3:
    """The motion of one command; a roll turns about ``center`` (camera frame, Å; default the
    origin), which a move ignores."""
    if isinstance(cmd, Move):
        return SE3.move(cmd.axis, cmd.dist_A)
    return SE3.rotation(cmd.axis, cmd.angle_deg, center=center)


def sequence_motion(commands: Sequence[Command], center: Sequence[float] | np.ndarray | None = None) -> SE3:
    """The motion of ``commands`` applied in order.  Each roll turns about the object's *current*
    centre: ``center`` (default the origin) carried along by the moves made so far."""
    total = SE3.identity()
    c = np.zeros(3) if center is None else np.asarray(center, dtype=np.float64)
    for cmd in commands:
        total = total.then(command_motion(cmd, total.apply(c)))
    return total
