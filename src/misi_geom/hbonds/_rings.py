"""Ring bond orders without trusted bond orders: which ring N carry a proton, which rings are
aromatic (private).

A two-connected ring N may be a pyridine-like acceptor (``N2``, one ring double bond) or a
pyrrole/lactam NH donor (``Npl``) whose hydrogen is missing from the file.  RDKit's aromatic bonds
do not say which, a file written without hydrogens does not either, and a pocket file gives no
bond orders at all.  IDATM (Meng & Lewis 1991, with the ring extension ChimeraX applies) settles
it per planar ring system by choosing a consistent set of ring bond orders: every
ring bond single or double, each atom's total bond order within what its valence allows (a
two-connected atom may carry an implied proton), then preferring (1) the most atoms in rings with
4n+2 pi electrons, (2) the fewest positively charged ring atoms, (3) double bonds on the shortest
bonds (lowest order-weighted mean squared length).  A two-connected ring N whose ring bonds sum to 2
in the chosen set is ``Npl`` (it holds the proton), to 3 ``N2``; a ring whose atoms can give 4n+2 pi
electrons under that set is aromatic (Hückel; a carbon whose double bond points out of the
system, as in a lactone C=O, breaks it).  Exocyclic bond orders are judged from the neighbouring
types, as IDATM does.

The rules are the published IDATM ones; this module does not reproduce any program's code.
"""

from __future__ import annotations

import numpy as np

from misi_geom.complex import Complex

__all__ = ["ring_atom_types"]

_PLANAR = frozenset({"C2", "Car", "Npl", "N2", "N2+", "Ng+", "Oar", "Oar+", "Sar", "P"})
_SINGLE, _DOUBLE, _AMBIGUOUS = 1, 2, 0
#: Largest ring system (bonds) searched; bigger ones keep their types.
_MAX_BONDS = 40


def _valence_electrons(el: str) -> int | None:
    z = {"B": 5, "C": 6, "N": 7, "O": 8, "S": 16, "P": 15, "Se": 34}.get(el)
    if z is None or z > 20:
        return None
    return (z - 2) % 8


def ring_atom_types(c: Complex, g, types: np.ndarray, atoms: np.ndarray, planar_types) -> dict[int, str]:
    """Ring-pass types for the ring atoms among ``atoms`` (one molecule or residue): ``N2``/``Npl``
    for every two-connected N of a planar ring system, ``Car``/``Oar``/``Sar`` for the C, O and S
    of rings aromatic under the chosen bond orders.  The caller picks which to apply.

    ``g`` is the :class:`~misi_geom.hbonds._idatm.AtomGraph`, ``types`` the types so far and
    ``planar_types`` the set of type names of planar (trigonal) geometry.
    """
    members = set(int(i) for i in atoms)
    rings = set()
    for i in members:
        for r in g.rings(i):
            if r <= members and _planar_ring(c, g, types, r):
                rings.add(r)
    out: dict[int, str] = {}
    for system in _ring_systems(rings):
        out.update(_system_types(c, g, system, lambda i: str(types[i]) in planar_types))
    return out


def _planar_ring(c: Complex, g, types: np.ndarray, ring: frozenset) -> bool:
    """A ring whose atoms all may be planar; one holding an sp3-typed member (a two-connected C3, a
    ring O3/S3) counts only if its bond lengths look aromatic (HOMA index)."""
    if len(ring) < 5:
        return False
    oxygens = sum(1 for a in ring if g.element[a] == "O")
    if len(ring) == 5 and 1 < oxygens < 5:
        return False
    all_planar = True
    for a in ring:
        t = str(types[a])
        if len(g.nbrs[a]) > 3:
            return False
        if t in ("O3", "S3", "N3") or (t == "C3" and len(g.nbrs[a]) == 2):
            all_planar = False
        elif t not in _PLANAR:
            return False
    return all_planar or _aromatic_geometry(c, g, ring)


def _aromatic_geometry(c: Complex, g, ring: frozenset) -> bool:
    """Harmonic-oscillator aromaticity index of the ring's C-C and C-N bonds (Krygowski et al.,
    J. Chem. Inf. Comput. Sci. 1993, 33, 70): aromatic from 0.5; clearly not below -35 per bond."""
    ref = {("C", "C"): 1.38586, ("C", "N"): 1.34148, ("N", "C"): 1.34148}
    dev = [float(np.linalg.norm(c.coord[a] - c.coord[b])) - ref[(g.element[a], g.element[b])]
           for a in ring for b in g.nbrs[a] if b in ring and a < b and (g.element[a], g.element[b]) in ref]
    if not dev:
        return False
    homa = 1.0 - 792.0 * float(np.mean(np.square(dev)))
    return homa >= 0.5 or len(dev) * homa >= -35.0


def _ring_systems(rings: set) -> list[list[frozenset]]:
    """Rings grouped into fused systems (rings sharing a bond), deterministic order."""
    rings = sorted(rings, key=lambda r: (len(r), sorted(r)))
    systems: list[list[frozenset]] = []
    for r in rings:
        joined = [s for s in systems if any(len(r & q) >= 2 for q in s)]
        merged = [r] + [q for s in joined for q in s]
        systems = [s for s in systems if s not in joined] + [merged]
    return [sorted(s, key=lambda r: (len(r), sorted(r))) for s in systems]


