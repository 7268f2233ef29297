"""The reply text a parser reads: normalisation, white-space shortening and the answer grammar.

Replies are normalised first (Unicode NFKC, every dash-like minus to ``-``, degree signs,
markdown ``*`` and back-ticks removed).  The patterns never count whitespace, so before matching
every run of whitespace is shortened to a canonical run of at most three characters that every
pattern treats alike (:func:`_shorten_space`); this bounds the backtracking of patterns that hold
several optional white-space runs in a row, and keeps parsing linear in the reply's length
(``benchmarks/bench_parsing.py`` prints the worst case over many adversarial 1 MB shapes).  The
"letter alone on a line" pattern looks within one line, so that no line start rescans the
(punctuation-only) lines after it.

The answer value types of :mod:`misi_tasks.definitions.answers` parse with these patterns.
"""

from __future__ import annotations

import re
import unicodedata
from collections import deque
from collections.abc import Sequence

__all__ = [
    "DOCK_RE", "LIST9_RE", "MC_STRONG_RE", "MC_WEAK_RE", "MOVE_RE", "NO_RE", "ROLL_RE", "YES4_RE",
    "BOND4_RE", "BOND9_RE", "CONTACT_RE", "LISTX_RE", "normalize_bond", "normalize_reply", "pick_match",
    "prepare_reply", "to_number",
]

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


# ---------------------------------------------------------------- the answer grammar
_NUM = r"([+-]?\s*\d+(?:\.\d+)?)"
_AXIS = r"(?:along|about|around|on)?\s*(?:the\s+)?([xyz])(?:\s*-?\s*axis)?\s*(?:by\s+)?[:=]?\s*"
_MOVE = rf"\bmove\s*{_AXIS}{_NUM}"
_ROLL = rf"\broll\s*{_AXIS}{_NUM}(?:\s*deg(?:rees?)?\b)?"
MOVE_RE = re.compile(_MOVE, re.I)
ROLL_RE = re.compile(_ROLL, re.I)
DOCK_RE = re.compile(rf"{_ROLL}\s*[,;]?\s*(?:(?:and|then)\s+)*{_MOVE}", re.I)

_ATOM = r"[A-Za-z0-9][A-Za-z0-9'_]*"  # '_': numbered repeated ligand names (N_1, N_2)
_BULLET = r"(?:(?:[-\u2022]|\d+[.)])\s+)?"
# between bonds: ';' or ',' (optionally followed by 'and'), ' and ', or a line break with an optional bullet
_SEP = rf"(?:\s*[;,.]?[ \t]*\n\s*{_BULLET}|\s*[;,]\s*(?:and\s+)?|\s+and\s+)"
# T4 bond: residue name, optional residue number (dropped), residue atom, ligand atom
_BOND4 = rf"([A-Za-z0-9]{{1,4}})(?:\s+-?\d+[A-Za-z]?)?\s+({_ATOM})\s*,\s*({_ATOM})"
# T9 bond: residue name, number with optional insertion code, atom, chain ('?' = blank), ligand atom
_BOND9 = rf"([A-Za-z0-9]{{1,4}})\s+(-?\d+[A-Za-z]?)\s+({_ATOM})\s+([A-Za-z0-9?]{{1,2}})\s*,\s*({_ATOM})"
# X2 contact: a T9 bond whose two sides may each be several atoms joined by '-' (or '/'): a charged
# group or a ring, ``PHE 120 CG-CD1-CD2-CE1-CE2-CZ A, C1-C2-C3-C4-C5-C6``
_SIDE = rf"{_ATOM}(?:[ \t]*[-/][ \t]*{_ATOM})*"
_CONTACT = rf"([A-Za-z0-9]{{1,4}})\s+(-?\d+[A-Za-z]?)\s+({_SIDE})\s+([A-Za-z0-9?]{{1,2}})\s*,\s*({_SIDE})"
BOND4_RE = re.compile(_BOND4, re.I)
BOND9_RE = re.compile(_BOND9, re.I)
YES4_RE = re.compile(rf"\byes\b\s*[:,.\-]?\s*{_BULLET}((?:{_BOND4})(?:{_SEP}(?:{_BOND4}))*)", re.I)
LIST9_RE = re.compile(rf"(?<![A-Za-z0-9])((?:{_BOND9})(?:{_SEP}(?:{_BOND9}))*)", re.I)
CONTACT_RE = re.compile(_CONTACT, re.I)
LISTX_RE = re.compile(rf"(?<![A-Za-z0-9])((?:{_CONTACT})(?:{_SEP}(?:{_CONTACT}))*)", re.I)
NO_RE = re.compile(
    r"\b(?:no|none)\b(?=[ \t]*(?:$|[.,;:!)\]\"']))"          # 'No' closing a phrase: "No.", "**No**"
    r"|\A\W*no\b"                                           # a reply that starts with 'No'
    r"|\banswer\b(?:\s+is)?\s*[:\-]?\s*no\b",                # "answer: no hydrogen bond"
    re.I | re.M)

_LETTER = r"(?:([A-D])(?![A-Za-z0-9])|([a-d])(?=[ \t]*(?:$|[.,;:!?)\]\"'])))"
MC_STRONG_RE = re.compile(
    rf"(?i:\b(?:(?:final|correct|right|best)\s+)?(?:answer|choice)\b(?:\s+(?:is|would\s+be|should\s+be))?"
    rf"|\b(?:correct|right|best)\s+(?:option|one)\s+is|\b(?:choose|pick|select)(?:\s+option)?)"
    rf"\s*[:=\-]?\s*(?i:(?:option|choice)\s*)?[\(\[]?\s*{_LETTER}", re.M)
MC_WEAK_RE: list[re.Pattern[str]] = [
    # the letter alone on a line; [^\w\n] rather than \W, so that no line start rescans the lines
    # after it (a letter line preceded by punctuation-only lines matches all the same)
    re.compile(rf"^[^\w\n]*{_LETTER}[^\w\n]*$", re.M),
    re.compile(r"\(([A-D])\)|\[([A-D])\]"),                       # (C) or [C]
    re.compile(r"(?i:\b(?:option|choice)\s+)([A-D])(?![A-Za-z0-9])"),
    re.compile(r"\b([A-D])\s+(?i:is|seems|looks)\s+(?i:the\s+)?(?i:correct|right|best)"),
]


def to_number(text: str) -> float:
    """A matched number (``"- 3"``, ``"+2"``, ``"7.5"``) as a float."""
    return float(text.replace(" ", "").replace("\t", ""))


def pick_match(patterns: Sequence[re.Pattern[str]], text: str, pick: str) -> tuple[int, re.Match[str]] | None:
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


def prepare_reply(reply: str) -> str:
    """``reply`` normalised (:func:`normalize_reply`) with its white-space runs shortened."""
    return _shorten_space(normalize_reply(reply))
