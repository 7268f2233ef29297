"""The audit's own interaction geometry: rule tables, ring and charge perception, and measurements.

Written apart from :mod:`misi_geom.interactions` on purpose (an audit that reused the detector would
repeat its mistakes), in plain numpy on the audit's :class:`~misi_tasks.audit.structures.Atoms`.
The thresholds are the ones ``docs/interactions.md`` documents (PLIP's): salt bridge charge centres
< 5.5 Å; pi-stacking centroids < 5.5 Å, ring planes 0-30° or 60-90° apart, offset < 2.0 Å; cation-pi
< 6.0 Å with the charge over the ring (offset < 2.0 Å); halogen bond X...A < 4.0 Å, C-X...A 165 ± 30°,
Y-A...X 120 ± 30°; metal < 3.0 Å; hydrophobic C...C < 4.0 Å between carbons bonded only to carbon.
Ring planes here come from a least-squares fit (SVD), not from three ring atoms as PLIP's, so angle
and offset get a small slack (:data:`ANGLE_SLACK`, :data:`OFFSET_SLACK`) at the thresholds.

:func:`contact_problem` re-measures one recorded contact; :func:`obvious_contacts` is the audit's
test that a type is absent: it finds the clear cases only (every threshold tightened by a margin),
so it cannot disagree with a detector on a borderline pair, but it catches a missed obvious one.
:func:`near_contacts` tests the generator's fairness margins instead: nothing of a type within the
margins an item records (every limit widened by them, less the audit's slack).

>>> ring_angle(np.array([0, 0, 1.0]), np.array([0, 1.0, 0]))
90.0
"""

from __future__ import annotations

import numpy as np

from misi_tasks.audit.structures import Atoms

__all__ = ["RESIDUE_RINGS", "POCKET_CHARGES", "METALS", "possible_for_residue", "ring_angle", "plane",
           "ligand_rings", "contact_problem", "obvious_contacts", "near_contacts", "ring_rows_of_residue",
           "stack_window", "metal_target"]

#: Residue -> its aromatic rings' template atom names (TRP: the six- then the five-membered ring).
RESIDUE_RINGS: dict[str, tuple[frozenset[str], ...]] = {
    "PHE": (frozenset({"CG", "CD1", "CD2", "CE1", "CE2", "CZ"}),),
    "TYR": (frozenset({"CG", "CD1", "CD2", "CE1", "CE2", "CZ"}),),
    "HIS": (frozenset({"CG", "ND1", "CD2", "CE1", "NE2"}),),
    "TRP": (frozenset({"CD2", "CE2", "CE3", "CZ2", "CZ3", "CH2"}), frozenset({"CG", "CD1", "NE1", "CE2", "CD2"})),
}
#: Residue -> (sign, its charged atoms): PLIP's table (HIS always positive).
POCKET_CHARGES: dict[str, tuple[int, frozenset[str]]] = {
    "ARG": (1, frozenset({"NE", "NH1", "NH2"})), "LYS": (1, frozenset({"NZ"})),
    "HIS": (1, frozenset({"ND1", "NE2"})),
    "ASP": (-1, frozenset({"OD1", "OD2"})), "GLU": (-1, frozenset({"OE1", "OE2"})),
}
#: Elements the audit takes for metal ions (PLIP's METAL_IONS as elements).
METALS = frozenset({"Ca", "Co", "Mg", "Mn", "Fe", "Cu", "Zn", "Ni", "Na", "K", "Cd", "Hg", "Sr", "Ba", "Cs", "Li",
                    "Rb", "Ag", "Au", "Pb", "Pt", "Pd", "Ga", "In", "Tl", "Cr", "V", "Al", "Sb", "Bi", "Sn", "Ti"})
HALOGENS = frozenset({"F", "Cl", "Br", "I"})

