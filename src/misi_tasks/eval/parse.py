"""Find the answer of a task's form in a free-text model reply.

The forms and their readers are the answer vocabulary (:mod:`misi_tasks.definitions.answers`); which
form a task expects is its spec's ``answer`` (:mod:`misi_tasks.definitions.taskspec`).  Replies are
normalised first (Unicode NFKC, every dash-like minus to ``-``, degree signs, markdown ``*`` and
back-ticks removed), then searched for every complete answer of the expected form; the **last**
one is taken (a reply that reasons first ends with its answer).  Pass ``pick="first"`` for the
spec's literal "first valid answer" rule.  A reply with no complete answer parses to ``None`` and
scores 0.  Parsing takes time linear in the reply's length (:mod:`misi_tasks.definitions.reply_text`).

For T8 a reply that restates exactly one option's command (``move x 7, move y 5``) and names no
letter is mapped to that option's letter.

Examples
--------
>>> parse_answer("rotation", "I think it is Roll Y −30°.").text
'roll y -30'
>>> parse_answer("residue-ligand", "**Yes:** arg  nh2, o1b;ARG NE, O2G").text
'Yes: ARG NH2, O1B; ARG NE, O2G'
>>> parse_answer("docking", "roll x 75 then move x -14").text
'roll x 75, move x -14'
>>> parse_answer("rotation-rotation", "B looks close, but the answer is **C**.").text
'C'
>>> parse_answer("translation", "I cannot tell.") is None
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from misi_tasks.definitions.answers import BondList, Choice, Docking, Move, ParsedAnswer, Roll
from misi_tasks.definitions.registry import task_spec
from misi_tasks.definitions.reply_text import normalize_bond, normalize_reply
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = [
    "BondList",
    "Choice",
    "Docking",
    "Move",
    "ParsedAnswer",
    "Roll",
    "normalize_bond",
    "normalize_reply",
    "parse_answer",
]


def parse_answer(
    task: str | TaskSpec,
    reply: str,
    *,
    options: Sequence[str] = (),
    pick: Literal["last", "first"] = "last",
) -> ParsedAnswer | None:
    """Parse the answer of ``task``'s form from a free-text reply.

    Parameters
    ----------
    task : str or TaskSpec
        Registry name or code (``"rotation"`` or ``"T2"``), or a task's spec.
    reply : str
        The model's reply, any length.
    options : sequence of str, optional
        The item's options A-D (used for T8 replies that restate a command).
    pick : {"last", "first"}, default "last"
        Which complete answer to take when the reply holds several.

    Returns
    -------
    answer : Move, Roll, Docking, BondList, Choice or None
        The parsed answer (``.text`` gives its canonical string), or None if unparseable.
    """
    spec = task if isinstance(task, TaskSpec) else task_spec(task)
    return spec.parse(reply, options=options, pick=pick)
