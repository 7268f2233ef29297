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

from misi_tasks.definitions.answers import BondList, ContactList, contact_text, split_contact

__all__ = ["SIDE_CHAIN_EQUIVALENTS", "side_chain_siblings", "canonical_bond_list", "canonical_contact_list",
           "equivalence_map", "ring_sides"]

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


#: X2: the group kinds written as rings (named by every atom); the others are charged groups and
#: single atoms (named by any of their atoms).
RING_ROLES = frozenset({"ring"})


def ring_sides(record: Mapping[str, object]) -> tuple[bool, bool]:
    """Whether the pocket and the ligand side of a contact record (``misi-interactions`` JSON form)
    are rings: both for ``pi_stacking``; the side whose role is ``ring`` for ``cation_pi``."""
    if record.get("type") == "pi_stacking":
        return True, True
    return record.get("pocket_role") in RING_ROLES, record.get("ligand_role") in RING_ROLES


def canonical_contact_list(answer: ContactList, classes: Sequence[Sequence[str]],
                           records: Sequence[Mapping[str, object]],
                           near: Sequence[Mapping[str, object]] = ()) -> ContactList:
    """X2: ``answer`` with every contact that names a true contact replaced by that contact's text,
    and every contact that names none but names a near miss (``near``, the item's
    ``metadata.near_misses``) left out: neither credited nor counted as an extra.

    ``classes`` are the item's ``equivalent_atoms`` (pocket atoms written ``"ASP 29 OD1 A"``, ligand
    atoms by name), ``records`` its ``interactions`` (the true contacts).  Both sides are compared
    after mapping every atom to its class's first member; a listed contact names a true one when
    the residue is the same and each side names that side: a ring by all its atoms (the same set),
    a charged group or single atom by any non-empty subset of its atoms.  The first true contact
    (in ``records`` order) it names wins; a contact naming no true contact and no near miss stays as
    listed (mapped).  The result compares with the truth's as sets
    (:func:`~misi_tasks.definitions.metrics.contact_f1`).

    >>> recs = [{"type": "salt_bridge", "residue": "ARG 10 A", "pocket_atoms": ["NE", "NH1", "NH2"],
    ...          "ligand_atoms": ["O1", "O2"]}]
    >>> canonical_contact_list(ContactList.parse("ARG 10 NH2 A, O2"), [], recs).text
    'ARG 10 NE-NH1-NH2 A, O1-O2'
    >>> near = [dict(recs[0], residue="LYS 12 A", pocket_atoms=["NZ"])]
    >>> canonical_contact_list(ContactList.parse("ARG 10 NH2 A, O2; LYS 12 NZ A, O1"), [], recs, near).text
    'ARG 10 NE-NH1-NH2 A, O1-O2'
    """
    canon = equivalence_map(classes)

    def mapped(residue: str, pocket: Sequence[str], ligand: Sequence[str]) -> tuple[str, frozenset, frozenset]:
        name, num, chain = residue.split(" ")
        p = frozenset(canon.get(f"{name} {num} {a} {chain}", f"{name} {num} {a} {chain}").split(" ")[2]
                      for a in pocket)
        return residue, p, frozenset(canon.get(a, a) for a in ligand)

    def sides(recs: Sequence[Mapping[str, object]]) -> list:
        out = []
        for rec in recs:
            name, num, chain = str(rec["residue"]).upper().split(" ")
            residue = f"{name} {num} {chain or '?'}"
            pocket = [str(a).upper() for a in rec["pocket_atoms"]]  # type: ignore[union-attr]
            ligand = [str(a).upper() for a in rec["ligand_atoms"]]  # type: ignore[union-attr]
            out.append((mapped(residue, pocket, ligand), ring_sides(rec)))
        return out

    def names(side: frozenset, ring: bool, listed: frozenset) -> bool:
        return listed == side if ring else bool(listed) and listed <= side

    def first(recs: list, residue: str, p: frozenset, lig: frozenset):
        return next(((r, tp, tl) for (r, tp, tl), (pr, lr) in recs
                     if r == residue and names(tp, pr, p) and names(tl, lr, lig)), None)

    truths, misses = sides(records), sides(near)
    out = []
    for contact in answer.contacts:
        residue, p, lig = mapped(*split_contact(contact))
        hit = first(truths, residue, p, lig)
        if hit is None and first(misses, residue, p, lig) is not None:
            continue  # a recorded near miss: neither credited nor an extra
        r, tp, tl = hit or (residue, p, lig)
        name, num, chain = r.split(" ")
        out.append(contact_text(name, num, sorted(tp), chain, sorted(tl)))
    return ContactList(tuple(out))
