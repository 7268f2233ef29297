"""Vectorised angle tests of the H-bond criteria over (k,) rows (private).

Plain-array kernels: positions are (k, 3) float64 arrays in Å, or (k, m, 3) with a (k, m) bool
mask for a variable number of positions per row (hydrogens, lone pairs, tau substituents); limits
are (k,) float64 arrays, angles in degrees, distances squared.  They return (k,) bool arrays.
"""

from __future__ import annotations

import numpy as np

from misi_geom.hbonds.geometry import angles_deg

__all__ = ["any_angle", "cross_rows", "dot_rows", "phi_ok", "tau_ok", "theta_ok", "unit_rows"]


def dot_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise dot products of (..., 3) arrays."""
    return np.einsum("...i,...i->...", u, v)


def cross_rows(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Row-wise cross products of (k, 3) arrays (as :func:`numpy.cross`, without its overhead)."""
    return u[:, [1, 2, 0]] * v[:, [2, 0, 1]] - u[:, [2, 0, 1]] * v[:, [1, 2, 0]]


def unit_rows(v: np.ndarray) -> np.ndarray:
    """Rows of ``v`` (..., 3) scaled to unit length (zero rows stay zero)."""
    n = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(n > 0, n, 1.0)


def any_angle(a: np.ndarray, b: np.ndarray, c: np.ndarray, mask: np.ndarray, limit: np.ndarray,
              strict: bool = False) -> np.ndarray:
    """Some masked angle a-b-c (one of the operands (k, m, 3), the others (k, 3)) is ``>= limit``
    (``> limit`` if ``strict``)."""
    ang = angles_deg(_wide(a), _wide(b), _wide(c))
    big = ang > limit[:, None] if strict else ang >= limit[:, None]
    return np.any(mask & big, axis=1)


def _wide(p: np.ndarray) -> np.ndarray:
    return p[:, None, :] if p.ndim == 2 else p


def phi_ok(dp: np.ndarray, ap: np.ndarray, bp: np.ndarray, plane: np.ndarray, has_plane: np.ndarray,
           phi: np.ndarray) -> np.ndarray:
    """The phi test: base-acceptor-donor, all projected into the plane through the three points
    ``plane`` (k, 3, 3), must be ``>= phi``; rows without a plane pass."""
    p0, p1, p2 = plane[:, 0], plane[:, 1], plane[:, 2]
    normal = unit_rows(cross_rows(p1 - p0, p2 - p1))
    off = dot_rows(normal, p1)

    def proj(p):
        return p - normal * (dot_rows(normal, p) - off)[:, None]

    return ~has_plane | (angles_deg(proj(bp), proj(ap), proj(dp)) >= phi)


def theta_ok(dp: np.ndarray, hyd: np.ndarray, hmask: np.ndarray, ap: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Some hydrogen ``hyd`` (k, m, 3) makes D-H..A ``>= theta``; rows without hydrogens pass."""
    return ~hmask.any(axis=1) | any_angle(ap, hyd, dp, hmask, theta)


def tau_ok(tau: np.ndarray, axis_from: np.ndarray, dap: np.ndarray, op: np.ndarray, bonded: np.ndarray,
           bmask: np.ndarray) -> np.ndarray:
    """The tau test about the axis ``axis_from`` -> ``dap`` (the donor or acceptor).

    The angles other-atom / ``dap`` / each substituent ``bonded`` (k, m, 3), all projected onto the
    plane normal to the axis: a negative ``tau`` means some angle ``<= -tau``, a positive one every
    angle ``>= tau``.  NaN ``tau`` (no test) and rows without substituents pass.
    """
    normal = unit_rows(axis_from - dap)

    def proj(p):
        n = normal if p.ndim == 2 else normal[:, None, :]
        return p - n * dot_rows(n, p)[..., None]

    ang = angles_deg(proj(op)[:, None, :], proj(dap)[:, None, :], proj(bonded))
    with np.errstate(invalid="ignore"):
        some = np.any(bmask & (ang <= -tau[:, None]), axis=1)
        every = np.all(~bmask | (ang >= tau[:, None]), axis=1)
    ok = np.where(tau < 0.0, some, every)
    return np.isnan(tau) | ~bmask.any(axis=1) | ok