SALT_MAX, STACK_MAX, STACK_OFFSET, CATPI_MAX, HAL_MAX, METAL_MAX, HYD_MAX = 5.5, 5.5, 2.0, 6.0, 4.0, 3.0, 4.0
#: Slack at the angle and offset thresholds for the audit's least-squares ring planes (deg, Å).
ANGLE_SLACK, OFFSET_SLACK = 2.0, 0.1
#: Recorded and re-measured distances must agree this closely (Å; records keep 3 decimals).
DIST_TOL = 0.02


def _el(a: Atoms, i: int) -> str:
    return str(a.element[i]).capitalize()


def _heavy_nb(a: Atoms, i: int) -> list[int]:
    return [int(n) for n in a.neighbours(i)]


def ring_angle(n1: np.ndarray, n2: np.ndarray) -> float:
    """Angle between two ring planes given their normals (deg, 0-90)."""
    cos = abs(float(np.dot(n1, n2)) / (np.linalg.norm(n1) * np.linalg.norm(n2)))
    return round(float(np.degrees(np.arccos(min(1.0, cos)))), 6)


def plane(xyz: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """(centroid, unit normal, largest distance of a point from the plane) of a least-squares plane."""
    c = xyz.mean(axis=0)
    _, _, vt = np.linalg.svd(xyz - c)
    n = vt[-1]
    return c, n, float(np.abs((xyz - c) @ n).max())


def _offset(c_ring: np.ndarray, n_ring: np.ndarray, p: np.ndarray) -> float:
    """Distance from the ring centroid of ``p`` projected onto the ring plane."""
    v = p - c_ring
    return float(np.linalg.norm(v - (v @ n_ring) * n_ring))


def _angle(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> float:
    """Angle a-b-c at b (deg)."""
    u, v = a - b, c - b
    cos = float(u @ v / (np.linalg.norm(u) * np.linalg.norm(v)))
    return float(np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))))


def ring_rows_of_residue(a: Atoms, res_rows: np.ndarray, res_name: str) -> list[list[int]]:
    """The rows of each aromatic ring of a residue (those whose template atoms are all present)."""
    out = []
    for names in RESIDUE_RINGS.get(res_name, ()):
        rows = [int(i) for i in res_rows if a.name[i] in names]
        if len(rows) == len(names):
            out.append(rows)
    return out


def ligand_rings(a: Atoms, planar: float = 0.1) -> list[list[int]]:
    """Every 5- or 6-membered cycle of the ligand's bond graph whose atoms lie within ``planar`` Å of
    their least-squares plane (the audit's ring perception: cycles by search, flatness by fit)."""
    lig = set(np.flatnonzero(a.is_ligand).tolist())
    nb = {i: [n for n in _heavy_nb(a, i) if n in lig] for i in lig}
    found: set[tuple[int, ...]] = set()
    for start in sorted(lig):
        stack = [(start, [start])]
        while stack:
            at, path = stack.pop()
            for n in nb[at]:
                if n == start and len(path) in (5, 6):
                    found.add(tuple(sorted(path)))
                elif n not in path and n > start and len(path) < 6:
                    stack.append((n, path + [n]))
    rings = []
    for ring in sorted(found):
        inner = [sum(1 for n in nb[i] if n in ring) for i in ring]
        if max(inner) > 2:  # a chord: the cycle holds a smaller ring
            continue
        if plane(a.xyz[list(ring)])[2] <= planar:
            rings.append(list(ring))
    return rings


def _is_ring(a: Atoms, rows: list[int]) -> bool:
    """Rows form a 5- or 6-membered cycle (each bonded to exactly two others of them)."""
    if len(rows) not in (5, 6):
        return False
    s = set(rows)
    return all(sum(1 for n in _heavy_nb(a, i) if n in s) == 2 for i in rows)


def _ligand_sign(a: Atoms, rows: list[int]) -> int:
    """The charge the audit reads off a ligand group: -1 (O of a C/P/S), +1 (N, S, a C with 3 N), 0."""
    els = {_el(a, i) for i in rows}
    if "O" in els or "P" in els:
        return -1
    if "N" in els or "S" in els:
        return 1
    if any(_el(a, i) == "C" and sum(_el(a, n) == "N" for n in _heavy_nb(a, i)) == 3 for i in rows):
        return 1
    return 0


