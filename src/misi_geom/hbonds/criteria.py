"""Acceptor-side and donor-side H-bond tests over (k,) donor/acceptor rows, vectorised (private).

The criterion families of Mills & Dean (1996), as ChimeraX ``hbonds`` applies them -- acceptors:
syn/anti, phi/psi, theta/tau, generic; donors: upsilon/tau, theta/tau, generic -- each contribute,
for their own rows, the limits (the relaxed records of the typing's classes,
:func:`misi_geom.hbonds.limits.relaxed`: distances squared) and the geometry their tests read (phi
plane and base, upsilon directions, tau substituents).  Each test is then one vectorised pass over
every row it applies to, whatever the family: D..A and H..A distances, phi, theta (D-H..A),
upsilon, tau, lone-pair and bonded-atom angles (kernels in :mod:`misi_geom.hbonds._kernels`).  Tests
run in each family's own order, and the result is an int8 code per row: 0 when the row passes, else
the index in :data:`FAILURES` of the first test it fails -- so
:func:`~misi_geom.hbonds.search.find_hbonds` (``code == 0``) and
:func:`~misi_geom.hbonds.explain.explain` (the name) read the same computation.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from misi_geom.hbonds._context import TAU_FAIL, TAU_TEST, Context, distinct
from misi_geom.hbonds._idatm import PLANAR, TETRAHEDRAL
from misi_geom.hbonds._kernels import dot_rows, phi_ok, tau_ok, theta_ok
from misi_geom.hbonds.geometry import angles_deg, sulfur_r2
from misi_geom.hbonds.donor_acceptor import AcceptorClass, DonorClass
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

__all__ = ["FAILURES", "Context", "acceptor_failures", "donor_failures"]

#: Names of the tests a row can fail; a code ``c > 0`` names ``FAILURES[c]`` (``FAILURES[0]``: passed).
FAILURES = (
    None,
    "D..A distance",
    "H..A distance",
    "phi",
    "phi (unexpected connectivity)",
    "theta (D-H..A)",
    "upsilon, theta and tau (no direction passes all)",
    "bonded-A..D angle",
    "acceptor geometry unknown",
    "no hydrogen position",
    "lone pair-A..D angle",
    "upsilon (donor needs one heavy neighbour)",
    "upsilon",
    "tau",
    "bonded-D..A angle",
)
_CODE = {name: k for k, name in enumerate(FAILURES)}



class _Rows:
    """(k,) donor/acceptor rows: positions, squared D..A distance, the donors' hydrogens (k, m, 3)
    with their mask, and the first failure of each row so far (:meth:`need`)."""

    def __init__(self, ctx: Context, donors: np.ndarray, acceptors: np.ndarray) -> None:
        self.ctx, self.d, self.a = ctx, donors, acceptors
        self.dp, self.ap = ctx.coord[donors], ctx.coord[acceptors]
        diff = self.dp - self.ap
        self.d2 = dot_rows(diff, diff)
        self.hyd, self.hmask = ctx.hyd_table(donors)
        self.code = np.zeros(len(donors), dtype=np.int8)

    def need(self, ok: np.ndarray, test: str) -> None:
        """Rows still passing that fail ``ok`` now fail ``test``."""
        np.putmask(self.code, (self.code == 0) & ~ok, _CODE[test])

    def tau(self, rows: np.ndarray, atoms: np.ndarray, tau_sym: np.ndarray, tau: np.ndarray, pos: np.ndarray,
            other: np.ndarray, test: str) -> None:
        """The tau test of ``atoms`` (at ``pos``) towards ``other`` with limit ``tau``, on those of
        the ``rows`` still passing; failures are named ``test``."""
        sel = self.code[rows] == 0
        if sel.any():
            status, axis, bonded, bmask = self.ctx.tau_table(atoms[sel], tau_sym[sel])
            measured = tau_ok(tau[sel], axis, pos[sel], other[sel], bonded, bmask)
            ok = np.where(status == TAU_TEST, measured, status != TAU_FAIL)
            self.code[rows[sel][~ok]] = _CODE[test]


def _by_atom(atoms: np.ndarray, row_of) -> np.ndarray:
    """``row_of(atom)`` (a tuple or array, cached per class) stacked over the (k,) ``atoms``."""
    uniq, inv = distinct(atoms)
    return np.array([row_of(a) for a in uniq], dtype=np.float64)[inv]


def _any_below(a: np.ndarray, b: np.ndarray, c: np.ndarray, mask: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Some masked angle a-b-c (``a`` (k, m, 3)) is below ``limit``."""
    ang = angles_deg(a, b[:, None, :], c[:, None, :])
    return np.any(mask & (ang < limit[:, None]), axis=1)


