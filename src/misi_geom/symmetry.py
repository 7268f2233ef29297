"""Graph symmetry of a ligand: which of its drawn atoms a reader cannot tell apart.

Two ligand heavy atoms are *equivalent* when the molecule's heavy-atom graph maps one onto the
other (RDKit's canonical ranks without tie-breaking, :func:`rdkit.Chem.CanonicalRankAtoms` with
``breakTies=False``), on a graph read the way the images draw it:

- hydrogens are left out (they are never drawn; a carboxylic acid's H is often placed arbitrarily),
  and so are formal charges;
- a ring whose every atom carries a double or aromatic bond is aromatic, so a Kekulé ring and an
  aromatic one give the same classes (the two ortho carbons of a phenyl are equivalent);
- terminal N, O or S atoms of one element on one atom share one bond kind, whatever bond orders
  the file gives them (the two oxygens of a carboxylate or nitro group, the terminal NH2 groups of
  an amidine or guanidine, the oxygens of a phosphate or sulfonate).

Stereochemistry is ignored (the images do not mark it).  Pocket atoms get no class here: their
equivalences are declared per residue (:data:`misi_tasks.definitions.equivalence.SIDE_CHAIN_EQUIVALENTS`).

>>> from misi_geom import Complex
>>> acetate = Complex.from_atoms([[0.0, 0, 0], [1.5, 0, 0], [2.1, 1.1, 0], [2.1, -1.1, 0]],
...                              ["C", "C", "O", "O"], atom_name=["CH3", "C", "O1", "O2"],
...                              bonds=[(0, 1), (1, 2), (1, 3)], bond_order=[1, 2, 1])
>>> ligand_symmetry_classes(acetate).tolist()
[-1, -1, 0, 0]
"""

from __future__ import annotations

import numpy as np

from misi_geom.complex import Complex

__all__ = ["ligand_symmetry_classes"]

_TERMINAL_HETERO = (7, 8, 16)  # N, O, S


def _ligand_graph(c: Complex, atoms: np.ndarray):
    """An RDKit molecule of ``atoms`` (heavy ligand atoms) and their bonds, read as the module says."""
    from rdkit import Chem

    table = Chem.GetPeriodicTable()
    pos = {int(a): k for k, a in enumerate(atoms.tolist())}
    rw = Chem.RWMol()
    for a in atoms.tolist():
        el = str(c.element[a])
        atom = Chem.Atom(table.GetAtomicNumber(el[:1].upper() + el[1:].lower()))
        atom.SetNoImplicit(True)
        atom.SetNumExplicitHs(0)
        rw.AddAtom(atom)
    kinds = {1.0: Chem.BondType.SINGLE, 2.0: Chem.BondType.DOUBLE, 3.0: Chem.BondType.TRIPLE}
    for (i, j), order in zip(c.bonds.tolist(), c.bond_order.tolist()):
        if i in pos and j in pos and i != j and rw.GetBondBetweenAtoms(pos[i], pos[j]) is None:
            rw.AddBond(pos[i], pos[j], kinds.get(float(order), Chem.BondType.AROMATIC))
    mol = rw.GetMol()
    mol.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(mol)
    out = Chem.RWMol(mol)
    for ring in Chem.GetSymmSSSR(mol):  # a fully unsaturated ring: aromatic, whatever its Kekulé form
        ring = list(ring)
        if all(any(b.GetBondType() != Chem.BondType.SINGLE for b in mol.GetAtomWithIdx(a).GetBonds()) for a in ring):
            for k, a in enumerate(ring):
                out.GetBondBetweenAtoms(a, ring[(k + 1) % len(ring)]).SetBondType(Chem.BondType.AROMATIC)
    for atom in mol.GetAtoms():  # terminal heteroatoms of one element on one atom: one bond kind
        groups: dict[int, list[int]] = {}
        for b in atom.GetBonds():
            other = b.GetOtherAtom(atom)
            if other.GetDegree() == 1 and other.GetAtomicNum() in _TERMINAL_HETERO:
                groups.setdefault(other.GetAtomicNum(), []).append(b.GetIdx())
        for bonds in groups.values():
            if len(bonds) > 1:
                for b in bonds:
                    out.GetBondWithIdx(b).SetBondType(Chem.BondType.ONEANDAHALF)
    mol = out.GetMol()
    mol.UpdatePropertyCache(strict=False)
    Chem.FastFindRings(mol)
    return mol


def ligand_symmetry_classes(c: Complex) -> np.ndarray:
    """Equivalence class of every atom: ligand heavy atoms with a symmetry sibling share a class.

    Returns
    -------
    ndarray, dtype=int64, shape=(N,)
        Class ids 0, 1, ... numbered in order of each class's first atom; ``-1`` for atoms without
        a sibling, pocket atoms and hydrogens.
    """
    from rdkit import Chem

    out = np.full(len(c), -1, dtype=np.int64)
    atoms = np.flatnonzero(c.is_ligand & ~c.is_hydrogen)
    if len(atoms) < 2:
        return out
    ranks = np.asarray(list(Chem.CanonicalRankAtoms(_ligand_graph(c, atoms), breakTies=False,
                                                    includeChirality=False)), dtype=np.int64)
    values, counts = np.unique(ranks, return_counts=True)
    shared = set(values[counts > 1].tolist())
    numbers: dict[int, int] = {}
    for a, r in zip(atoms.tolist(), ranks.tolist()):
        if r in shared:
            out[a] = numbers.setdefault(r, len(numbers))
    return out
