"""X2 interaction list: generated rows answer with the interaction layer's contacts in the canonical
contact form, ask every type a complex makes plus types it does not make (answer None), name only
legibly labelled residues and atoms, and score hand-made answers as the spec says (F1; a charged group
named by any of its atoms, a ring by all of them, symmetry-equivalent atoms credited as in T9)."""

from __future__ import annotations

import json
import re

import pytest

from misi_geom import load_complex
from misi_geom.interactions import find_interactions
from misi_geom.samples import sample_dirs
from misi_render import RenderOptions
from misi_tasks.definitions.answers import ContactList
from misi_tasks.definitions.interactions import LIST_TYPES
from misi_tasks.definitions.registry import paper_average_columns, paper_tasks, report_columns, spec_of_item
from misi_tasks.engine.generate import generate_items
from misi_tasks.eval.baselines import baseline_reply
from misi_tasks.eval.score import score_item
from misi_tasks.tasks.scene import Scene

TASK = "interaction-list"


def _meta(row) -> dict:
    return json.loads(row["metadata"])


@pytest.fixture(scope="module")
def rows() -> dict[str, list[dict]]:
    """X2 rows of every bundled sample (256 px, train split), by complex id."""
    out = {}
    for d in sample_dirs():
        scene = Scene(load_complex(d), RenderOptions(size=256))
        items = generate_items(scene, [TASK], seed=3, split="train", skipped_empty=True)[TASK]
        out[d.name] = [it.to_row() for it in items]
    return out


def _by_type(rows, pdb: str) -> dict[str, dict]:
    return {_meta(r)["interaction_type"]: r for r in rows[pdb]}