# --- acceptor side -------------------------------------------------------------------------------
_SYN_ANTI, _PHI_PSI, _THETA_TAU, _GENERIC = range(4)
_ACCEPTOR_KINDS = (SynAnti, PhiPsi, ThetaTau, GenericAcceptor)
#: Columns of an acceptor's limits row (:func:`_acceptor_row`).
(_KIND, _R2_SYN, _R2_ANTI, _PHI_SYN, _PHI_ANTI, _THETA_SYN, _THETA_ANTI, _LOW, _HIGH, _MIN_ANGLE, _TAU, _SYM,
 _P0, _P1) = range(14)


@lru_cache(maxsize=4096)
def _acceptor_row(acc: AcceptorClass, ds: float, da: float) -> tuple:
    """The relaxed limits of acceptor class ``acc`` as one row: family, D..A, phi and theta limits
    for a syn and an anti donor (equal outside the syn/anti family), upsilon window, generic
    bonded-atom angle, tau and its symmetry (NaN, 0: none), partner atoms (-1: none)."""
    p, nan = relaxed(acc.limits, ds, da), np.nan
    kind = _ACCEPTOR_KINDS.index(type(p))
    if kind == _SYN_ANTI:
        vals = (p.syn_dist, p.anti_dist, p.syn_phi, p.anti_phi, p.syn_theta, p.anti_theta, nan, nan, nan)
    elif kind == _PHI_PSI:
        vals = (p.dist, p.dist, p.phi, p.phi, p.theta, p.theta, nan, nan, nan)
    elif kind == _THETA_TAU:
        vals = (p.dist, p.dist, nan, nan, p.theta, p.theta, p.upsilon_low, p.upsilon_high, nan)
    else:
        vals = (p.dist, p.dist, nan, nan, nan, nan, nan, nan, p.min_angle)
    tau, sym = acc.tau if acc.tau else (nan, 0)
    part = [-1 if x is None else x for x in acc.partners] + [-1, -1]
    return (kind, *vals, tau, sym, part[0], part[1])


class _AcceptorGeometry:
    """What the acceptor-side tests read, per row, filled in by each family for its rows: the
    phi plane (k, 3, 3) and base, unexpected connectivity, the theta/tau family's upsilon window,
    the generic family's bonded-angle failure."""

    def __init__(self, k: int) -> None:
        self.plane, self.base = np.zeros((k, 3, 3)), np.zeros((k, 3))
        self.has_plane, self.bad = np.zeros(k, dtype=bool), np.zeros(k, dtype=bool)
        self.window, self.low = np.zeros(k, dtype=bool), np.zeros(k, dtype=bool)