def _charge_centre(a: Atoms, rows: list[int], ligand: bool) -> np.ndarray:
    """A charged group's centre: a guanidine's central C, else the centroid of the group's atoms."""
    if ligand:
        near = list(rows) + [n for i in rows for n in _heavy_nb(a, i)]  # a guanidine named by its N
        for i in near:
            if _el(a, i) == "C" and sum(_el(a, n) == "N" for n in _heavy_nb(a, i)) == 3 and (
                    i in rows or all(_el(a, r) == "N" and i in _heavy_nb(a, r) for r in rows)):
                return a.xyz[i]
        for i in rows:  # phosphate, sulfonate, sulfate: the central atom
            if _el(a, i) in ("P", "S") and sum(_el(a, n) == "O" for n in _heavy_nb(a, i)) >= 3:
                return a.xyz[i]
    return a.xyz[rows].mean(axis=0)


def _pocket_ring(a: Atoms, rows: list[int]) -> bool:
    names = frozenset(str(a.name[i]) for i in rows)
    res = {str(a.res_name[i]) for i in rows}
    return len(res) == 1 and names in RESIDUE_RINGS.get(res.pop(), ())


def _ring_geom(a: Atoms, rows: list[int]) -> tuple[np.ndarray, np.ndarray]:
    c, n, _ = plane(a.xyz[rows])
    return c, n


def _close(measured: float, recorded, what: str) -> str | None:
    if recorded is None:
        return None
    if abs(measured - float(recorded)) > DIST_TOL:
        return f"{what} measures {measured:.3f} Å, not the recorded {float(recorded):.3f} Å"
    return None


def _stack_problem(a: Atoms, p: list[int], l: list[int], rec: dict, wa: float = 0.0, wd: float = 0.0) -> list[str]:
    out = []
    if not _pocket_ring(a, p):
        out.append("its pocket atoms are not a PHE/TYR/HIS/TRP ring")
    if not _is_ring(a, l):
        out.append("its ligand atoms are not one 5- or 6-membered ring")
    if out:
        return out
    (c1, n1), (c2, n2) = _ring_geom(a, p), _ring_geom(a, l)
    d = float(np.linalg.norm(c1 - c2))
    ang = ring_angle(n1, n2)
    off = min(_offset(c1, n1, c2), _offset(c2, n2, c1))
    if d >= STACK_MAX + wa:
        out.append(f"ring centroids {d:.2f} Å apart (needs < {STACK_MAX + wa:g})")
    if 30 + ANGLE_SLACK + wd < ang < 60 - ANGLE_SLACK - wd:
        out.append(f"ring planes {ang:.0f}° apart (needs 0-{30 + wd:g}° or {60 - wd:g}-90°)")
    if off >= STACK_OFFSET + OFFSET_SLACK + wa:
        out.append(f"centroid offset {off:.2f} Å (needs < {STACK_OFFSET + wa:g})")
    why = _close(d, rec.get("distance"), "the centroid distance")
    return out + ([why] if why else [])


def stacks(a: Atoms, p: list[int], l: list[int], margin: float = 0.0) -> bool:
    """The audit's own stacking test of two rings (thresholds tightened by ``margin`` x the slacks)."""
    (c1, n1), (c2, n2) = _ring_geom(a, p), _ring_geom(a, l)
    d, ang = float(np.linalg.norm(c1 - c2)), ring_angle(n1, n2)
    off = min(_offset(c1, n1, c2), _offset(c2, n2, c1))
    s = ANGLE_SLACK * margin
    return (d < STACK_MAX - 0.5 * margin and (ang <= 30 - s or ang >= 60 + s)
            and off < STACK_OFFSET - 0.5 * margin)


def stack_measures(a: Atoms, p: list[int], l: list[int]) -> tuple[float, float, float]:
    """(centroid distance Å, plane angle deg, offset Å) of two rings."""
    (c1, n1), (c2, n2) = _ring_geom(a, p), _ring_geom(a, l)
    return (float(np.linalg.norm(c1 - c2)), ring_angle(n1, n2), min(_offset(c1, n1, c2), _offset(c2, n2, c1)))


