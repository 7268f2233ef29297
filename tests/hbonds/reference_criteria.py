"""Per-pair reference of the H-bond criteria: the loop the vectorised tests are checked against.

This is the detector's former production code (one donor/acceptor pair at a time, plain Python
and scalar numpy), kept here only as an independent reference for
:func:`misi_geom.hbonds.criteria.acceptor_failures` and
:func:`misi_geom.hbonds.criteria.donor_failures`.  It reads hydrogen positions from the production
:class:`~misi_geom.hbonds.criteria.Context` (per atom, not per pair) and the limits from
:func:`~misi_geom.hbonds.limits.relaxed`.  ``why`` receives the name of the first failing test.
"""

from __future__ import annotations

import numpy as np

from misi_geom.hbonds._idatm import PLANAR, TETRAHEDRAL, TYPE_INFO
from misi_geom.hbonds.geometry import bond_positions, sulfur_r2
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

__all__ = ["acceptor_ok", "angle_deg", "donor_ok", "generic_donor_limits"]


def generic_donor_limits(ds: float, da: float) -> tuple:
    return tuple(relaxed(t, ds, da) for t in GENERIC_TARGETS)


# --- scalar geometry -------------------------------------------------------------------------
def angle_deg(a, b, c) -> float:
    """Angle a-b-c in degrees."""
    u, v = a - b, c - b
    nu, nv = np.linalg.norm(u), np.linalg.norm(v)
    if nu == 0 or nv == 0:
        return 0.0
    return float(np.degrees(np.arccos(np.clip(u @ v / (nu * nv), -1.0, 1.0))))


def _unit(v):
    n = np.linalg.norm(v)
    return v / n if n > 0 else v


def phi_plane(ap, b1, b2, grand: list):
    if b2 is not None:
        return [ap, b1, b2], (b1 + b2) / 2.0
    if b1 is not None:
        if len(grand) == 1:
            return [ap, b1, grand[0]], b1
        if len(grand) == 2:
            return [ap, grand[0], grand[1]], b1
        if len(grand) == 0:
            return None, b1
        raise ValueError("wrong number of grand-neighbours for a phi/psi acceptor")
    return None, None


def test_phi(dp, ap, bp, plane, phi: float) -> bool:
    if plane is None:
        return True
    normal = _unit(np.cross(plane[1] - plane[0], plane[2] - plane[1]))
    off = normal @ plane[1]

    def proj(p):
        return p - normal * (normal @ p - off)

    return angle_deg(proj(bp), proj(ap), proj(dp)) >= phi


def test_theta(dp, hyds, ap, theta: float) -> bool:
    if len(hyds) == 0:
        return True
    return any(angle_deg(ap, h, dp) >= theta for h in hyds)


def test_tau(tau, tau_sym, normal_from, dap, op, bonded_pos) -> bool:
    if tau is None or not bonded_pos:
        return True
    normal = _unit(normal_from - dap)

    def proj(p):
        return p - normal * (normal @ p)

    po, pd = proj(op), proj(dap)
    angs = [angle_deg(po, pd, proj(b)) for b in bonded_pos]
    if tau < 0.0:
        return any(a <= -tau for a in angs)
    return all(a >= tau for a in angs)


# --- helpers over the context -----------------------------------------------------------------
def _geom(ctx, i: int):
    t = str(ctx.typing.idatm[i])
    return TYPE_INFO[t][0] if t in TYPE_INFO else None


def _heavy(ctx, i: int) -> list[int]:
    return [j for j in ctx.nbrs[i] if not ctx.is_h[j]]


def _no(why, test):
    if why is not None:
        why.append(test)
    return False


def _check(why, test, ok):
    return True if ok else _no(why, test)


# --- acceptor side -----------------------------------------------------------------------------
def acceptor_ok(ctx, d: int, hyds: list, a: int, acc, p, why: list | None = None) -> bool:
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
    r2 = sulfur_r2(p.dist) if s_donor else p.dist
    if d2 > r2:
        return _no(why, "D..A distance")
    for b in ctx.nbrs[a]:
        if angle_deg(ctx.coord[b], ap, dp) < p.min_angle:
            return _no(why, "bonded-A..D angle")
    return True


