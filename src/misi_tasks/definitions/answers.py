"""The answer vocabulary: one small value type per answer form, that both writes and reads it.

The generators write their answers with these types, the scorer parses replies into them, and
the random baseline draws them, so an answer's text exists once.  Applying a command to
coordinates (SE(3)) is geometry and lives in :mod:`misi_tasks.tasks.commands`; these types are
pure.

=====================  ============================================  =======================
task                   written                                       type
=====================  ============================================  =======================
T1, T3                 ``move x 3``                                  :class:`Move`
T2                     ``roll y -30``                                :class:`Roll`
T7                     ``roll x 75, move x -14``                     :class:`Docking`
T4                     ``No`` / ``Yes: ARG NH2, O1B; ARG NE, O2G``   :class:`BondList`
T9                     ``ASN 460 ND2 A, O2; GLU 184A OE1 ?, O2``     :class:`BondList`
T5, T6, T8             ``C`` (T8 options: ``move x 7, move y 5``)    :class:`Choice`
X2                     ``ARG 45 NE-NH1-NH2 A, O1-O2`` / ``No``       :class:`ContactList`
=====================  ============================================  =======================

Reading is lenient (case, extra spaces, ``Move X by -3 Å``, ``roll Y 30°``, ``The answer is **C**.``;
see :mod:`misi_tasks.definitions.reply_text`); ``find`` takes the last complete answer of the form in a
prepared reply (``pick="first"``: the first), ``parse`` prepares a raw reply first.

Examples
--------
>>> str(Move("x", 3)), str(Roll("y", -30)), str(Docking(Roll("x", 75), Move("x", -14)))
('move x 3', 'roll y -30', 'roll x 75, move x -14')
>>> Roll.parse("I think it is Roll Y −30°.")
Roll(axis='y', angle_deg=-30.0)
>>> BondList.parse("**Yes:** arg  nh2, o1b;ARG NE, O2G").text
'Yes: ARG NH2, O1B; ARG NE, O2G'
>>> bond_t9("GLU", "184A", "OE1", "", "O2")
'GLU 184A OE1 ?, O2'
>>> ContactList.parse("phe 120 CZ-CG-CD1-CD2-CE1-CE2 A, C6/C1/C2/C3/C4/C5").text
'PHE 120 CD1-CD2-CE1-CE2-CG-CZ A, C1-C2-C3-C4-C5-C6'
"""

from __future__ import annotations

from collections.abc import Sequence
import re
from dataclasses import dataclass
from typing import Any, Union

from misi_tasks.definitions.reply_text import (
    BOND4_RE, BOND9_RE, CONTACT_RE, DOCK_RE, LIST9_RE, LISTX_RE, MC_STRONG_RE, MC_WEAK_RE, MOVE_RE, NO_RE,
    ROLL_RE, YES4_RE,
    normalize_bond, pick_match, prepare_reply, to_number,
)

__all__ = [
    "BondList", "Choice", "Command", "ContactList", "Docking", "Move", "ParsedAnswer", "Roll",
    "atom_order", "bond_t4", "bond_t9", "contact_text", "format_commands", "format_number", "split_contact",
]


def format_number(value: float) -> str:
    """A number as an integer when it is one (``3.0`` -> ``"3"``, ``7.5`` -> ``"7.5"``)."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _json_number(value: float) -> int | float:
    return int(value) if float(value).is_integer() else float(value)


@dataclass(frozen=True)
class Move:
    """A translation ``move <axis> <dist_A>`` (Å along a screen axis: x right, y up, z toward you)."""

    axis: str
    dist_A: float

    def __str__(self) -> str:
        return f"move {self.axis} {format_number(self.dist_A)}"

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return str(self)

    def to_dict(self) -> dict[str, Any]:
        """``{"op": "move", "axis": ..., "value": ...}`` (item metadata)."""
        return {"op": "move", "axis": self.axis, "value": _json_number(self.dist_A)}

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Move | None":
        """The last (or first) ``move`` in a prepared reply, or None."""
        found = pick_match([MOVE_RE], text, pick)
        return None if found is None else cls(found[1][1].lower(), to_number(found[1][2]))

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Move | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options)


@dataclass(frozen=True)
class Roll:
    """A rotation ``roll <axis> <angle_deg>`` (degrees, right-hand rule, about the object's centre)."""

    axis: str
    angle_deg: float

    def __str__(self) -> str:
        return f"roll {self.axis} {format_number(self.angle_deg)}"

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return str(self)

    def to_dict(self) -> dict[str, Any]:
        """``{"op": "roll", "axis": ..., "value": ...}`` (item metadata)."""
        return {"op": "roll", "axis": self.axis, "value": _json_number(self.angle_deg)}

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Roll | None":
        """The last (or first) ``roll`` in a prepared reply, or None."""
        found = pick_match([ROLL_RE], text, pick)
        return None if found is None else cls(found[1][1].lower(), to_number(found[1][2]))

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Roll | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options)


