"""Hand-written replies with known scores for every task (spec section 5), incl. the paper's examples."""

from __future__ import annotations

import json

import pytest

from misi_tasks.eval.score import column_of, score_item

T4_POS = "Yes: ARG NH2, O1B; ARG NE, O2G"
T9 = "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2; GLY 184A N ?, O1"

# (task, truth, reply, expected score, expected exact match)
CASES = [
    # T1: 0 for a wrong axis, else 1 - |d| / 8
    ("translation", "move x 3", "move x 3", 1.0, True),
    ("translation", "move x 3", "move x 1", 1 - 2 / 8, False),
    ("translation", "move x 3", "move x -3", 1 - 6 / 8, False),
    ("translation", "move x -4", "move x 4", 0.0, False),             # |d| = 8 = R
    ("translation", "move x 3", "move y 3", 0.0, False),              # wrong axis
    ("translation", "move x 3", "The answer is move x 2.", 1 - 1 / 8, False),
    # T2: 1 - |angle| / 180 with the right axis
    ("rotation", "roll y -30", "roll y -45", 1 - 15 / 180, False),   # the paper's example: off by 15 deg
    ("rotation", "roll y -30", "roll y -30\u00b0", 1.0, True),
    ("rotation", "roll y -30", "roll x -30", 0.0, False),            # wrong axis
    ("rotation", "roll z 90", "roll z -90", 0.0, False),             # off by 180
    # T3: accuracy
    ("zooming", "move z 47", "move z 47", 1.0, True),
    ("zooming", "move z 47", "move z 48", 0.0, False),
    # T4 positives: found / true; all true + extras: 0.5; > 2x the true count: 0
    ("residue-ligand", T4_POS, T4_POS, 1.0, True),
    ("residue-ligand", T4_POS, "Yes: ARG NE, O2G; ARG NH2, O1B", 1.0, True),      # order does not matter
    ("residue-ligand", T4_POS, "yes: arg nh2,o1b", 0.5, False),                    # 1 of 2 found
    ("residue-ligand", T4_POS, T4_POS + "; ARG NH1, O1B", 0.5, False),             # all + one extra
    ("residue-ligand", T4_POS, T4_POS + "; ARG NH1, O1B; ARG NH1, O2B", 0.5, False),   # 4 <= 2 x 2
    ("residue-ligand", T4_POS, T4_POS + "; ARG NH1, O1B; ARG NH1, O2B; ARG N, O3", 0.0, False),  # 5 > 4
    ("residue-ligand", T4_POS, "Yes: ARG NH2, O1B; ARG NH1, O3G", 0.5, False),     # 1 of 2 + a wrong one
    ("residue-ligand", T4_POS, "No", 0.0, False),                                  # positive answered No
    # T4 negatives: 1 for No, else 0
    ("residue-ligand", "No", "No.", 1.0, True),
    ("residue-ligand", "No", "Yes: ARG NH2, O1B", 0.0, False),
    # T5, T6, T8: accuracy
    ("translation-rotation", "C", "The answer is **C**.", 1.0, True),
    ("rotation-rotation", "C", "B", 0.0, False),
    ("interaction-location", "A", "answer: a", 1.0, True),
    # T7: half roll (axis must match), half move (sign must match, R = 30)
    ("docking", "roll x 75, move x -14", "roll x 75, move x -14", 1.0, True),
    ("docking", "roll x 75, move x -14", "roll x 75, move x 14", 0.5, False),       # wrong move sign
    ("docking", "roll x 75, move x -14", "roll y 75, move x -14", 0.5, False),      # wrong roll axis
    ("docking", "roll x 75, move x -14", "roll x 60, move x -20", 0.5 * (1 - 15 / 180) + 0.5 * (1 - 6 / 30), False),
    ("docking", "roll x 75, move x -14", "roll x 75, move y -14", 0.5, False),      # move along y
    ("docking", "roll x 75, move x -14", "roll y 15, move x 3", 0.0, False),
    # T9
    ("pocket-ligand", T9, T9.lower(), 1.0, True),
    ("pocket-ligand", T9, "ASN 460 ND2 A, O2", 1 / 3, False),
    ("pocket-ligand", T9, "GLY 184A N ?, O1; HIS 1 N A, O9", 1 / 3, False),
    ("pocket-ligand", T9, T9 + "; HIS 1 N A, O9", 0.5, False),
    ("pocket-ligand", T9, "; ".join(f"HIS {i} N A, O9" for i in range(7)), 0.0, False),
    ("pocket-ligand", T9, "GLY 184 N ?, O1", 0.0, False),                           # insertion code matters
    # unparseable scores 0
    ("translation", "move x 3", "left", 0.0, False),
    ("residue-ligand", "No", "I don't know", 0.0, False),
]


def _item(task: str, truth: str) -> dict:
    meta = {"label": "negative" if truth == "No" else "positive"} if task == "residue-ligand" else {}
    return {"id": f"{task}/test/x/000", "task": task, "answer": truth, "options": [], "metadata": json.dumps(meta)}


@pytest.mark.parametrize("task, truth, reply, score, exact", CASES)
def test_score_item(task: str, truth: str, reply: str, score: float, exact: bool) -> None:
    result = score_item(_item(task, truth), reply)
    assert result.score == pytest.approx(score)
    assert result.exact is exact


@pytest.mark.parametrize("task, truth", [(t, a) for t, a, *_ in CASES])
def test_truth_scores_one(task: str, truth: str) -> None:
    result = score_item(_item(task, truth), truth)
    assert (result.score, result.exact, result.status) == (1.0, True, "ok")


def test_docking_wrong_sign_is_at_most_half() -> None:
    item = _item("docking", "roll z -45, move x 20")
    for reply in ("roll z -45, move x -20", "roll z -45, move x -1", "roll z -30, move x -25"):
        assert score_item(item, reply).score <= 0.5


@pytest.mark.parametrize("reply, status", [(None, "missing"), ("blah", "unparseable"), ("move x 1", "ok")])
def test_status(reply: str | None, status: str) -> None:
    result = score_item(_item("translation", "move x 3"), reply)
    assert result.status == status
    assert result.score == (0.0 if status != "ok" else 1 - 2 / 8)


@pytest.mark.parametrize("task, truth, meta, column", [
    ("residue-ligand", T4_POS, {"label": "positive"}, "T4+"),
    ("residue-ligand", "No", {"label": "negative"}, "T4-"),
    ("residue-ligand", "No", {}, "T4-"),                   # no label: falls back on the answer
    ("docking", "roll x 15, move x 3", {}, "T7"),
])
def test_column_of(task: str, truth: str, meta: dict, column: str) -> None:
    assert column_of({"task": task, "answer": truth, "metadata": json.dumps(meta)}) == column


def test_broken_truth_is_an_error() -> None:
    with pytest.raises(ValueError, match="not of the translation form"):
        score_item(_item("translation", "left a bit"), "move x 1")