def _tau(ctx, tau, tau_sym, atom: int, pos, other) -> bool:
    if tau is None:
        return True
    bonded = list(ctx.hyd_positions(atom)) if tau_sym == 4 else []
    heavy = _heavy(ctx, atom)
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


# --- donor side --------------------------------------------------------------------------------
def _acceptor_family(ctx, a: int) -> str | None:
    geom = _geom(ctx, a)
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


def _lone_pair_dirs(ctx, a: int) -> list:
    ap = ctx.coord[a]
    lps = bond_positions(ap, TETRAHEDRAL, 1.0, [ctx.coord[k] for k in ctx.nbrs[a]])
    return [ap - (lp - ap) for lp in lps]


def donor_ok(ctx, d: int, hyds: list, a: int, don, p, gen: tuple, why: list | None = None) -> bool:
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
            rp2, theta = p.sp2o.h_dist, p.sp2o.theta
        elif fam == "sp3O":
            rp2, theta = p.sp3o.h_dist, p.sp3o.theta
            if len(ctx.nbrs[a]) == 2:
                b = ctx.nbrs[a]
                plane, base = phi_plane(ap, ctx.coord[b[0]], ctx.coord[b[1]], [])
                if not any(float((h - ap) @ (h - ap)) <= rp2 for h in hyds):
                    return _no(why, "H..A distance")
                if not test_phi(dp, ap, base, plane, p.sp3o_phi):
                    return _no(why, "phi")
        elif fam == "sp3N":
            rp2, theta = p.sp3n.h_dist, p.sp3n.theta
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
        r2, lo, hi, theta, tau = p.sp2o.dist, p.sp2o.upsilon_low, p.sp2o.upsilon_high, p.sp2o.theta, p.sp2o.tau
    elif fam == "sp3O":
        r2, lo, hi, theta, tau = p.sp3o.dist, p.sp3o.upsilon_low, p.sp3o.upsilon_high, p.sp3o.theta, p.sp3o.tau
    elif fam == "sp3N":
        r2, lo, hi, theta, tau = p.sp3n.dist, p.sp3n.upsilon_low, p.sp3n.upsilon_high, p.sp3n.theta, p.sp3n.tau
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
    heavy = _heavy(ctx, d)
    if len(heavy) != 1:
        return _no(why, "upsilon (donor needs one heavy neighbour)")
    ups = angle_deg(ctx.coord[heavy[0]], dp, ap)
    if ups < lo or ups > -hi:
        return _no(why, "upsilon")
    if not test_theta(dp, hyds, ap, theta):
        return _no(why, "theta (D-H..A)")
    return _check(why, "tau", _tau(ctx, tau, don.tau_sym, d, dp, ap))


def _donor_generic(ctx, d: int, hyds: list, a: int, fam: str, p: GenericDonor, gp, why) -> bool:
    min_hyd_angle, min_bonded = gp.min_hyd_angle, gp.min_bonded_angle
    r2, rp2 = {"sp2O": (p.sp2o.dist, p.sp2o.h_dist), "sp3O": (p.sp3o.dist, p.sp3o.h_dist),
               "sp3N": (p.sp3n.dist, p.sp3n.h_dist)}.get(fam, (gp.dist, gp.h_dist))
    if fam == "gen" and ctx.element[a] == "S":
        min_bonded = min_bonded - 9
    dp, ap = ctx.coord[d], ctx.coord[a]
    if not hyds:
        if float((dp - ap) @ (dp - ap)) > r2:
            return _no(why, "D..A distance")
    elif not any(float((h - ap) @ (h - ap)) < rp2 for h in hyds):
        return _no(why, "H..A distance")
    for b in _heavy(ctx, d):
        if angle_deg(ctx.coord[b], dp, ap) < min_bonded:
            return _no(why, "bonded-D..A angle")
    if not hyds:
        return True
    return _check(why, "theta (D-H..A)", any(angle_deg(dp, h, ap) >= min_hyd_angle for h in hyds))
