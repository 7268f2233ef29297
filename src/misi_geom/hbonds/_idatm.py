"""IDATM-style atom types for H-bond typing (private).

ChimeraX classifies H-bond donors and acceptors by IDATM atom type (Meng & Lewis 1991): a
hybridisation/charge label such as ``C3``, ``Npl``, ``O2-`` with a geometry (single, linear,
planar, tetrahedral) and an expected number of substituents.  misi assigns the same labels itself:

* pocket atoms of the 20 standard residues from per-residue templates (backbone N ``Npl``; the first
  N of every chain fragment, i.e. an N without a peptide bond, ``N3+``; a C-terminal OXT makes the
  carboxylate ``Cac``/``O2-``);
* other atoms (the ligand, cofactors, modified residues) from their chemistry: neighbour counts
  (hydrogens included), bond orders (1, 1.5 aromatic, 2, 3), formal charges, and, where bond orders
  are unknown (pocket hetero groups have order 1), a bond-length/angle fallback.

Explicit hydrogens decide protonation where present (a pocket ASP/GLU with its acid H is a neutral
acid, :mod:`misi_geom.hbonds._templates`).  Without them -- a ligand with no H at all, or a pocket
hetero group -- IDATM's heavy-atom rules apply: bond lengths for terminal O and two-connected C,
the ring pass for ring N and aromaticity, the aniline and conjugated-N rules; RDKit's charges of an
H-free ligand are not trusted.

The tables describe chemistry, not any program's code.
"""

from __future__ import annotations

import numpy as np

from misi_geom.hbonds._rings import ring_atom_types
from misi_geom.complex import TEMPLATE_ORDERS, Complex
from misi_geom.hbonds._graph import AtomGraph
from misi_geom.hbonds._templates import template_types

__all__ = ["SINGLE", "LINEAR", "PLANAR", "TETRAHEDRAL", "TYPE_INFO", "AtomGraph", "idatm_types"]

SINGLE, LINEAR, PLANAR, TETRAHEDRAL = 1, 2, 3, 4

#: IDATM type -> (geometry, expected substituents).  Types not listed (halogens, metals) have none.
TYPE_INFO: dict[str, tuple[int, int]] = {
    "C1": (2, 2), "C1-": (2, 1), "C2": (3, 3), "C3": (4, 4), "Cac": (3, 3), "Car": (3, 3),
    "D": (1, 1), "DC": (1, 1), "H": (1, 1), "HC": (1, 1),
    "N1": (2, 1), "N1+": (2, 2), "N2": (3, 2), "N2+": (3, 3), "N3": (4, 3), "N3+": (4, 4),
    "Ng+": (3, 3), "Npl": (3, 3), "Ntr": (3, 3),
    "O1": (2, 1), "O1+": (2, 1), "O2": (3, 1), "O2-": (3, 1), "O3": (4, 2), "O3-": (4, 1),
    "Oar": (3, 2), "Oar+": (3, 2),
    "P3+": (4, 4), "Pac": (4, 4), "Pox": (4, 4),
    "S2": (3, 1), "S3": (4, 2), "S3+": (4, 3), "S3-": (4, 1), "Sac": (4, 4), "Sar": (3, 2),
    "Son": (4, 4), "Sxd": (4, 3),
}

def idatm_types(c: Complex, g: AtomGraph | None = None) -> np.ndarray:
    """IDATM-style type of every atom of ``c`` (``<U4``; element symbol when no type applies)."""
    g = g or AtomGraph(c)
    out = np.array(c.element, dtype="<U4")
    templated = template_types(c, g, out)
    charge = _trusted_charges(c)
    h_free = _hydrogen_free_ligand(c)
    for i in range(len(c)):
        if not templated[i]:
            out[i] = _chem_type(c, g, i, int(charge[i]), h_free and bool(c.is_ligand[i]))
    _fix_dependent(c, g, out, templated)
    ring_ns = _ring_pass(c, g, out, templated)
    _conjugated_nitrogens(c, g, out, templated, ring_ns)
    return out


