"""Acceptor-side and donor-side H-bond tests for one donor/acceptor pair (private).

Each test reads positions from ``coord`` and the typing (:class:`misi_geom.hbonds.typing.HBondTyping`)
and applies one criterion family of Mills & Dean (1996): syn/anti, phi/psi, theta/tau and generic
acceptors; upsilon/tau, theta/tau, generic and water donors.  Limits arrive as relaxed records
(:func:`misi_geom.hbonds.limits.relaxed`: distances squared).  A pair whose geometry cannot be evaluated
(unexpected connectivity) fails.
"""

from __future__ import annotations

import numpy as np

from misi_geom.hbonds.geometry import (
    angle_deg,
    angles_deg,
    bond_positions,
    phi_plane,
    sulfur_r2,
    test_phi,
    test_tau,
    test_theta,
)
from misi_geom.hbonds._idatm import PLANAR, TETRAHEDRAL, TYPE_INFO
from misi_geom.hbonds.limits import (
    GENERIC_TARGETS,
    GenericAcceptor,
    GenericDonor,
    PhiPsi,
    SynAnti,
    ThetaTau,
    ThetaTauDonor,
    UpsilonTauDonor,
    relaxed,
)

__all__ = ["Context", "acceptor_mask", "acceptor_ok", "donor_ok", "generic_acceptor_mask", "generic_donor_limits"]

def generic_donor_limits(ds: float, da: float) -> tuple:
    """Relaxed :data:`~misi_geom.hbonds.limits.GENERIC_TARGETS` (see :func:`donor_ok`)."""
    return tuple(relaxed(t, ds, da) for t in GENERIC_TARGETS)


_BOND_RADIUS = {"H": 0.23, "C": 0.68, "N": 0.68, "O": 0.68, "S": 1.02, "P": 1.05}


class Context:
    """Coordinates + typing, with cached hydrogen positions."""

    def __init__(self, coord: np.ndarray, typing, element: np.ndarray, is_h: np.ndarray) -> None:
        self.coord, self.typing, self.element, self.is_h = coord, typing, element, is_h
        self.nbrs = typing.graph.nbrs
        self.idatm = typing.idatm.tolist()
        self._geom = [TYPE_INFO[t][0] if t in TYPE_INFO else None for t in self.idatm]
        self._hyd: dict[tuple[int, bool], list] = {}

    def geom(self, i: int):
        return self._geom[i]

    def heavy(self, i: int) -> list[int]:
        return [j for j in self.nbrs[i] if not self.is_h[j]]

    def hyd_positions(self, i: int, lone_pairs: bool = False) -> list:
        """Explicit H positions of atom i, else those fixed by its heavy neighbours (if any)."""
        key = (i, lone_pairs)
        if key not in self._hyd:
            self._hyd[key] = self._hyd_positions(i, lone_pairs)
        return self._hyd[key]

    def _hyd_positions(self, i: int, lone_pairs: bool) -> list:
        heavy = [j for j in self.nbrs[i] if not self.is_h[j]]
        hyds = [self.coord[j] for j in self.nbrs[i] if self.is_h[j]]
        if hyds and not lone_pairs:
            return hyds
        info = TYPE_INFO.get(str(self.idatm[i]))
        if info is None:
            return hyds
        geom, subs = info
        if lone_pairs:
            subs = geom
        known = hyds + [self.coord[j] for j in heavy]
        if len(known) >= subs or not known:
            return hyds
        if len(known) == 1 and geom == TETRAHEDRAL:
            return hyds
        if geom - subs > 0:
            return hyds
        length = _BOND_RADIUS.get(str(self.element[i]), 0.68) + 0.23
        coplanar = None
        if geom == PLANAR:
            coplanar = [self.coord[k] for j in heavy if self.geom(j) == PLANAR for k in self.nbrs[j] if k != i]
        try:
            return hyds + bond_positions(self.coord[i], geom, length, known, coplanar=coplanar or None)
        except ValueError:
            return hyds


def _no(why: list | None, test: str) -> bool:
    """Record the name of a failed test in ``why`` (when given) and return False."""
    if why is not None:
        why.append(test)
    return False


def _check(why: list | None, test: str, ok: bool) -> bool:
    return True if ok else _no(why, test)