def contact_problem(a: Atoms, kind: str, p: list[int], l: list[int], rec: dict,
                    widen: tuple[float, float] = (0.0, 0.0)) -> list[str]:
    """Why the recorded contact (pocket rows ``p``, ligand rows ``l``) is not a ``kind`` contact by
    the audit's geometry (empty: it holds).  ``widen`` (Å, degrees) raises every distance and offset
    limit and widens every angle window (an X2 near miss must hold with its item's margins; a
    negative ``widen`` tightens them)."""
    out: list[str] = []
    wa, wd = widen
    if kind == "hbond":
        from misi_tasks.audit.hbond_checks import bond_problem

        if len(p) != 1 or len(l) != 1:
            return ["an H-bond joins one pocket atom and one ligand atom"]
        why = bond_problem(a, p[0], l[0], rec.get("distance_ad"))
        return [why] if why else []
    if kind == "salt_bridge":
        res = str(a.res_name[p[0]])
        sign, names = POCKET_CHARGES.get(res, (0, frozenset()))
        if not sign or not {str(a.name[i]) for i in p} <= names:
            return [f"{res} {' '.join(str(a.name[i]) for i in p)} is not a charged side-chain group"]
        lsign = _ligand_sign(a, l)
        if lsign != -sign:
            return [f"ligand atoms {' '.join(str(a.name[i]) for i in l)} carry no charge opposite to {res}'s"]
        d = float(np.linalg.norm(_charge_centre(a, p, False) - _charge_centre(a, l, True)))
        if d >= SALT_MAX + wa:
            out.append(f"charge centres {d:.2f} Å apart (needs < {SALT_MAX + wa:g})")
        why = _close(d, rec.get("distance"), "the charge-centre distance")
        return out + ([why] if why else [])
    if kind == "pi_stacking":
        return _stack_problem(a, p, l, rec, wa, wd)
    if kind == "cation_pi":
        if _pocket_ring(a, p) and len(p) >= 5:
            ring, cat, lig_cat = p, l, True
        elif _is_ring(a, l):
            ring, cat, lig_cat = l, p, False
        else:
            return ["neither side is an aromatic ring"]
        if lig_cat and _ligand_sign(a, cat) != 1:
            return [f"ligand atoms {' '.join(str(a.name[i]) for i in cat)} are not a cation"]
        if not lig_cat:
            res = str(a.res_name[cat[0]])
            sign, names = POCKET_CHARGES.get(res, (0, frozenset()))
            if sign != 1 or not {str(a.name[i]) for i in cat} <= names:
                return [f"{res} {' '.join(str(a.name[i]) for i in cat)} is not a cationic group"]
        c, n = _ring_geom(a, ring)
        q = _charge_centre(a, cat, lig_cat)
        d, off = float(np.linalg.norm(q - c)), _offset(c, n, q)
        if d >= CATPI_MAX + wa:
            out.append(f"charge {d:.2f} Å from the ring centroid (needs < {CATPI_MAX + wa:g})")
        if off >= STACK_OFFSET + OFFSET_SLACK + wa:
            out.append(f"charge {off:.2f} Å off the ring's axis (needs < {STACK_OFFSET + wa:g})")
        why = _close(d, rec.get("distance"), "the charge-ring distance")
        return out + ([why] if why else [])
    if kind == "halogen_bond":
        if len(p) != 1 or len(l) != 1:
            return ["a halogen bond joins one acceptor and one halogen"]
        acc, x = p[0], l[0]
        if _el(a, x) not in HALOGENS or _el(a, acc) not in ("O", "N", "S"):
            return [f"{a.name[x]} is not a halogen or {a.name[acc]} not an O, N or S"]
        cs = [n for n in _heavy_nb(a, x) if _el(a, n) == "C"]
        ys = _heavy_nb(a, acc)
        if len(cs) != 1 or len(ys) != 1:
            return ["the halogen needs exactly one C and the acceptor exactly one heavy neighbour"]
        d = float(np.linalg.norm(a.xyz[acc] - a.xyz[x]))
        don, accang = _angle(a.xyz[cs[0]], a.xyz[x], a.xyz[acc]), _angle(a.xyz[ys[0]], a.xyz[acc], a.xyz[x])
        if d >= HAL_MAX + wa:
            out.append(f"X...A {d:.2f} Å (needs < {HAL_MAX + wa:g})")
        if don < 135 - wd:
            out.append(f"C-X...A {don:.0f}° (needs 165 ± {30 + wd:g}°)")
        if not 90 - wd <= accang <= 150 + wd:
            out.append(f"Y-A...X {accang:.0f}° (needs 120 ± {30 + wd:g}°)")
        why = _close(d, rec.get("distance"), "X...A")
        return out + ([why] if why else [])
    if kind == "metal":
        if len(p) != 1 or len(l) != 1:
            return ["a metal contact joins one ion and one ligand atom"]
        if _el(a, p[0]) not in METALS or _el(a, l[0]) not in ("O", "N", "S"):
            return [f"{a.name[p[0]]} is not a metal ion or {a.name[l[0]]} not an O, N or S"]
        d = float(np.linalg.norm(a.xyz[p[0]] - a.xyz[l[0]]))
        if d >= METAL_MAX + wa:
            out.append(f"ion {d:.2f} Å from the ligand atom (needs < {METAL_MAX + wa:g})")
        why = _close(d, rec.get("distance"), "the ion distance")
        return out + ([why] if why else [])
    if kind == "hydrophobic":
        if len(p) != 1 or len(l) != 1:
            return ["a hydrophobic contact joins two carbons"]
        for i in (p[0], l[0]):
            if _el(a, i) != "C" or any(_el(a, n) != "C" for n in _heavy_nb(a, i)):
                return [f"{a.name[i]} is not a carbon bonded only to carbon"]
        d = float(np.linalg.norm(a.xyz[p[0]] - a.xyz[l[0]]))
        if d >= HYD_MAX + wa:
            out.append(f"carbons {d:.2f} Å apart (needs < {HYD_MAX + wa:g})")
        why = _close(d, rec.get("distance"), "the C...C distance")
        return out + ([why] if why else [])
    return [f"unknown interaction type {kind!r}"]