def _ring_pass(c: Complex, g: AtomGraph, out: np.ndarray, templated: np.ndarray) -> set[int]:
    """IDATM's ring pass (:mod:`misi_geom.hbonds._rings`), run as ChimeraX runs it whether or not
    hydrogens are present.  Ligand: each two-connected ring N holds a proton (``Npl``) or not
    (``N2``) -- a ring N without an explicit H may still get an implied one; the rest of the ligand
    keeps the types its bond orders give.  Pocket hetero groups (no bond orders): ring N and the
    aromatic-ring C/O/S too.  Returns the ring N it decided."""
    lig = c.is_ligand
    planar = {t for t, (geom, _subs) in TYPE_INFO.items() if geom == PLANAR}
    decided = ring_atom_types(c, g, out, np.flatnonzero(lig), planar)
    ring_ns = set()
    for i, t in decided.items():
        if g.element[i] == "N" and out[i] in ("N2", "Npl") and not templated[i]:
            out[i] = t
            ring_ns.add(i)
    # pocket hetero groups (cofactors, modified residues) carry no bond orders: their ring atoms
    # are typed from the ring bond orders alone, aromatic rings included
    het = ~c.is_ligand & ~templated & ~c.is_hydrogen
    for _res in sorted(set(c.res_index[het].tolist())):
        rows = np.flatnonzero(het & (c.res_index == _res))
        for i, t in ring_atom_types(c, g, out, rows, planar).items():
            if g.element[i] != "N" or out[i] in ("N2", "Npl", "N3"):
                out[i] = t
                ring_ns.add(i)
    return ring_ns


def _conjugated_nitrogens(c: Complex, g: AtomGraph, out: np.ndarray, templated: np.ndarray,
                          ring_ns: set[int]) -> None:
    """IDATM's last N rule (ChimeraX applies it to every non-template N): an N2/N3, or a
    two-connected Npl, outside aromatic rings whose sp2 neighbour (not Npl) has no further sp2
    partner except aromatic C and Npl holds the double bond itself: ``N2`` with two heavy
    neighbours, ``N3``/``N3+`` with one (e.g. an amidine =NH beside its NH2 and a phenyl)."""
    def planar(j: int) -> bool:
        return TYPE_INFO.get(str(out[j]), (0, 0))[0] == PLANAR

    todo: dict[int, list[int]] = {}
    for i in np.flatnonzero(c.is_ligand & ~templated & (c.element == "N")).tolist():
        t = str(out[i])
        if i in ring_ns or t not in ("Npl", "N2", "N3") or (t == "Npl" and len(g.nbrs[i]) != 2):
            continue
        if _in_aromatic_ring(g, i) or any(_in_aromatic_ring(g, j) for j in g.heavy(i)):
            continue  # aromatic rings (and anilines, typed already) keep their types
        todo[i] = [j for j in g.nbrs[i] if planar(j) and out[j] != "Npl"]
    for size in (1, 2, 3):
        for i, sp2 in todo.items():
            if len(sp2) != size:
                continue
            for j in sp2:
                remote = any(k != i and (str(out[k]) not in TYPE_INFO or planar(k))
                             and out[k] not in ("Car", "Npl") for k in g.nbrs[j])
                if not remote:
                    heavy = len(g.heavy(i))
                    if heavy > 1:
                        out[i] = "N2"
                    else:
                        out[i] = "N3+" if heavy == 0 or all(out[k] in ("C3", "H", "D") for k in g.nbrs[i]) else "N3"
                    break


def _terminal_o(g: AtomGraph, i: int) -> list[int]:
    """Oxygen neighbours of ``i`` bonded to nothing else."""
    return [j for j in g.nbrs[i] if g.element[j] == "O" and len(g.nbrs[j]) == 1]


def _hydrogen_free_ligand(c: Complex) -> bool:
    """The complex has ligand rows and none of them is a hydrogen."""
    lig = c.is_ligand
    return bool(lig.any() and not (lig & c.is_hydrogen).any())


def _trusted_charges(c: Complex) -> np.ndarray:
    """Formal charges worth believing: a ligand file without any hydrogen gives RDKit no way to
    tell a hydroxyl from an alkoxide (its mol2 reader charges every O.3 with one bond -1), so
    the ligand's charges count only when it carries hydrogens.  IDATM itself types from the
    heavy atoms, as ChimeraX does for such files."""
    charge = c.formal_charge.astype(np.int64)
    if _hydrogen_free_ligand(c):
        charge[c.is_ligand] = 0
    return charge


