"""Symmetry-equivalent atoms: which atom names an answer may swap, and how bond lists are scored then.

The images do not tell the two oxygens of an aspartate apart, nor the two oxygens of a ligand's
carboxylate, so an answer that names the other one means the same bond.  Each T4/T8/T9 item lists
the equivalence classes of the atoms its answer names in its metadata, ``equivalent_atoms``: a list
of classes, each a sorted list of atom identifiers written as the task's answer writes them --
pocket atoms with their residue (T4 ``"ASP OD1"``; T8/T9 ``"ASP 29 OD1 A"``), ligand atoms by their
drawn label (``"O1"``).  The scorer reads only that list (:func:`canonical_bond_list`), so any other
scorer can do the same.

Pocket side-chain pairs come from the table :data:`SIDE_CHAIN_EQUIVALENTS`; ligand atoms from the
molecule's graph (:func:`misi_geom.symmetry.ligand_symmetry_classes`, used by the generators).

>>> side_chain_siblings("ASP", "OD2")
('OD1', 'OD2')
>>> side_chain_siblings("SER", "OG")
()
>>> truth = BondList(("ASP 29 OD1 A, O1", "ARG 7 NE A, O3"), with_yes=False)
>>> pred = BondList(("ASP 29 OD2 A, O2", "ARG 7 NE A, O3"), with_yes=False)
>>> classes = [["ASP 29 OD1 A", "ASP 29 OD2 A"], ["O1", "O2"]]
>>> canonical_bond_list(pred, classes) == canonical_bond_list(truth, classes)
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import MappingProxyType

from misi_tasks.definitions.answers import BondList

__all__ = ["SIDE_CHAIN_EQUIVALENTS", "side_chain_siblings", "canonical_bond_list", "equivalence_map"]

#: Side-chain atoms a reader of the images cannot tell apart (the same chemistry, names set by a
#: naming convention the pixels do not show), per residue name.
SIDE_CHAIN_EQUIVALENTS: Mapping[str, tuple[tuple[str, ...], ...]] = MappingProxyType({
    "ASP": (("OD1", "OD2"),),
    "GLU": (("OE1", "OE2"),),
    "ARG": (("NH1", "NH2"),),
    "PHE": (("CD1", "CD2"), ("CE1", "CE2")),
    "TYR": (("CD1", "CD2"), ("CE1", "CE2")),
    "LEU": (("CD1", "CD2"),),
    "VAL": (("CG1", "CG2"),),
})


def side_chain_siblings(res_name: str, atom_name: str) -> tuple[str, ...]:
    """The atom names equivalent to ``atom_name`` in residue ``res_name`` (itself included, sorted),
    or ``()`` when the table gives it no sibling."""
    for group in SIDE_CHAIN_EQUIVALENTS.get(res_name.upper(), ()):
        if atom_name.upper() in group:
            return tuple(sorted(group))
    return ()


def _norm(identifier: str) -> str:
    return " ".join(identifier.split()).upper()


def equivalence_map(classes: Sequence[Sequence[str]]) -> dict[str, str]:
    """Every identifier of ``classes`` (normalised: upper case, single spaces) -> its class's first
    member, the name the scorer compares."""
    out: dict[str, str] = {}
    for cls in classes:
        members = sorted(_norm(x) for x in cls)
        for m in members:
            out[m] = members[0]
    return out


def canonical_bond_list(answer: BondList, classes: Sequence[Sequence[str]]) -> BondList:
    """``answer`` with every atom replaced by its class's first member.

    Bonds that become equal are kept apart by a count (``"... #2"``), so a list scores against
    another as the best one-to-one pairing of equivalent bonds: a truth naming both ``OD1`` and
    ``OD2`` needs two bonds to be found in full.
    """
    canon = equivalence_map(classes)
    seen: dict[str, int] = {}
    bonds = []
    for bond in answer.bonds:
        left, _, right = bond.partition(",")
        text = f"{canon.get(_norm(left), _norm(left))}, {canon.get(_norm(right), _norm(right))}"
        seen[text] = seen.get(text, 0) + 1
        bonds.append(text if seen[text] == 1 else f"{text} #{seen[text]}")
    return BondList(tuple(bonds), answer.with_yes)