# --- acceptor side -------------------------------------------------------------------------------
def acceptor_ok(ctx: Context, d: int, hyds: list, a: int, acc, p, why: list | None = None) -> bool:
    """Acceptor-side criteria of class ``acc`` (its relaxed limits record ``p``) for donor ``d``.

    ``why``, if given, receives the name of the failing test (e.g. ``"D..A distance"``, ``"phi"``).
    """
    dp, ap = ctx.coord[d], ctx.coord[a]
    s_donor = ctx.element[d] == "S"
    d2 = float((dp - ap) @ (dp - ap))
    if isinstance(p, SynAnti):
        syn, plane_atom = acc.partners
        sp, pp = ctx.coord[syn], ctx.coord[plane_atom]
        z = pp - ap
        y = (sp - pp) - ((sp - pp) @ z) / (z @ z) * z
        is_syn = (dp - ap) @ y > 0.0
        r2, phi, theta = (p.syn_dist, p.syn_phi, p.syn_theta) if is_syn else \
            (p.anti_dist, p.anti_phi, p.anti_theta)
        if s_donor:
            r2 = sulfur_r2(r2)
        if d2 > r2:
            return _no(why, "D..A distance")
        if not test_phi(dp, ap, pp, [ap, pp, sp], phi):
            return _no(why, "phi")
        return _check(why, "theta (D-H..A)", test_theta(dp, hyds, ap, theta))
    if isinstance(p, PhiPsi):
        b1, b2 = acc.partners
        r2, phi, theta = p.dist, p.phi, p.theta
        if b1 is None:
            nb = ctx.nbrs[a]
            b1 = nb[0] if nb else None
            b2 = nb[1] if len(nb) > 1 else None
        if s_donor:
            r2 = sulfur_r2(r2)
        if d2 > r2:
            return _no(why, "D..A distance")
        grand = [ctx.coord[k] for k in ctx.nbrs[b1] if k != a] if b1 is not None and b2 is None else []
        try:
            plane, base = phi_plane(ap, None if b1 is None else ctx.coord[b1],
                                    None if b2 is None else ctx.coord[b2], grand)
        except ValueError:
            return _no(why, "phi (unexpected connectivity)")
        if base is not None and not test_phi(dp, ap, base, plane, phi):
            return _no(why, "phi")
        return _check(why, "theta (D-H..A)", test_theta(dp, hyds, ap, theta))
    if isinstance(p, ThetaTau):
        (partner,) = acc.partners or (None,)
        r2, ups_low, ups_high, theta = p.dist, p.upsilon_low, p.upsilon_high, p.theta
        if s_donor:
            r2 = sulfur_r2(r2)
        if d2 > r2:
            return _no(why, "D..A distance")
        tau, tau_sym = acc.tau if acc.tau else (None, None)
        if partner is not None:
            ups = [ctx.coord[partner]]
        else:
            lps = bond_positions(ap, TETRAHEDRAL, 1.0, [ctx.coord[k] for k in ctx.nbrs[a]])
            ups = [ap - (lp - ap) for lp in lps]
        for up in ups:
            u = angle_deg(up, ap, dp)
            if ups_low <= u <= -ups_high and test_theta(dp, hyds, ap, theta) and \
                    _tau(ctx, tau, tau_sym, a, ap, dp):
                return True
        return _no(why, "upsilon, theta and tau (no direction passes all)")
    assert isinstance(p, GenericAcceptor), p
    if not generic_acceptor_mask(ctx, np.array([d]), np.array([a]), [p])[0]:
        return _no(why, "D..A distance" if d2 > (sulfur_r2(p.dist) if s_donor else p.dist)
                   else "bonded-A..D angle")
    return True


def acceptor_mask(ctx: Context, donors: np.ndarray, acceptors: np.ndarray, classes: list,
                  limits: list) -> np.ndarray:
    """Acceptor-side tests for (k,) donor/acceptor rows, one call per criterion family.

    ``classes`` and ``limits`` are the k acceptor classes and their relaxed limit records.  The
    generic family is tested in one vectorised pass (:func:`generic_acceptor_mask`); the families
    whose geometry depends on each acceptor's own partners (syn/anti, phi/psi, theta/tau) pair by pair.

    Returns
    -------
    ok : ndarray, dtype=bool, shape=(k,)
    """
    ok = np.zeros(len(donors), dtype=bool)
    generic = np.array([isinstance(p, GenericAcceptor) for p in limits], dtype=bool)
    rows = np.flatnonzero(generic)
    if len(rows):
        ok[rows] = generic_acceptor_mask(ctx, donors[rows], acceptors[rows], [limits[i] for i in rows.tolist()])
    for i in np.flatnonzero(~generic).tolist():
        d = int(donors[i])
        ok[i] = acceptor_ok(ctx, d, ctx.hyd_positions(d), int(acceptors[i]), classes[i], limits[i])
    return ok


