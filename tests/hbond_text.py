"""T9 and T4 answer bodies as one string, for tests and benchmarks that compare H-bond answers as text.

Moved out of ``misi_tasks.tasks.hbond_answers`` (the generators use :func:`~misi_tasks.tasks.hbond_answers.t9_bonds`
and :func:`~misi_tasks.tasks.hbond_answers.t4_bonds`; only tests and ``benchmarks/hbond_agreement.py`` wanted text).
"""

from __future__ import annotations

from typing import Sequence

from misi_geom import Complex, HBond
from misi_tasks.tasks.hbond_answers import t4_bonds, t9_bonds

__all__ = ["format_t4", "format_t9"]


def format_t9(bonds: Sequence[HBond], c: Complex) -> str:
    """T9 answer: ``"ARG 45 NH2 A, O1B; ..."`` (blank chain ``?``; ``""`` when there is none)."""
    return "; ".join(t9_bonds(bonds, c).bonds)


def format_t4(bonds: Sequence[HBond], c: Complex) -> str:
    """T4 answer body: ``"ARG NH2, O1B; ARG NE, O2G"`` (residue atom first; ``""`` when none).

    Pass the bonds of one residue (e.g. filtered by ``c.res_index``); the task adds ``Yes:``/``No``
    (:func:`t4_bonds` gives the whole answer).
    """
    return "; ".join(t4_bonds(bonds, c).bonds)