Command = Union[Move, Roll]


def format_commands(commands: Sequence[Command]) -> str:
    """Commands in order, ``", "``-separated: ``"roll x 75, move x -14"``, ``"move x 7, move y 5"``."""
    return ", ".join(str(c) for c in commands)


@dataclass(frozen=True)
class Docking:
    """A docking answer: first the roll about the ligand's centre, then the move."""

    roll: Roll
    move: Move

    def __str__(self) -> str:
        return format_commands([self.roll, self.move])

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return str(self)

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Docking | None":
        """The last (or first) ``roll ..., move ...`` in a prepared reply, or None."""
        found = pick_match([DOCK_RE], text, pick)
        if found is None:
            return None
        m = found[1]
        return cls(Roll(m[1].lower(), to_number(m[2])), Move(m[3].lower(), to_number(m[4])))

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Docking | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options)


def bond_t4(res_name: str, res_atom: str, ligand_atom: str) -> str:
    """One T4 bond: ``"ARG NH2, O1B"`` (residue name and atom, then the ligand atom)."""
    return f"{res_name} {res_atom}, {ligand_atom}"


def bond_t9(res_name: str, res_num: str, res_atom: str, chain: str, ligand_atom: str) -> str:
    """One T9 bond: ``"ASN 460 ND2 A, O2"`` (a blank chain is written ``?``, as ChimeraX's ``/?``)."""
    return f"{res_name} {res_num} {res_atom} {chain or '?'}, {ligand_atom}"


def _bonds(text: str, with_yes: bool) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for m in (BOND4_RE if with_yes else BOND9_RE).finditer(text):
        *residue, ligand = m.groups()
        seen.setdefault(normalize_bond(f"{' '.join(residue)}, {ligand}"), None)
    return tuple(seen)


@dataclass(frozen=True)
class BondList:
    """Hydrogen bonds in order without repeats; empty = ``No``.

    ``with_yes`` selects the form: T4's ``No`` / ``Yes: <bond>; ...`` about one residue (bonds by
    :func:`bond_t4`) or T9's plain list (bonds by :func:`bond_t9`).  Parsed bonds are normalised
    (upper case, single spaces) so that lists compare as sets.
    """

    bonds: tuple[str, ...]
    with_yes: bool = True

    def __str__(self) -> str:
        if not self.bonds:
            return "No"
        body = "; ".join(self.bonds)
        return f"Yes: {body}" if self.with_yes else body

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return str(self)

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = (),
             with_yes: bool = True) -> "BondList | None":
        """The last (or first) complete bond list (or ``No``) of the form in a prepared reply."""
        bonds_re = YES4_RE if with_yes else LIST9_RE
        found = pick_match([bonds_re, NO_RE], text, pick)
        if found is None:
            return None
        if found[0] == 1:  # a "No" inside the last bond list is an atom name (e.g. NO), not the answer
            listed = pick_match([bonds_re], text, pick)
            if listed is not None and listed[1].start() <= found[1].start() < listed[1].end():
                found = listed
        return cls(_bonds(found[1].group(1), with_yes) if found[0] == 0 else (), with_yes)

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = (),
              with_yes: bool = True) -> "BondList | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options, with_yes=with_yes)


def atom_order(name: str) -> tuple:
    """Sort key of an atom name in *natural* order: letters, then the number (``C2`` before ``C10``).

    >>> sorted(["C10", "C2", "CA", "C1"], key=atom_order)
    ['C1', 'C2', 'C10', 'CA']
    """
    return tuple(int(p) if k % 2 else p for k, p in enumerate(re.split(r"(\d+)", name)))


def _side(atoms: Any) -> str:
    names = {a.strip().upper() for a in (re.split(r"[-/]", atoms) if isinstance(atoms, str) else atoms)}
    return "-".join(sorted((a for a in names if a), key=atom_order))


