"""T5 translation + rotation and T6 rotation + rotation: multiple choice between four front views
(the declarations).  The prompts state no value range (the options are images); the ranges
bound the true pair and its decoys.  The generators are :mod:`misi_tasks.tasks.choice`, the decoy schemes
:mod:`misi_tasks.tasks.decoys`, which draw from the value ranges declared here.

>>> TranslationRotationSpec(max_distance=2).distances()
(-2, -1, 1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.motion import check_angle_range, rotation_angles
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = ["PairChoiceSpec", "TranslationRotationSpec", "RotationRotationSpec", "SSIM_MAX"]

#: A decoy image whose SSIM to the correct image (or another option, or image 4) reaches this is redrawn.
SSIM_MAX = 0.95


@dataclass(frozen=True)
class PairChoiceSpec(TaskSpec):
    """Shared declaration: rolls in multiples of ``step`` degrees in [-max_angle, max_angle], not 0;
    decoy images below ``ssim_max`` SSIM.  Metric: accuracy."""

    counts = {"train": 6, "test": 3}

    ssim_max: float = SSIM_MAX
    max_angle: int = 90
    step: int = 15

    def validate(self) -> None:
        check_angle_range(self.name, self.max_angle, self.step)
        if self.max_angle < 2 * self.step:  # a decoy changes the magnitude: at least two per sign
            raise ValueError(f"task {self.name!r}: max_angle must be at least 2 steps, got {self.max_angle}")
        if not 0 < self.ssim_max <= 1:
            raise ValueError(f"task {self.name!r}: ssim_max must be in (0, 1], got {self.ssim_max}")

    def angles(self) -> tuple[int, ...]:
        """The allowed roll angles (degrees)."""
        return rotation_angles(self.max_angle, self.step)

    def distances(self) -> tuple[int, ...]:
        """The allowed move distances (Å); none for a task without moves."""
        return ()



@dataclass(frozen=True)
class TranslationRotationSpec(PairChoiceSpec):
    """T5: f1 a move along x or y by a whole number of Å in [-max_distance, max_distance] (not 0),
    f2 a roll; shown on complex c1, asked on c2."""

    name = "translation-rotation"
    code = "T5"
    paper = True
    summary = "Which image shows a second complex after the same move and roll?"

    max_distance: int = 4

    def validate(self) -> None:
        super().validate()
        if self.max_distance < 2:  # a decoy changes the magnitude: at least two magnitudes per sign
            raise ValueError(f"task {self.name!r}: max_distance must be >= 2, got {self.max_distance}")

    def distances(self) -> tuple[int, ...]:
        return tuple(d for d in range(-self.max_distance, self.max_distance + 1) if d)

    @property
    def margin_A(self) -> float:
        """Camera margin (Å) so that every atom stays in frame after the largest move."""
        return float(self.max_distance)

    def ask(self, *, pdb_id: str, other_id: str, **fields: Any) -> str:
        return (f"The same move and then the same roll are applied to {other_id.upper()}. "
                "Which option shows the result?")


@dataclass(frozen=True)
class RotationRotationSpec(PairChoiceSpec):
    """T6: f1, f2 rolls about different axes; the answer applies them again to the rotated complex."""

    name = "rotation-rotation"
    code = "T6"
    paper = True
    summary = "Which image shows the complex after the same two rolls?"

    def ask(self, **fields: Any) -> str:
        return ("The same two rolls, in the same order, are applied once more to the complex as it looks in "
                "image 4. Which option shows the result?")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["B", "D"]