def possible_for_residue(a: Atoms, rows: np.ndarray) -> set[str]:
    """The types a residue could make with some ligand, by the audit's rule table: H-bond and halogen
    bond (backbone N/O) always; salt bridge for a charged side chain; pi-stacking for a ring; cation-pi
    for a ring or a cation; hydrophobic for a carbon bonded only to carbon; metal never (the ion is
    the partner)."""
    res = str(a.res_name[rows[0]])
    out = {"hbond", "halogen_bond"}
    if res in POCKET_CHARGES:
        out.add("salt_bridge")
    if res in RESIDUE_RINGS:
        out |= {"pi_stacking", "cation_pi"}
    if POCKET_CHARGES.get(res, (0,))[0] == 1:
        out.add("cation_pi")
    if any(_el(a, i) == "C" and all(_el(a, n) == "C" for n in _heavy_nb(a, i)) for i in rows):
        out.add("hydrophobic")
    return out


def _ligand_obvious_charges(a: Atoms) -> list[tuple[int, list[int]]]:
    """Clearly charged ligand groups: carboxylate/phosphate/sulfonate O (-), quaternary N and acyclic
    guanidine (+), as (sign, rows)."""
    out = []
    for i in np.flatnonzero(a.is_ligand).tolist():
        e, nb = _el(a, i), _heavy_nb(a, i)
        if e in ("C", "P", "S"):
            term_o = [n for n in nb if _el(a, n) == "O" and len(_heavy_nb(a, n)) == 1]
            if len(term_o) >= 2:
                out.append((-1, term_o))
            n_nb = [n for n in nb if _el(a, n) == "N"]
            if e == "C" and len(n_nb) == 3 and sum(len(_heavy_nb(a, n)) == 1 for n in n_nb) >= 2:
                out.append((1, n_nb))
        elif e == "N" and len(nb) == 4:
            out.append((1, [i]))
    return out