def contact_text(res_name: str, res_num: str, pocket_atoms: Any, chain: str, ligand_atoms: Any) -> str:
    """One X2 contact in its canonical, order-free form: ``"ARG 45 NE-NH1-NH2 A, O1-O2"``.

    Each side is a set of atom names (a sequence, or a string joined by ``-`` or ``/``), written in
    natural order (:func:`atom_order`) joined by ``-``, upper case; a blank chain is ``?``.

    >>> contact_text("lys", "15", ["NZ"], "", "P/O1P/O5'")
    "LYS 15 NZ ?, O1P-O5'-P"
    """
    return f"{res_name.upper()} {res_num.upper()} {_side(pocket_atoms)} {(chain or '?').upper()}, {_side(ligand_atoms)}"


def split_contact(contact: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """A canonical contact as (residue ``"ARG 45 A"``, pocket atom names, ligand atom names)."""
    left, _, right = contact.partition(", ")
    name, num, atoms, chain = left.split(" ")
    return f"{name} {num} {chain}", tuple(atoms.split("-")), tuple(right.split("-"))


@dataclass(frozen=True)
class ContactList:
    """X2: every contact of one interaction type between pocket and ligand; empty = ``No`` (T4's word;
    a reply ``None`` reads the same.  Not ``None``: pandas, and so VLMEvalKit, read that as a missing
    value).

    A contact is T9's bond with each side a set of atoms: ``RES NUM ATOMS CHAIN, ATOMS`` where ATOMS
    is one atom name or several joined by ``-`` (a ring, a charged group).  Contacts are kept in
    their canonical form (:func:`contact_text`: sides sorted, upper case; made so on construction),
    unique and sorted, so two lists compare as sets and the text is order-free.  Which atoms must be
    named (every atom of a ring; any atom of a charged group) is the scorer's business
    (:func:`misi_tasks.definitions.equivalence.canonical_contact_list`).
    """

    contacts: tuple[str, ...]

    def __post_init__(self) -> None:
        canon = set()
        for contact in self.contacts:
            m = CONTACT_RE.fullmatch(" ".join(contact.split()))
            if m is None:
                raise ValueError(f"not a contact of the form 'RES NUM ATOMS CHAIN, ATOMS': {contact!r}")
            canon.add(contact_text(*m.groups()))
        object.__setattr__(self, "contacts", tuple(sorted(canon, key=_contact_order)))

    def __str__(self) -> str:
        return "; ".join(self.contacts) if self.contacts else "No"

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return str(self)

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = ()) -> "ContactList | None":
        """The last (or first) complete contact list (or ``No`` / ``None``) in a prepared reply."""
        found = pick_match([LISTX_RE, NO_RE], text, pick)
        if found is None:
            return None
        if found[0] == 1:  # a "No" inside the last list is an atom name (e.g. NO), not the answer
            listed = pick_match([LISTX_RE], text, pick)
            if listed is not None and listed[1].start() <= found[1].start() < listed[1].end():
                found = listed
        if found[0] == 1:
            return cls(())
        return cls(tuple(m.group() for m in CONTACT_RE.finditer(found[1].group(1))))

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = ()) -> "ContactList | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options)


def _contact_order(contact: str) -> tuple:
    return tuple(atom_order(p) for p in contact.split(" "))


@dataclass(frozen=True)
class Choice:
    """A multiple-choice letter ``A`` ... ``D``.

    A reply that names no letter but restates exactly one option's text (T8:
    ``move x 7, move y 5``) reads as that option's letter.
    """

    letter: str

    def __str__(self) -> str:
        return self.letter

    @property
    def text(self) -> str:
        """The canonical answer text."""
        return self.letter

    @classmethod
    def find(cls, text: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Choice | None":
        """The last (or first) letter a prepared reply chooses, or None."""
        for pattern_set in ([MC_STRONG_RE], MC_WEAK_RE):
            found = pick_match(pattern_set, text, pick)
            if found:
                return cls(next(g for g in found[1].groups() if g).upper())
        commands = {i: " ".join(o.lower().split()) for i, o in enumerate(options) if o.strip()}
        low = " ".join(text.lower().split())
        hits = [i for i, cmd in commands.items() if cmd in low]
        return cls("ABCD"[hits[0]]) if len(hits) == 1 else None

    @classmethod
    def parse(cls, reply: str, *, pick: str = "last", options: Sequence[str] = ()) -> "Choice | None":
        """:meth:`find` on a raw reply."""
        return cls.find(prepare_reply(reply), pick=pick, options=options)


ParsedAnswer = Union[Move, Roll, Docking, BondList, ContactList, Choice]