def _system_types(c: Complex, g, rings: list[frozenset], planar) -> dict[int, str]:
    atoms = sorted(set().union(*rings))
    bonds = sorted({(min(a, b), max(a, b)) for r in rings for a in r for b in g.nbrs[a] if b in r})
    if len(bonds) > _MAX_BONDS:
        return {}
    aset = set(atoms)
    outside = {a: [_exo_order(g, planar, a, b) for b in g.nbrs[a] if b not in aset] for a in atoms}
    assignments = _assignments(g, atoms, bonds, outside, charged=False)
    if not assignments or not _all_rings_can_be_aromatic(rings, bonds, assignments, g):
        charged = _assignments(g, atoms, bonds, outside, charged=True)
        assignments = charged + [a for a in assignments if a not in charged]
    if not assignments:
        return {}
    best = _best(c, g, rings, bonds, assignments)
    out = {}
    for ring in rings:
        if _aromatic(g, ring, rings, bonds, best, assignments, outside):
            for a in ring:
                t = {"C": "Car", "O": "Oar", "S": "Sar"}.get(g.element[a])
                if t is not None:
                    out[a] = t
    for a in atoms:
        if g.element[a] == "N" and len(g.nbrs[a]) == 2:
            total = sum(best[k] for k, b in enumerate(bonds) if a in b)
            out[a] = "Npl" if total == 2 else "N2"
    return out


def _aromatic(g, ring: frozenset, rings, bonds, best: tuple, assignments, outside) -> bool:
    """Huckel test of one ring under the chosen bond orders: count the pi electrons each atom can
    give (a range where a lone pair may or may not join) and ask for 4n+2 within it.  A ring
    carbon with a double bond pointing out of the system (C=O) breaks aromaticity."""
    index = {b: k for k, b in enumerate(bonds)}
    system_atoms = {a for b in bonds for a in b}
    lo = hi = 0
    for a in ring:
        ve = _valence_electrons(g.element[a])
        nb = g.nbrs[a]
        lo += 1
        ring_orders = [best[index[(min(a, b), max(a, b))]] for b in nb if b in ring]
        if len(nb) == 2:
            if ve is None:
                hi += 2
            elif ve < 3 or ve == 7:
                return False
            elif ve < 5:
                hi += 1
            elif ve == 5:
                if sum(ring_orders) == 2:
                    lo, hi = lo + 1, hi + 2
                else:
                    hi += 1
            elif g.element[a] == "O" and sum(ring_orders) == 3:
                hi += 1
            else:
                lo, hi = lo + 1, hi + 2
        elif len(nb) == 3:
            (out_atom,) = [b for b in nb if b not in ring]
            key = (min(a, out_atom), max(a, out_atom))
            if key in index:  # fused: the bond belongs to the system; its order if all sets agree
                orders = {asg[index[key]] for asg in assignments}
                bo = orders.pop() if len(orders) == 1 else _AMBIGUOUS
            else:
                bo = _exo_order_of(g, a, out_atom, outside, system_atoms)
            if ve is None:
                hi += 2
                continue
            if ve < 4 or ve > 5:
                return False
            if ve == 4:
                if bo == _DOUBLE:
                    fused = any(a in r for r in rings if r is not ring)
                    if len(g.nbrs[out_atom]) == 1 or not fused:
                        return False
                hi += 1
            elif bo == _DOUBLE or sum(ring_orders) + (2 if bo == _DOUBLE else 1) == 4:
                hi += 1
            else:
                lo, hi = lo + 1, hi + 2
        else:
            return False
    excess = (lo - 2) % 4
    return excess == 0 or excess + (hi - lo) >= 4


def _exo_order_of(g, a: int, b: int, outside: dict, system_atoms: set) -> int:
    """The judged order of ring atom ``a``'s bond to outside atom ``b`` (from ``outside``)."""
    others = [x for x in g.nbrs[a] if x not in system_atoms]
    return outside[a][others.index(b)]


def _exo_order(g, planar, a: int, b: int) -> int:
    """Order of the bond from ring atom ``a`` to outside atom ``b``, judged from the types around
    it as IDATM does (not from the file): to a non-planar atom or a planar N single; to a terminal
    atom double (single for an N-oxide O); to a planar atom whose own double bond can only point
    elsewhere single; otherwise double when ``b`` has no other planar partner, else undecided."""
    if not planar(b) or g.element[b] == "N":
        return _SINGLE
    others = [n for n in g.nbrs[b] if n != a]
    if not others:
        return _SINGLE if (g.element[a] == "N" and g.element[b] == "O") else _DOUBLE
    ambiguous = False
    for n2 in others:
        if not planar(n2):
            continue
        beyond = [n3 for n3 in g.nbrs[n2] if n3 != b and planar(n3)]
        if not beyond:
            return _SINGLE
        ambiguous = True
    return _AMBIGUOUS if ambiguous else _DOUBLE