def _chem_type(c: Complex, g: AtomGraph, i: int, charge: int = 0, h_free: bool = False) -> str:
    """IDATM type of a non-templated atom from bond orders, charge and geometry.  ``h_free``: the
    atom's molecule lost its hydrogens, so a terminal O on carbon is judged by bond length (IDATM's
    1.30 Å C=O limit), as ChimeraX does, not by the order written for the protonated molecule."""
    el = str(c.element[i])
    nb = g.nbrs[i]
    deg = len(nb)
    orders = [g.order[(i, j)] for j in nb]
    # bond orders from a SMILES template are the user's chemistry: they win over deposited lengths
    template = bool(c.is_ligand[i]) and c.atom_type[i] == TEMPLATE_ORDERS
    arom = any(o == 1.5 for o in orders) or (bool(c.is_ligand[i]) and any(_kekule_aromatic(g, r) for r in g.rings(i)))
    known = bool(c.is_ligand[i]) or any(o != 1 for o in orders)
    if el in ("H", "D"):
        hc = any(g.element[j] == "C" for j in nb)
        return ("DC" if hc else "D") if el == "D" else ("HC" if hc else "H")
    if el == "C":
        if deg >= 4:
            return "C3"
        if len(_terminal_o(g, i)) >= 2 and deg == 3:
            return "Cac"
        if arom and _in_aromatic_ring(g, i):
            return "Car"
        if arom:
            return "C2"
        if any(o == 3 for o in orders) or sum(o == 2 for o in orders) >= 2:
            if deg == 3:  # two C=N written on a three-connected C (PDBbind SDF guanidinium): sp2
                return "C2"
            return "C1" if deg == 2 else "C1-"
        if any(o == 2 for o in orders):
            return "C2"
        # all bonds single but fewer than four neighbours (hydrogens missing, or an odd file):
        # decide from the bond angles, as IDATM does
        return _geom_type(c, g, i, "C")
    if el == "N":
        if deg >= 4:
            return "N3+"
        if deg == 3 and len(_terminal_o(g, i)) >= 2:
            return "Ntr"
        if any(o == 3 for o in orders):
            return "N1"
        if _aniline_n(g, i):
            return "Npl"
        if deg == 3:
            if arom or any(o == 2 for o in orders):
                return "Npl"
            # IDATM's own rule for three-connected N: pyramidal (mean angle < 115 deg) is sp3
            return "N3" if _mean_angle(c, nb, i) < 115.0 else "Npl"
        if deg == 2:
            if any(o == 2 for o in orders) or (arom and not any(c.is_hydrogen[j] for j in nb)):
                return "N2"
            if h_free and not arom and _mean_angle(c, nb, i) < 115.0 and not _conjugated_beyond_rings(c, g, i):
                # no hydrogens: a pyramidal N whose only sp2 neighbour is an aromatic ring atom
                # (N-alkyl aniline, aryl hydrazine) is sp3 by IDATM's angle rule, as ChimeraX types it
                return "N3"
            if arom or _conjugated(c, g, i):
                return "Npl"
            # IDATM's angle rule for two-connected N
            return "N3" if _mean_angle(c, nb, i) < 115.0 else "Npl"
        if deg == 1:
            # terminal N (hydrogens absent): IDATM's bond-length rule
            j, d = nb[0], _bond_len(c, i, nb[0])
            if orders[0] == 3 or (d <= 1.20 and c.element[j] in ("C", "N") and not template):
                return "N1"
            if template and orders[0] == 2:
                return "Npl"
            if c.element[j] == "C" and d > 1.38:
                return "N3"
            if h_free and c.element[j] == "N" and d > 1.38:
                return "N3"  # a hydrazide's NH2 without hydrogens (N-N single by length), as ChimeraX
            return "Npl" if c.element[j] in ("C", "N") else "N3"
        return "N3"
    if el == "O":
        if deg == 1:
            j = nb[0]
            ej = str(c.element[j])
            tj = len(_terminal_o(g, j))
            if ej == "C" and tj >= 2 and len(g.nbrs[j]) == 3:
                return "O2-"
            if ej == "N" and tj >= 2 and len(g.nbrs[j]) == 3:
                return "O2-"
            if ej in ("S", "P") and len(g.nbrs[j]) >= 3 and _free_o(g, j) >= 1:
                # phosphate, phosphonate, sulfate, sulfone, sulfoxide oxygens
                return "O3-"
            if (h_free or not known) and ej == "C" and not template:
                return "O2" if _bond_len(c, i, j) <= 1.30 else "O3"
            if orders[0] >= 2 or (not known and _bond_len(c, i, j) < 1.30):
                return "O2"
            return "O3-" if charge < 0 else ("O2" if not known else "O3")
        if deg >= 2:
            # aromatic only in a ring that is aromatic as a whole (not a mol2 'ar' carboxylate C-O,
            # not a lactone ring whose carbonyl points out of it: coumarin's ring O is O3)
            return "Oar" if arom and _in_aromatic_ring(g, i) else "O3"
        return "O3"
    if el == "S":
        fo = _free_o(g, i)
        if deg == 4 and fo >= 3:
            return "Sac"
        if deg == 4 and fo >= 1:
            return "Son"
        if deg == 3 and any(g.element[j] == "O" for j in nb):
            return "Sxd"
        if deg == 1:
            return "S2" if orders[0] >= 2 else ("S3-" if charge < 0 else "S3")
        if arom:
            return "Sar"
        return "S3"
    if el == "P":
        fo = _free_o(g, i)
        if deg == 4 and fo >= 2:
            return "Pac"
        if deg == 4 and fo == 1:
            return "Pox"
        return "P3+" if deg == 4 else "P"
    return el


