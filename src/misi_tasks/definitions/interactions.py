"""X1 interaction type and X3 ring stacking, beside the paper's nine (the declarations; the generators are
:mod:`misi_tasks.tasks.interactions`).  Not paper tasks: ``misi-gen --task all`` leaves them out, their
columns ``X1`` and ``X3`` stay out of the paper's average.

>>> InteractionTypeSpec().report_columns()
('X1',)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from misi_tasks.definitions.taskspec import TaskSpec

__all__ = ["InteractionTypeSpec", "RingStackingSpec", "TYPE_DEFINITIONS"]

#: How the prompt defines each interaction type (PLIP's definitions; H-bonds ChimeraX's).
TYPE_DEFINITIONS = (
    "hydrogen bond (donor and acceptor atoms within H-bond geometry), "
    "salt bridge (oppositely charged groups, charge centres within 5.5 Å), "
    "pi-stacking (two aromatic rings face to face or edge to face, centroids within 5.5 Å), "
    "cation-pi (a positive charge within 6 Å over an aromatic ring's face), "
    "halogen bond (a ligand C-F/Cl/Br/I pointing at an O, N or S within 4 Å), "
    "metal coordination (a metal ion within 3 Å of a coordinating ligand atom), "
    "hydrophobic contact (two carbons bonded only to carbon or hydrogen, within 4 Å)"
)


@dataclass(frozen=True)
class InteractionTypeSpec(TaskSpec):
    """X1: which interactions one residue, drawn with the ligand, makes with it; options A-D, each a
    set of types (``"hydrogen bond and salt bridge"``).  ``count`` residues per complex, those making a
    type other than hydrogen bonds and hydrophobic contacts first.  Metric: accuracy."""

    name = "interaction-type"
    code = "X1"
    summary = "Which interactions does this residue make with the ligand?"
    counts = {"train": 2, "test": 1}

    def ask(self, *, residue: str, **fields: Any) -> str:
        return (f"Which interactions does {residue} make with the ligand? The types are: {TYPE_DEFINITIONS}. "
                "Each option lists every type the residue makes, joined by \"and\".")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["A", "C"]


@dataclass(frozen=True)
class RingStackingSpec(TaskSpec):
    """X3: which (residue ring, ligand ring) pair pi-stacks; options A-D like ``"PHE 120 ring, ligand
    ring C1 C2 C3 C4 C5 C6"`` (TRP's rings: ``"TRP 84 six-membered ring"``, ``"five-membered ring"``).  One item per stacking pair (test 1, train 2 per
    complex); decoys never name another stacking pair.  Metric: accuracy."""

    name = "ring-stacking"
    code = "X3"
    summary = "Which residue ring and ligand ring pi-stack?"
    counts = {"train": 2, "test": 1}

    def ask(self, **fields: Any) -> str:
        return ("Which pocket residue ring and ligand ring pi-stack, face to face or edge to face (ring centroids "
                "within 5.5 Å, the rings parallel within 30° or perpendicular within 30°, one centroid over the "
                "other ring within 2 Å)? Each option names a residue's ring and a ligand ring by its atoms; "
                "exactly one pair stacks.")

    def answer_format(self) -> tuple[str, list[str]]:
        return "one letter", ["B", "D"]
