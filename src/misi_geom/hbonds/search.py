"""Pocket–ligand hydrogen bonds, computed the way ChimeraX ``hbonds`` defines them.

MiSI-Bench's H-bond answers (tasks T4, T8, T9) are the bonds ChimeraX's ``hbonds`` reports between
pocket and ligand with relaxed criteria (+0.4 Å, −20°).  misi computes them itself:

1. :func:`~misi_geom.hbonds.donor_acceptor.assign_hbond_types` types donors and acceptors (residue templates
   for the pocket, chemistry for the ligand) and gives each its geometric class (Mills & Dean 1996);
2. a spatial pruning step (:func:`_candidate_pairs`, a KD-tree) keeps donor/acceptor pairs on
   opposite sides within the largest distance any class allows;
3. :func:`_evaluate` drops, in one vectorised pass, the pairs beyond their acceptor class's distance
   limit, measures the remaining (k, 3) donor/H/acceptor triplets (D..A, H..A, D-H..A), and
   applies the acceptor-side tests (:func:`~misi_geom.hbonds.criteria.acceptor_failures`), the
   donor-side tests of the survivors (:func:`~misi_geom.hbonds.criteria.donor_failures`) -- one
   vectorised pass per criterion family over its (k,) pairs -- and the metal rule, vectorised too
   (:func:`metal_blocked`).  Explicit hydrogens are
   used where present; otherwise H positions fixed by the heavy atoms are inferred, and where they
   are not fixed the tests that need them are skipped, as ChimeraX does.  An acceptor coordinating
   a metal (within 4 Å) cannot accept from a donor within 45° of the metal direction.

Results: :func:`find_hbonds` returns directed :class:`HBond` records; :func:`hbond_pairs` (list)
and :func:`bonded_pairs` (int array, shape (k, 2)) give each pocket–ligand atom pair once, ordered
by chain id, residue number, insertion code, pocket atom name, ligand atom name (plain string
order; the ChimeraX fixtures' order).  Task answers are formatted from those pairs in
:mod:`misi_tasks.tasks.hbond_answers`; this layer never formats them.

>>> import numpy as np
>>> from misi_geom.complex import Complex
>>> pocket = Complex.from_atoms([[0, 0, 0], [0.96, 0, 0], [-0.24, 0.93, 0]], ["O", "H", "H"],
...                             ["OG", "HG", "HB"], res_name="SER", res_id=7, chain_id="A",
...                             is_ligand=False, bonds=[(0, 1), (0, 2)])
>>> lig = Complex.from_atoms([[2.8, 0, 0], [3.3, 0.8, 0.3]], ["O", "C"], ["O1", "C1"], bonds=[(0, 1)],
...                          bond_order=[2])
>>> c = Complex.concatenate([pocket, lig])
>>> bonded_pairs(find_hbonds(c), c)
array([[0, 3]])
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Literal, Sequence

import numpy as np
from scipy.spatial import cKDTree

from misi_geom.hbonds.criteria import Context, acceptor_failures, donor_failures
from misi_geom.hbonds.geometry import SULFUR_COMP, angles_deg, triplet_distances_angles
from misi_geom.hbonds.limits import SynAnti
from misi_geom.complex import Complex
from misi_geom.elements import METALS
from misi_geom.hbonds.donor_acceptor import HBondTyping, assign_hbond_types

__all__ = ["HBond", "find_hbonds", "bonded_pairs", "hbond_pairs", "DIST_SLOP", "ANGLE_SLOP"]

#: Default relaxation of distance limits, Å (ChimeraX ``hbonds`` command default).
DIST_SLOP = 0.4
#: Default relaxation of angle limits, degrees.
ANGLE_SLOP = 20.0
#: Largest unrelaxed donor-acceptor distance any acceptor class allows, Å.
_MAX_DA = 3.83
#: Acceptors this close to a metal count as coordinated, Å; minimum donor-acceptor-metal angle.
_METAL_DIST, _METAL_ANGLE = 4.0, 45.0


@dataclass(frozen=True)
class HBond:
    """One directed H-bond.  Indices are rows of the complex it was found in.

    ``hydrogen`` is the donor's explicit H nearest the acceptor (None without explicit H);
    ``da_distance`` and ``ha_distance`` are in Å.
    """

    donor: int
    acceptor: int
    hydrogen: int | None
    donor_is_ligand: bool
    acceptor_is_ligand: bool
    da_distance: float
    ha_distance: float | None

    @property
    def pair(self) -> tuple[int, int]:
        """(pocket atom, ligand atom) for a pocket–ligand bond, else (donor, acceptor)."""
        if self.donor_is_ligand and not self.acceptor_is_ligand:
            return self.acceptor, self.donor
        return self.donor, self.acceptor


def find_hbonds(
    complex: Complex,
    *,
    relax: bool = True,
    dist_slop: float = DIST_SLOP,
    angle_slop: float = ANGLE_SLOP,
    between: Literal["pocket-ligand", "all"] = "pocket-ligand",
    metal_rule: bool = True,
    typing: HBondTyping | None = None,
) -> list[HBond]:
    """Hydrogen bonds of ``complex`` by ChimeraX's criteria (Mills & Dean 1996).

    Parameters
    ----------
    complex : Complex
        Pocket + ligand, hydrogens as given (they are used, never required).
    relax : bool
        Apply ``dist_slop`` (Å) and ``angle_slop`` (degrees) to every limit; False = precise.
    between : {"pocket-ligand", "all"}
        Only pocket–ligand pairs (default), or every donor/acceptor pair not bonded together.
    metal_rule : bool
        Reject an acceptor coordinating a metal of its own side when the donor lies within 45° of
        the metal direction.
    typing : HBondTyping, optional
        Precomputed :func:`~misi_geom.hbonds.donor_acceptor.assign_hbond_types` of ``complex``.

    Returns
    -------
    list of HBond
        Sorted by (donor, acceptor).  A pair may appear in both directions.
    """
    if not isinstance(complex, Complex):
        raise TypeError(f"find_hbonds needs a Complex, got {type(complex).__name__}")
    if between not in ("pocket-ligand", "all"):
        raise ValueError(f"between must be 'pocket-ligand' or 'all', not {between!r}")
    if len(complex) == 0:
        return []
    if not complex.is_hydrogen.any():
        warnings.warn("complex has no hydrogens: H positions are inferred where the heavy atoms fix them, "
                      "and results differ from the protonated structure", UserWarning, stacklevel=2)
    ds, da = (float(dist_slop), float(angle_slop)) if relax else (0.0, 0.0)
    cutoff = _MAX_DA + ds + SULFUR_COMP
    if typing is not None or between == "all":
        typing = typing or assign_hbond_types(complex)
        return _evaluate(complex, typing, _candidate_pairs(complex, typing, cutoff, between), ds, da, metal_rule)
    keep = _interface_atoms(complex, cutoff)
    sub = complex[keep]
    sub_typing = assign_hbond_types(sub, atoms=_near_other_side(sub, cutoff))
    found = _evaluate(sub, sub_typing, _candidate_pairs(sub, sub_typing, cutoff, between), ds, da, metal_rule)
    return [replace(b, donor=int(keep[b.donor]), acceptor=int(keep[b.acceptor]),
                    hydrogen=None if b.hydrogen is None else int(keep[b.hydrogen])) for b in found]


def _near_other_side(c: Complex, cutoff: float) -> np.ndarray:
    """Heavy atoms within ``cutoff`` Å of a heavy atom on the other side (pocket vs ligand)."""
    heavy = ~c.is_hydrogen
    out = np.zeros(len(c), dtype=bool)
    for side in (c.is_ligand, ~c.is_ligand):
        mine, other = np.flatnonzero(side & heavy), np.flatnonzero(~side & heavy)
        if len(mine) and len(other):
            hits = cKDTree(c.coord[other]).query_ball_point(c.coord[mine], cutoff, return_length=True)
            out[mine[hits > 0]] = True
    return out


def _interface_atoms(c: Complex, cutoff: float) -> np.ndarray:
    """Rows worth typing for pocket-ligand bonds (sorted): the ligand, metals, and every pocket
    residue with an atom within ``cutoff`` + 0.5 Å of the ligand, plus the residues bonded to those
    and the residue before each in file order (chain-start and backbone-amide typing look one
    residue back)."""
    lig = c.is_ligand
    if lig.all() or not lig.any():
        return np.arange(len(c))
    near = np.zeros(len(c), dtype=bool)
    hits = cKDTree(c.coord[lig]).query_ball_point(c.coord[~lig], cutoff + 0.5, return_length=True)
    near[np.flatnonzero(~lig)[hits > 0]] = True
    res = set(c.res_index[near].tolist())
    b = c.bonds
    cross = c.res_index[b[:, 0]] != c.res_index[b[:, 1]]
    for i, j in c.res_index[b[cross]].tolist():
        if i in res or j in res:
            res.update((i, j))
    res.update([r - 1 for r in res])  # the residue before tells whether an N starts a fragment
    keep = lig | np.isin(c.res_index, list(res)) | metal_mask(c)
    return np.flatnonzero(keep)


def _candidate_pairs(c: Complex, typing: HBondTyping, cutoff: float, between: str) -> np.ndarray:
    """Donor/acceptor index pairs (k, 2) within ``cutoff`` Å, on opposite sides if pocket-ligand."""
    don = np.array(sorted(typing.donor), dtype=np.int64)
    acc = np.array(sorted(typing.acceptor), dtype=np.int64)
    if len(don) == 0 or len(acc) == 0:
        return np.zeros((0, 2), dtype=np.int64)
    found = cKDTree(c.coord[acc]).query_ball_point(c.coord[don], cutoff)
    rows = [(d, acc[j]) for d, js in zip(don.tolist(), found) for j in js]
    out = np.array(rows, dtype=np.int64).reshape(-1, 2)
    out = out[out[:, 0] != out[:, 1]]
    if between == "pocket-ligand":
        out = out[c.is_ligand[out[:, 0]] != c.is_ligand[out[:, 1]]]
    else:
        bonded = {tuple(b) for b in c.bonds.tolist()} | {tuple(b[::-1]) for b in c.bonds.tolist()}
        out = out[[tuple(p) not in bonded for p in out.tolist()]] if len(out) else out
    return out[np.lexsort((out[:, 1], out[:, 0]))]


def _nearest_h(ctx: Context, pairs: np.ndarray) -> np.ndarray:
    """Each donor's explicit H nearest its acceptor (-1 if none): the middle column of the triplets.
    Ties go to the H listed first among the donor's neighbours."""
    nbr = ctx.nbr[pairs[:, 0]]
    is_h = (nbr >= 0) & ctx.is_h[np.maximum(nbr, 0)]
    dist = np.linalg.norm(ctx.coord[np.maximum(nbr, 0)] - ctx.coord[pairs[:, 1]][:, None, :], axis=2)
    first = np.argmin(np.where(is_h, dist, np.inf), axis=1)
    return np.where(is_h.any(axis=1), nbr[np.arange(len(nbr)), first], -1)