def _aniline_n(g: AtomGraph, i: int) -> bool:
    """An N outside aromatic rings whose only heavy neighbour is an aromatic ring atom (aniline,
    aminopyridine): planar by conjugation, however pyramidal its geometry (IDATM's aniline rule)."""
    heavy = g.heavy(i)
    if len(heavy) != 1 or g.element[heavy[0]] not in ("C", "N"):
        return False
    return not _in_aromatic_ring(g, i) and _in_aromatic_ring(g, heavy[0])


def _in_aromatic_ring(g: AtomGraph, i: int) -> bool:
    """In a ring of aromatic bonds none of whose atoms carries an exocyclic double bond (a
    quinone/pyrimidinone-like ring is typed sp2, not aromatic, as IDATM does)."""
    for ring in g.rings(i):
        ok = True
        for a in ring:
            for b in g.nbrs[a]:
                o = g.order[(a, b)]
                if (b in ring and o != 1.5) or (b not in ring and o == 2 and not g.is_h[b]):
                    ok = False
        if ok or _kekule_aromatic(g, ring):
            return True
    return False


def _kekule_aromatic(g: AtomGraph, ring: frozenset) -> bool:
    """A ring written with alternating single/double bonds (Kekulé form, as in an SDF read without
    aromaticity perception) that has 4n+2 pi electrons and no exocyclic double bond."""
    if len(ring) not in (5, 6, 7):
        return False
    electrons = 0
    for a in ring:
        nb = g.nbrs[a]
        if len(nb) > 3:
            return False
        inner = [g.order[(a, b)] for b in nb if b in ring]
        outer = [g.order[(a, b)] for b in nb if b not in ring and not g.is_h[b]]
        if 1.5 in inner or 2.0 in outer or 3.0 in inner + outer:
            return False
        doubles = inner.count(2.0)
        el = g.element[a]
        if doubles > 1:
            return False
        if el == "C":
            if doubles != 1:
                return False
            electrons += 1
        elif el == "N":
            electrons += 1 if doubles else 2
        elif el in ("O", "S") and len(nb) == 2 and not doubles:
            electrons += 2
        else:
            return False
    return electrons % 4 == 2


def _free_o(g: AtomGraph, i: int) -> int:
    """Oxygen neighbours of ``i`` with no other heavy neighbour (hydrogens allowed)."""
    return sum(1 for j in g.nbrs[i] if g.element[j] == "O" and len(g.heavy(j)) == 1)


def _mean_angle(c: Complex, nb: list[int], i: int) -> float:
    v = c.coord[nb] - c.coord[i]
    v = v / np.linalg.norm(v, axis=1)[:, None]
    cos = [float(v[a] @ v[b]) for a in range(len(nb)) for b in range(a + 1, len(nb))]
    return float(np.degrees(np.arccos(np.clip(cos, -1, 1))).mean())


def _bond_len(c: Complex, i: int, j: int) -> float:
    return float(np.linalg.norm(c.coord[i] - c.coord[j]))


def _conjugated(c: Complex, g: AtomGraph, i: int) -> bool:
    """A 3-connected N next to a multiple-bonded or aromatic atom (amide, aniline, sulfonamide)."""
    for j in g.heavy(i):
        ej = str(c.element[j])
        if ej == "S" and len(_terminal_o(g, j)) >= 1:
            return True
        if any(g.order[(j, k)] in (1.5, 2.0, 3.0) for k in g.nbrs[j] if k != i):
            return True
    return False


def _conjugated_beyond_rings(c: Complex, g: AtomGraph, i: int) -> bool:
    """:func:`_conjugated` through a neighbour outside aromatic rings (a C=O, C=N, C=S, sulfonyl...):
    an amide or imine N stays planar whatever its angle."""
    for j in g.heavy(i):
        if _in_aromatic_ring(g, j):
            continue
        if str(c.element[j]) == "S" and len(_terminal_o(g, j)) >= 1:
            return True
        if any(g.order[(j, k)] in (1.5, 2.0, 3.0) for k in g.nbrs[j] if k != i):
            return True
    return False


