"""Table-driven tests of answer parsing from free-text replies."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_tasks.definitions.registry import TASK_NAMES
from misi_tasks.eval.parse import normalize_bond, normalize_reply, parse_answer

# (task, reply, expected canonical text or None for unparseable)
CASES = [
    # T1 translation
    ("translation", "move x 3", "move x 3"),
    ("translation", "MOVE X -3", "move x -3"),
    ("translation", "move x \u22123", "move x -3"),               # unicode minus
    ("translation", "move y \u2013 2", "move y -2"),              # en dash, space after the sign
    ("translation", "Answer: `move  y   +4`", "move y 4"),        # back-ticks, extra spaces, plus sign
    ("translation", "```\nmove x 2\n```", "move x 2"),            # code fence
    ("translation", "Move along the X axis by 3 \u00c5", "move x 3"),
    ("translation", "First I thought move x 2, but it is move x -1.", "move x -1"),   # last complete answer
    ("translation", "The complex moved x 3", None),                # 'moved' is not the command
    ("translation", "remove x 3", None),
    ("translation", "I cannot tell.", None),
    ("translation", "move x", None),                               # incomplete
    # T2 rotation
    ("rotation", "roll y -30", "roll y -30"),
    ("rotation", "roll Y 30\u00b0", "roll y 30"),                  # upper-case axis, degree sign
    ("rotation", "**roll z \u221245\u00b0**", "roll z -45"),
    ("rotation", "roll x 15 degrees", "roll x 15"),
    ("rotation", "It could be roll x 15 or... final: roll y 90", "roll y 90"),
    ("rotation", "rotate y 30", None),
    # T3 zooming
    ("zooming", "move z 47", "move z 47"),
    ("zooming", "The answer is move z 47.0 \u00c5.", "move z 47"),
    ("zooming", "zoom in", None),
    # T7 docking
    ("docking", "roll x 75, move x -14", "roll x 75, move x -14"),
    ("docking", "ROLL X 75\u00b0,  MOVE X \u221214", "roll x 75, move x -14"),
    ("docking", "roll y -30; move x 12", "roll y -30, move x 12"),
    ("docking", "roll z 15 and then move x 20", "roll z 15, move x 20"),
    ("docking", "Try roll x 15, move x 3. Better: roll x 30, move x -9", "roll x 30, move x -9"),
    ("docking", "move x -14", None),                               # the roll is missing
    ("docking", "roll x 75", None),                                # the move is missing
    # T4 residue-ligand
    ("residue-ligand", "No", "No"),
    ("residue-ligand", "no.", "No"),
    ("residue-ligand", "**No**", "No"),
    ("residue-ligand", "Yes: ARG NH2, O1B; ARG NE, O2G", "Yes: ARG NH2, O1B; ARG NE, O2G"),
    ("residue-ligand", "yes: arg nh2 , o1b;arg  ne,o2g.", "Yes: ARG NH2, O1B; ARG NE, O2G"),
    ("residue-ligand", "The answer is **Yes**: SER OG, O3'", "Yes: SER OG, O3'"),
    ("residue-ligand", "Yes: ARG NH2, O1B; ARG NH2, O1B", "Yes: ARG NH2, O1B"),     # repeats dropped
    ("residue-ligand", "Yes: ARG NH2, O1B. No other bonds are formed.", "Yes: ARG NH2, O1B"),
    ("residue-ligand", "Yes: ARG NH2, O1B ... on reflection, No.", "No"),           # last answer wins
    ("residue-ligand", "There is no obvious contact. Yes: LYS NZ, O1", "Yes: LYS NZ, O1"),
    ("residue-ligand", "Yes:\n- ARG NH2, O1B\n- ARG NE, O2G", "Yes: ARG NH2, O1B; ARG NE, O2G"),   # bullets
    ("residue-ligand", "Yes: ARG NH2, O1B, ARG NE, O2G", "Yes: ARG NH2, O1B; ARG NE, O2G"),    # commas
    ("residue-ligand", "Yes: ARG 120 NH2, O1B and ARG 120 NE, O2G", "Yes: ARG NH2, O1B; ARG NE, O2G"),
    ("residue-ligand", "No hydrogen bonds are formed.", "No"),     # reply starts with No
    ("residue-ligand", "From the distances, the answer is no hydrogen bond", "No"),
    ("residue-ligand", "Yes", None),                               # Yes without bonds is incomplete
    ("residue-ligand", "Maybe.", None),
    # T9 pocket-ligand
    ("pocket-ligand", "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2", "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2"),
    ("pocket-ligand", "asn 460 nd2 a,o2 ;  glu 537 oe1 a , o2", "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2"),
    ("pocket-ligand", "GLY 184A N ?, O1", "GLY 184A N ?, O1"),      # insertion code, blank chain
    ("pocket-ligand", "Bonds:\n```\nHIS 57 NE2 B, N3\n```", "HIS 57 NE2 B, N3"),
    ("pocket-ligand", "Draft: ALA 1 N A, O1. Final: SER 2 OG A, O3", "SER 2 OG A, O3"),
    ("pocket-ligand", "1. ASN 460 ND2 A, O2\n2. GLU 537 OE1 A, O2", "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2"),
    ("pocket-ligand", "ASN 460 ND2 A, O2;\nGLU 537 OE1 A, O2.", "ASN 460 ND2 A, O2; GLU 537 OE1 A, O2"),
    ("pocket-ligand", "None.", "No"),
    ("pocket-ligand", "ASN ND2, O2", None),                        # no residue number or chain
    # T5, T6, T8 multiple choice
    ("translation-rotation", "C", "C"),
    ("translation-rotation", "The answer is **C**.", "C"),
    ("rotation-rotation", "answer: (b)", "B"),
    ("rotation-rotation", "the answer is d", "D"),
    ("rotation-rotation", "Option A shows a tilt. Option B too. Final answer: D", "D"),
    ("rotation-rotation", "The answer is B, since option A is wrong.", "B"),        # answer beats mentions
    ("interaction-location", "I pick option C", "C"),
    ("rotation-rotation", "I choose B.", "B"),
    ("rotation-rotation", "The correct option is C", "C"),
    ("rotation-rotation", "A is correct", "A"),
    ("interaction-location", "A rotation cannot explain it.", None),                # 'A' as an article
    ("interaction-location", "the answer is a rotation", None),
    ("interaction-location", "E", None),
]


@pytest.mark.parametrize("task, reply, expected", CASES)
def test_parse_answer(task: str, reply: str, expected: str | None) -> None:
    parsed = parse_answer(task, reply)
    assert (None if parsed is None else parsed.text) == expected


def test_codes_are_accepted_as_task() -> None:
    assert parse_answer("T2", "roll x 15").text == "roll x 15"


def test_first_pick_takes_the_first_answer() -> None:
    reply = "move x 2 ... no wait, move x -1"
    assert parse_answer("translation", reply, pick="first").text == "move x 2"
    assert parse_answer("translation", reply, pick="last").text == "move x -1"


def test_t8_command_restated_maps_to_its_option() -> None:
    options = ["move x 7, move y 5", "move x -7, move y 5", "move x 3, move y -2", "move x 1, move y 1"]
    assert parse_answer("interaction-location", "I would move x -7, move y 5.", options=options).text == "B"
    # a letter wins over a restated command
    assert parse_answer("interaction-location", "move x 7, move y 5, i.e. answer: D", options=options).text == "D"


@pytest.mark.parametrize("raw, expected", [
    ("**move x \u22123**", "move x -3"),
    ("roll y 30\u00b0", "roll y 30"),
    ("\uff4d\uff4f\uff56\uff45 x 3", "move x 3"),                  # full-width letters (NFKC)
])
def test_normalize_reply(raw: str, expected: str) -> None:
    assert normalize_reply(raw) == expected


@pytest.mark.parametrize("raw, expected", [
    ("arg nh2, o1b", "ARG NH2, O1B"),
    ("  ASN   460  ND2 A ,O2 ", "ASN 460 ND2 A, O2"),
])
def test_normalize_bond(raw: str, expected: str) -> None:
    assert normalize_bond(raw) == expected


# ---------------------------------------------------------------- properties
_ALPHABET = st.sampled_from(list("xyzXYZ ABCDabcd0123456789-+.,;:\n*`°\u2212") + [
    "move ", "roll ", "Yes: ", "No", "ARG ", "NH2", "O1B", "answer is ", "A 460 ", "?"])


@settings(max_examples=150, deadline=None)
@given(task=st.sampled_from(TASK_NAMES), pieces=st.lists(_ALPHABET, max_size=40))
def test_parse_never_raises_and_canonical_text_is_a_fixed_point(task: str, pieces: list[str]) -> None:
    parsed = parse_answer(task, "".join(pieces))
    if parsed is not None:
        assert parse_answer(task, parsed.text) == parsed
