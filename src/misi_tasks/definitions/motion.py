"""T1 translation, T2 rotation, T3 zooming: one motion between two front views (the declarations).

The generators are :mod:`misi_tasks.tasks.motion`.

>>> TranslationSpec().distances()
(-4, -3, -2, -1, 1, 2, 3, 4)
>>> TranslationSpec.from_params({"max_distance": 7}).ask().split("(")[1].split(")")[0]
'd a whole number of Å between -7 and 7, not 0'
>>> RotationSpec(step=30).angles()
(-90, -60, -30, 30, 60, 90)
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.answers import Move, ParsedAnswer, Roll
from misi_tasks.definitions.metrics import move_score, roll_score
from misi_tasks.definitions.taskspec import TaskSpec, or_list

__all__ = ["TranslationSpec", "RotationSpec", "ZoomingSpec", "check_angle_range", "example_angle", "rotation_angles"]


def rotation_angles(max_angle: int, step: int) -> tuple[int, ...]:
    """Non-zero multiples of ``step`` in [-max_angle, max_angle] (degrees)."""
    return tuple(a for a in range(-max_angle, max_angle + 1, step) if a)


def example_angle(k: int, max_angle: int, step: int) -> int:
    """``k`` steps, or one step when ``k`` steps leave the range: an allowed example angle."""
    return k * step if abs(k) * step <= max_angle else (step if k > 0 else -step)


def _check_axes(task: str, axes: tuple[str, ...], allowed: tuple[str, ...]) -> None:
    if not axes or len(set(axes)) != len(axes) or not set(axes) <= set(allowed):
        raise ValueError(f"task {task!r}: axes must be distinct names among {', '.join(allowed)}, got {list(axes)}")


def check_angle_range(task: str, max_angle: int, step: int) -> None:
    """Raise ValueError unless 1 <= step <= max_angle <= 180 and max_angle is a multiple of step."""
    if step < 1 or max_angle < step or max_angle > 180 or max_angle % step:
        raise ValueError(f"task {task!r}: need 1 <= step <= max_angle <= 180 with max_angle a multiple of step, "
                         f"got max_angle={max_angle}, step={step}")


@dataclass(frozen=True)
class TranslationSpec(TaskSpec):
    """T1: ``move x 3``; per split ``count`` items per axis, d a whole number of Å in
    [-max_distance, max_distance], not 0.  Metric: 0 for a wrong axis, else ``1 - |Δd| / R`` with
    R the width of the range (8 Å by default)."""

    name = "translation"
    code = "T1"
    paper = True
    paper_average = True
    summary = "How far did the complex move along x or y?"
    counts = {"train": 2, "test": 1}
    answer = Move
    metric = "axis, then 1 - |Δd| / (2 max_distance)"

    axes: tuple[str, ...] = ("x", "y")
    max_distance: int = 4

    def validate(self) -> None:
        _check_axes(self.name, self.axes, ("x", "y"))
        if self.max_distance < 1:
            raise ValueError(f"task {self.name!r}: max_distance must be >= 1, got {self.max_distance}")

    def distances(self) -> tuple[int, ...]:
        """The allowed distances (Å)."""
        return tuple(d for d in range(-self.max_distance, self.max_distance + 1) if d)

    @property
    def score_range_A(self) -> float:
        """R of the metric: the width of the asked range (Å)."""
        return float(2 * self.max_distance)

    def ask(self, **fields: Any) -> str:
        forms = or_list([f"\"move {a} d\"" for a in self.axes])
        m = self.max_distance
        return (f"One command of the form {forms} (d a whole number of Å between -{m} and {m}, "
                "not 0) turns image 1 into image 4. Which command was it?")

    def answer_format(self) -> tuple[str, list[str]]:
        m = self.max_distance
        return (f"move <{'|'.join(self.axes)}> <d>",
                [f"move {self.axes[0]} {min(3, m)}", f"move {self.axes[-1]} {-min(2, m)}"])

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, Move) and isinstance(truth, Move)
        return move_score(pred, truth, self.score_range_A)

    def random_reply(self, rng: random.Random) -> str:
        return str(Move(rng.choice(self.axes), rng.choice(self.distances())))


@dataclass(frozen=True)
class RotationSpec(TaskSpec):
    """T2: ``roll y -30``; ``count`` items per axis, multiples of ``step`` degrees in
    [-max_angle, max_angle], not 0.  Metric: 0 for a wrong axis, else ``1 - |Δangle| / R`` with R
    the width of the range (180° by default)."""

    name = "rotation"
    code = "T2"
    paper = True
    paper_average = True
    summary = "By how much did the complex roll about x, y or z?"
    counts = {"train": 2, "test": 1}
    answer = Roll
    metric = "axis, then 1 - |Δangle| / (2 max_angle)"

    axes: tuple[str, ...] = ("x", "y", "z")
    max_angle: int = 90
    step: int = 15

    def validate(self) -> None:
        _check_axes(self.name, self.axes, ("x", "y", "z"))
        check_angle_range(self.name, self.max_angle, self.step)

    def angles(self) -> tuple[int, ...]:
        """The allowed angles (degrees)."""
        return rotation_angles(self.max_angle, self.step)

    @property
    def score_range_deg(self) -> float:
        """R of the metric: the width of the asked range (degrees)."""
        return float(2 * self.max_angle)

    def ask(self, **fields: Any) -> str:
        m = self.max_angle
        return (f"One command \"roll <axis> <angle>\" (axis {or_list(self.axes)}; angle a multiple of {self.step} "
                f"degrees between -{m} and {m}, not 0) turns image 1 into image 4. Which command was it?")

    def answer_format(self) -> tuple[str, list[str]]:
        a, b = (self.axes[1], self.axes[0]) if len(self.axes) > 1 else (self.axes[0], self.axes[0])
        return (f"roll <{'|'.join(self.axes)}> <angle>",
                [f"roll {a} {example_angle(-2, self.max_angle, self.step)}",
                 f"roll {b} {example_angle(3, self.max_angle, self.step)}"])

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        assert isinstance(pred, Roll) and isinstance(truth, Roll)
        return roll_score(pred, truth, self.score_range_deg)

    def random_reply(self, rng: random.Random) -> str:
        return str(Roll(rng.choice(self.axes), rng.choice(self.angles())))


@dataclass(frozen=True)
class ZoomingSpec(TaskSpec):
    """T3: ``move z 47``; d a whole number of Å in [min_distance, max_distance]; the prompt states
    the camera distance D (0.1 Å).  Metric: accuracy.

    A zoom is not asked when it would bring the centre within ``min_gap`` Å of the camera, leave
    fewer than ``min_atoms_in_frame`` heavy atoms inside the after image, or look the same as a
    neighbouring answer (d ± 1) to within ``min_separation`` x image size pixels.
    """

    name = "zooming"
    code = "T3"
    paper = True
    paper_average = True
    summary = "How far did the camera move along z?"
    counts = {"train": 4, "test": 2}
    answer = Move

    min_distance: int = 40
    max_distance: int = 60
    min_gap: float = 5.0
    min_atoms_in_frame: int = 10
    min_separation: float = 0.005

    def validate(self) -> None:
        if not 1 <= self.min_distance <= self.max_distance:
            raise ValueError(f"task {self.name!r}: need 1 <= min_distance <= max_distance, "
                             f"got {self.min_distance}, {self.max_distance}")
        if self.min_gap < 0 or self.min_atoms_in_frame < 0 or self.min_separation < 0:
            raise ValueError(f"task {self.name!r}: min_gap, min_atoms_in_frame and min_separation must be >= 0")

    def distances(self) -> tuple[int, ...]:
        """The allowed distances (Å) before the per-complex checks."""
        return tuple(range(self.min_distance, self.max_distance + 1))

    def ask(self, *, distance_A: float, **fields: Any) -> str:
        return (f"The camera looks at the centre of the complex from a fixed distance D = {distance_A:.1f} Å; moving "
                "the complex d Å closer makes it look larger by the factor D / (D - d) (exactly so in the plane "
                f"through its centre). How many Å (a whole number between {self.min_distance} and "
                f"{self.max_distance}) was it moved along Z between image 1 and image 4?")

    def answer_format(self) -> tuple[str, list[str]]:
        return "move z <d>", [f"move z {min(self.min_distance + 7, self.max_distance)}"]

    def random_reply(self, rng: random.Random) -> str:
        return str(Move("z", rng.choice(self.distances())))
