"""Pixels: project camera-frame points (Å) of a :class:`misi_geom.CameraFrame` onto a square image.

Pixel ``(row i, column j)`` covers ``[j, j+1) x [i, i+1)``; the screen centre is
``(size/2, size/2)`` and screen y grows downward.  Orthographic projection (default) shows the
centre plane at ``scale = size / (2 radius)`` pixels per Å, times the frame's zoom magnification
``D / (D - zoom_z)``; perspective divides by each point's own distance to the camera, which agrees
with the orthographic scale in the centre plane.

>>> import numpy as np
>>> from misi_geom import fit_frame
>>> frame = fit_frame(np.array([[0.0, 0, 0], [10.0, 0, 0]]))
>>> s = project(frame, frame.to_camera_frame(np.array([[10.0, 0, 0]])), size=100)
>>> round(float(s.x_px[0]), 3), round(float(s.y_px[0]), 3), round(pixel_scale(frame, 100), 4)
(97.619, 50.0, 9.5238)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from misi_geom import CameraFrame
from misi_geom.camera import NEAR_CLIP

__all__ = ["Projection", "ScreenCoords", "project", "pixel_scale"]

Projection = Literal["orthographic", "perspective"]


@dataclass(frozen=True)
class ScreenCoords:
    """Projected positions of N points, all arrays of shape (N,), float64 unless noted.

    Attributes
    ----------
    x_px, y_px : pixel coordinates (x right, y down; the screen centre is ``size/2``).
    x_A, y_A : camera-frame coordinates in Å (x right, y up) before projection.
    depth : camera-frame z in Å; larger is nearer the viewer.
    px_per_A : local magnification, pixels per Å at each point (for sphere radii).
    in_front : bool, the point lies in front of the near plane (always True orthographically).
    """

    x_px: np.ndarray
    y_px: np.ndarray
    x_A: np.ndarray
    y_A: np.ndarray
    depth: np.ndarray
    px_per_A: np.ndarray
    in_front: np.ndarray


def pixel_scale(frame: CameraFrame, size: int) -> float:
    """Pixels per Å in the frame's centre plane at zoom 0: ``size / (2 radius)``."""
    return float(size / (2.0 * frame.radius))


def project(frame: CameraFrame, cam_points: np.ndarray, size: int,
            projection: Projection = "orthographic") -> ScreenCoords:
    """Project camera-frame points (N, 3), Å, of ``frame`` onto a ``size`` x ``size`` image."""
    q = np.atleast_2d(np.asarray(cam_points, dtype=np.float64))
    x, y, z = q[:, 0].copy(), q[:, 1].copy(), q[:, 2].copy()
    d = frame.distance
    scale = pixel_scale(frame, size)
    if projection == "orthographic":
        k = np.full(len(q), scale * frame.magnification)
        in_front = np.ones(len(q), dtype=bool)
    elif projection == "perspective":
        gap = d - z
        in_front = gap > NEAR_CLIP
        k = scale * d / np.where(in_front, gap, np.inf)
    else:
        raise ValueError(f"projection must be 'orthographic' or 'perspective', got {projection!r}")
    half = size / 2.0
    return ScreenCoords(x_px=half + x * k, y_px=half - y * k, x_A=x, y_A=y, depth=z, px_per_A=k, in_front=in_front)
