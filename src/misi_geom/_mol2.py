"""mol2 files beside a ligand: their atom names, SYBYL types and residue names, matched to RDKit's atoms.

RDKit may only parse the SDF of a ligand (or reorder atoms), while labels and answers use the mol2
names.  :func:`annotate_from_mol2` gives a ligand the names of the mol2 file's atoms it matches:
by bond graph where the graphs agree, else by nearest position within :data:`MOL2_MATCH_TOLERANCE`.
Split out of :mod:`misi_geom.io`, which calls it while reading a ligand.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np

from misi_geom.complex import Complex
from misi_geom.elements import normalize_element

__all__ = ["LIGAND_RES_NAME", "MOL2_MATCH_TOLERANCE", "annotate_from_mol2"]

#: Residue name of a ligand without a mol2 substructure name.
LIGAND_RES_NAME = "LIG"


def _mol2_atoms(path: Path) -> list[tuple[str, str, np.ndarray, str]]:
    """(name, SYBYL type, xyz, residue name) per atom line of a mol2 file's first molecule.

    The residue name is the atom's substructure name (SUBSTRUCTURE section, else the atom line's
    own column) with trailing digits dropped, as ChimeraX names mol2 residues (``ALA19`` -> ``ALA``).
    Returns [] if the file cannot be read.
    """
    atoms, subst, section = [], {}, ""
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return []
    for line in lines:
        if line.startswith("@<TRIPOS>"):
            if atoms and line.strip() == "@<TRIPOS>MOLECULE":
                break
            section = line.strip()
            continue
        parts = line.split()
        if section == "@<TRIPOS>ATOM" and len(parts) >= 6:
            try:
                xyz = np.array(parts[2:5], dtype=np.float64)
            except ValueError:
                return []
            sid = parts[6] if len(parts) > 6 else ""
            sname = parts[7] if len(parts) > 7 else ""
            atoms.append((parts[0], parts[1], parts[5], xyz, sid, sname))
        elif section == "@<TRIPOS>SUBSTRUCTURE" and len(parts) >= 2:
            subst[parts[0]] = parts[1]

    def res_name(sid: str, sname: str) -> str:
        name = subst.get(sid, sname) or LIGAND_RES_NAME
        stem = name.rstrip("0123456789")
        return (stem or name)[:5]

    return [(name, typ, xyz, res_name(sid, sname)) for _, name, typ, xyz, sid, sname in atoms]


#: Largest distance (Å) between an SDF atom and the mol2 atom it is matched to.  PDBbind's two
#: files of one ligand differ by up to ~0.1-0.2 Å; symmetry mates (the two O of a carboxylate) are
#: >= 2 Å apart, so 0.5 Å cannot pair the wrong atoms.
MOL2_MATCH_TOLERANCE = 0.5


def annotate_from_mol2(lig: Complex, mol2: Path) -> Complex:
    """Give a ligand the atom names, SYBYL types and residue names of a mol2 file of the same molecule.

    Used for every ligand with a mol2 file beside it: RDKit keeps neither the substructure names nor
    (when only the SDF parses) the atom names, yet answers and labels use the mol2 names, as
    ChimeraX and the MiSI-Bench files do, and ChimeraX types a ligand residue named like an amino
    acid by that residue's template.  Atoms are matched by element and bond graph (atom order and
    bond orders may differ between the files), the symmetry-equivalent matches decided by position;
    where the graphs cannot be matched, by nearest position within :data:`MOL2_MATCH_TOLERANCE`.
    Applied only when every heavy atom finds its partner within that tolerance; a hydrogen left
    unmatched keeps its own name.
    """
    atoms = _mol2_atoms(mol2)
    if not atoms or any("\ufffd" in a[0] or "\ufffd" in a[3] for a in atoms):
        return lig  # no atoms, or names that are not UTF-8 text
    xyz = np.array([a[2] for a in atoms])
    elem = [normalize_element(a[1].split(".")[0]) for a in atoms]
    elem = np.array(["H" if e == "D" else e for e in elem])
    bonds = _mol2_bonds(mol2, len(atoms))
    first = {}  # an atom line repeated exactly is one atom (the ligand reader drops the copy too)
    same = np.array([first.setdefault((e, *np.round(p, 4).tolist()), k) for k, (e, p) in enumerate(zip(elem, xyz))])
    if (same != np.arange(len(atoms))).any():
        keep = np.flatnonzero(same == np.arange(len(atoms)))
        new_index = np.full(len(atoms), -1)
        new_index[keep] = np.arange(len(keep))
        bonds = np.unique(np.sort(new_index[same[bonds]], axis=1), axis=0) if len(bonds) else bonds
        bonds = bonds[bonds[:, 0] != bonds[:, 1]] if len(bonds) else bonds
        atoms, xyz, elem = [atoms[k] for k in keep], xyz[keep], elem[keep]
    match = _match_mol2_atoms(lig, elem, xyz, bonds)
    if match is None:
        return lig
    names, types, res = lig.atom_name.astype(object), lig.atom_type.astype(object), lig.res_name.astype(object)
    for i, k in enumerate(match.tolist()):
        if k >= 0:
            names[i], types[i], res[i] = atoms[k][0], atoms[k][1], atoms[k][3]
    for i in np.flatnonzero(match < 0):  # unmatched hydrogen: its heavy atom's residue
        parent = [j for b in lig.bonds.tolist() for j in b if i in b and j != i]
        if parent and match[parent[0]] >= 0:
            res[i] = atoms[match[parent[0]]][3]
    return replace(
        lig,
        atom_name=np.array(names.tolist(), dtype="<U8"),
        atom_type=np.array(types.tolist(), dtype="<U8"),
        res_name=np.array(res.tolist(), dtype="<U5"),
    )


def _mol2_bonds(path: Path, n_atoms: int) -> np.ndarray:
    """(B, 2) zero-based atom pairs of the first molecule's BOND section (empty if unreadable)."""
    bonds, section, seen_atoms = [], "", False
    try:
        lines = path.read_text(errors="replace").splitlines()
    except OSError:
        return np.zeros((0, 2), np.int64)
    for line in lines:
        if line.startswith("@<TRIPOS>"):
            if seen_atoms and line.strip() == "@<TRIPOS>MOLECULE":
                break
            section = line.strip()
            seen_atoms |= section == "@<TRIPOS>ATOM"
            continue
        parts = line.split()
        if section == "@<TRIPOS>BOND" and len(parts) >= 3:
            try:
                i, j = int(parts[1]) - 1, int(parts[2]) - 1
            except ValueError:
                continue
            if 0 <= i < n_atoms and 0 <= j < n_atoms:
                bonds.append((i, j))
    return np.array(bonds, np.int64).reshape(-1, 2)