def acceptor_failures(ctx: Context, donors: np.ndarray, acceptors: np.ndarray, ds: float, da: float) -> np.ndarray:
    """Acceptor-side criteria of (k,) donor/acceptor rows, each by its acceptor's class.

    ``ds`` (Å) and ``da`` (degrees) relax the limits.  A sulfur donor widens the D..A limit.  Tests
    in order: D..A distance; then syn/anti: phi, theta; phi/psi: connectivity, phi, theta;
    theta/tau: upsilon window, theta and tau together; generic: every (bonded atom)-A..D angle.

    Returns
    -------
    code : ndarray, dtype=int8, shape=(k,)
        0 where the row passes, else the :data:`FAILURES` index of its first failing test.
    """
    if len(donors) == 0:
        return np.zeros(0, dtype=np.int8)
    r = _Rows(ctx, donors, acceptors)
    lim = _by_atom(acceptors, lambda a: _acceptor_row(ctx.typing.acceptor[a], ds, da))
    kind = lim[:, _KIND].astype(np.int8)
    s_donor = ctx.element[donors] == "S"
    reach = np.maximum(lim[:, _R2_SYN], lim[:, _R2_ANTI])
    r.need(r.d2 <= np.where(s_donor, sulfur_r2(reach), reach), "D..A distance")
    g = _AcceptorGeometry(len(donors))
    syn = np.ones(len(donors), dtype=bool)
    for k, fill in enumerate((_syn_anti, _phi_psi, _theta_tau, _generic_acceptor)):
        rows = np.flatnonzero((kind == k) & (r.code == 0))  # the geometry of the rows within reach
        if len(rows):
            fill(r, rows, lim[rows], g, syn)
    r2, phi, theta = (np.where(syn, lim[:, i], lim[:, i + 1]) for i in (_R2_SYN, _PHI_SYN, _THETA_SYN))
    r.need(r.d2 <= np.where(s_donor, sulfur_r2(r2), r2), "D..A distance")  # syn/anti: the side's limit
    if g.bad.any():
        r.need(~g.bad, "phi (unexpected connectivity)")
    if g.has_plane.any():
        r.need(phi_ok(r.dp, r.ap, g.base, g.plane, g.has_plane, phi), "phi")
    theta_pass = theta_ok(r.dp, r.hyd, r.hmask, r.ap, theta)
    r.need(theta_pass | (kind >= _THETA_TAU), "theta (D-H..A)")
    r.need((kind != _THETA_TAU) | (g.window & theta_pass), "upsilon, theta and tau (no direction passes all)")
    rows = np.flatnonzero((kind == _THETA_TAU) & ~np.isnan(lim[:, _TAU]))
    if len(rows):  # the aniline acceptor's tau
        r.tau(rows, r.a[rows], lim[rows, _SYM].astype(np.int64), lim[rows, _TAU], r.ap[rows], r.dp[rows],
              "upsilon, theta and tau (no direction passes all)")
    if g.low.any():
        r.need(~g.low, "bonded-A..D angle")
    return r.code


def _syn_anti(r: _Rows, rows: np.ndarray, lim: np.ndarray, g: _AcceptorGeometry, syn: np.ndarray) -> None:
    """Carboxylate-like acceptors: the donor's side of the plane picks the syn or anti limits;
    plane acceptor-partner-syn atom, base the partner."""
    sp, pp = r.ctx.coord[lim[:, _P0].astype(np.int64)], r.ctx.coord[lim[:, _P1].astype(np.int64)]
    ap = r.ap[rows]
    z, w = pp - ap, sp - pp
    with np.errstate(invalid="ignore", divide="ignore"):
        y = w - (dot_rows(w, z) / dot_rows(z, z))[:, None] * z
        syn[rows] = dot_rows(r.dp[rows] - ap, y) > 0.0
    g.plane[rows] = np.stack([ap, pp, sp], axis=1)
    g.base[rows], g.has_plane[rows] = pp, True