#: IDATM bond-length limits (Å) that refine an angle-based carbon type: at or below "short" a bond
#: to that element is a multiple bond (sp2), above "long" it is single (sp3).
_C_SHORT = {"C": 1.42, "N": 1.41}
_C_LONG = {"C": 1.53, "N": 1.46, "O": 1.44}


def _geom_type(c: Complex, g: AtomGraph, i: int, el: str) -> str:
    """Carbon type from its bond angle(s) where bond orders cannot tell (hydrogens missing), by
    IDATM's heavy-atom rules: mean angle below 115 deg sp3, from 160 deg (two neighbours) sp, sp2
    between.  A two-connected carbon near the 115 deg border (below 122 deg) is settled by its
    bond lengths: a short bond makes it sp2, a long single one sp3."""
    nb = g.nbrs[i]
    if len(nb) < 2:
        return el + "3"
    ang = _mean_angle(c, nb, i)
    if len(nb) == 2 and ang >= 160:
        return "C1"
    t = "C2" if ang >= 115 else "C3"
    if len(nb) == 2 and ang < 122:
        lengths = [(str(c.element[j]), _bond_len(c, i, j)) for j in nb]
        if any(d <= _C_SHORT.get(e, 0.0) for e, d in lengths):
            return "C2"
        if any(d > _C_LONG.get(e, 99.0) or (e == "C" and d > 1.45 and t == "C2") for e, d in lengths):
            return "C3"
    return t


def _fix_dependent(c: Complex, g: AtomGraph, out: np.ndarray, templated: np.ndarray) -> None:
    """Charge-state decisions made once all neighbours are typed (IDATM's own conventions):

    * an N bonded only to sp3 carbons and hydrogens is taken as protonated (``N3+``);
    * the planar N's of a C2 carbon carrying two or more of them (guanidine, amidine, urea) become
      ``Ng+``, unless one of them is in a ring;
    * a two-connected aromatic N without hydrogen is ``N2``.
    """
    free = ~templated
    for i in np.flatnonzero(free & (c.element == "O")):
        nb = g.nbrs[i]
        if len(nb) == 1 and templated[nb[0]]:
            # a terminal O on a template-typed atom follows that atom's type
            j = nb[0]
            if out[j] in ("Cac", "Ntr"):
                out[i] = "O2-"
            elif out[j] in ("Pac", "Sac", "Son", "Sxd", "Pox"):
                out[i] = "O3-"
            elif out[i] in ("O2-", "O3-"):
                out[i] = "O2" if g.order[(i, j)] >= 1.5 or _bond_len(c, i, j) <= 1.30 else "O3"
    for i in np.flatnonzero(free & (c.element == "C") & (out == "C2")):
        # an sp2 carbon needs an sp2 partner: one typed from angles alone with none is sp3
        nb = g.nbrs[i]
        if all(g.order[(i, j)] == 1 for j in nb) and not any(
                TYPE_INFO.get(str(out[j]), (0, 0))[0] == PLANAR and out[j] != "Cac" for j in nb):
            out[i] = "C3"
    for i in np.flatnonzero(free & (c.element == "N")):
        nb = g.nbrs[i]
        if out[i] != "N3+" and nb and all(out[j] in ("C3", "H", "D") for j in nb):
            out[i] = "N3+"
    h_free = _hydrogen_free_ligand(c)
    for i in np.flatnonzero(free & (out == "C2")):
        npl = [j for j in g.nbrs[i] if out[j] in ("Npl", "Ng+") and free[j]]
        if h_free and c.is_ligand[i] and len(g.nbrs[i]) == 3 and all(g.element[j] == "N" for j in g.nbrs[i]):
            # guanidine without hydrogens: the written C=N is no more local than in the cation
            npl = [j for j in g.nbrs[i] if out[j] in ("Npl", "Ng+", "N2") and free[j]]
        if len(npl) >= 2 and not any(g.rings(j) for j in npl):
            for j in npl:
                out[j] = "Ng+"
    if h_free:
        # a hydrogen-free terminal N on an N (typed N3 by length) stays planar when that N is part of a
        # guanidine-like Ng+ group (semicarbazide, aminoguanidine), as ChimeraX types it
        for i in np.flatnonzero(free & c.is_ligand & (out == "N3")):
            nb = g.heavy(i)
            if len(nb) == 1 and g.element[nb[0]] == "N" and out[nb[0]] == "Ng+":
                out[i] = "Npl"
    for i in np.flatnonzero(free & (out == "Npl")):
        nb = g.nbrs[i]
        if len(nb) == 2 and not any(c.is_hydrogen[j] for j in nb) and any(g.order[(i, j)] == 1.5 for j in nb):
            out[i] = "N2"
