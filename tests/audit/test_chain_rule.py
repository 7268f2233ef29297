"""T9 chain letters (issue 21 §1, audit side): the audit decides whether residue labels carry chains
from the structure by the documented rule (a blank-chain ion counts as a chain of its own), checks the
prompt's label sentence against it and reads the residue labels an item records."""

from __future__ import annotations

import numpy as np

from misi_tasks.audit.hbond_checks import chain_problems
from misi_tasks.audit.item import Item
from misi_tasks.audit.structures import Atoms

_WITH = ("Labels: every pocket residue carries its name, number and chain id (for example \"ASP 29 A\"), since "
         "the pocket spans more than one chain, and every ligand atom its atom name.")
_WITHOUT = "Labels: every pocket residue carries its name and number (for example \"ASN 460\"), and every ligand atom its atom name."
_BONDS = [("THR 43 OG1 A", "N1")]


def _atoms(ion_chain: str | None) -> Atoms:
    """THR 43 of chain A, a ligand N1, and (unless None) a magnesium ion with chain ``ion_chain``."""
    rows = [("N", "N", "THR", "43", "A", 0, False), ("OG1", "O", "THR", "43", "A", 0, False),
            ("N1", "N", "LIG", "1", "", 1, True)]
    if ion_chain is not None:
        rows.append(("MG", "Mg", "MG", "1", ion_chain, 2, False))
    n = len(rows)
    col = lambda k: np.array([r[k] for r in rows], dtype=object)
    return Atoms("x", np.arange(3 * n, dtype=float).reshape(n, 3), col(1), col(0), col(2), col(3), col(4),
                 np.array([r[5] for r in rows]), np.array([r[6] for r in rows]), np.zeros((0, 2), dtype=np.int64))


def _item(question: str, labels: dict | None = None) -> Item:
    meta = {"label_check": {"labels": labels, "visible": {}}} if labels is not None else {}
    return Item("pocket-ligand/train/x/000", "pocket-ligand", "T9", "x", question, [], [], [],
                "THR 43 OG1 A, N1", meta)


def test_a_blank_chain_ion_makes_the_pocket_multi_chain():
    a = _atoms("")
    assert a.pocket_chains == {"A", "?"} and a.labels_carry_chains
    assert chain_problems(_item(_WITH), a, _BONDS) == []
    assert not _atoms(None).labels_carry_chains and _atoms("B").labels_carry_chains


def test_a_single_chain_pocket_needs_the_chain_in_the_prompt():
    a = _atoms(None)
    problems = chain_problems(_item(_WITHOUT), a, _BONDS)
    assert problems == ["THR 43 OG1 A carries chain A, which neither the labels (one chain) nor the prompt show"]
    assert chain_problems(_item(_WITHOUT + " Every pocket residue is in chain A."), a, _BONDS) == []


def test_the_prompts_label_sentence_must_match_the_rule():
    (one,) = chain_problems(_item(_WITHOUT), _atoms(""), [])
    assert one.startswith("the prompt says residue labels do not carry chain ids, but the pocket's drawn atoms carry "
                          "chains ?, A")
    (other,) = chain_problems(_item(_WITH), _atoms(None), [])
    assert other.startswith("the prompt says residue labels carry chain ids")


def test_recorded_residue_labels_must_show_the_chain():
    a = _atoms("")
    drawn = {"THR 43 A": {"image": 0, "kind": "residue", "text": "THR 43 A", "box": [1, 1, 9, 9]},
             "N1": {"image": 0, "kind": "ligand", "text": "N1", "box": [1, 1, 9, 9]}}
    assert chain_problems(_item(_WITH, drawn), a, _BONDS) == []
    drawn["THR 43 A"]["text"] = "THR 43"
    (why,) = chain_problems(_item(_WITH, drawn), a, _BONDS)
    assert why == "THR 43 OG1 A carries chain A, but its residue's recorded labels read ['THR 43']"