def _phi_psi(r: _Rows, rows: np.ndarray, lim: np.ndarray, g: _AcceptorGeometry, syn: np.ndarray) -> None:
    """sp2 acceptors: the plane and base of the phi test come from the acceptor's partners b1, b2
    (default: its first two neighbours).  With both, plane A-b1-b2 and base their midpoint; with
    b1 only, base b1 and plane through A, b1's other neighbours (and b1 when it has one); no
    partner, no phi test.  More than two other neighbours of b1 is unexpected connectivity."""
    ctx, a = r.ctx, r.a[rows]
    part = lim[:, _P0:_P1 + 1].astype(np.int64)
    nb = ctx.nbr[a]
    nb1 = nb[:, 1] if nb.shape[1] > 1 else np.full(len(a), -1)
    b1 = np.where(part[:, 0] < 0, nb[:, 0], part[:, 0])
    b2 = np.where(part[:, 0] < 0, nb1, part[:, 1])
    grand = ctx.nbr[np.maximum(b1, 0)]
    is_grand = (grand >= 0) & (grand != a[:, None])
    n_grand = is_grand.sum(axis=1)
    grand = np.take_along_axis(grand, np.argsort(~is_grand, axis=1, kind="stable"), axis=1)
    g0 = grand[:, 0]
    g1 = grand[:, 1] if grand.shape[1] > 1 else g0
    both, b1_only = (b1 >= 0) & (b2 >= 0), (b1 >= 0) & (b2 < 0)
    c = ctx.coord
    c1, c2 = c[np.maximum(b1, 0)], c[np.maximum(b2, 0)]
    second = np.where((b1_only & (n_grand == 2))[:, None], c[np.maximum(g0, 0)], c1)
    third = np.where(both[:, None], c2, c[np.maximum(np.where(n_grand == 2, g1, g0), 0)])
    g.plane[rows] = np.stack([r.ap[rows], second, third], axis=1)
    g.base[rows] = np.where(both[:, None], (c1 + c2) / 2.0, c1)
    g.has_plane[rows] = both | (b1_only & ((n_grand == 1) | (n_grand == 2)))
    g.bad[rows] = b1_only & (n_grand > 2)


def _theta_tau(r: _Rows, rows: np.ndarray, lim: np.ndarray, g: _AcceptorGeometry, syn: np.ndarray) -> None:
    """sp3 acceptors: some direction (the partner atom, or opposite each lone pair) must make an
    upsilon angle (direction-A..D) inside the window; the aniline acceptor adds a tau test."""
    ctx, a, ap, dp = r.ctx, r.a[rows], r.ap[rows], r.dp[rows]
    partner = lim[:, _P0].astype(np.int64)
    dirs = ctx.coord[np.maximum(partner, 0)][:, None, :]
    dmask = np.ones((len(partner), 1), dtype=bool)
    free = np.flatnonzero(partner < 0)
    if len(free):  # no partner atom: the directions opposite the lone pairs
        lone, lmask = ctx.lone_pair_table(a[free])
        width = lone.shape[1]
        dirs = np.repeat(dirs, width, axis=1)
        dmask = np.repeat(dmask, width, axis=1) & (np.arange(width) == 0)
        dirs[free], dmask[free] = lone, lmask
    ups = angles_deg(dirs, ap[:, None, :], dp[:, None, :])
    g.window[rows] = np.any(dmask & (lim[:, _LOW, None] <= ups) & (ups <= -lim[:, _HIGH, None]), axis=1)


def _generic_acceptor(r: _Rows, rows: np.ndarray, lim: np.ndarray, g: _AcceptorGeometry, syn: np.ndarray) -> None:
    """Every (bonded atom)-A..D angle at least ``min_angle``."""
    nb = r.ctx.nbr[r.a[rows]]
    g.low[rows] = _any_below(r.ctx.coord[np.maximum(nb, 0)], r.ap[rows], r.dp[rows], nb >= 0, lim[:, _MIN_ANGLE])


# --- donor side ----------------------------------------------------------------------------------
_DONOR_KINDS = (GenericDonor, ThetaTauDonor, UpsilonTauDonor)
#: Acceptor families of the donor-side limits (by the acceptor's element and geometry).
_NONE, _SP2O, _SP3O, _SP3N, _GEN = range(5)
#: Columns of a donor's limits row (:func:`_donor_table`).
_DKIND, _DSYM, _DR2, _DRP2, _DTHETA, _DTAU, _DLOW, _DHIGH, _DLONE, _DPHI, _DMIN_BONDED = range(11)
#: The column of each field of a target record (:mod:`misi_geom.hbonds.limits`).
_TARGET_COLUMN = {"dist": _DR2, "h_dist": _DRP2, "theta": _DTHETA, "tau": _DTAU, "upsilon_low": _DLOW,
                  "upsilon_high": _DHIGH, "min_hyd_angle": _DTHETA, "min_bonded_angle": _DMIN_BONDED}


