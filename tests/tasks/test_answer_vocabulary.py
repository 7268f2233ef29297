"""One answer vocabulary: the value types that write answers also read them back.  (The residue
label of images, prompts and answers has one home, :mod:`misi_geom.residues`.)"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from misi_tasks.definitions.answers import BondList, Choice, Docking, Move, Roll, bond_t4, bond_t9

_axes = st.sampled_from("xyz")
_ints = st.integers(-500, 500)
_names = st.from_regex(r"[A-Z][A-Z0-9]{0,3}", fullmatch=True)


@given(_axes, _ints, _axes, _ints)
def test_commands_read_back_what_they_write(a1, v1, a2, v2):
    for value in (Move(a1, v1), Roll(a2, v2), Docking(Roll(a1, v1), Move("x", v2))):
        assert type(value).parse(str(value)) == value
        assert type(value).parse(f"I think: {value}.").text == str(value)


@given(st.lists(st.tuples(_names, st.integers(1, 9999), _names, st.sampled_from(["A", "B", ""]), _names),
                min_size=1, max_size=4, unique=True))
def test_bond_lists_read_back_what_they_write(bonds):
    t9 = BondList(tuple(bond_t9(r, str(n), a, c, lig) for r, n, a, c, lig in bonds), with_yes=False)
    assert set(BondList.parse(str(t9), with_yes=False).bonds) == set(t9.bonds)
    t4 = BondList(tuple(dict.fromkeys(bond_t4(r, a, lig) for r, _, a, _, lig in bonds)), with_yes=True)
    assert str(t4).startswith("Yes: ") and BondList.parse(str(t4)).bonds == t4.bonds
    assert BondList.parse(str(BondList((), with_yes=True))) == BondList((), with_yes=True)


@pytest.mark.parametrize("letter", "ABCD")
def test_choice_reads_back_what_it_writes(letter):
    assert Choice.parse(f"The answer is {Choice(letter)}.") == Choice(letter)


def test_the_paper_tasks_names_codes_and_choice_tasks_come_from_the_declarations():
    from misi_tasks.definitions.registry import mc_tasks, paper_tasks, task_codes

    codes = task_codes()
    assert {t: codes[t] for t in paper_tasks()} == {
        "translation": "T1", "rotation": "T2", "zooming": "T3", "residue-ligand": "T4", "translation-rotation": "T5",
        "rotation-rotation": "T6", "docking": "T7", "interaction-location": "T8", "pocket-ligand": "T9"}
    assert mc_tasks() & set(paper_tasks()) == {"translation-rotation", "rotation-rotation", "interaction-location"}


@pytest.mark.parametrize("text, with_yes", [("Yes: ALA NO, A", True), ("ALA 1 N A, NO", False),
                                            ("GLU 5 NO ?, O1", False)])
def test_an_atom_named_no_is_not_the_answer_no(text, with_yes):
    assert str(BondList.parse(text, with_yes=with_yes)) == text
    assert BondList.parse(f"{text}. Final answer: No.", with_yes=with_yes).bonds == ()
