"""Geometric primitives and criteria of the H-bond detector (private).

Everything here is pure: positions in, booleans/positions out.  The criteria are those of Mills &
Dean (1996) as used by ChimeraX ``hbonds``: a donor/acceptor pair passes when the acceptor-side
test (distance, plus phi/psi, syn/anti, theta/tau or generic angle limits) and the donor-side test
(heavy-atom or H..A distance, upsilon, theta, tau) both hold.  Distances arrive squared and
already relaxed; angles in degrees, already relaxed (see :func:`misi_geom.hbonds.limits.relaxed`).

:func:`triplet_distances_angles` is the vectorised first stage over (k, 3) donor/H/acceptor index
triplets; the class-specific tests then run on the few candidates left.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SULFUR_COMP", "angles_deg", "bond_positions", "sulfur_r2", "triplet_distances_angles"]

#: Å added to distance limits when the donor or acceptor is sulfur.
SULFUR_COMP = 0.35


def sulfur_r2(r2):
    """A squared distance limit (Å², scalar or array) widened by :data:`SULFUR_COMP`."""
    return (np.sqrt(r2) + SULFUR_COMP) ** 2


def angles_deg(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Angles a-b-c in degrees over broadcast (..., 3) arrays (0 where a side has zero length).

    Returns
    -------
    angles : ndarray, dtype=float64, shape = the broadcast shape without the last axis
    """
    u, v = np.asarray(a) - b, np.asarray(c) - b
    nu, nv = np.linalg.norm(u, axis=-1), np.linalg.norm(v, axis=-1)
    zero = (nu == 0) | (nv == 0)
    cos = np.einsum("...i,...i->...", u, v) / np.where(zero, 1.0, nu * nv)
    return np.where(zero, 0.0, np.degrees(np.arccos(np.maximum(np.minimum(cos, 1.0), -1.0))))


def _norm(v: np.ndarray) -> float:
    """Length of a 3-vector (as :func:`numpy.linalg.norm`: the square root of ``v @ v``)."""
    return math.sqrt(v @ v)


def _unit(v: np.ndarray) -> np.ndarray:
    n = _norm(v)
    return v / n if n > 0 else v


def triplet_distances_angles(coord: np.ndarray, triplets: np.ndarray):
    """D..A distance, H..A distance and D-H..A angle for (k, 3) donor/H/acceptor triplets.

    ``H = -1`` means no hydrogen: its distance and angle are NaN.

    Returns
    -------
    da : ndarray, dtype=float64, shape=(k,)
    ha : ndarray, dtype=float64, shape=(k,)
    theta_deg : ndarray, dtype=float64, shape=(k,)
    """
    t = np.asarray(triplets, dtype=np.int64).reshape(-1, 3)
    d, h, a = coord[t[:, 0]], coord[np.maximum(t[:, 1], 0)], coord[t[:, 2]]
    da = np.linalg.norm(a - d, axis=1)
    ha = np.linalg.norm(a - h, axis=1)
    u, v = d - h, a - h
    cos = np.einsum("ij,ij->i", u, v) / np.maximum(np.linalg.norm(u, axis=1) * ha, 1e-12)
    theta = np.degrees(np.arccos(np.clip(cos, -1.0, 1.0)))
    noh = t[:, 1] < 0
    ha[noh] = np.nan
    theta[noh] = np.nan
    return da, ha, theta


# --- ideal substituent positions ---------------------------------------------------------------
def _perp(v: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to ``v`` (deterministic)."""
    ref = np.array([1.0, 0.0, 0.0]) if abs(v[0]) < 0.9 * _norm(v) else np.array([0.0, 1.0, 0.0])
    return _unit(np.cross(v, ref))


def _angle_pos(center, bonded, length, degrees, coplanar=None):
    """Position at ``degrees`` from the center->bonded bond, in the plane of a coplanar point."""
    u = _unit(bonded - center)
    rad = np.radians(degrees)
    ups = []
    if coplanar:
        for k, cp in enumerate(coplanar[:2]):
            w = cp - center
            w = w - (w @ u) * u
            w = _unit(w) if _norm(w) > 1e-8 else _perp(u)
            ups.append(-w if k else w)
    else:
        ups.append(_perp(u))
    pts = [center + length * (np.cos(rad) * u + np.sin(rad) * w) for w in ups]
    if len(pts) > 1:
        mid = (pts[0] + pts[1]) / 2 - center
        return center + _unit(mid) * length
    return pts[0]


def bond_positions(center: np.ndarray, geom: int, length: float, bonded: list, coplanar=None) -> list:
    """Ideal positions of the missing substituents of an atom of geometry ``geom`` (1-4).

    Substituents are added one at a time, each placed from those already there: the first (when
    there is none) along +x, the second opposite it (linear) or at 120/109.5 degrees (in the plane
    of ``coplanar`` points for a planar atom), then the planar third opposite both, or the
    tetrahedral third and fourth.
    """
    if geom not in (1, 2, 3, 4):
        raise ValueError(f"unknown geometry {geom}")
    cur = [np.asarray(b, dtype=float) for b in bonded]
    if len(cur) >= geom:
        return []
    new: list = []

    def add(p):
        new.append(p)
        cur.append(p)

    if not cur:
        add(center + np.array([length, 0.0, 0.0]))
    if geom == 1:
        return new
    if geom == 2:
        new.append(center + _unit(center - cur[0]) * length)
        return new
    if len(cur) == 1:
        add(_angle_pos(center, cur[0], length, 120.0, coplanar) if geom == 3 else
            _angle_pos(center, cur[0], length, 109.5))
    if geom == 3:
        v1, v2 = _unit(cur[0] - center), _unit(cur[1] - center)
        new.append(center + _unit(-(v1 + v2)) * length)
        return new
    if len(cur) == 2:
        v1, v2 = _unit(cur[0] - center), _unit(cur[1] - center)
        anti = _unit(-(v1 + v2)) * np.cos(np.radians(54.75)) * length
        cr = _unit(np.cross(v2, v1)) * np.sin(np.radians(54.75)) * length
        add(center + anti + cr)
    pts = [center + _unit(b - center) for b in cur]
    normal = _unit(np.cross(pts[1] - pts[0], pts[2] - pts[0]))
    if normal @ (center - pts[0]) < 0:
        normal = -normal
    new.append(center + normal * length)
    return new