def _evaluate(c: Complex, typing: HBondTyping, pairs: np.ndarray, ds: float, da: float,
              metal_rule: bool) -> list[HBond]:
    if len(pairs) == 0:
        return []
    # vectorised first stage: each acceptor class's D..A limit (+ sulfur allowance for S donors)
    acc_rows, where = np.unique(pairs[:, 1], return_inverse=True)
    limit = np.array([acceptor_reach(typing.acceptor[a], ds) for a in acc_rows.tolist()])[where]
    limit += np.where(c.element[pairs[:, 0]] == "S", SULFUR_COMP, 0.0)
    pairs = pairs[np.linalg.norm(c.coord[pairs[:, 0]] - c.coord[pairs[:, 1]], axis=1) <= limit]
    if len(pairs) == 0:
        return []
    ctx = Context(c, typing)
    triplets = np.column_stack([pairs[:, 0], _nearest_h(ctx, pairs), pairs[:, 1]])
    d_da, d_ha, _theta = triplet_distances_angles(c.coord, triplets)
    donors, acceptors = triplets[:, 0], triplets[:, 2]
    ok = acceptor_failures(ctx, donors, acceptors, ds, da) == 0
    rows = np.flatnonzero(ok)
    ok[rows] = donor_failures(ctx, donors[rows], acceptors[rows], ds, da) == 0
    if metal_rule:
        rows = np.flatnonzero(ok)
        ok[rows] &= ~metal_blocked(c, donors[rows], acceptors[rows])
    return [HBond(int(d), int(a), None if h < 0 else int(h), bool(c.is_ligand[d]), bool(c.is_ligand[a]),
                  float(d_da[k]), None if h < 0 else float(d_ha[k]))
            for k, (d, h, a) in enumerate(triplets.tolist()) if ok[k]]


