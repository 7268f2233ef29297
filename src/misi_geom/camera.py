"""Camera frames and projection.

The *camera frame* is centred on the camera's rotation centre: X right, Y up, Z toward the viewer,
in Å.  :meth:`Camera.to_camera_frame` takes model coordinates there (optionally through a canonical
view rotation; motions are applied before it, in the front frame) and :meth:`Camera.project` maps camera-frame
points to pixels.  Pixel ``(row i, column j)`` covers ``[j, j+1) x [i, i+1)``; the screen centre is
``(size/2, size/2)`` and screen y grows downward.

The camera sits at a nominal distance ``D = R / sin(fov/2)`` from the centre (spec section 2, as
ChimeraX's ``view`` places it for a 30° field of view), with ``R`` the bounding-sphere radius of the
complex plus a 5 % pad.  Orthographic projection (default) shows the centre plane at
``scale = size / (2 R)`` pixels per Å; moving the scene ``d`` Å toward the viewer (``move z d``,
recorded as :attr:`Camera.zoom_z`) magnifies by ``D / (D - d)``.  The perspective option divides by
each point's own distance to the camera, which agrees with the orthographic scale in the centre plane.

>>> import numpy as np
>>> cam = fit_camera(np.array([[0.0, 0, 0], [10.0, 0, 0]]), size=100)
>>> bool(np.isclose(cam.radius, 5.0 * 1.05))
True
>>> s = cam.project(cam.to_camera_frame(np.array([[10.0, 0, 0]])))
>>> round(float(s.x_px[0]), 3), round(float(s.y_px[0]), 3)
(97.619, 50.0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

import numpy as np

from misi_geom._typing import BoolArray, Coords, FloatArray
from misi_geom.transform import ViewName, view_rotation

__all__ = ["Projection", "Camera", "ScreenCoords", "fit_camera", "DEFAULT_PAD", "DEFAULT_FOV_DEG"]

Projection = Literal["orthographic", "perspective"]

#: Fractional pad added to the bounding-sphere radius when fitting a camera.
DEFAULT_PAD = 0.05
#: Field of view that fixes the nominal camera distance (ChimeraX's default).
DEFAULT_FOV_DEG = 30.0
#: Nearest distance (Å) a point may come to the camera in perspective projection.
NEAR_CLIP = 1.0


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

    x_px: FloatArray
    y_px: FloatArray
    x_A: FloatArray
    y_A: FloatArray
    depth: FloatArray
    px_per_A: FloatArray
    in_front: BoolArray


@dataclass(frozen=True)
class Camera:
    """A square-image camera looking down -Z of the camera frame.

    Parameters
    ----------
    center : (3,) float64
        Rotation centre in model coordinates (Å): the origin of the camera frame.
    radius : float
        Half the visible width (Å) of the centre plane at zoom 0.
    size : int
        Image width = height in pixels.
    projection : {"orthographic", "perspective"}
    fov_deg : float
        Field of view that fixes the nominal distance ``D``.
    zoom_z : float
        How far (Å) the scene has been moved toward the viewer; orthographic magnification
        ``D / (D - zoom_z)``.  Perspective ignores it (it divides by each point's own depth).
    """

    center: FloatArray
    radius: float
    size: int = 1024
    projection: Projection = "orthographic"
    fov_deg: float = DEFAULT_FOV_DEG
    zoom_z: float = 0.0

    def __post_init__(self) -> None:
        c = np.array(self.center, dtype=np.float64).reshape(3)
        c.setflags(write=False)
        object.__setattr__(self, "center", c)
        if not np.isfinite(self.radius) or self.radius <= 0:
            raise ValueError(f"camera radius must be positive and finite, got {self.radius}")
        if int(self.size) < 8:
            raise ValueError(f"image size must be at least 8 pixels, got {self.size}")
        if self.projection not in ("orthographic", "perspective"):
            raise ValueError(f"projection must be 'orthographic' or 'perspective', got {self.projection!r}")
        if self.zoom_z >= self.distance - NEAR_CLIP:
            raise ValueError(
                f"zoom of {self.zoom_z:g} Å would bring the centre within {NEAR_CLIP} Å of the camera "
                f"(distance {self.distance:.1f} Å)"
            )

    @property
    def distance(self) -> float:
        """Nominal camera distance D (Å) from the centre: ``radius / sin(fov/2)``."""
        return float(self.radius / np.sin(np.deg2rad(self.fov_deg) / 2.0))

    @property
    def scale(self) -> float:
        """Pixels per Å in the centre plane at zoom 0."""
        return float(self.size / (2.0 * self.radius))

    @property
    def magnification(self) -> float:
        """Orthographic magnification from :attr:`zoom_z`: ``D / (D - zoom_z)``."""
        return float(self.distance / (self.distance - self.zoom_z))

    def zoomed(self, dz: float) -> "Camera":
        """Copy with the scene moved ``dz`` Å further toward the viewer."""
        return replace(self, zoom_z=self.zoom_z + float(dz))

    def with_projection(self, projection: Projection) -> "Camera":
        return replace(self, projection=projection)

    def to_camera_frame(self, points: Coords, view: ViewName | str = "front") -> Coords:
        """Model coordinates -> the camera frame of ``view``: centre, then rotate into the view.

        Motions are not applied here: a motion is always given in the front camera frame and
        applied before the view turn (``misi_render.moved_front_frame``), so every view shows the
        same moved object.
        """
        return (np.asarray(points, dtype=np.float64) - self.center) @ view_rotation(view).T

    def project(self, cam_points: Coords) -> ScreenCoords:
        """Project camera-frame points (N, 3) to the screen."""
        q = np.atleast_2d(np.asarray(cam_points, dtype=np.float64))
        x, y, z = q[:, 0].copy(), q[:, 1].copy(), q[:, 2].copy()
        d = self.distance
        if self.projection == "orthographic":
            k = np.full(len(q), self.scale * self.magnification)
            in_front = np.ones(len(q), dtype=bool)
        else:
            gap = d - z
            in_front = gap > NEAR_CLIP
            k = self.scale * d / np.where(in_front, gap, np.inf)
        half = self.size / 2.0
        return ScreenCoords(
            x_px=half + x * k,
            y_px=half - y * k,
            x_A=x,
            y_A=y,
            depth=z,
            px_per_A=k,
            in_front=in_front,
        )

    def to_dict(self) -> dict:
        """JSON-friendly description (for dataset metadata)."""
        return {
            "center": [round(float(v), 6) for v in self.center],
            "radius": round(float(self.radius), 6),
            "size": int(self.size),
            "projection": self.projection,
            "fov_deg": float(self.fov_deg),
            "zoom_z": float(self.zoom_z),
            "distance": round(self.distance, 6),
            "scale_px_per_A": round(self.scale, 6),
        }


def fit_camera(
    points: Coords,
    size: int = 1024,
    *,
    center: FloatArray | None = None,
    pad: float = DEFAULT_PAD,
    projection: Projection = "orthographic",
    fov_deg: float = DEFAULT_FOV_DEG,
    min_radius: float = 2.0,
) -> Camera:
    """Fit a camera whose frame holds every point in every view and rotation about ``center``.

    ``center`` defaults to the centroid of ``points``; the radius is the largest distance from it,
    plus ``pad`` (a fraction), and never below ``min_radius`` Å.  Pass heavy-atom coordinates of
    the displayed complex.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(p) == 0:
        raise ValueError("cannot fit a camera to zero points")
    if not np.all(np.isfinite(p)):
        raise ValueError("cannot fit a camera to non-finite coordinates")
    c = p.mean(axis=0) if center is None else np.asarray(center, dtype=np.float64).reshape(3)
    r = float(np.sqrt(((p - c) ** 2).sum(axis=1)).max()) * (1.0 + pad)
    return Camera(center=c, radius=max(r, min_radius), size=int(size), projection=projection, fov_deg=fov_deg)