def metal_target(a: Atoms, j: int) -> bool:
    """Ligand atom ``j`` is a metal target of the prompt's definition by the audit's reading: a terminal
    O of :func:`_o_target`, or an N bonded to two carbons."""
    nb = _heavy_nb(a, j)
    return (_el(a, j) == "O" and len(nb) == 1 and _o_target(a, j, nb[0])) or (
        _el(a, j) == "N" and len(nb) == 2 and all(_el(a, n) == "C" for n in nb))


def _o_target(a: Atoms, o: int, x: int) -> bool:
    """A terminal O the prompt's metal definition names: of a phosphate, of a carboxylate (a C with two
    terminal O), or singly bonded (alcohol, phenolate: bond > 1.33 Å); not a carbonyl O."""
    if _el(a, x) == "P":
        return True
    if _el(a, x) == "C" and sum(_el(a, n) == "O" and len(_heavy_nb(a, n)) == 1 for n in _heavy_nb(a, x)) >= 2:
        return True
    return float(np.linalg.norm(a.xyz[o] - a.xyz[x])) > 1.33


def obvious_contacts(a: Atoms, kind: str, pocket: np.ndarray | None = None) -> list[str]:
    """Clear ``kind`` contacts the audit finds (thresholds tightened; ``pocket``: only these rows), as
    text; empty for a type the audit has no absence test for (H-bonds, hydrophobic contacts)."""
    prow = np.flatnonzero(~a.is_ligand) if pocket is None else np.asarray(pocket)
    found = []
    if kind == "salt_bridge":
        groups = _ligand_obvious_charges(a)
        for i in prow.tolist():
            sign, names = POCKET_CHARGES.get(str(a.res_name[i]), (0, frozenset()))
            if not sign or str(a.name[i]) not in names:
                continue
            for s, rows in groups:
                if s == -sign:
                    d = float(np.linalg.norm(a.xyz[rows] - a.xyz[i], axis=1).min())
                    if d < 4.0:
                        found.append(f"{_who(a, i)} and ligand {'-'.join(str(a.name[r]) for r in rows)} "
                                     f"(opposite charges {d:.2f} Å apart)")
    elif kind in ("pi_stacking", "cation_pi"):
        lrings = ligand_rings(a)
        prings, cations = [], []
        for key in sorted({(str(a.res_name[i]), str(a.res_num[i]), str(a.chain[i])) for i in prow.tolist()}):
            rows = np.array([i for i in prow.tolist() if (str(a.res_name[i]), str(a.res_num[i]), str(a.chain[i])) == key])
            prings += ring_rows_of_residue(a, rows, key[0])
            if key[0] in ("LYS", "ARG"):
                cat = [int(i) for i in rows if a.name[i] in POCKET_CHARGES[key[0]][1]]
                if len(cat) == len(POCKET_CHARGES[key[0]][1]):
                    cations.append(cat)
        if kind == "pi_stacking":
            for p in prings:
                for l in lrings:
                    d, ang, off = stack_measures(a, p, l)
                    if d < 5.0 and (ang <= 25 or ang >= 65) and off < 1.5:
                        found.append(f"{_who(a, p[0])} ring and ligand ring "
                                     f"{'-'.join(str(a.name[r]) for r in l)} ({d:.2f} Å, {ang:.0f}°, offset {off:.2f} Å)")
        else:
            quats = [rows for s, rows in _ligand_obvious_charges(a) if s == 1 and len(rows) == 1]
            for ring_set, cat_set, lig_cat in ((lrings, cations, False), (prings, quats, True)):
                for ring in ring_set:
                    c, n = _ring_geom(a, ring)
                    for cat in cat_set:
                        q = a.xyz[cat].mean(axis=0)
                        d, off = float(np.linalg.norm(q - c)), _offset(c, n, q)
                        if d < 5.5 and off < 1.5:
                            found.append(f"ring of {_who(a, ring[0])} and cation of {_who(a, cat[0])} "
                                         f"({d:.2f} Å, offset {off:.2f} Å)")
    elif kind == "halogen_bond":
        for x, c, acc, y, d in _halogen_pairs(a, prow):
            if d < 3.7 and _angle(a.xyz[c], a.xyz[x], a.xyz[acc]) >= 140 and \
                    95 <= _angle(a.xyz[y], a.xyz[acc], a.xyz[x]) <= 145:
                found.append(f"{_who(a, acc)} and ligand {a.name[x]} ({d:.2f} Å)")
    elif kind == "metal":
        for m, j, d in _metal_pairs(a, prow):
            if metal_target(a, j) and d < 2.8:
                found.append(f"{_who(a, m)} and ligand {a.name[j]} ({d:.2f} Å)")
    return found


