"""Group perception for the interaction types: which atoms on each side can take part, as groups.

PLIP's definitions (PLIP 3.0.1, heavy-atom topology, so the same with and without explicit H):

========================  ======================================================================
kind                      pocket (amino-acid residues only)      ligand (by topology)
========================  ======================================================================
``ring``                  PHE/TYR/HIS ring, TRP 5- and 6-ring     SSSR rings of 5-6 atoms, aromatic
                          (template atom names)                   (every ring bond 1.5) or planar
                                                                  within 5° (PLIP's test)
``cation``                ARG NE NH1 NH2, LYS NZ, HIS ND1 NE2     N with 4 heavy neighbours; sp3 N
                          (always positive; centre = centroid)   with 3 ("tertiary amine", Open
                                                                  Babel's hybridisation rule); S with
                                                                  3; guanidine (C with 3 N, one
                                                                  terminal; centre = the C)
``anion``                 ASP OD1 OD2, GLU OE1 OE2                carboxylate/ester (C with 2 O, 1 C),
                                                                  phosphate (P with only O), sulfonate
                                                                  (S with 3 O), sulfate (S with 4 O)
``hydrophobic``           carbon bonded only to C/H               carbon bonded only to C/H
``halogen_acceptor``      O/N/S with exactly one C/N/P/S          --
                          neighbour (``partner`` = it)
``halogen_donor``         --                                      F/Cl/Br/I bonded to exactly one C
                                                                  (``partner`` = the C)
``metal``                 ions named in PLIP's ``METAL_IONS``     --
``metal_target``          --                                      carboxylate O, phosphate O (P with
                                                                  >= 2 O), O or S bonded to an aromatic
                                                                  atom (S: at most 2 heavy
                                                                  neighbours), N with two C neighbours,
                                                                  alcohol O (``kind`` says which)
========================  ======================================================================

Rings use misi's own bond graph (RDKit's SSSR on the ligand's heavy atoms); bond orders are the
ligand file's (aromatic bonds 1.5), not re-perceived from geometry as Open Babel does for PLIP.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from scipy.spatial import cKDTree

from misi_geom.complex import Complex
from misi_geom.elements import METALS

__all__ = ["AMINO_ACIDS", "METAL_IONS", "GroupSet", "Perception", "residue_kinds", "ring_is_planar"]

#: Residue names that count as receptor (PLIP: amino acids of Open Babel's residue table).
AMINO_ACIDS = frozenset(
    "ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL "
    "HID HIE HIP HSD HSE HSP CYX CYM ASH GLH LYN".split())
#: PLIP 3.0.1 ``METAL_IONS`` (residue names of ions that can be complexed).
METAL_IONS = frozenset(
    "CA CO MG MN FE CU ZN FE2 FE3 FE4 LI NA K RB SR CS BA CR NI FE1 RU RU1 RH RH1 PD AG CD LA W W1 OS IR "
    "PT PT1 AU HG CE PR SM EU GD TB YB LU AL GA IN SB TL PB".split())
_HIS = ("HIS", "HID", "HIE", "HIP", "HSD", "HSE", "HSP")
_CHARGED_ATOMS = {
    **{h: ("ND1", "NE2") for h in _HIS}, "ARG": ("NE", "NH1", "NH2"), "LYS": ("NZ",), "LYN": ("NZ",),
    "ASP": ("OD1", "OD2"), "ASH": ("OD1", "OD2"), "GLU": ("OE1", "OE2"), "GLH": ("OE1", "OE2"),
}
_NEGATIVE = ("ASP", "ASH", "GLU", "GLH")
_PHE = ("CG", "CD1", "CD2", "CE1", "CE2", "CZ")
_RING_ATOMS = {
    "PHE": (_PHE,), "TYR": (_PHE,), **{h: (("CG", "ND1", "CD2", "CE1", "NE2"),) for h in _HIS},
    "TRP": (("CG", "CD1", "NE1", "CE2", "CD2"), ("CD2", "CE2", "CZ2", "CH2", "CZ3", "CE3")),
}
_HALOGENS = ("F", "Cl", "Br", "I")
_RESIDUES_OF_INTEREST = frozenset(_CHARGED_ATOMS) | frozenset(_RING_ATOMS)
#: Atom-level pocket groups are searched among atoms this close to the ligand (Å): above every
#: atom-to-atom reach (hydrophobic and halogen 4.0 Å, metal 3.0 Å).
_ATOM_SHELL = 4.5
#: Pocket residues within this distance (Å, any atom) of a ligand heavy atom are perceived (PLIP's
#: binding site: atoms within 7.5 Å; the largest reach, cation–π 6.0 Å, stays inside).
SITE_DIST = 8.0


@dataclass(frozen=True)
class GroupSet:
    """Groups of one kind on one side: ``atoms`` (atom rows of each group), ``point`` (n, 3: the
    group's centre: ring centroid, charge centre, or the atom), ``normal`` (n, 3 unit vectors; rings,
    tertiary amines; zeros elsewhere), ``partner`` (n, 3: the bonded atom angles refer to; else the
    point), ``kind`` (n,: the chemical group, e.g. "carboxylate", "tertamine", "6-ring"), and
    ``role``, the group kind asked for ("ring", "cation", ...)."""

    atoms: tuple[tuple[int, ...], ...]
    point: np.ndarray
    normal: np.ndarray
    partner: np.ndarray
    kind: np.ndarray
    role: str = ""

    @classmethod
    def build(cls, rows: list[tuple], role: str = "") -> "GroupSet":
        """From (atoms, point, normal or None, partner or None, kind) rows."""
        if not rows:
            z = np.zeros((0, 3))
            return cls((), z, z, z, np.zeros(0, dtype="<U32"), role)
        atoms = tuple(tuple(int(i) for i in r[0]) for r in rows)
        point = np.array([r[1] for r in rows], dtype=np.float64).reshape(-1, 3)
        normal = np.array([np.zeros(3) if r[2] is None else r[2] for r in rows], dtype=np.float64)
        partner = np.array([r[1] if r[3] is None else r[3] for r in rows], dtype=np.float64)
        return cls(atoms, point, normal, partner, np.array([r[4] for r in rows], dtype="<U32"), role)

    def __len__(self) -> int:
        return len(self.atoms)

    def take(self, idx: np.ndarray) -> "GroupSet":
        """The groups at ``idx`` (repeats allowed), in that order."""
        idx = np.asarray(idx, dtype=np.int64)
        return GroupSet(tuple(self.atoms[i] for i in idx.tolist()), self.point[idx], self.normal[idx],
                        self.partner[idx], self.kind[idx], self.role)


def _unit(v: np.ndarray) -> np.ndarray:
    n = math.sqrt(float(v[0]) ** 2 + float(v[1]) ** 2 + float(v[2]) ** 2)
    return v / n if n > 0 else v


def ring_is_planar(coord: np.ndarray, ring: list[int], nbrs, max_dev: float = 5.0) -> bool:
    """PLIP's planarity test: the normals at every ring atom (cross product of the bonds to its two
    ring neighbours) lie within ``max_dev`` degrees of each other (or of anti-parallel)."""
    members = set(ring)
    pairs = [[j for j in nbrs[a] if j in members][:2] for a in ring]
    if any(len(p) < 2 for p in pairs):
        return False
    at = coord[ring]
    p = np.array(pairs)
    n = np.cross(coord[p[:, 0]] - at, coord[p[:, 1]] - at)
    length = np.linalg.norm(n, axis=1)
    if not length.all():
        return False
    n /= length[:, None]
    return bool(np.all(np.abs(n @ n.T) >= np.cos(np.radians(max_dev)) - 1e-12))


def ring_normal(coord: np.ndarray, ring: list[int]) -> np.ndarray:
    """Unit normal from ring atoms 0, 2, 4 (in atom order), as PLIP computes it."""
    a, b, c = coord[ring[0]], coord[ring[2]], coord[ring[4]]
    u, v = b - a, a - c
    n = np.array([u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]])
    return _unit(n)


def residue_kinds(c: Complex, res: int) -> frozenset[str]:
    """The pocket-side group kinds residue ``res`` (a ``res_index``) holds, from its atom names,
    elements and bonds alone, whatever its distance to the ligand: what it could do, not what it does.

    Amino-acid residues (:data:`AMINO_ACIDS`, PLIP's receptor): ``ring``, ``cation`` and ``anion`` by
    the residue templates above (PHE/TYR/TRP/HIS rings; ARG/LYS/HIS and ASP/GLU charged groups, their
    atoms present), ``hydrophobic`` (a carbon bonded only to C/H), ``halogen_acceptor`` (O/N/S with
    exactly one C/N/P/S neighbour); any residue with an N or O: ``donor/acceptor`` (the H-bond's
    role); an ion of :data:`METAL_IONS`: ``metal``.  So GLY, SER and CYS hold no ``hydrophobic``
    (their carbons are bonded to N, O or S) and only PHE/TYR/TRP/HIS a ``ring``.

    >>> import numpy as np
    >>> from misi_geom.complex import Complex
    >>> gly = Complex.from_atoms(np.zeros((4, 3)), ["N", "C", "C", "O"], ["N", "CA", "C", "O"], res_name="GLY",
    ...                          res_index=[0] * 4, is_ligand=False, bonds=[(0, 1), (1, 2), (2, 3)])
    >>> sorted(residue_kinds(gly, 0))
    ['donor/acceptor', 'halogen_acceptor']
    """
    rows = np.flatnonzero((c.res_index == res) & ~c.is_ligand & ~c.is_hydrogen)
    if not len(rows):
        return frozenset()
    name = str(c.res_name[rows[0]])
    el = c.element.tolist()
    out: set[str] = set()
    if any(el[i] in ("N", "O") for i in rows.tolist()):
        out.add("donor/acceptor")
    if name.upper() in METAL_IONS and all(el[i] in METALS for i in rows.tolist()):
        out.add("metal")
    if name not in AMINO_ACIDS:
        return frozenset(out)
    names = {str(a) for a in c.atom_name[rows]}
    if any(all(a in names for a in ring) for ring in _RING_ATOMS.get(name, ())):
        out.add("ring")
    if name in _CHARGED_ATOMS and any(a in names for a in _CHARGED_ATOMS[name]):
        out.add("anion" if name in _NEGATIVE else "cation")
    nbrs: defaultdict[int, list[int]] = defaultdict(list)
    inside = np.isin(c.bonds, rows).any(axis=1) if len(c.bonds) else np.zeros(0, dtype=bool)
    for i, j in c.bonds[inside].tolist():
        nbrs[i].append(j)
        nbrs[j].append(i)
    for i in rows.tolist():
        if el[i] == "C" and all(el[j] in ("C", "H") for j in nbrs[i]):
            out.add("hydrophobic")
        if el[i] in ("O", "N", "S") and sum(el[j] in ("C", "N", "P", "S") for j in nbrs[i]) == 1:
            out.add("halogen_acceptor")
    return frozenset(out)


class Perception:
    """Lazily perceived groups of one complex (see the module docs); one instance serves every type."""

    def __init__(self, c: Complex) -> None:
        self.c = c
        n = len(c)
        lig = c.is_ligand & ~c.is_hydrogen
        # distance of every pocket atom to the nearest ligand heavy atom (inf beyond SITE_DIST): one
        # KD-tree query that bounds every group's search
        self.lig_dist = np.full(n, np.inf)
        pocket = np.flatnonzero(~c.is_ligand)
        if lig.any() and len(pocket):
            self.lig_dist[pocket] = cKDTree(c.coord[lig]).query(c.coord[pocket], k=1,
                                                                distance_upper_bound=SITE_DIST)[0]
        self.site = np.zeros(n, dtype=bool)
        near = pocket[self.lig_dist[pocket] < SITE_DIST]
        if len(near):
            self.site[pocket] = np.isin(c.res_index[pocket], np.unique(c.res_index[near]))
        # bonds are read only around the ligand and the pocket atoms that atom-level groups test
        keep = c.is_ligand | (self.lig_dist < _ATOM_SHELL)
        sel = keep[c.bonds[:, 0]] | keep[c.bonds[:, 1]] if len(c.bonds) else np.zeros(0, dtype=bool)
        b, o = c.bonds[sel], c.bond_order[sel]
        self.nbrs: defaultdict[int, list[int]] = defaultdict(list)  # atoms of the site and the ligand
        self.order: dict[tuple[int, int], float] = {}
        for (i, j), w in zip(b.tolist(), o.tolist()):
            self.nbrs[i].append(j)
            self.nbrs[j].append(i)
            self.order[(i, j)] = self.order[(j, i)] = w
        self.is_h = c.is_hydrogen.tolist()
        self.el = c.element.tolist()
        self._cache: dict[tuple[str, bool], GroupSet] = {}

    # --- selections ----------------------------------------------------------------------------
    @cached_property
    def receptor(self) -> np.ndarray:
        """Site atoms (pocket atoms of whole residues with an atom within :data:`SITE_DIST` of a
        ligand heavy atom) of amino-acid residues (bool)."""
        out = np.zeros(len(self.c), dtype=bool)
        rows = np.flatnonzero(self.site)
        out[rows] = [r in AMINO_ACIDS for r in self.c.res_name[rows].tolist()]
        return out

    def _close(self, mask: np.ndarray, within: float) -> np.ndarray:
        """Rows of ``mask`` within ``within`` Å of a ligand heavy atom."""
        return np.flatnonzero(mask & (self.lig_dist < within))

    def heavy(self, i: int) -> list[int]:
        return [j for j in self.nbrs[i] if not self.is_h[j]]

    def aromatic_atom(self, i: int) -> bool:
        """Atom with an aromatic (1.5) bond."""
        return any(self.order[(i, j)] == 1.5 for j in self.nbrs[i])

    def _multiple(self, i: int) -> bool:
        return any(self.order[(i, j)] > 1.0 for j in self.nbrs[i])

    # --- the one entry point ------------------------------------------------------------------
    def groups(self, kind: str, *, ligand: bool) -> GroupSet:
        """The groups of ``kind`` on the ligand (``ligand=True``) or the pocket side."""
        key = (kind, ligand)
        if key not in self._cache:
            maker = getattr(self, f"_{'ligand' if ligand else 'pocket'}_{kind}", None)
            self._cache[key] = GroupSet.build(maker() if maker else [], kind)
        return self._cache[key]

    # --- pocket ---------------------------------------------------------------------------------
    @cached_property
    def _residue_atoms(self) -> list[tuple[str, dict[str, int]]]:
        """(residue name, {atom name: row}) per receptor residue with rings or charges, in file order."""
        c = self.c
        rows = np.flatnonzero(self.receptor & ~c.is_hydrogen)
        rows = rows[[r in _RESIDUES_OF_INTEREST for r in c.res_name[rows].tolist()]]
        out: dict[int, tuple[str, dict[str, int]]] = {}
        for i, r, name, atom in zip(rows.tolist(), c.res_index[rows].tolist(), c.res_name[rows].tolist(),
                                    c.atom_name[rows].tolist()):
            out.setdefault(r, (name, {}))[1].setdefault(atom, i)
        return list(out.values())

    def _pocket_ring(self):
        coord, rows = self.c.coord, []
        for name, atoms in self._residue_atoms:
            for ring_names in _RING_ATOMS.get(name, ()):
                if all(a in atoms for a in ring_names):
                    ring = sorted(atoms[a] for a in ring_names)
                    rows.append((ring, coord[ring].mean(axis=0), ring_normal(coord, ring), None,
                                 f"{len(ring)}-ring"))
        return rows

    def _pocket_charged(self, negative: bool):
        coord, rows = self.c.coord, []
        for name, atoms in self._residue_atoms:
            if name in _CHARGED_ATOMS and (name in _NEGATIVE) == negative:
                group = sorted(atoms[a] for a in _CHARGED_ATOMS[name] if a in atoms)
                if group:
                    rows.append((group, coord[group].mean(axis=0), None, None, name))
        return rows

    def _pocket_cation(self):
        return self._pocket_charged(False)

    def _pocket_anion(self):
        return self._pocket_charged(True)

    def _carbons(self, rows: np.ndarray):
        rows = rows[self.c.element[rows] == "C"]
        out = []
        for i in rows.tolist():
            if all(self.el[j] in ("C", "H") for j in self.nbrs[i]):
                out.append(((i,), self.c.coord[i], None, None, "carbon"))
        return out

    def _pocket_hydrophobic(self):
        return self._carbons(self._close(self.receptor, _ATOM_SHELL))

    def _pocket_halogen_acceptor(self):
        rows = []
        atoms = self._close(self.receptor, _ATOM_SHELL)
        for i in atoms[np.isin(self.c.element[atoms], ["O", "N", "S"])].tolist():
            y = [j for j in self.nbrs[i] if self.el[j] in ("C", "N", "P", "S")]
            if len(y) == 1:
                rows.append(((i,), self.c.coord[i], None, self.c.coord[y[0]], self.el[i]))
        return rows

    def _pocket_metal(self):
        c = self.c
        rows = self._close(self.site, _ATOM_SHELL)
        rows = rows[[e in METALS and r.upper() in METAL_IONS
                     for e, r in zip(c.element[rows].tolist(), c.res_name[rows].tolist())]]
        return [((i,), c.coord[i], None, None, str(c.element[i])) for i in rows.tolist()]

    # --- ligand ---------------------------------------------------------------------------------
    @cached_property
    def ligand_rows(self) -> list[int]:
        return np.flatnonzero(self.c.is_ligand & ~self.c.is_hydrogen).tolist()

    @cached_property
    def ligand_rings(self) -> list[list[int]]:
        """SSSR rings of the ligand's heavy atoms (RDKit), each sorted by atom row."""
        rows = self.ligand_rows
        if not rows:
            return []
        from rdkit import Chem

        local = {a: k for k, a in enumerate(rows)}
        m = Chem.RWMol()
        for a in rows:
            m.AddAtom(Chem.Atom(0))
        for a in rows:
            for b in self.nbrs[a]:
                if b in local and a < b:
                    m.AddBond(local[a], local[b], Chem.BondType.SINGLE)
        return [sorted(rows[k] for k in ring) for ring in Chem.GetSSSR(m)]

    def _ligand_ring(self):
        coord, rows = self.c.coord, []
        for ring in self.ligand_rings:
            if not 4 < len(ring) <= 6:
                continue
            members = set(ring)
            bonds = [self.order[(a, b)] for a in ring for b in self.nbrs[a] if b in members and a < b]
            aromatic = all(o == 1.5 for o in bonds)
            if aromatic or ring_is_planar(coord, ring, self.nbrs):
                rows.append((ring, coord[ring].mean(axis=0), ring_normal(coord, ring), None,
                             f"{len(ring)}-ring"))
        return rows

    def _sp3_nitrogen(self, i: int) -> bool:
        """Open Babel's hybridisation rule for N: sp2 if aromatic, multiply bonded, or bonded to a
        C/N/O that is multiply bonded (amide, aniline, amidine, enamine); else sp3."""
        if self._multiple(i):
            return False
        return not any(self.el[j] in ("C", "N", "O") and self._multiple(j) for j in self.heavy(i))

    def _ligand_charged(self, negative: bool):
        coord, rows = self.c.coord, []
        for i in self.ligand_rows:
            el, hv = self.el[i], self.heavy(i)
            nb = [self.el[j] for j in hv]
            if not negative:
                if el == "N" and len(hv) == 4:
                    rows.append(((i,), coord[i], None, None, "quartamine"))
                elif el == "N" and len(hv) == 3 and self._sp3_nitrogen(i):
                    n = np.cross(coord[hv[1]] - coord[hv[0]], coord[hv[0]] - coord[hv[2]])
                    rows.append(((i,), coord[i], _unit(n), None, "tertamine"))
                if el == "S" and len(hv) == 3:
                    rows.append(((i,), coord[i], None, None, "sulfonium"))
                if el == "C" and len(hv) == 3 and nb.count("N") == 3 \
                        and min(len(self.heavy(j)) for j in hv) == 1:
                    rows.append((hv, coord[i], None, None, "guanidine"))
            else:
                if el == "P" and hv and set(nb) == {"O"}:
                    rows.append(([i] + hv, coord[i], None, None, "phosphate"))
                if el == "S" and nb.count("O") == 3:
                    rows.append(([i] + [j for j in hv if self.el[j] == "O"], coord[i], None, None, "sulfonate"))
                elif el == "S" and nb.count("O") == 4:
                    rows.append(([i] + hv, coord[i], None, None, "sulfate"))
                if el == "C" and nb.count("O") == 2 and nb.count("C") == 1:
                    o = [j for j in hv if self.el[j] == "O"]
                    rows.append((o, coord[o].mean(axis=0), None, None, "carboxylate"))
        return [(sorted(set(a)), p, n, q, k) for a, p, n, q, k in rows]

    def _ligand_cation(self):
        return self._ligand_charged(False)

    def _ligand_anion(self):
        return self._ligand_charged(True)

    def _ligand_hydrophobic(self):
        return self._carbons(np.flatnonzero(self.c.is_ligand))

    def _ligand_halogen_donor(self):
        rows = []
        for i in self.ligand_rows:
            if self.el[i] in _HALOGENS:
                cs = [j for j in self.nbrs[i] if self.el[j] == "C"]
                if len(cs) == 1:
                    rows.append(((i,), self.c.coord[i], None, self.c.coord[cs[0]], self.el[i]))
        return rows

    def _ligand_metal_target(self):
        coord, rows = self.c.coord, []
        for i in self.ligand_rows:
            el, hv = self.el[i], self.heavy(i)
            nb = [self.el[j] for j in hv]
            kind = ""
            if el == "O":
                if any(self.aromatic_atom(j) for j in hv) and not self.aromatic_atom(i):
                    kind = "phenolate"
                elif any(self.el[j] == "C" and [self.el[k] for k in self.heavy(j)].count("O") == 2
                         and [self.el[k] for k in self.heavy(j)].count("C") == 1 for j in hv):
                    kind = "carboxylate"
                elif any(self.el[j] == "P" and [self.el[k] for k in self.heavy(j)].count("O") >= 2 for j in hv):
                    kind = "phosphoryl"
                elif len(hv) == 1 and self.el[hv[0]] == "C" and self.order[(i, hv[0])] == 1.0:
                    kind = "alcohol"
            elif el == "N" and nb.count("C") == 2:
                kind = "imidazole/pyrrole"
            elif el == "S" and len(hv) <= 2 and any(self.aromatic_atom(j) for j in hv) and not self.aromatic_atom(i):
                kind = "thiolate"
            if kind:
                rows.append(((i,), coord[i], None, None, kind))
        return rows