def _atom_ok(g, a: int, ring_total: int, outside: list[int], charged: bool) -> bool:
    """Can atom ``a`` have ring bond orders summing to ``ring_total`` (valence rules)?"""
    ve = _valence_electrons(g.element[a])
    if ve is None:
        return True
    deg = len(g.nbrs[a])
    total = ring_total + sum(1 if o == _AMBIGUOUS else o for o in outside)
    ambiguous = deg == 2 or _AMBIGUOUS in outside
    extra = 0
    if charged and ((g.element[a] == "N" and deg == 3) or (g.element[a] == "O" and deg == 2)):
        extra, ambiguous = 1, True
    if ve >= 4:
        need = 8 - ve  # bonds that complete the octet
        return need - 1 <= total <= need + extra if ambiguous else total == need
    return 0 <= ve - total <= 1 if ambiguous else ve - total == 0


def _assignments(g, atoms, bonds, outside, charged: bool, limit: int = 4096) -> list[tuple]:
    """Every single/double assignment of ``bonds`` that satisfies each atom (depth-first)."""
    last_bond = {}
    for k, (a, b) in enumerate(bonds):
        last_bond[a] = k
        last_bond[b] = k
    done_at: dict[int, list[int]] = {}
    for a, k in last_bond.items():
        done_at.setdefault(k, []).append(a)
    found: list[tuple] = []
    cur = [0] * len(bonds)
    sums = dict.fromkeys(atoms, 0)
    doubles = dict.fromkeys(atoms, 0)

    def step(k: int) -> None:
        if len(found) >= limit:
            return
        if k == len(bonds):
            found.append(tuple(cur))
            return
        a, b = bonds[k]
        for order in (1, 2):
            if order == 2 and (any(o == _DOUBLE for o in outside[a] + outside[b]) or doubles[a] or doubles[b]):
                continue  # no cumulated double bonds
            cur[k] = order
            sums[a] += order
            sums[b] += order
            doubles[a] += order == 2
            doubles[b] += order == 2
            if all(_atom_ok(g, x, sums[x], outside[x], charged) for x in done_at.get(k, ())):
                step(k + 1)
            sums[a] -= order
            sums[b] -= order
            doubles[a] -= order == 2
            doubles[b] -= order == 2

    step(0)
    return found


def _all_rings_can_be_aromatic(rings, bonds, assignments, g) -> bool:
    """False if some ring holding N or O has no assignment with alternating (aromatic) orders."""
    index = {b: k for k, b in enumerate(bonds)}
    for r in rings:
        if not any(g.element[a] in ("N", "O") for a in r):
            continue
        rb = [index[(min(a, b), max(a, b))] for a in r for b in g.nbrs[a] if b in r and a < b]
        if not any(sum(asg[k] for k in rb) == len(rb) + len(rb) // 2 for asg in assignments):
            return False
    return True


def _best(c: Complex, g, rings, bonds, assignments) -> tuple:
    if len(assignments) == 1:
        return assignments[0]
    atoms = sorted({a for b in bonds for a in b})

    def ring_sums(asg):
        total = dict.fromkeys(atoms, 0)
        count = dict.fromkeys(atoms, 0)
        for (a, b), o in zip(bonds, asg):
            total[a] += o
            total[b] += o
            count[a] += 1
            count[b] += 1
        return total, count

    def aromatic_atoms(asg) -> int:
        total, count = ring_sums(asg)
        n = 0
        for r in rings:
            pi = 0
            for a in r:
                ve = _valence_electrons(g.element[a])
                if ve is None or ve < 3 or ve > 6:
                    pi = 0
                    break
                if ve == 4:
                    if total[a] == 2 and count[a] == 2:
                        pi = 0  # its double bond points out of the ring
                        break
                    pi += 1
                elif ve > 4:
                    if ve == 5 and total[a] != 3 and len(r) == 5:
                        pi = 0
                        break
                    pi += 2 - (total[a] != 2)
                elif len(g.nbrs[a]) == 2 and total[a] == 2:
                    pi += 1
                else:
                    pi = 0
                    break
            if pi % 4 == 2:
                n += len(r)
        return n

    def charges(asg) -> int:
        total, count = ring_sums(asg)
        n = 0
        for a in atoms:
            deg = len(g.nbrs[a])
            if g.element[a] == "N" and total[a] == 4 - (deg - count[a]):
                n += 1
            elif g.element[a] == "O" and count[a] == deg and total[a] == 3:
                n += 1
        return n

    def length_fit(asg) -> float:
        sq = [float(((c.coord[a] - c.coord[b]) ** 2).sum()) for a, b in bonds]
        return sum(s * o for s, o in zip(sq, asg)) / sum(asg)

    pool = list(range(len(assignments)))
    aro = [aromatic_atoms(assignments[k]) for k in pool]
    if max(aro) > 0:
        pool = [k for k in pool if aro[k] == max(aro)]
    if len(pool) > 1:
        ch = {k: charges(assignments[k]) for k in pool}
        pool = [k for k in pool if ch[k] == min(ch.values())]
    if len(pool) > 1:
        pool = [min(pool, key=lambda k: (length_fit(assignments[k]), k))]
    return assignments[pool[0]]