@lru_cache(maxsize=512)
def acceptor_reach(acc, ds: float) -> float:
    """Largest donor-acceptor distance (Å) the acceptor class ``acc`` allows, relaxed by ``ds``."""
    p = acc.limits
    return max(p.syn_dist, p.anti_dist) + ds if isinstance(p, SynAnti) else p.dist + ds


def metal_mask(c: Complex) -> np.ndarray:
    """Metal atoms of ``c`` (shape (N,), bool)."""
    return np.fromiter((e in METALS for e in c.element.tolist()), dtype=bool, count=len(c))


def metal_blocked(c: Complex, donors: np.ndarray, acceptors: np.ndarray) -> np.ndarray:
    """The metal rule over (k,) donor/acceptor rows: True where a metal of the acceptor's side lies
    within 4 Å of the acceptor and the donor within 45° of its direction (shape (k,), bool)."""
    if len(donors) == 0:
        return np.zeros(0, dtype=bool)
    metals = np.flatnonzero(metal_mask(c))
    if len(metals) == 0:
        return np.zeros(len(donors), dtype=bool)
    mp, ap = c.coord[metals][None, :, :], c.coord[acceptors][:, None, :]
    near = (c.is_ligand[metals][None, :] == c.is_ligand[acceptors][:, None]) & \
        (np.linalg.norm(mp - ap, axis=2) <= _METAL_DIST)
    return np.any(near & (angles_deg(c.coord[donors][:, None, :], ap, mp) < _METAL_ANGLE), axis=1)


# --- results -------------------------------------------------------------------------------------
def hbond_pairs(bonds: Sequence[HBond], c: Complex) -> list[tuple[int, int]]:
    """Unique (pocket atom, ligand atom) pairs of the pocket–ligand bonds, in answer order.

    Order: chain id, residue number, insertion code, pocket atom name, ligand atom name.
    """
    pairs = {b.pair for b in bonds if b.donor_is_ligand != b.acceptor_is_ligand}

    def key(p):
        i, j = p
        return (str(c.chain_id[i]), int(c.res_id[i]), str(c.ins_code[i]), str(c.atom_name[i]),
                str(c.atom_name[j]), i, j)

    return sorted(pairs, key=key)


def bonded_pairs(bonds: Sequence[HBond], c: Complex) -> np.ndarray:
    """The pairs of :func:`hbond_pairs` as an array.

    Returns
    -------
    pairs : ndarray, dtype=int64, shape=(k, 2)
        (pocket atom row, ligand atom row) of ``c``, in answer order.
    """
    return np.array(hbond_pairs(bonds, c), dtype=np.int64).reshape(-1, 2)
