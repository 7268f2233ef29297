"""Per-item scoring of MiSI-Bench replies (spec section 5), with every constant in one place.

Metrics (score in [0, 1] per item):

- T3, T5, T6, T8: accuracy (the parsed answer equals the truth).
- T1, T2: 0 if the axis is wrong, else ``max(0, 1 - |pred - true| / R)`` with
  R = :data:`TRANSLATION_RANGE_A` (8 Å) for T1 and :data:`ROTATION_RANGE_DEG` (180°) for T2.
- T7: :data:`DOCKING_ROLL_WEIGHT` for the roll (axis must match;
  ``1 - |Δangle| / 180``) plus the rest for the move (axis and sign must match;
  ``1 - |Δd| / R`` with R = :data:`DOCKING_MOVE_RANGE_A`, 30 Å). A roll by 0° equals any
  other roll by 0°, whatever the axis.  An item's ``equivalent_answers`` (metadata: the other
  allowed answers that dock the ligand within 1 Å heavy-atom RMSD of its bound pose) get the
  credit of the exact answer: score 1 and an exact match.
- T4, T9: with T the true bond set and P the listed set (normalised, repeats dropped):
  ``|P| > 2 |T|`` -> 0; ``T`` a proper subset of ``P`` -> 0.5; else ``|T ∩ P| / |T|``.
  When T is empty (a T4 negative) the score is 1 for ``No`` and 0 otherwise; a positive
  answered ``No`` scores 0.
- Exact match for every task: the parsed answer equals the truth (bond lists as sets).

An unparseable reply scores 0 (and is counted); a missing reply scores 0 (and is counted).

Examples
--------
>>> item = {"id": "rotation/test/2pyy/000", "task": "rotation", "answer": "roll y -30",
...         "options": [], "metadata": "{}"}
>>> round(score_item(item, "roll y -45").score, 4)   # off by 15 degrees: 1 - 15/180
0.9167
>>> score_item(item, "roll x -30").score               # wrong axis
0.0
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from misi_tasks.spec.names import TASK_CODES, resolve_task
from misi_tasks.eval.parse import BondList, Choice, Docking, Move, ParsedAnswer, Roll, parse_answer

__all__ = [
    "BOND_OVERLIST_FACTOR",
    "BOND_SUPERSET_SCORE",
    "COLUMNS",
    "DOCKING_MOVE_RANGE_A",
    "DOCKING_ROLL_WEIGHT",
    "ItemScore",
    "PAPER_AVERAGE_COLUMNS",
    "ROTATION_RANGE_DEG",
    "TRANSLATION_RANGE_A",
    "column_of",
    "score_answer",
    "score_item",
]

# ---------------------------------------------------------------- constants (spec section 5)
#: R for T1: a translation off by R Å or more scores 0.
TRANSLATION_RANGE_A = 8.0
#: R for T2 and for the roll half of T7: a rotation off by 180° or more scores 0.
ROTATION_RANGE_DEG = 180.0
#: R for the move half of T7 (spec decision): off by 30 Å or more scores 0.
DOCKING_MOVE_RANGE_A = 30.0
#: Weight of the roll in T7; the move gets ``1 - DOCKING_ROLL_WEIGHT``.
DOCKING_ROLL_WEIGHT = 0.5
#: T4/T9: listing more than this many times the true bond count scores 0.
BOND_OVERLIST_FACTOR = 2
#: T4/T9: score for listing every true bond plus extras (within the over-list limit).
BOND_SUPERSET_SCORE = 0.5

#: Report columns: T4 is split into positives (T4+) and negatives (T4-).
COLUMNS: tuple[str, ...] = ("T1", "T2", "T3", "T4+", "T4-", "T5", "T6", "T7", "T8", "T9")
#: Columns of the paper's average (it leaves T5 and T6 out).
PAPER_AVERAGE_COLUMNS: tuple[str, ...] = ("T1", "T2", "T3", "T4+", "T4-", "T7", "T8", "T9")


@dataclass(frozen=True)
class ItemScore:
    """The score of one item.

    Attributes
    ----------
    id, task, column : str
        Item id, registry name and report column (``"T4+"``, ``"T4-"`` or the task code).
    score : float
        Weighted score in [0, 1].
    exact : bool
        Whether the parsed answer equals the truth.
    status : str
        ``"ok"``, ``"unparseable"`` or ``"missing"`` (no reply given).
    parsed : str or None
        Canonical text of the parsed reply.
    """

    id: str
    task: str
    column: str
    score: float
    exact: bool
    status: str
    parsed: str | None


def column_of(item: Mapping[str, Any]) -> str:
    """Return the report column of an item (T4 split by its metadata ``label``)."""
    task = resolve_task(item["task"])
    if task != "residue-ligand":
        return TASK_CODES[task]
    meta = item.get("metadata") or "{}"
    label = (json.loads(meta) if isinstance(meta, str) else meta).get("label")
    if label is None:
        label = "negative" if item["answer"].strip() == "No" else "positive"
    return "T4-" if label == "negative" else "T4+"


def _linear(delta: float, full_range: float) -> float:
    return max(0.0, 1.0 - abs(delta) / full_range)


def _roll_part(pred: Roll, truth: Roll, full_range: float) -> float:
    if pred.angle_deg == 0 and truth.angle_deg == 0:
        return 1.0
    if pred.axis != truth.axis:
        return 0.0
    return _linear(pred.angle_deg - truth.angle_deg, full_range)


def _sign(x: float) -> int:
    return (x > 0) - (x < 0)


def _bond_score(pred: BondList, truth: BondList) -> float:
    p, t = set(pred.bonds), set(truth.bonds)
    if not t:
        return 1.0 if not p else 0.0
    if len(p) > BOND_OVERLIST_FACTOR * len(t):
        return 0.0
    if t < p:
        return BOND_SUPERSET_SCORE
    return len(t & p) / len(t)


def _same(pred: ParsedAnswer, truth: ParsedAnswer) -> bool:
    if isinstance(pred, BondList) and isinstance(truth, BondList):
        return set(pred.bonds) == set(truth.bonds)
    return type(pred) is type(truth) and pred.text == truth.text


def score_answer(task: str, pred: ParsedAnswer | None, truth: ParsedAnswer) -> float:
    """Score a parsed prediction against the parsed truth of ``task`` (0 when ``pred`` is None).

    Examples
    --------
    >>> t = parse_answer("docking", "roll x 75, move x -14")
    >>> score_answer("docking", parse_answer("docking", "roll x 75, move x 14"), t)   # wrong sign
    0.5
    >>> score_answer("residue-ligand", parse_answer("T4", "Yes: A B, C; A D, E"),
    ...              parse_answer("T4", "Yes: A B, C"))   # every true bond plus one extra
    0.5
    """
    task = resolve_task(task)
    if pred is None or type(pred) is not type(truth):
        return 0.0
    if task == "translation":
        assert isinstance(pred, Move) and isinstance(truth, Move)
        return 0.0 if pred.axis != truth.axis else _linear(pred.dist_A - truth.dist_A, TRANSLATION_RANGE_A)
    if task == "rotation":
        assert isinstance(pred, Roll) and isinstance(truth, Roll)
        return _roll_part(pred, truth, ROTATION_RANGE_DEG)
    if task == "docking":
        assert isinstance(pred, Docking) and isinstance(truth, Docking)
        roll = _roll_part(pred.roll, truth.roll, ROTATION_RANGE_DEG)
        pm, tm = pred.move, truth.move
        ok = pm.axis == tm.axis and _sign(pm.dist_A) == _sign(tm.dist_A)
        move = _linear(pm.dist_A - tm.dist_A, DOCKING_MOVE_RANGE_A) if ok else 0.0
        return DOCKING_ROLL_WEIGHT * roll + (1.0 - DOCKING_ROLL_WEIGHT) * move
    if task in ("residue-ligand", "pocket-ligand"):
        assert isinstance(pred, BondList) and isinstance(truth, BondList)
        return _bond_score(pred, truth)
    assert isinstance(pred, (Move, Choice))  # zooming and the MC tasks: accuracy
    return 1.0 if _same(pred, truth) else 0.0


def _equivalents(item: Mapping[str, Any], task: str) -> list[ParsedAnswer]:
    """The parsed ``equivalent_answers`` of an item's metadata (T7; empty for other tasks)."""
    if task != "docking":
        return []
    meta = item.get("metadata") or "{}"
    meta = json.loads(meta) if isinstance(meta, str) else meta
    parsed = (parse_answer(task, a) for a in meta.get("equivalent_answers", ()))
    return [p for p in parsed if p is not None]


