"""Per-item scoring of MiSI-Bench replies (spec section 5).

Each task's metric, with its ranges, is its spec's (:meth:`misi_tasks.definitions.taskspec.TaskSpec.score`,
built from :mod:`misi_tasks.definitions.metrics`); an item is scored with the spec it was generated with
(its metadata's ``task_params``, :func:`misi_tasks.definitions.registry.spec_of_item`).  With the default
parameters (score in [0, 1] per item):

- T3, T5, T6, T8: accuracy (the parsed answer equals the truth).
- T1, T2: 0 if the axis is wrong, else ``max(0, 1 - |pred - true| / R)`` with R the width of the
  asked range: :data:`TRANSLATION_RANGE_A` (8 Å) for T1 and :data:`ROTATION_RANGE_DEG` (180°) for T2.
- T7: :data:`DOCKING_ROLL_WEIGHT` for the roll (axis must match;
  ``1 - |Δangle| / 180``) plus the rest for the move (axis and sign must match;
  ``1 - |Δd| / R`` with R = :data:`DOCKING_MOVE_RANGE_A`, 30 Å). A roll by 0° equals any
  other roll by 0°, whatever the axis.
- T4, T9: with T the true bond set and P the listed set (normalised, repeats dropped):
  ``|P| > 2 |T|`` -> 0; ``T`` a proper subset of ``P`` -> 0.5; else ``|T ∩ P| / |T|``.
  When T is empty (a T4 negative) the score is 1 for ``No`` and 0 otherwise; a positive
  answered ``No`` scores 0.
- X2: F1 of the listed contacts against the true ones (a charged group named by any of its atoms, a ring by
  all of them); with no true contact, 1 for ``None`` and 0 otherwise.
- Exact match for every task: the parsed answer equals the truth (bond and contact lists as sets).

An item's ``equivalent_atoms`` (metadata; T4, T8, T9: classes of atoms a reader cannot tell
apart, :mod:`misi_tasks.definitions.equivalence`) let a T4/T9 answer name any atom of a class in place
of another: both lists are compared after mapping every atom to its class
(:func:`~misi_tasks.definitions.equivalence.canonical_bond_list`).

An item's ``equivalent_answers`` (metadata; T7 records the other allowed answers that dock the
ligand within 1 Å heavy-atom RMSD of its bound pose) get the credit of the exact answer: score 1
and an exact match.  An unparseable reply scores 0 (and is counted); a missing reply scores 0
(and is counted).

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

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from misi_tasks.definitions.answers import ParsedAnswer
from misi_tasks.definitions.docking import DOCKING_MOVE_RANGE_A, DOCKING_ROLL_WEIGHT
from misi_tasks.definitions.metrics import BOND_OVERLIST_FACTOR, BOND_SUPERSET_SCORE, same_answer
from misi_tasks.definitions.motion import RotationSpec, TranslationSpec
from misi_tasks.definitions.registry import item_metadata, paper_average_columns, report_columns, task_spec
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = [
    "BOND_OVERLIST_FACTOR",
    "BOND_SUPERSET_SCORE",
    "DOCKING_MOVE_RANGE_A",
    "DOCKING_ROLL_WEIGHT",
    "ItemScore",
    "ROTATION_RANGE_DEG",
    "TRANSLATION_RANGE_A",
    "column_of",
    "score_answer",
    "score_item",
]

#: R for T1 with the default spec: a translation off by 8 Å or more scores 0.
TRANSLATION_RANGE_A = TranslationSpec().score_range_A
#: R for T2 (and the roll half of T7) with the default spec: off by 180° or more scores 0.
ROTATION_RANGE_DEG = RotationSpec().score_range_deg



def __getattr__(name: str) -> Any:
    """``COLUMNS`` and ``PAPER_AVERAGE_COLUMNS``: the report columns the registered specs declare
    (:func:`~misi_tasks.definitions.registry.report_columns`,
    :func:`~misi_tasks.definitions.registry.paper_average_columns`), derived on access."""
    if name == "COLUMNS":
        return report_columns()
    if name == "PAPER_AVERAGE_COLUMNS":
        return paper_average_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


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
    """Return the report column of an item (its task code; T4 split by its metadata ``label``)."""
    return task_spec(item["task"]).column(item_metadata(item), item["answer"])


def score_answer(task: str | TaskSpec, pred: ParsedAnswer | None, truth: ParsedAnswer) -> float:
    """Score a parsed prediction against the parsed truth of ``task`` (0 when ``pred`` is None).

    ``task`` is a name or code (its default spec) or the spec the item was generated with.

    Examples
    --------
    >>> from misi_tasks.eval.parse import parse_answer
    >>> t = parse_answer("docking", "roll x 75, move x -14")
    >>> score_answer("docking", parse_answer("docking", "roll x 75, move x 14"), t)   # wrong sign
    0.5
    >>> score_answer("residue-ligand", parse_answer("T4", "Yes: A B, C; A D, E"),
    ...              parse_answer("T4", "Yes: A B, C"))   # every true bond plus one extra
    0.5
    """
    spec = task if isinstance(task, TaskSpec) else task_spec(task)
    if pred is None or type(pred) is not type(truth):
        return 0.0
    return spec.score(pred, truth)


def score_item(
    item: Mapping[str, Any], reply: str | None, *, pick: Literal["last", "first"] = "last"
) -> ItemScore:
    """Parse and score one reply for one dataset item, with the spec it was generated with.

    Parameters
    ----------
    item : mapping
        A row of :func:`misi_tasks.dataset.read_items` (``id``, ``task``, ``answer``,
        ``options``, ``metadata`` are used).
    reply : str or None
        The model's free-text reply; None when the prediction is missing.
    pick : {"last", "first"}, default "last"
        Which complete answer of the reply to score (see :func:`misi_tasks.eval.parse.parse_answer`).

    Raises
    ------
    ValueError
        If the item's own ``answer`` is not of its task's form (a broken dataset).
    """
    meta = item_metadata(item)
    spec = task_spec(item["task"], meta.get("task_params"))  # the spec the item was generated with
    task = spec.name
    options = list(item.get("options") or ())
    truth = spec.parse(item["answer"], options=options)
    if truth is None:
        raise ValueError(f"item {item['id']}: answer {item['answer']!r} is not of the {task} form")
    column = spec.column(meta, item["answer"])
    if reply is None:
        return ItemScore(item["id"], task, column, 0.0, False, "missing", None)
    pred = spec.parse(reply, options=options, pick=pick)
    if pred is None:
        return ItemScore(item["id"], task, column, 0.0, False, "unparseable", None)
    # equivalent answers (T7: other poses within 1 Å RMSD of the bound one) count as the exact one
    equivalents = (spec.parse(a) for a in meta.get("equivalent_answers", ()))
    truths = [truth, *(e for e in equivalents if e is not None)]
    # the form the spec compares (T4/T9: a symmetry-equivalent atom names the same atom; X2: any atom
    # names a charged group)
    text = pred.text
    pred = spec.canonical(pred, meta)
    truths = [spec.canonical(t, meta) for t in truths]
    score = max(score_answer(spec, pred, t) for t in truths)
    return ItemScore(item["id"], task, column, score, any(same_answer(pred, t) for t in truths), "ok", text)
