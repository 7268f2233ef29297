"""Vectorised measurements over (k, 3) row arrays, shared by the interaction declarations."""

from __future__ import annotations

import numpy as np

__all__ = ["distance", "angle_at", "normal_angle", "plane_offset"]


def distance(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise distance (k,) between (k, 3) points, Å."""
    return np.linalg.norm(np.asarray(a) - np.asarray(b), axis=1)


def angle_at(vertex: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise angle a-vertex-b (k,), degrees (0 where a vector is null)."""
    u, v = np.asarray(a) - vertex, np.asarray(b) - vertex
    nu, nv = np.linalg.norm(u, axis=1), np.linalg.norm(v, axis=1)
    cos = np.einsum("ij,ij->i", u, v) / np.where(nu * nv > 0, nu * nv, 1.0)
    return np.where(nu * nv > 0, np.degrees(np.arccos(np.clip(cos, -1.0, 1.0))), 0.0)


def normal_angle(n1: np.ndarray, n2: np.ndarray) -> np.ndarray:
    """Angle between two planes from their unit normals (k,), folded into [0, 90] degrees."""
    cos = np.abs(np.einsum("ij,ij->i", n1, n2))
    return np.degrees(np.arccos(np.clip(cos, 0.0, 1.0)))


def plane_offset(centre: np.ndarray, normal: np.ndarray, point: np.ndarray) -> np.ndarray:
    """Distance (k,) from ``centre`` to the projection of ``point`` onto the plane through ``centre``
    with unit ``normal``, Å (PLIP's ring offset)."""
    d = np.asarray(point) - centre
    along = np.einsum("ij,ij->i", d, normal)[:, None] * normal
    return np.linalg.norm(d - along, axis=1)
