"""Find the answer of a task's form in a free-text model reply.

Replies are normalised first (Unicode NFKC, every dash-like minus to ``-``, degree signs,
markdown ``*`` and back-ticks removed), then searched for every complete answer of the
expected form; the **last** one is taken (a reply that reasons first ends with its answer).
Pass ``pick="first"`` for the spec's literal "first valid answer" rule. A reply with no
complete answer parses to ``None`` and scores 0.

Forms (spec section 3); matching is case-insensitive, extra spaces are allowed:

=====================  ============================================  =======================
task                   accepted                                      parsed as
=====================  ============================================  =======================
T1, T3                 ``move x 3``, ``Move X by -3 Å``              :class:`Move`
T2                     ``roll y -30``, ``roll Y 30°``                :class:`Roll`
T7                     ``roll x 75, move x -14`` (``,``/``;``/then)   :class:`Docking`
T4                     ``No`` / ``Yes: ARG NH2, O1B; ARG NE, O2G``   :class:`BondList`
T9                     ``ASN 460 ND2 A, O2; GLU 184A OE1 ?, O2``     :class:`BondList`
T5, T6, T8             ``The answer is **C**.``, ``(C)``, ``C``      :class:`Choice`
=====================  ============================================  =======================

For T8 a reply that restates exactly one option's command (``move x 7, move y 5``) and
names no letter is mapped to that option's letter.

Parsing takes time linear in the reply's length (``benchmarks/bench_parsing.py`` prints the worst
case over many adversarial 1 MB shapes).  The patterns never count whitespace, so before matching
every run of whitespace is shortened to a canonical run of at most three characters that every
pattern treats alike (:func:`_shorten_space`); this bounds the backtracking of patterns that hold
several optional white-space runs in a row.  The "letter alone on a line" pattern looks within one
line, so that no line start rescans the (punctuation-only) lines after it.

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

import re
import unicodedata
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Union

from misi_tasks.spec.names import MC_TASKS, resolve_task

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


def _fmt(value: float) -> str:
    """Format a number as an integer when it is one (``3.0`` -> ``3``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


@dataclass(frozen=True)
class Move:
    """A translation ``move <axis> <dist_A>`` (Å, along the screen axis)."""

    axis: str
    dist_A: float

    @property
    def text(self) -> str:
        return f"move {self.axis} {_fmt(self.dist_A)}"


@dataclass(frozen=True)
class Roll:
    """A rotation ``roll <axis> <angle_deg>`` (degrees, right-hand rule)."""

    axis: str
    angle_deg: float

    @property
    def text(self) -> str:
        return f"roll {self.axis} {_fmt(self.angle_deg)}"


@dataclass(frozen=True)
class Docking:
    """A docking answer: first the roll, then the move."""

    roll: Roll
    move: Move

    @property
    def text(self) -> str:
        return f"{self.roll.text}, {self.move.text}"


@dataclass(frozen=True)
class BondList:
    """Hydrogen bonds as normalised strings, in reply order without repeats; empty = ``No``."""

    bonds: tuple[str, ...]
    with_yes: bool = True

    @property
    def text(self) -> str:
        if not self.bonds:
            return "No"
        body = "; ".join(self.bonds)
        return f"Yes: {body}" if self.with_yes else body


@dataclass(frozen=True)
class Choice:
    """A multiple-choice letter ``A`` ... ``D``."""

    letter: str

    @property
    def text(self) -> str:
        return self.letter


ParsedAnswer = Union[Move, Roll, Docking, BondList, Choice]

# ---------------------------------------------------------------- normalisation
_MINUS = dict.fromkeys(map(ord, "\u2212\u2010\u2011\u2012\u2013\u2014\u2015\ufe63\uff0d"), "-")
_DROP = dict.fromkeys(map(ord, "°º˚*`"), None)


def normalize_reply(reply: str) -> str:
    """Return ``reply`` with NFKC applied, minus signs unified and ``°``, ``*``, back-ticks removed.

    >>> normalize_reply("**move x −3**")
    'move x -3'
    """
    return unicodedata.normalize("NFKC", reply).translate(_MINUS).translate(_DROP)


def normalize_bond(bond: str) -> str:
    """Normalise one bond string: upper case, single spaces, ``", "`` before the ligand atom.

    >>> normalize_bond(" arg  nh2 ,o1b ")
    'ARG NH2, O1B'
    """
    left, _, right = bond.partition(",")
    return f"{' '.join(left.split()).upper()}, {' '.join(right.split()).upper()}"


_SPACE_RUN_RE = re.compile(r"\s{2,}")  # single characters stay as they are
_H_SPACE_RE = re.compile(r"[ \t]*")


def _shorten_segment(seg: str) -> str:
    """A newline-free whitespace run as ``""``, ``" "`` (spaces and tabs only) or ``"\r"`` (other
    whitespace, which ``[ \t]`` does not match)."""
    if not seg:
        return ""
    return " " if _H_SPACE_RE.fullmatch(seg) else "\r"


def _shorten_run(m: re.Match[str]) -> str:
    run = m.group()
    first, newline, rest = run.partition("\n")
    if not newline:
        return _shorten_segment(run)
    return _shorten_segment(first) + "\n" + _shorten_segment(rest.rpartition("\n")[2])


def _shorten_space(text: str) -> str:
    """Shorten every whitespace run without changing what any pattern of this module matches.

    A run without a line break becomes ``" "`` or ``"\r"``; a run with line breaks keeps the
    (shortened) white space before its first and after its last line break around a single
    ``"\n"``: the patterns look at line breaks only through ``[ \t]*\n``, ``[ \t]*$`` and ``^``
    (and blank lines add nothing to those), and never at how much white space there is.
    """
    return _SPACE_RUN_RE.sub(_shorten_run, text)


# ---------------------------------------------------------------- regular expressions
_NUM = r"([+-]?\s*\d+(?:\.\d+)?)"
_AXIS = r"(?:along|about|around|on)?\s*(?:the\s+)?([xyz])(?:\s*-?\s*axis)?\s*(?:by\s+)?[:=]?\s*"
_MOVE = rf"\bmove\s*{_AXIS}{_NUM}"
_ROLL = rf"\broll\s*{_AXIS}{_NUM}(?:\s*deg(?:rees?)?\b)?"
_MOVE_RE = re.compile(_MOVE, re.I)
_ROLL_RE = re.compile(_ROLL, re.I)
_DOCK_RE = re.compile(rf"{_ROLL}\s*[,;]?\s*(?:(?:and|then)\s+)*{_MOVE}", re.I)

_ATOM = r"[A-Za-z0-9][A-Za-z0-9'_]*"  # '_': numbered repeated ligand names (N_1, N_2)
_BULLET = r"(?:(?:[-\u2022]|\d+[.)])\s+)?"
# between bonds: ';' or ',' (optionally followed by 'and'), ' and ', or a line break with an optional bullet
_SEP = rf"(?:\s*[;,.]?[ \t]*\n\s*{_BULLET}|\s*[;,]\s*(?:and\s+)?|\s+and\s+)"
# T4 bond: residue name, optional residue number (dropped), residue atom, ligand atom
_BOND4 = rf"([A-Za-z0-9]{{1,4}})(?:\s+-?\d+[A-Za-z]?)?\s+({_ATOM})\s*,\s*({_ATOM})"
# T9 bond: residue name, number with optional insertion code, atom, chain ('?' = blank), ligand atom
_BOND9 = rf"([A-Za-z0-9]{{1,4}})\s+(-?\d+[A-Za-z]?)\s+({_ATOM})\s+([A-Za-z0-9?]{{1,2}})\s*,\s*({_ATOM})"
_BOND4_RE = re.compile(_BOND4, re.I)
_BOND9_RE = re.compile(_BOND9, re.I)
_YES4_RE = re.compile(rf"\byes\b\s*[:,.\-]?\s*{_BULLET}((?:{_BOND4})(?:{_SEP}(?:{_BOND4}))*)", re.I)
_LIST9_RE = re.compile(rf"(?<![A-Za-z0-9])((?:{_BOND9})(?:{_SEP}(?:{_BOND9}))*)", re.I)
_NO_RE = re.compile(
    r"\b(?:no|none)\b(?=[ \t]*(?:$|[.,;:!)\]\"']))"          # 'No' closing a phrase: "No.", "**No**"
    r"|\A\W*no\b"                                           # a reply that starts with 'No'
    r"|\banswer\b(?:\s+is)?\s*[:\-]?\s*no\b",                # "answer: no hydrogen bond"
    re.I | re.M)

_LETTER = r"(?:([A-D])(?![A-Za-z0-9])|([a-d])(?=[ \t]*(?:$|[.,;:!?)\]\"'])))"
_MC_STRONG_RE = re.compile(
    rf"(?i:\b(?:(?:final|correct|right|best)\s+)?(?:answer|choice)\b(?:\s+(?:is|would\s+be|should\s+be))?"
    rf"|\b(?:correct|right|best)\s+(?:option|one)\s+is|\b(?:choose|pick|select)(?:\s+option)?)"
    rf"\s*[:=\-]?\s*(?i:(?:option|choice)\s*)?[\(\[]?\s*{_LETTER}", re.M)
_MC_WEAK_RE = [
    # the letter alone on a line; [^\w\n] rather than \W, so that no line start rescans the lines
    # after it (a letter line preceded by punctuation-only lines matches all the same)
    re.compile(rf"^[^\w\n]*{_LETTER}[^\w\n]*$", re.M),
    re.compile(r"\(([A-D])\)|\[([A-D])\]"),                       # (C) or [C]
    re.compile(r"(?i:\b(?:option|choice)\s+)([A-D])(?![A-Za-z0-9])"),
    re.compile(r"\b([A-D])\s+(?i:is|seems|looks)\s+(?i:the\s+)?(?i:correct|right|best)"),
]


def _number(text: str) -> float:
    return float(text.replace(" ", "").replace("\t", ""))


def _pick(patterns: Sequence[re.Pattern[str]], text: str, pick: str) -> tuple[int, re.Match[str]] | None:
    """The first or last match of any of ``patterns`` (by start; on a tie the last, resp. first,
    pattern), with the pattern's index.  Only that match is kept: a reply made of a million
    candidate answers costs no more objects than one."""
    best: tuple[tuple[int, int], int, re.Match[str]] | None = None
    for k, rx in enumerate(patterns):
        if pick == "last":
            m = deque(rx.finditer(text), maxlen=1)  # consumed in C, keeps the last match
            m = m[0] if m else None
        else:
            m = rx.search(text)
        if m is None:
            continue
        key = (m.start(), k) if pick == "last" else (-m.start(), -k)
        if best is None or key > best[0]:
            best = (key, k, m)
    return None if best is None else (best[1], best[2])


def _bonds(text: str, bond_re: re.Pattern[str], with_yes: bool) -> BondList:
    seen: dict[str, None] = {}
    for m in bond_re.finditer(text):
        *residue, ligand = m.groups()
        seen.setdefault(normalize_bond(f"{' '.join(residue)}, {ligand}"), None)
    return BondList(tuple(seen), with_yes)


def _parse_mc(text: str, options: Sequence[str], pick: str) -> Choice | None:
    for pattern_set in ([_MC_STRONG_RE], _MC_WEAK_RE):
        found = _pick(pattern_set, text, pick)
        if found:
            return Choice(next(g for g in found[1].groups() if g).upper())
    commands = {i: " ".join(o.lower().split()) for i, o in enumerate(options) if o.strip()}
    low = " ".join(text.lower().split())
    hits = [i for i, cmd in commands.items() if cmd in low]
    return Choice("ABCD"[hits[0]]) if len(hits) == 1 else None


def parse_answer(
    task: str,
    reply: str,
    *,
    options: Sequence[str] = (),
    pick: Literal["last", "first"] = "last",
) -> ParsedAnswer | None:
    """Parse the answer of ``task``'s form from a free-text reply.

    Parameters
    ----------
    task : str
        Registry name or code (``"rotation"`` or ``"T2"``).
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
    task = resolve_task(task)
    text = _shorten_space(normalize_reply(reply))
    if task in MC_TASKS:
        return _parse_mc(text, options, pick)
    if task in ("translation", "zooming"):
        found = _pick([_MOVE_RE], text, pick)
        return None if found is None else Move(found[1][1].lower(), _number(found[1][2]))
    if task == "rotation":
        found = _pick([_ROLL_RE], text, pick)
        return None if found is None else Roll(found[1][1].lower(), _number(found[1][2]))
    if task == "docking":
        found = _pick([_DOCK_RE], text, pick)
        if found is None:
            return None
        m = found[1]
        return Docking(Roll(m[1].lower(), _number(m[2])), Move(m[3].lower(), _number(m[4])))
    if task in ("residue-ligand", "pocket-ligand"):
        list_re, bond_re, yes = ((_YES4_RE, _BOND4_RE, True) if task == "residue-ligand"
                                 else (_LIST9_RE, _BOND9_RE, False))
        found = _pick([list_re, _NO_RE], text, pick)
        if found is None:
            return None
        return _bonds(found[1].group(1), bond_re, yes) if found[0] == 0 else BondList((), yes)
    return None