@lru_cache(maxsize=1024)
def _donor_table(don: DonorClass, ds: float, da: float) -> np.ndarray:
    """The relaxed limits of donor class ``don`` against each acceptor family (rows: none, sp2 O,
    sp3 O, sp3 N, generic -- :data:`~misi_geom.hbonds.limits.GENERIC_TARGETS`): family, tau symmetry,
    D..A and H..A limits, theta, tau, upsilon window, lone-pair angle, phi, bonded-atom angle (NaN:
    no such test), shape (5, 11)."""
    p = relaxed(don.limits, ds, da)
    kind = _DONOR_KINDS.index(type(p))
    gen = relaxed(GENERIC_TARGETS[kind], ds, da)
    t = np.full((5, 11), np.nan)
    t[:, _DKIND], t[:, _DSYM] = kind, don.tau_sym
    for fam, target in ((_SP2O, p.sp2o), (_SP3O, p.sp3o), (_SP3N, p.sp3n), (_GEN, gen)):
        for name, value in vars(target).items():
            t[fam, _TARGET_COLUMN[name]] = np.nan if value is None else value
    if kind == 0:  # the generic angle limits hold against every acceptor
        t[:, [_DTHETA, _DMIN_BONDED]] = gen.min_hyd_angle, gen.min_bonded_angle
    else:
        t[:, _DLONE] = p.sp3n_lone_pair_angle
    if kind == 1:
        t[:, _DPHI] = p.sp3o_phi
    t.flags.writeable = False
    return t


def _acceptor_family(ctx: Context, a: np.ndarray) -> np.ndarray:
    el, geom = ctx.element[a], ctx.geom(a)
    fam = np.full(len(a), _GEN, dtype=np.int8)
    fam[(el == "N") & (geom == TETRAHEDRAL)] = _SP3N
    fam[((el == "O") & (geom == TETRAHEDRAL)) | ((el == "N") & (geom == PLANAR))] = _SP3O
    fam[(el == "O") & (geom == PLANAR)] = _SP2O
    fam[geom == 0] = _NONE
    return fam


def donor_failures(ctx: Context, donors: np.ndarray, acceptors: np.ndarray, ds: float, da: float) -> np.ndarray:
    """Donor-side criteria of (k,) donor/acceptor rows, each by its donor's class and the
    acceptor's family (sp2 O, sp3 O, sp3 N, or any other typed geometry with the limits of
    :data:`~misi_geom.hbonds.limits.GENERIC_TARGETS`).  ``ds``, ``da``: as :func:`acceptor_failures`.

    Tests in order -- generic: D..A distance without hydrogens, else H..A distance, every (heavy
    neighbour)-D..A angle, theta; theta/tau: a hydrogen position, for a two-neighbour sp3 O acceptor
    H..A distance and phi, for an sp3 N acceptor the lone-pair angle, H..A distance, theta;
    upsilon/tau: the lone-pair angle (sp3 N acceptor with several neighbours), D..A distance, one
    heavy neighbour, upsilon, theta, tau.  Against a sulfur acceptor of no family, the D..A and
    H..A limits widen and the generic bonded-atom angle loosens by 9 degrees.

    Returns
    -------
    code : ndarray, dtype=int8, shape=(k,)
        0 where the row passes, else the :data:`FAILURES` index of its first failing test.
    """
    k = len(donors)
    if k == 0:
        return np.zeros(0, dtype=np.int8)
    r = _Rows(ctx, donors, acceptors)
    fam = _acceptor_family(ctx, acceptors)
    uniq, inv = distinct(donors)
    lim = np.array([_donor_table(ctx.typing.donor[d], ds, da) for d in uniq]).reshape(-1, 5, 11)[inv, fam]
    kind = lim[:, _DKIND].astype(np.int8)
    s_gen = (fam == _GEN) & (ctx.element[acceptors] == "S")
    if s_gen.any():
        lim[s_gen & (kind == 0), _DMIN_BONDED] -= 9
        lim[s_gen & (kind == 1), _DRP2] = sulfur_r2(lim[s_gen & (kind == 1), _DRP2])
        lim[s_gen & (kind == 2), _DR2] = sulfur_r2(lim[s_gen & (kind == 2), _DR2])
    _donor_tests(r, fam, kind, lim)
    return r.code


