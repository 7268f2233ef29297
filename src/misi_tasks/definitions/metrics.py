"""The per-item metrics of MiSI-Bench (spec section 5), as pure functions of parsed answers.

A task's spec (:mod:`misi_tasks.definitions.taskspec`) picks its metric and passes the ranges it
declares; a new metric goes here.

Examples
--------
>>> linear_score(-3, 8.0)          # off by 3 of a range of 8
0.625
>>> roll_score(Roll("y", -45), Roll("y", -30), 180.0).__round__(4)
0.9167
>>> bond_score(BondList(("A B, C", "A D, E")), BondList(("A B, C",)))   # every true bond plus one
0.5
>>> round(contact_f1(ContactList(("ARG 1 NZ A, O1", "ARG 2 NZ A, O1")), ContactList(("ARG 1 NZ A, O1",))), 4)
0.6667
"""

from __future__ import annotations

from misi_tasks.definitions.answers import BondList, ContactList, Docking, Move, ParsedAnswer, Roll

__all__ = [
    "BOND_OVERLIST_FACTOR", "BOND_SUPERSET_SCORE", "bond_score", "contact_f1", "docking_score", "exact_score",
    "linear_score", "move_score", "roll_score", "same_answer",
]

#: T4/T9: listing more than this many times the true bond count scores 0.
BOND_OVERLIST_FACTOR = 2
#: T4/T9: score for listing every true bond plus extras (within the over-list limit).
BOND_SUPERSET_SCORE = 0.5


def linear_score(delta: float, full_range: float) -> float:
    """``max(0, 1 - |delta| / full_range)``."""
    return max(0.0, 1.0 - abs(delta) / full_range)


def move_score(pred: Move, truth: Move, full_range: float) -> float:
    """0 for a wrong axis, else :func:`linear_score` of the distance (T1)."""
    return 0.0 if pred.axis != truth.axis else linear_score(pred.dist_A - truth.dist_A, full_range)


def roll_score(pred: Roll, truth: Roll, full_range: float) -> float:
    """0 for a wrong axis, else :func:`linear_score` of the angle; a roll by 0° equals any other."""
    if pred.angle_deg == 0 and truth.angle_deg == 0:
        return 1.0
    if pred.axis != truth.axis:
        return 0.0
    return linear_score(pred.angle_deg - truth.angle_deg, full_range)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def docking_score(pred: Docking, truth: Docking, roll_range: float, move_range: float, roll_weight: float) -> float:
    """T7: ``roll_weight`` x :func:`roll_score` plus the rest for the move (axis and sign must match)."""
    roll = roll_score(pred.roll, truth.roll, roll_range)
    pm, tm = pred.move, truth.move
    ok = pm.axis == tm.axis and _sign(pm.dist_A) == _sign(tm.dist_A)
    move = linear_score(pm.dist_A - tm.dist_A, move_range) if ok else 0.0
    return roll_weight * roll + (1.0 - roll_weight) * move


def bond_score(pred: BondList, truth: BondList) -> float:
    """T4/T9: over-listing -> 0, a proper superset -> 0.5, else the share of true bonds found.

    With no true bond (a T4 negative) the score is 1 for ``No`` and 0 otherwise.
    """
    p, t = set(pred.bonds), set(truth.bonds)
    if not t:
        return 1.0 if not p else 0.0
    if len(p) > BOND_OVERLIST_FACTOR * len(t):
        return 0.0
    if t < p:
        return BOND_SUPERSET_SCORE
    return len(t & p) / len(t)


def contact_f1(pred: ContactList, truth: ContactList) -> float:
    """X2: the F1 of the listed contacts against the true ones, as sets (both canonical, see
    :func:`misi_tasks.definitions.equivalence.canonical_contact_list`): ``2 |P ∩ T| / (|P| + |T|)``.

    With no true contact (answer ``No``) the score is 1 for ``No`` and 0 otherwise.
    """
    p, t = set(pred.contacts), set(truth.contacts)
    if not t or not p:
        return 1.0 if p == t else 0.0
    hits = len(p & t)
    return 2 * hits / (len(p) + len(t))


def same_answer(pred: ParsedAnswer, truth: ParsedAnswer) -> bool:
    """Exact match: the same text (bond lists as sets)."""
    if isinstance(pred, BondList) and isinstance(truth, BondList):
        return set(pred.bonds) == set(truth.bonds)
    if isinstance(pred, ContactList) and isinstance(truth, ContactList):
        return set(pred.contacts) == set(truth.contacts)
    return type(pred) is type(truth) and pred.text == truth.text


def exact_score(pred: ParsedAnswer, truth: ParsedAnswer) -> float:
    """Accuracy: 1 for :func:`same_answer`, else 0."""
    return 1.0 if same_answer(pred, truth) else 0.0
