"""T7 ligand docking (the declaration); the generator is :mod:`misi_tasks.tasks.docking`.

>>> DockingSpec().score(Docking.parse("roll x 75, move x 14"), Docking.parse("roll x 75, move x -14"))
0.5
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.answers import Docking, Move, ParsedAnswer, Roll
from misi_tasks.definitions.metrics import docking_score
from misi_tasks.definitions.motion import check_angle_range, example_angle, rotation_angles
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = ["DockingSpec", "DOCKING_MOVE_RANGE_A", "DOCKING_ROLL_WEIGHT", "EQUIVALENT_RMSD_A", "RANDOM_DOCKING_MOVE_A"]

#: R for the move half of the metric (spec decision): off by 30 Å or more scores 0.
DOCKING_MOVE_RANGE_A = 30.0
#: Weight of the roll in the metric; the move gets the rest.
DOCKING_ROLL_WEIGHT = 0.5
#: Allowed answers whose pose is strictly closer than this heavy-atom RMSD (Å) to the bound pose
#: score as the exact answer (item metadata ``equivalent_answers``).  Strictly: the exact roll with
#: the move off by 1 Å is exactly 1 Å away.
EQUIVALENT_RMSD_A = 1.0
#: Move magnitudes of the random baseline (a decision; the spec gives no range): whole Å in [5, 30].
RANDOM_DOCKING_MOVE_A: tuple[int, ...] = tuple(range(5, 31))


@dataclass(frozen=True)
class DockingSpec(TaskSpec):
    """T7: ``roll x 75, move x -14``: undo a roll of the ligand about its own centre (multiples of
    ``step`` degrees in [-max_angle, max_angle], not 0) and a move along x that leaves a gap drawn
    in [min_gap, max_gap] Å between ligand and pocket in the front view.

    Metric: half for the roll (axis must match; ``1 - |Δangle| / R`` with R the width of the angle
    range, 180° by default), half for the move (axis and sign must match; ``1 - |Δd| / 30 Å``).
    """

    name = "docking"
    code = "T7"
    paper = True
    paper_average = True
    summary = "How must the ligand roll and move to dock back into its pocket?"
    counts = {"train": 6, "test": 3}
    answer = Docking
    metric = "half roll (1 - |Δangle| / (2 max_angle)), half move (sign, 1 - |Δd| / 30 Å)"

    min_gap: float = 2.0
    max_gap: float = 8.0
    max_angle: int = 90
    step: int = 15

    def validate(self) -> None:
        check_angle_range(self.name, self.max_angle, self.step)
        if not 0 <= self.min_gap <= self.max_gap:
            raise ValueError(f"task {self.name!r}: need 0 <= min_gap <= max_gap, got {self.min_gap}, {self.max_gap}")

    def angles(self) -> tuple[int, ...]:
        """The allowed roll angles (degrees)."""
        return rotation_angles(self.max_angle, self.step)

    def ask(self, **fields: Any) -> str:
        return ("The ligand was turned about its own centre and then moved along X, out of the pocket. Which roll "
                f"about the ligand's centre (angle a multiple of {self.step} degrees between -{self.max_angle} and "
                f"{self.max_angle}), followed by which move along X (whole Å), puts it back in its pocket?")

    def answer_format(self) -> tuple[str, list[str]]:
        a, b = example_angle(5, self.max_angle, self.step), example_angle(-2, self.max_angle, self.step)
        return "roll <x|y|z> <angle>, move x <d>", [f"roll x {a}, move x -14", f"roll z {b}, move x 21"]

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, Docking) and isinstance(truth, Docking)
        return docking_score(pred, truth, float(2 * self.max_angle), DOCKING_MOVE_RANGE_A, DOCKING_ROLL_WEIGHT)

    def random_reply(self, rng: random.Random) -> str:
        move = rng.choice((-1, 1)) * rng.choice(RANDOM_DOCKING_MOVE_A)
        axis, angle = rng.choice("xyz"), rng.choice(self.angles())
        return str(Docking(Roll(axis, angle), Move("x", move)))
