"""Parsing stays linear in the reply length and shortening white space changes no answer."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_tasks.definitions import reply_text as parsing
from misi_tasks.definitions.registry import TASK_NAMES
from misi_tasks.eval.parse import parse_answer

_OPTIONS = ["move x 1, move y 2", "move y 2", "roll x 3", "roll y 4"]
_TOKENS = ["move", "roll", "x", "y", "z", "axis", "along", "the", "by", "3", "-14", "+2", "7.5", "deg", "then",
           "and", ",", ";", ".", ":", "-", "yes", "Yes:", "no", "No.", "none", "answer", "is", "option", "A", "B",
           "C", "D", "a", "c", "(C)", "[B]", "ARG", "NH2", "O1B", "ASN", "460", "184A", "?", "O2", "1.", "•",
           "correct", "choose", "'", ")"]
_SPACES = [" ", "  ", "\t", "\n", " \n", "\n\n", " \n \n ", "\r\n", "\r", "\x0b", "\u2028", "", " \t ", "\n- "]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(_TOKENS), st.sampled_from(_SPACES)), max_size=20),
       st.sampled_from(TASK_NAMES), st.sampled_from(["last", "first"]))
def test_shortening_white_space_changes_no_answer(parts, task, pick):
    reply = "".join(t + s for t, s in parts)
    shortened = parse_answer(task, reply, options=_OPTIONS, pick=pick)
    original = parsing._shorten_space
    parsing._shorten_space = lambda text: text  # the patterns on the text as it is
    try:
        plain = parse_answer(task, reply, options=_OPTIONS, pick=pick)
    finally:
        parsing._shorten_space = original
    assert (shortened and shortened.text) == (plain and plain.text)


_N = 300_000
_REAL = "Looking at both views the ligand moved.\n\nThe answer is roll x 75, move x -14"


@pytest.mark.parametrize("task, reply, expected", [
    # shapes that took seconds to hours before (a keyword followed by white space, many newlines)
    ("translation", "move x" + " " * _N, None),
    ("translation", "move x" + " " * _N + "3", "move x 3"),
    ("rotation", "roll y" + "\r " * (_N // 2) + "-30", "roll y -30"),
    ("rotation-rotation", "answer" + " " * _N, None),
    ("docking", _REAL + "\n" * _N, "roll x 75, move x -14"),
    ("translation-rotation", "-\n" * (_N // 2) + "C\n", "C"),
    ("translation-rotation", "C\n" * (_N // 2), "C"),
    ("residue-ligand", "Yes: " + "ARG NH2, O1B; " * (_N // 14), "Yes: ARG NH2, O1B"),
    ("residue-ligand", "yes" + " " * _N, None),
    ("pocket-ligand", "ARG 12 NH2 A" + " " * _N, None),
    ("interaction-list", "ARG 12 NH2" + "-NH1" * (_N // 4) + " A", None),
    ("interaction-list", "PHE 1 CG A, " + "C1 - " * (_N // 5) + "C2", "PHE 1 CG A, C1-C2"),
    ("interaction-list", "LYS 5 NZ A, O1; " * (_N // 16), "LYS 5 NZ A, O1"),
    ("docking", "roll x 5 " + "and " * (_N // 4) + "move x 2", "roll x 5, move x 2"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 30 else "")
def test_long_adversarial_replies_parse(task, reply, expected):
    got = parse_answer(task, reply, options=_OPTIONS)
    assert (got and got.text) == expected