def _match_mol2_atoms(lig: Complex, elem: np.ndarray, xyz: np.ndarray, bonds: np.ndarray) -> np.ndarray | None:
    """For each ligand row, the index of its mol2 atom (-1: an unmatched hydrogen), or None."""
    heavy = ~lig.is_hydrogen
    m_heavy = elem != "H"
    if sorted(lig.element[heavy].tolist()) != sorted(elem[m_heavy].tolist()):
        return None
    # same order, same elements, nearby: the common case
    if len(elem) == len(lig) and (elem == lig.element).all() and \
            np.linalg.norm(xyz - lig.coord, axis=1).max() <= MOL2_MATCH_TOLERANCE:
        return np.arange(len(lig))
    rows, m_rows = np.flatnonzero(heavy), np.flatnonzero(m_heavy)
    try:
        pairs = _graph_match(lig, rows, elem, xyz, bonds, m_rows)
    except (RuntimeError, ValueError):  # an element RDKit does not know (mol2 dummy/lone-pair atoms)
        pairs = None
    if pairs is None:
        pairs = _nearest_match(lig.coord[rows], lig.element[rows], xyz[m_rows], elem[m_rows])
    if pairs is None:
        return None
    match = np.full(len(lig), -1, np.int64)
    match[rows] = m_rows[pairs]
    if np.linalg.norm(xyz[match[rows]] - lig.coord[rows], axis=1).max() > MOL2_MATCH_TOLERANCE:
        return None
    # hydrogens: nearest free mol2 hydrogen within the tolerance
    h_rows, m_h = np.flatnonzero(~heavy), np.flatnonzero(~m_heavy)
    if len(h_rows) and len(m_h):
        hp = _nearest_match(lig.coord[h_rows], lig.element[h_rows], xyz[m_h], elem[m_h], partial=True)
        for r, k in zip(h_rows.tolist(), hp.tolist()):
            if k >= 0:
                match[r] = m_h[k]
    return match


def _graph_match(lig: Complex, rows: np.ndarray, elem: np.ndarray, xyz: np.ndarray, bonds: np.ndarray,
                 m_rows: np.ndarray) -> np.ndarray | None:
    """Heavy-atom graph isomorphism (elements, connectivity; bond orders ignored) between the
    ligand rows ``rows`` and mol2 atoms ``m_rows``; among symmetric matches the one closest in
    position.  Returns positions into ``m_rows`` per row, or None."""
    from rdkit import Chem

    def graph(el, pairs, keep):
        index = {int(a): k for k, a in enumerate(keep)}
        m = Chem.RWMol()
        for a in keep:
            m.AddAtom(Chem.Atom(str(el[a])))
        for i, j in pairs:
            if int(i) in index and int(j) in index and i != j:
                if m.GetBondBetweenAtoms(index[int(i)], index[int(j)]) is None:
                    m.AddBond(index[int(i)], index[int(j)], Chem.BondType.SINGLE)
        mol = m.GetMol()
        mol.UpdatePropertyCache(strict=False)
        Chem.FastFindRings(mol)
        return mol

    if len(bonds) == 0:
        return None
    query = graph(lig.element, lig.bonds.tolist(), rows)
    target = graph(elem, bonds.tolist(), m_rows)
    if query.GetNumBonds() != target.GetNumBonds():
        return None
    found = target.GetSubstructMatches(query, uniquify=False, useChirality=False, maxMatches=5000)
    if not found:
        return None
    ref = lig.coord[rows]
    best = min(found, key=lambda mt: float(((xyz[m_rows[list(mt)]] - ref) ** 2).sum()))
    return np.array(best, np.int64)


def _nearest_match(a_xyz: np.ndarray, a_el: np.ndarray, b_xyz: np.ndarray, b_el: np.ndarray,
                   partial: bool = False) -> np.ndarray | None:
    """Closest one-to-one pairing of points a -> b of the same element (positions into b).
    Pairs farther than the tolerance: -1 with ``partial``, else the whole pairing fails (None)."""
    from scipy.optimize import linear_sum_assignment

    d = np.linalg.norm(a_xyz[:, None, :] - b_xyz[None, :, :], axis=2)
    d[a_el[:, None] != b_el[None, :]] = 1e6
    r, k = linear_sum_assignment(d)
    out = np.full(len(a_xyz), -1, np.int64)
    ok = d[r, k] <= MOL2_MATCH_TOLERANCE
    out[r[ok]] = k[ok]
    if not partial and (out < 0).any():
        return None
    return out
