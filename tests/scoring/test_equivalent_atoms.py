"""Symmetry-equivalent atoms score as the atom they stand for, from metadata alone.

Hand-made items and replies: the scorer reads the item's ``equivalent_atoms`` and nothing else.
"""

from __future__ import annotations

import json

import pytest

from misi_tasks.eval.baselines import baseline_reply
from misi_tasks.eval.score import score_item
from misi_tasks.definitions.equivalence import SIDE_CHAIN_EQUIVALENTS, side_chain_siblings

T9_TRUTH = "ASP 29 OD1 A, O1; ARG 7 NH2 A, O3; SER 70 OG ?, N4"
T9_CLASSES = [["ARG 7 NH1 A", "ARG 7 NH2 A"], ["ASP 29 OD1 A", "ASP 29 OD2 A"], ["O1", "O2"]]


def _item(task: str, answer: str, classes, label: str | None = None) -> dict:
    meta = {"equivalent_atoms": classes}
    if label:
        meta["label"] = label
    return {"id": f"{task}/test/1abc/000", "task": task, "answer": answer, "options": [],
            "metadata": json.dumps(meta)}


# (reply, score, exact) against T9_TRUTH with T9_CLASSES
T9_CASES = [
    (T9_TRUTH, 1.0, True),
    ("ASP 29 OD2 A, O1; ARG 7 NH1 A, O3; SER 70 OG ?, N4", 1.0, True),      # both pocket siblings swapped
    ("ASP 29 OD2 A, O2; ARG 7 NH2 A, O3; SER 70 OG ?, N4", 1.0, True),      # pocket and ligand sibling
    ("asp 29 od2 a,o2; ARG 7 NH2 A, O3; SER 70 OG ?, N4", 1.0, True),       # normalised like any bond
    ("ASP 29 OD2 A, O1", 1 / 3, False),                                      # one of three, by a sibling
    ("ASP 29 OD2 B, O1; ARG 7 NH2 A, O3; SER 70 OG ?, N4", 2 / 3, False),   # another chain is no sibling
    ("ASP 29 CG A, O1; ARG 7 NH2 A, O3; SER 70 OG ?, N4", 2 / 3, False),    # CG is no sibling of OD1
    ("SER 70 OG ?, N4; ARG 7 NE A, O3", 1 / 3, False),                      # NE is no sibling of NH2
    (T9_TRUTH + "; ASP 29 OD2 A, O1", 0.5, False),  # the sibling bond added: every true bond plus an extra
]


@pytest.mark.parametrize("reply, score, exact", T9_CASES)
def test_t9_sibling_atoms_score_as_the_true_atom(reply, score, exact):
    got = score_item(_item("pocket-ligand", T9_TRUTH, T9_CLASSES), reply)
    assert got.score == pytest.approx(score) and got.exact is exact and got.status == "ok"


def test_without_metadata_a_sibling_is_a_different_atom():
    reply = "ASP 29 OD2 A, O1; ARG 7 NH1 A, O3; SER 70 OG ?, N4"
    assert score_item(_item("pocket-ligand", T9_TRUTH, []), reply).score == pytest.approx(1 / 3)


def test_a_truth_naming_both_siblings_needs_both_bonds():
    """A bond per sibling: one reply bond cannot stand for two true ones (one-to-one pairing)."""
    truth = "ASP 29 OD1 A, N1; ASP 29 OD2 A, N1"
    item = _item("pocket-ligand", truth, [["ASP 29 OD1 A", "ASP 29 OD2 A"]])
    assert score_item(item, "ASP 29 OD2 A, N1").score == pytest.approx(0.5)
    assert score_item(item, "ASP 29 OD2 A, N1; ASP 29 OD1 A, N1").exact
    assert score_item(item, "ASP 29 OD1 A, N1; ASP 29 OD1 A, N1").score == pytest.approx(0.5)  # a repeat is one bond


def test_t4_sibling_atoms_in_the_t4_vocabulary():
    item = _item("residue-ligand", "Yes: GLU OE1, O28; GLU N, O29", [["GLU OE1", "GLU OE2"], ["O28", "O29"]],
                 label="positive")
    assert score_item(item, "Yes: GLU OE2, O29; GLU N, O28").exact  # every atom swapped for its sibling
    assert score_item(item, "Yes: GLU OE2, O28").score == pytest.approx(0.5)
    assert score_item(item, "No").score == 0.0
    negative = _item("residue-ligand", "No", [], label="negative")
    assert score_item(negative, "No").score == 1.0


def test_oracle_and_random_baselines_keep_their_meaning():
    item = _item("pocket-ligand", T9_TRUTH, T9_CLASSES)
    assert score_item(item, baseline_reply(item, "oracle")).score == 1.0
    scores = [score_item(item, baseline_reply(item, "random", seed=s)).score for s in range(200)]
    assert max(scores) < 0.5  # random bonds of random residues almost never hit


def test_side_chain_table_is_the_spec_table():
    assert dict(SIDE_CHAIN_EQUIVALENTS) == {
        "ASP": (("OD1", "OD2"),), "GLU": (("OE1", "OE2"),), "ARG": (("NH1", "NH2"),),
        "PHE": (("CD1", "CD2"), ("CE1", "CE2")), "TYR": (("CD1", "CD2"), ("CE1", "CE2")),
        "LEU": (("CD1", "CD2"),), "VAL": (("CG1", "CG2"),)}
    assert side_chain_siblings("tyr", "ce2") == ("CE1", "CE2")
    assert side_chain_siblings("ARG", "NE") == () and side_chain_siblings("HOH", "O") == ()
