"""X2 positive items record their near misses (``metadata.near_misses``) and the scorer ignores a
listed contact that names one: hand-made answers scored on generated rows, and rows without the key
(older datasets) scored as before."""

from __future__ import annotations

import json

import pytest

from misi_render import RenderOptions
from misi_tasks.engine.generate import generate_items
from misi_tasks.eval.score import score_item
from misi_tasks.tasks.scene import Scene

from interaction_scenes import benzene_ligand, join, phe

RING = "CD1-CD2-CE1-CE2-CG-CZ"


@pytest.fixture(scope="module")
def stack_row() -> dict:
    """The pi-stacking X2 row of a benzene ligand with PHE 10 stacked 3.6 Å above it (a contact) and
    PHE 20 5.8 Å below, parallel and on axis (within 5.5 + 0.5 Å: a near miss, not a contact)."""
    c = join(phe((0, 0, 3.6), (0, 0, 1), res_id=10), phe((0, 0, -5.8), (0, 0, 1), res_id=20),
             benzene_ligand((0, 0, 0), (0, 0, 1)))
    items = generate_items(Scene(c, RenderOptions(size=256)), ["interaction-list"], seed=0,
                           split="train")["interaction-list"]
    rows = [json.loads(json.dumps({"answer": i.answer, "metadata": i.metadata})) for i in items]
    return next(r for r in rows if r["metadata"]["interaction_type"] == "pi_stacking")


def _score(row: dict, reply: str) -> float:
    item = {"id": "x", "task": "interaction-list", "answer": row["answer"], "options": [], "metadata": row["metadata"]}
    return score_item(item, reply).score


def test_the_near_miss_is_recorded_beside_the_contact(stack_row):
    m = stack_row["metadata"]
    assert [r["residue"] for r in m["interactions"]] == ["PHE 10 A"]
    assert [r["residue"] for r in m["near_misses"]] == ["PHE 20 A"]
    near = m["near_misses"][0]
    assert near.keys() == m["interactions"][0].keys()  # the same record form
    assert 5.5 <= near["distance"] < 6.0


def test_true_plus_near_miss_scores_one(stack_row):
    lig = "-".join(stack_row["metadata"]["interactions"][0]["ligand_atoms"])
    assert _score(stack_row, stack_row["answer"]) == 1.0
    assert _score(stack_row, f"PHE 10 {RING} A, {lig}; PHE 20 {RING} A, {lig}") == 1.0


def test_true_plus_a_far_wrong_contact_scores_less(stack_row):
    lig = "-".join(stack_row["metadata"]["interactions"][0]["ligand_atoms"])
    assert _score(stack_row, f"PHE 10 {RING} A, {lig}; PHE 99 {RING} A, {lig}") == pytest.approx(2 / 3)


def test_only_the_near_miss_scores_zero(stack_row):
    lig = "-".join(stack_row["metadata"]["interactions"][0]["ligand_atoms"])
    assert _score(stack_row, f"PHE 20 {RING} A, {lig}") == 0.0


def test_rows_without_near_misses_score_as_before(stack_row):
    """An older dataset's row (no ``near_misses`` key): the near miss is an extra contact again."""
    old = {"answer": stack_row["answer"],
           "metadata": {k: v for k, v in stack_row["metadata"].items() if k != "near_misses"}}
    lig = "-".join(old["metadata"]["interactions"][0]["ligand_atoms"])
    assert _score(old, old["answer"]) == 1.0
    assert _score(old, f"PHE 10 {RING} A, {lig}; PHE 20 {RING} A, {lig}") == pytest.approx(2 / 3)


def test_every_x2_item_records_the_key(stack_row):
    c = join(phe((0, 0, 3.6), (0, 0, 1)), benzene_ligand((0, 0, 0), (0, 0, 1)))
    for seed in range(4):
        for item in generate_items(Scene(c, RenderOptions(size=256)), ["interaction-list"], seed=seed,
                                   split="train")["interaction-list"]:
            assert item.metadata["near_misses"] == []  # a lone stack: no near miss, positive or No