def score_item(
    item: Mapping[str, Any], reply: str | None, *, pick: Literal["last", "first"] = "last"
) -> ItemScore:
    """Parse and score one reply for one dataset item.

    Parameters
    ----------
    item : mapping
        A row of :func:`misi_tasks.spec.dataset.read_items` (``id``, ``task``, ``answer``,
        ``options``, ``metadata`` are used).
    reply : str or None
        The model's free-text reply; None when the prediction is missing.
    pick : {"last", "first"}, default "last"
        Which complete answer of the reply to score (see :func:`parse_answer`).

    Raises
    ------
    ValueError
        If the item's own ``answer`` is not of its task's form (a broken dataset).
    """
    task = resolve_task(item["task"])
    options = list(item.get("options") or ())
    truth = parse_answer(task, item["answer"], options=options)
    if truth is None:
        raise ValueError(f"item {item['id']}: answer {item['answer']!r} is not of the {task} form")
    column = column_of(item)
    if reply is None:
        return ItemScore(item["id"], task, column, 0.0, False, "missing", None)
    pred = parse_answer(task, reply, options=options, pick=pick)
    if pred is None:
        return ItemScore(item["id"], task, column, 0.0, False, "unparseable", None)
    truths = [truth, *_equivalents(item, task)]  # T7: equivalent answers count as the exact one
    score = max(score_answer(task, pred, t) for t in truths)
    return ItemScore(item["id"], task, column, score, any(_same(pred, t) for t in truths), "ok", pred.text)