def generic_acceptor_mask(ctx: Context, donors: np.ndarray, acceptors: np.ndarray, limits: list) -> np.ndarray:
    """Acceptor-side test of the generic family for (k,) donor/acceptor rows at once.

    ``limits`` are the k relaxed :class:`~misi_geom.hbonds.limits.GenericAcceptor` records.  A pair
    passes when D..A is within ``dist`` (widened for a sulfur donor) and every atom bonded to the
    acceptor makes an angle (bonded)-A..D of at least ``min_angle``.

    Returns
    -------
    ok : ndarray, dtype=bool, shape=(k,)
    """
    k = len(donors)
    if k == 0:
        return np.zeros(0, dtype=bool)
    dp, ap = ctx.coord[donors], ctx.coord[acceptors]
    r2 = np.array([p.dist for p in limits], dtype=np.float64)
    min_angle = np.array([p.min_angle for p in limits], dtype=np.float64)
    r2 = np.where(ctx.element[donors] == "S", sulfur_r2(r2), r2)
    diff = dp - ap
    ok = np.einsum("ij,ij->i", diff, diff) <= r2
    width = max(len(ctx.nbrs[a]) for a in acceptors.tolist())
    if width == 0:
        return ok
    nbr = np.full((k, width), -1, dtype=np.int64)
    for row, a in enumerate(acceptors.tolist()):
        nbr[row, :len(ctx.nbrs[a])] = ctx.nbrs[a]
    ang = angles_deg(ctx.coord[np.maximum(nbr, 0)], ap[:, None, :], dp[:, None, :])
    return ok & np.all((nbr < 0) | (ang >= min_angle[:, None]), axis=1)


def _tau(ctx: Context, tau, tau_sym, atom: int, pos, other) -> bool:
    if tau is None:
        return True
    bonded = list(ctx.hyd_positions(atom)) if tau_sym == 4 else []
    heavy = ctx.heavy(atom)
    if not heavy:
        return True
    if 2 * len(bonded) != tau_sym:
        bonded = list(ctx.hyd_positions(heavy[0], lone_pairs=True))
        bonded += [ctx.coord[b] for b in ctx.nbrs[heavy[0]] if b != atom and not ctx.is_h[b]]
        if not bonded:
            return True
    if 2 * len(bonded) != tau_sym:
        return False
    return test_tau(tau, tau_sym, ctx.coord[heavy[0]], pos, other, bonded)


# --- donor side ----------------------------------------------------------------------------------
def _acceptor_family(ctx: Context, a: int) -> str | None:
    geom = ctx.geom(a)
    if geom is None:
        return None
    el = ctx.element[a]
    if el == "O" and geom == PLANAR:
        return "sp2O"
    if (el == "O" and geom == TETRAHEDRAL) or (el == "N" and geom == PLANAR):
        return "sp3O"
    if el == "N" and geom == TETRAHEDRAL:
        return "sp3N"
    return "gen"


def _lone_pair_dirs(ctx: Context, a: int) -> list:
    ap = ctx.coord[a]
    lps = bond_positions(ap, TETRAHEDRAL, 1.0, [ctx.coord[k] for k in ctx.nbrs[a]])
    return [ap - (lp - ap) for lp in lps]


