"""Bond orders for a ligand whose atoms come from a structure file (no bonds, no orders).

Connectivity comes from RDKit's ``rdDetermineBonds.DetermineConnectivity`` (covalent radii).  Bond
orders and formal charges then come from, in this order of preference:

1. a SMILES template (:func:`assign_from_smiles`): RDKit's ``AssignBondOrdersFromTemplate`` on the
   heavy atoms, copied onto the full molecule (hydrogens in the file keep their positions);
2. RDKit's own perception (:func:`perceive_bond_orders`, ``rdDetermineBonds.DetermineBondOrders``),
   which needs every hydrogen: the total charge is searched over 0, +1, -1, +2, -2 and the first
   assignment without radicals is kept.  Its result is a guess, so callers record a warning.

A ligand without hydrogens and without a SMILES has no reliable bond orders (RDKit's perception
then returns cumulenes and radicals); :func:`perceive_bond_orders` refuses it with a one-line error.
So does a ligand of more than :data:`MAX_PERCEIVE_HEAVY_ATOMS` heavy atoms: RDKit's search grows
exponentially with the atoms whose valence is open (2w9r's 87-heavy-atom ligand held a CPU for
minutes at one charge).  The limit is a size, not a time, so a run's output never depends on the
speed of the machine.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from misi_geom.errors import MisiInputError

__all__ = ["mol_from_atoms", "assign_from_smiles", "perceive_bond_orders", "PERCEIVE_CHARGES",
           "MAX_PERCEIVE_HEAVY_ATOMS", "partial_hydrogens", "mark_template_orders", "carbons_missing_hydrogens"]

#: Total charges tried, in order, by :func:`perceive_bond_orders`.
PERCEIVE_CHARGES: tuple[int, ...] = (0, 1, -1, 2, -2)
#: Heavy atoms above which :func:`perceive_bond_orders` refuses and asks for a SMILES (drug-like
#: ligands have 20-50; see the module docs).
MAX_PERCEIVE_HEAVY_ATOMS = 64


def mol_from_atoms(elements: list[str], coord: np.ndarray):
    """An RDKit Mol of these atoms at these positions, bonded by covalent radii (all single bonds)."""
    from rdkit import Chem
    from rdkit.Chem import rdDetermineBonds

    rw = Chem.RWMol()
    conf = Chem.Conformer(len(elements))
    for k, (el, xyz) in enumerate(zip(elements, np.asarray(coord, dtype=np.float64))):
        rw.AddAtom(Chem.Atom(el))
        conf.SetAtomPosition(k, [float(v) for v in xyz])
    rw.AddConformer(conf, assignId=True)
    mol = rw.GetMol()
    rdDetermineBonds.DetermineConnectivity(mol)
    return mol


def _heavy_copy(mol):
    """(heavy-atom Mol, heavy indices in the full Mol); atom k of the copy is atom heavy[k]."""
    from rdkit import Chem

    heavy = [a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() > 1]
    rw = Chem.RWMol(mol)
    for idx in sorted((a.GetIdx() for a in mol.GetAtoms() if a.GetAtomicNum() == 1), reverse=True):
        rw.RemoveAtom(idx)
    out = rw.GetMol()
    # a blank slate, so that the template always decides (RDKit's function keeps a molecule whose
    # orders already match, with whatever hydrogen counts it holds)
    for a in out.GetAtoms():
        a.SetNoImplicit(False)
        a.SetNumExplicitHs(0)
        a.SetFormalCharge(0)
        a.SetIsAromatic(False)
    for b in out.GetBonds():
        b.SetBondType(Chem.BondType.SINGLE)
        b.SetIsAromatic(False)
    return out, heavy


def _finish(mol):
    """Sanitise (implicit hydrogens allowed on heavy atoms); returns (mol, sanitised?)."""
    from rdkit import Chem

    for a in mol.GetAtoms():
        if a.GetAtomicNum() > 1:
            a.SetNoImplicit(False)
    try:
        Chem.SanitizeMol(mol)
        Chem.AssignStereochemistryFrom3D(mol)
        return mol, True
    except Exception:
        mol.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(mol)
        return mol, False


def assign_from_smiles(mol, smiles: str, path: str | Path, label: str):
    """Copy bond orders and formal charges from ``smiles`` onto ``mol`` (atoms and order unchanged).

    Returns ``(mol, warnings)``.  Raises :class:`MisiInputError` (naming ``path``) when the SMILES does
    not parse or its heavy atoms do not match the ligand's connectivity.
    """
    from rdkit import Chem, RDLogger
    from rdkit.Chem import AllChem

    RDLogger.DisableLog("rdApp.*")
    try:
        template = Chem.MolFromSmiles(smiles)
        if template is None:
            raise MisiInputError(path, f"{label}: SMILES {smiles!r} does not parse")
        template = Chem.RemoveHs(template)
        heavy_mol, heavy = _heavy_copy(mol)
        if template.GetNumAtoms() != heavy_mol.GetNumAtoms():
            hint = ("; a residue linked in the structure (a sugar's glycosidic O1, a covalent ligand's leaving "
                    "group) has lost that atom: give the SMILES of the linked form, without it"
                    if template.GetNumAtoms() == heavy_mol.GetNumAtoms() + 1 else "")
            raise MisiInputError(path, f"{label}: SMILES has {template.GetNumAtoms()} heavy atoms, "
                                       f"the ligand {heavy_mol.GetNumAtoms()}{hint}")
        try:
            done = AllChem.AssignBondOrdersFromTemplate(template, heavy_mol)
        except ValueError:
            raise MisiInputError(path, f"{label}: SMILES does not match the ligand's atoms and bonds") from None
    finally:
        RDLogger.EnableLog("rdApp.*")
    rw = Chem.RWMol(mol)
    for a in rw.GetAtoms():
        a.SetNoImplicit(False)
        a.SetNumExplicitHs(0)
        a.SetIsAromatic(False)
        a.SetFormalCharge(0)
    for b in rw.GetBonds():
        b.SetIsAromatic(False)
    for a in done.GetAtoms():
        t = rw.GetAtomWithIdx(heavy[a.GetIdx()])
        t.SetFormalCharge(a.GetFormalCharge())
        t.SetIsAromatic(a.GetIsAromatic())
        # bracket hydrogens of the template ([nH], [NH2+]) that the file does not hold as atoms
        have = sum(n.GetAtomicNum() == 1 for n in t.GetNeighbors())
        t.SetNumExplicitHs(max(0, a.GetNumExplicitHs() - have))
    for b in done.GetBonds():
        t = rw.GetBondBetweenAtoms(heavy[b.GetBeginAtomIdx()], heavy[b.GetEndAtomIdx()])
        t.SetBondType(b.GetBondType())
        t.SetIsAromatic(b.GetIsAromatic())
    out, ok = _finish(rw.GetMol())
    warnings = [] if ok else [f"{label}: RDKit cannot sanitise the ligand with the SMILES's bond orders "
                              "and its hydrogens (partial sanitisation used)"]
    return out, warnings


def mark_template_orders(ligand):
    """``ligand`` (a :class:`~misi_geom.complex.Complex`) with ``atom_type`` set to
    :data:`~misi_geom.complex.TEMPLATE_ORDERS` where it is blank: its bond orders came from a SMILES
    template, so H-bond typing takes them over deposited bond lengths (a 1.38 Å C=O stays a carbonyl)."""
    from dataclasses import replace

    from misi_geom.complex import TEMPLATE_ORDERS

    types = np.where(ligand.atom_type == "", TEMPLATE_ORDERS, ligand.atom_type).astype(ligand.atom_type.dtype)
    return replace(ligand, atom_type=types)


def partial_hydrogens(mol, label: str = "ligand") -> str | None:
    """A warning when ``mol`` holds some but not all of its hydrogens as atoms (e.g. only the polar
    ones, as PDBQT and some exporters write): how many it holds and how many its bond orders imply.

    ``None`` when it holds none (an H-free ligand, typed from its heavy atoms) or all of them.
    """
    have = sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() == 1)
    if have == 0:
        return None
    try:
        missing = sum(a.GetNumImplicitHs() + a.GetNumExplicitHs() for a in mol.GetAtoms() if a.GetAtomicNum() > 1)
    except Exception:  # noqa: BLE001 - property cache not computable: nothing to say
        return None
    if missing == 0:
        return None
    return (f"{label}: the file holds {have} of its {have + missing} hydrogens (only some, e.g. the polar "
            "ones); the missing ones are inferred for the hydrogen bonds")


def carbons_missing_hydrogens(mol) -> int:
    """Carbon atoms whose geometry shows hydrogens missing from ``mol`` (positions from its conformer):
    one neighbour; two neighbours not in a line (an sp carbon is linear, an sp2 one has three); three
    neighbours pyramidal (angle sum below 345°, an sp3 carbon lacking its fourth)."""
    pos = mol.GetConformer().GetPositions()
    bare = 0
    for a in mol.GetAtoms():
        if a.GetAtomicNum() != 6:
            continue
        nb = [n.GetIdx() for n in a.GetNeighbors()]
        v = pos[nb] - pos[a.GetIdx()]
        v = v / np.linalg.norm(v, axis=1)[:, None]
        angles = [np.degrees(np.arccos(np.clip(v[i] @ v[j], -1, 1))) for i in range(len(nb)) for j in range(i + 1, len(nb))]
        if len(nb) == 1 or (len(nb) == 2 and angles[0] < 160.0) or (len(nb) == 3 and sum(angles) < 345.0):
            bare += 1
    return bare


def perceive_bond_orders(mol, path: str | Path, label: str):
    """Bond orders and charges by RDKit's ``DetermineBondOrders``; returns ``(mol, warnings)``.

    Needs explicit hydrogens on the ligand; raises :class:`MisiInputError` without them, for more than
    :data:`MAX_PERCEIVE_HEAVY_ATOMS` heavy atoms, or when no total charge in :data:`PERCEIVE_CHARGES`
    gives a radical-free molecule.
    """
    from rdkit import Chem, RDLogger
    from rdkit.Chem import Descriptors, rdDetermineBonds

    if not any(a.GetAtomicNum() == 1 for a in mol.GetAtoms()):
        raise MisiInputError(path, f"{label}: no hydrogens and no SMILES, so RDKit cannot perceive its "
                                   "bond orders; give the ligand's SMILES (manifest column smiles or --smiles)")
    bare = carbons_missing_hydrogens(mol)
    if bare:
        n_h = sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() == 1)
        raise MisiInputError(path, f"{label}: holds only some of its hydrogens ({n_h}; {bare} carbon atoms lack "
                                   "theirs, e.g. only the polar ones are given), so RDKit cannot perceive its "
                                   "bond orders; give the ligand's SMILES (manifest column smiles or --smiles)")
    heavy = sum(a.GetAtomicNum() > 1 for a in mol.GetAtoms())
    if heavy > MAX_PERCEIVE_HEAVY_ATOMS:
        raise MisiInputError(path, f"{label}: {heavy} heavy atoms, too many for RDKit to perceive bond orders "
                                   f"in reasonable time (at most {MAX_PERCEIVE_HEAVY_ATOMS}); give the ligand's "
                                   "SMILES (manifest column smiles or --smiles)")
    RDLogger.DisableLog("rdApp.*")
    try:
        for charge in PERCEIVE_CHARGES:
            trial = Chem.Mol(mol)
            try:
                rdDetermineBonds.DetermineBondOrders(trial, charge=charge, allowChargedFragments=True)
            except Exception:
                continue
            if Descriptors.NumRadicalElectrons(trial) == 0:
                break
        else:
            n_h = sum(1 for a in mol.GetAtoms() if a.GetAtomicNum() == 1)
            raise MisiInputError(path, f"{label}: RDKit cannot perceive bond orders (total charge "
                                       f"{', '.join(f'{q:+d}' for q in PERCEIVE_CHARGES)} all fail; perception "
                                       f"needs every hydrogen and the ligand has {n_h}: only some of them, e.g. the "
                                       "polar ones?); give its SMILES")
    finally:
        RDLogger.EnableLog("rdApp.*")
    out, _ok = _finish(trial)
    return out, [f"{label}: bond orders perceived by RDKit rdDetermineBonds (total charge {charge:+d}), "
                 "no SMILES template given; check them"]