def _expected_answer(records: list[dict]) -> str:
    """The canonical text, rebuilt here from the metadata records: sides sorted C2 before C10."""
    def side(atoms):
        key = lambda a: [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", a.upper())]  # noqa: E731
        return "-".join(sorted({a.upper() for a in atoms}, key=key))

    def contact(r):
        name, num, chain = r["residue"].split(" ")
        return f"{name} {num} {side(r['pocket_atoms'])} {chain}, {side(r['ligand_atoms'])}"

    return "; ".join(sorted({contact(r) for r in records}, key=lambda t: [
        [int(p) if p.isdigit() else p for p in re.split(r"(\d+)", w)] for w in t.split(" ")])) or "No"


def test_the_task_is_outside_the_papers_nine():
    assert TASK not in paper_tasks() and "X2" in report_columns() and "X2" not in paper_average_columns()


def test_every_present_type_is_asked_and_answered_with_its_contacts(rows):
    complexes = {d.name: load_complex(d) for d in sample_dirs()}
    n_none = n_pos = 0
    for pdb, rs in rows.items():
        found = find_interactions(complexes[pdb], list(LIST_TYPES))
        asked = [_meta(r)["interaction_type"] for r in rs]
        assert len(asked) == len(set(asked))                         # each type at most once per complex
        assert {t for t in LIST_TYPES if found[t]} <= set(asked)    # every type the complex makes
        for r in rs:
            meta = _meta(r)
            kind = meta["interaction_type"]
            assert all(rec["type"] == kind for rec in meta["interactions"])
            assert len(meta["interactions"]) == len(found[kind])
            assert r["answer"] == _expected_answer(meta["interactions"])
            assert (meta["label"] == "none") == (r["answer"] == "No") == (not found[kind])
            assert LIST_TYPES[kind][0] in r["question"] and "Scale: 1 Å is" in r["question"]
            assert spec_of_item(r).check_row(meta, r["answer"]) is None
            n_none += r["answer"] == "No"
            n_pos += r["answer"] != "No"
    assert n_pos >= 5 and n_none >= 1  # 1h1d metal, 2pyy salt bridges, 3pvu cation-pi + halogen, 4cjq


def test_named_residues_and_atoms_are_labelled_and_visible(rows):
    for rs in rows.values():
        for r in rs:
            meta = _meta(r)
            check = meta["label_check"]
            multi = "since the pocket spans more than one chain" in r["question"]
            for rec in meta["interactions"]:
                name, num, chain = rec["residue"].split(" ")
                label = f"{name} {num}" + (f" {chain}" if multi else "")
                assert check["labels"][label]["text"] == label
                for a in rec["ligand_atoms"]:
                    assert check["labels"][a]["text"] == a and a in check["visible"]
                for a in rec["pocket_atoms"]:
                    assert f"{name} {num} {a} {chain}" in check["visible"]
                if not multi:  # the chain is stated, as in T9
                    stated = ('write "?" as their chain' if chain == "?" else f"Every pocket residue is in chain {chain}.")
                    assert stated in r["question"]


def test_oracle_scores_one_and_random_baseline_parses(rows):
    for rs in rows.values():
        for r in rs:
            assert score_item(r, baseline_reply(r, "oracle")).score == 1.0
            for seed in range(5):
                s = score_item(r, baseline_reply(r, "random", seed=seed))
                assert s.status == "ok" and 0.0 <= s.score <= 1.0


def test_hand_made_answers_on_generated_rows(rows):
    sb = _by_type(rows, "2pyy")["salt_bridge"]          # ARG 10 - OE1/OE2, ARG 75 - O/OXT
    assert sb["answer"] == "ARG 10 NE-NH1-NH2 ?, OE1-OE2; ARG 75 NE-NH1-NH2 ?, O-OXT"
    assert score_item(sb, "ARG 10 NH2 ?, OE1; ARG 75 NE ?, OXT").score == 1.0        # any atom names a group
    assert score_item(sb, "arg 75 nh1 ?, o; ARG 10 NH1-NE ?, OE2").score == 1.0      # order, case, subsets
    assert score_item(sb, "ARG 10 NH2 ?, OE1").score == pytest.approx(2 / 3)        # recall 1/2
    assert score_item(sb, "ARG 10 NH2 ?, OE1; ARG 75 NE ?, OXT; LYS 3 NZ ?, O").score == pytest.approx(0.8)
    assert score_item(sb, "ARG 10 NH2 ?, OE1-O").score == pytest.approx(0.0)       # mixes two groups
    assert score_item(sb, "ARG 10 NH2 A, OE1").score == 0.0                         # wrong chain
    assert score_item(sb, "None").score == 0.0

    none = _by_type(rows, "2pyy")
    absent = [r for r in none.values() if r["answer"] == "No"]
    for r in absent:
        assert score_item(r, "None").score == 1.0 and score_item(r, "No.").score == 1.0
        assert score_item(r, "ARG 10 NH2 ?, OE1").score == 0.0

    cp = _by_type(rows, "3pvu")["cation_pi"]             # LYS 220 NZ over the ring C15-C20
    assert score_item(cp, "LYS 220 NZ ?, C20/C19/C18/C17/C16/C15").score == 1.0   # a ring in any order
    assert score_item(cp, "LYS 220 NZ ?, C15-C16-C17-C18-C19").score == 0.0      # a ring needs every atom
    assert score_item(cp, "LYS 220 NZ ?, C15").score == 0.0

    hal = _by_type(rows, "3pvu")["halogen_bond"]         # ASP 335 OD2 ... F34 of a CF3
    assert score_item(hal, "ASP 335 OD1 ?, F32").score == 1.0   # symmetry-equivalent atoms on both sides
    assert score_item(hal, "ASP 335 OD2 ?, F34; ASP 335 OD1 ?, F33").score == 1.0   # the same contact twice


def test_scoring_without_a_generator():
    """A hand-built row: pi-stacking rings must match as sets, a duplicate listing is one contact."""
    recs = [{"type": "pi_stacking", "residue": "PHE 54 A", "pocket_atoms": ["CG", "CD1", "CD2", "CE1", "CE2", "CZ"],
             "ligand_atoms": ["C5", "C4", "C25", "C2", "N3", "N27"]},
            {"type": "pi_stacking", "residue": "TRP 84 A", "pocket_atoms": ["CD2", "CE2", "CE3", "CZ2", "CZ3", "CH2"],
             "ligand_atoms": ["C10", "C11", "C12", "C13", "C14", "C15"]}]
    truth = ContactList(("PHE 54 CG-CD1-CD2-CE1-CE2-CZ A, C5-C4-C25-C2-N3-N27",
                         "TRP 84 CD2-CE2-CE3-CZ2-CZ3-CH2 A, C10-C11-C12-C13-C14-C15"))
    assert truth.text == ("PHE 54 CD1-CD2-CE1-CE2-CG-CZ A, C2-C4-C5-C25-N3-N27; "
                          "TRP 84 CD2-CE2-CE3-CH2-CZ2-CZ3 A, C10-C11-C12-C13-C14-C15")
    row = {"id": "interaction-list/test/x/000", "task": TASK, "answer": truth.text, "options": [],
           "metadata": json.dumps({"interaction_type": "pi_stacking", "interactions": recs,
                                   "equivalent_atoms": [["PHE 54 CD1 A", "PHE 54 CD2 A"]]})}
    assert score_item(row, truth.text).score == 1.0
    # TRP's five-membered ring is another ring: one of two right, one wrong -> F1 0.5
    five = "TRP 84 CG-CD1-NE1-CE2-CD2 A, C10-C11-C12-C13-C14-C15"
    assert score_item(row, f"PHE 54 CZ-CG-CD1-CD2-CE1-CE2 A, N27-N3-C2-C25-C4-C5; {five}").score == 0.5
    assert score_item(row, "I see no stacking: None").score == 0.0
    assert score_item(row, "none of these").status == "unparseable"


def test_pi_stacking_rows_of_a_real_complex():
    """4hlc (tests/interactions/data, no bundled sample stacks): PHE 66 stacks with two ligand rings, so
    its pi-stacking item lists two ring-ring contacts; one named in any order scores F1 2/3, a ring
    missing an atom names nothing."""
    from pathlib import Path

    scene = Scene(load_complex(Path(__file__).with_name("data") / "4hlc"), RenderOptions(size=256))
    rs = [it.to_row() for it in generate_items(scene, [TASK], seed=3, split="test")[TASK]]
    pi = {_meta(r)["interaction_type"]: r for r in rs}["pi_stacking"]
    contacts = pi["answer"].split("; ")
    assert len(contacts) == 2 and all(c.startswith("PHE 66 CD1-CD2-CE1-CE2-CG-CZ ") for c in contacts)
    assert pi["answer"] == _expected_answer(_meta(pi)["interactions"])
    res, ring = contacts[0].split(", ")
    pocket_ring, chain = res.split()[2:]
    shuffled = f"PHE 66 {'-'.join(reversed(pocket_ring.split('-')))} {chain}, {'/'.join(ring.split('-')[::-1])}"
    assert score_item(pi, shuffled).score == pytest.approx(2 / 3)
    assert score_item(pi, f"{res}, {'-'.join(ring.split('-')[1:])}").score == 0.0
    assert score_item(pi, pi["answer"]).score == 1.0