def donor_ok(ctx: Context, d: int, hyds: list, a: int, don, p, gen: tuple, why: list | None = None) -> bool:
    """Donor-side criteria of class ``don`` (its relaxed limits record ``p``; ``gen``: the relaxed
    limits against an acceptor of no family, :func:`generic_donor_limits`).  ``why``, if given,
    receives the name of the failing test."""
    fam = _acceptor_family(ctx, a)
    if fam is None:
        return _no(why, "acceptor geometry unknown")
    dp, ap = ctx.coord[d], ctx.coord[a]
    gen_generic, gen_theta_tau, gen_upsilon_tau = gen
    if isinstance(p, GenericDonor):
        return _donor_generic(ctx, d, hyds, a, fam, p, gen_generic, why)
    if isinstance(p, ThetaTauDonor):
        if not hyds:
            return _no(why, "no hydrogen position")
        if fam == "sp2O":
            rp2, theta = p.sp2o_h_dist, p.sp2o_theta
        elif fam == "sp3O":
            rp2, theta = p.sp3o_h_dist, p.sp3o_theta
            if len(ctx.nbrs[a]) == 2:
                b = ctx.nbrs[a]
                plane, base = phi_plane(ap, ctx.coord[b[0]], ctx.coord[b[1]], [])
                if not any(float((h - ap) @ (h - ap)) <= rp2 for h in hyds):
                    return _no(why, "H..A distance")
                if not test_phi(dp, ap, base, plane, p.sp3o_phi):
                    return _no(why, "phi")
        elif fam == "sp3N":
            rp2, theta = p.sp3n_h_dist, p.sp3n_theta
            dirs = _lone_pair_dirs(ctx, a)
            if dirs and not any(angle_deg(dp, ap, u) > p.sp3n_lone_pair_angle for u in dirs):
                return _no(why, "lone pair-A..D angle")
        else:
            rp2, theta = gen_theta_tau.h_dist, gen_theta_tau.theta
            if ctx.element[a] == "S":
                rp2 = sulfur_r2(rp2)
        if not any(float((h - ap) @ (h - ap)) <= rp2 for h in hyds):
            return _no(why, "H..A distance")
        return _check(why, "theta (D-H..A)", test_theta(dp, hyds, ap, theta))
    assert isinstance(p, UpsilonTauDonor), p
    if fam == "sp2O":
        r2, lo, hi, theta, tau = p.sp2o_dist, p.sp2o_upsilon_low, p.sp2o_upsilon_high, p.sp2o_theta, p.sp2o_tau
    elif fam == "sp3O":
        r2, lo, hi, theta, tau = p.sp3o_dist, p.sp3o_upsilon_low, p.sp3o_upsilon_high, p.sp3o_theta, p.sp3o_tau
    elif fam == "sp3N":
        r2, lo, hi, theta, tau = p.sp3n_dist, p.sp3n_upsilon_low, p.sp3n_upsilon_high, p.sp3n_theta, p.sp3n_tau
        if len(ctx.nbrs[a]) > 1:
            dirs = _lone_pair_dirs(ctx, a)
            if not any(angle_deg(u, ap, dp) >= p.sp3n_lone_pair_angle for u in dirs):
                return _no(why, "lone pair-A..D angle")
    else:
        g = gen_upsilon_tau
        r2, lo, hi, theta = g.dist, g.upsilon_low, g.upsilon_high, g.theta
        tau = None
        if ctx.element[a] == "S":
            r2 = sulfur_r2(r2)
    if float((dp - ap) @ (dp - ap)) > r2:
        return _no(why, "D..A distance")
    heavy = ctx.heavy(d)
    if len(heavy) != 1:
        return _no(why, "upsilon (donor needs one heavy neighbour)")
    ups = angle_deg(ctx.coord[heavy[0]], dp, ap)
    if ups < lo or ups > -hi:
        return _no(why, "upsilon")
    if not test_theta(dp, hyds, ap, theta):
        return _no(why, "theta (D-H..A)")
    return _check(why, "tau", _tau(ctx, tau, don.tau_sym, d, dp, ap))


def _donor_generic(ctx: Context, d: int, hyds: list, a: int, fam: str, p: GenericDonor, gp,
                   why: list | None) -> bool:
    min_hyd_angle, min_bonded = gp.min_hyd_angle, gp.min_bonded_angle
    r2, rp2 = {"sp2O": (p.sp2o_dist, p.sp2o_h_dist), "sp3O": (p.sp3o_dist, p.sp3o_h_dist),
               "sp3N": (p.sp3n_dist, p.sp3n_h_dist)}.get(fam, (gp.dist, gp.h_dist))
    if fam == "gen" and ctx.element[a] == "S":
        min_bonded = min_bonded - 9
    dp, ap = ctx.coord[d], ctx.coord[a]
    if not hyds:
        if float((dp - ap) @ (dp - ap)) > r2:
            return _no(why, "D..A distance")
    elif not any(float((h - ap) @ (h - ap)) < rp2 for h in hyds):
        return _no(why, "H..A distance")
    for b in ctx.heavy(d):
        if angle_deg(ctx.coord[b], dp, ap) < min_bonded:
            return _no(why, "bonded-D..A angle")
    if not hyds:
        return True
    return _check(why, "theta (D-H..A)", any(angle_deg(dp, h, ap) >= min_hyd_angle for h in hyds))