def _donor_tests(r: _Rows, fam: np.ndarray, kind: np.ndarray, lim: np.ndarray) -> None:
    """Every donor-side test, in each family's order (the families' rows are disjoint).  A test
    runs only when some row of its family is present, and the tests stop once every row failed."""
    ctx, a = r.ctx, r.a
    generic, theta_tau, upsilon_tau = kind == 0, kind == 1, kind == 2
    any_g, any_tt, any_ut = bool(generic.any()), bool(theta_tau.any()), bool(upsilon_tau.any())
    has_h = r.hmask.any(axis=1)
    r.need(fam != _NONE, "acceptor geometry unknown")
    if any_tt:
        r.need(~theta_tau | has_h, "no hydrogen position")
    if r.code.all():
        return
    hdiff = r.hyd - r.ap[:, None, :]
    hd2 = dot_rows(hdiff, hdiff)
    near = np.any(r.hmask & (hd2 <= lim[:, _DRP2, None]), axis=1)
    sp3n = fam == _SP3N
    if any_tt or (any_ut and sp3n.any()):
        n_nbr = (ctx.nbr[a] >= 0).sum(axis=1)
        sp3o2 = theta_tau & (fam == _SP3O) & (n_nbr == 2)
        if sp3o2.any():
            r.need(~sp3o2 | near, "H..A distance")
            nb = ctx.nbr[a]
            b0, b1 = ctx.coord[nb[:, 0]], ctx.coord[nb[:, min(1, nb.shape[1] - 1)]]
            r.need(phi_ok(r.dp, r.ap, (b0 + b1) / 2.0, np.stack([r.ap, b0, b1], axis=1), sp3o2, lim[:, _DPHI]),
                   "phi")
        lp_tt = theta_tau & sp3n
        rows = np.flatnonzero((lp_tt | (upsilon_tau & sp3n & (n_nbr > 1))) & (r.code == 0))
        if len(rows):  # the lone-pair angle, on the rows still passing
            dirs, dmask = ctx.lone_pair_table(a[rows])
            ang = angles_deg(dirs, r.ap[rows, None, :], r.dp[rows, None, :])
            limit = lim[rows, _DLONE, None]
            ok = np.where(lp_tt[rows], ~dmask.any(axis=1) | np.any(dmask & (ang > limit), axis=1),
                          np.any(dmask & (ang >= limit), axis=1))
            r.code[rows[~ok]] = _CODE["lone pair-A..D angle"]
    if any_g or any_ut:
        r.need(~((generic & ~has_h) | upsilon_tau) | (r.d2 <= lim[:, _DR2]), "D..A distance")
    if any_g:
        r.need(~(generic & has_h) | np.any(r.hmask & (hd2 < lim[:, _DRP2, None]), axis=1), "H..A distance")
    if any_tt:
        r.need(~theta_tau | near, "H..A distance")
    if r.code.all():
        return
    if any_g or any_ut:
        heavy = ctx.heavy_nbr(r.d)
    if any_ut:
        r.need(~upsilon_tau | ((heavy >= 0).sum(axis=1) == 1), "upsilon (donor needs one heavy neighbour)")
        ups = angles_deg(ctx.coord[np.maximum(heavy[:, 0], 0)], r.dp, r.ap)
        r.need(~upsilon_tau | ((ups >= lim[:, _DLOW]) & (ups <= -lim[:, _DHIGH])), "upsilon")
    if any_g:
        low = _any_below(ctx.coord[np.maximum(heavy, 0)], r.dp, r.ap, heavy >= 0, lim[:, _DMIN_BONDED])
        r.need(~generic | ~low, "bonded-D..A angle")
    if r.code.all():
        return
    r.need(theta_ok(r.dp, r.hyd, r.hmask, r.ap, lim[:, _DTHETA]), "theta (D-H..A)")
    rows = np.flatnonzero(upsilon_tau & ~np.isnan(lim[:, _DTAU]))
    if len(rows):
        r.tau(rows, r.d[rows], lim[rows, _DSYM].astype(np.int64), lim[rows, _DTAU], r.dp[rows], r.ap[rows], "tau")