def _halogen_pairs(a: Atoms, prow: np.ndarray):
    """(ligand halogen, its one heavy neighbour, a C; pocket N/O/S acceptor with one heavy neighbour,
    that neighbour; distance Å) for every such pair: the candidates of both halogen tests."""
    for x in np.flatnonzero(a.is_ligand).tolist():
        cs = _heavy_nb(a, x)
        if _el(a, x) not in HALOGENS or len(cs) != 1 or _el(a, cs[0]) != "C":
            continue
        for acc in prow.tolist():
            ys = _heavy_nb(a, acc)
            if _el(a, acc) in ("O", "N", "S") and len(ys) == 1:
                yield x, cs[0], acc, ys[0], float(np.linalg.norm(a.xyz[acc] - a.xyz[x]))


def _metal_pairs(a: Atoms, prow: np.ndarray):
    """(pocket metal ion, ligand atom, distance Å) for every pair: the candidates of both metal tests."""
    for m in prow.tolist():
        if _el(a, m) in METALS:
            for j in np.flatnonzero(a.is_ligand).tolist():
                yield m, j, float(np.linalg.norm(a.xyz[m] - a.xyz[j]))


def _who(a: Atoms, i: int) -> str:
    if a.is_ligand[i]:
        return f"ligand atom {a.name[i]}"
    return f"{a.res_name[i]} {a.res_num[i]} {a.name[i]}"


def stack_window(margin_A: float = 0.0, margin_deg: float = 0.0) -> tuple[float, float, float, float]:
    """(centroid limit Å, parallel limit °, perpendicular limit °, offset limit Å) of the test that a
    ring pair must fail to be a fair decoy or ``No``: with no margin, the stacking limits plus the
    audit's slack (no pair stacks even by a slightly different plane fit); with recorded margins, the
    limits widened by the margins less the slack (the generator's planes differ from the audit's by
    up to the slack, so a pair just outside its margin is not held against it).

    >>> stack_window()
    (5.5, 32.0, 58.0, 2.1)
    >>> stack_window(0.5, 10.0)
    (5.98, 38.0, 52.0, 2.4)
    """
    ang = ANGLE_SLACK if margin_deg <= 0 else max(ANGLE_SLACK, margin_deg - ANGLE_SLACK)
    off = OFFSET_SLACK if margin_A <= 0 else max(OFFSET_SLACK, margin_A - OFFSET_SLACK)
    return (round(STACK_MAX + max(0.0, margin_A - DIST_TOL), 6), 30 + ang, 60 - ang, round(STACK_OFFSET + off, 6))


def _in_window(d: float, ang: float, off: float, window: tuple[float, float, float, float]) -> bool:
    return d < window[0] and (ang <= window[1] or ang >= window[2]) and off < window[3]


def _pocket_groups(a: Atoms, prow: np.ndarray) -> tuple[list[list[int]], list[tuple[int, list[int]]]]:
    """(aromatic rings, (sign, charged atoms) of whole side-chain groups) of the pocket rows."""
    rings, charges = [], []
    keys: dict[tuple[str, str, str], list[int]] = {}
    for i in prow.tolist():
        keys.setdefault((str(a.res_name[i]), str(a.res_num[i]), str(a.chain[i])), []).append(int(i))
    for key in sorted(keys):
        rows = np.array(keys[key])
        rings += ring_rows_of_residue(a, rows, key[0])
        sign, names = POCKET_CHARGES.get(key[0], (0, frozenset()))
        group = [int(i) for i in rows if a.name[i] in names]
        if sign and group:
            charges.append((sign, group))
    return rings, charges


def near_contacts(a: Atoms, kind: str, margin_A: float, margin_deg: float) -> list[str]:
    """Near misses of ``kind`` by the audit's geometry: pairs within every limit widened by the margins
    an X2 item records (less the audit's slack, :data:`DIST_TOL` for distances); metals: any ligand N,
    O or S.  Ligand charges are the audit's clear ones (carboxylate, phosphate/sulfonate O, quaternary
    N, guanidine), so a near miss of another charged group goes unseen."""
    prow = np.flatnonzero(~a.is_ligand)
    dm = max(0.0, margin_A - DIST_TOL)
    found: list[str] = []

    def lig_charges():
        return [(s, rows, _charge_centre(a, rows, True)) for s, rows in _ligand_obvious_charges(a)]

    if kind == "salt_bridge":
        _, charges = _pocket_groups(a, prow)
        for sign, group in charges:
            q = a.xyz[group].mean(axis=0)
            for s, rows, centre in lig_charges():
                d = float(np.linalg.norm(q - centre))
                if s == -sign and d < SALT_MAX + dm:
                    found.append(f"{_who(a, group[0])} and ligand {'-'.join(str(a.name[r]) for r in rows)} "
                                 f"(charge centres {d:.2f} Å)")
    elif kind == "pi_stacking":
        window = stack_window(margin_A, margin_deg)
        rings, _ = _pocket_groups(a, prow)
        for p in rings:
            for l in ligand_rings(a):
                d, ang, off = stack_measures(a, p, l)
                if _in_window(d, ang, off, window):
                    found.append(f"{_who(a, p[0])} ring and ligand ring {'-'.join(str(a.name[r]) for r in l)} "
                                 f"({d:.2f} Å, {ang:.0f}°, offset {off:.2f} Å)")
    elif kind == "cation_pi":
        off_lim = STACK_OFFSET + max(OFFSET_SLACK if margin_A <= 0 else 0.0, margin_A - OFFSET_SLACK)
        rings, charges = _pocket_groups(a, prow)
        pairs = [(l, a.xyz[g].mean(axis=0), g) for l in ligand_rings(a) for s, g in charges if s == 1]
        pairs += [(p, centre, rows) for p in rings for s, rows, centre in lig_charges() if s == 1]
        for ring, q, who in pairs:
            c, n = _ring_geom(a, ring)
            d, off = float(np.linalg.norm(q - c)), _offset(c, n, q)
            if d < CATPI_MAX + dm and off < off_lim:
                found.append(f"ring of {_who(a, ring[0])} and cation of {_who(a, who[0])} ({d:.2f} Å, offset {off:.2f} Å)")
    elif kind == "halogen_bond":
        dev = 30 + max(0.0, margin_deg - 0.1)  # the same atoms' angles: a hair of tolerance
        for x, c, acc, y, d in _halogen_pairs(a, prow):
            if d < HAL_MAX + dm and abs(_angle(a.xyz[c], a.xyz[x], a.xyz[acc]) - 165) < dev and \
                    abs(_angle(a.xyz[y], a.xyz[acc], a.xyz[x]) - 120) < dev:
                found.append(f"{_who(a, acc)} and ligand {a.name[x]} ({d:.2f} Å)")
    elif kind == "metal":
        for m, j, d in _metal_pairs(a, prow):
            if _el(a, j) in ("N", "O", "S") and d < METAL_MAX + dm:
                found.append(f"{_who(a, m)} and ligand {a.name[j]} ({d:.2f} Å)")
    return found
