"""Camera frames: what a camera looks at, in Å (no pixels).

A :class:`CameraFrame` fixes the *camera frame* of an image: its origin (the rotation centre, in
model coordinates), its axes (X right, Y up, Z toward the viewer, turned by a canonical view), the
half-width of the centre plane it shows and how far the camera stands from that plane.
:meth:`CameraFrame.to_camera_frame` takes model coordinates there.  Pixels are the renderer's:
:class:`misi_render.RenderOptions` holds the image size and the projection and maps camera-frame
points to the screen, ``scale = size / (2 * radius)`` pixels per Å in the centre plane.

The camera sits at a nominal distance ``D = radius / sin(fov/2)`` from the centre (spec section 2,
as ChimeraX's ``view`` places it for a 30° field of view), with ``radius`` the bounding-sphere
radius of the complex plus a 5 % pad (:func:`fit_frame`).  Moving the scene ``d`` Å toward the
viewer (``move z d``, recorded as :attr:`CameraFrame.zoom_z`) magnifies an orthographic image by
``D / (D - d)``; a perspective image divides by each point's own distance to the camera instead.

>>> import numpy as np
>>> frame = fit_frame(np.array([[0.0, 0, 0], [10.0, 0, 0]]))
>>> bool(np.isclose(frame.radius, 5.0 * 1.05)), frame.center.tolist()
(True, [5.0, 0.0, 0.0])
>>> frame.to_camera_frame(np.array([[10.0, 0, 0]]), "left").round(6).tolist()
[[0.0, 0.0, -5.0]]
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from misi_geom._typing import Coords, FloatArray
from misi_geom.transform import ViewName, view_rotation

__all__ = ["CameraFrame", "fit_frame", "DEFAULT_PAD", "DEFAULT_FOV_DEG", "NEAR_CLIP"]

#: Fractional pad added to the bounding-sphere radius when fitting a frame.
DEFAULT_PAD = 0.05
#: Field of view that fixes the nominal camera distance (ChimeraX's default).
DEFAULT_FOV_DEG = 30.0
#: Nearest distance (Å) a point may come to the camera (perspective projection; zoom limit).
NEAR_CLIP = 1.0


@dataclass(frozen=True)
class CameraFrame:
    """What a square image shows, in Å: a camera looking down -Z of the camera frame.

    Parameters
    ----------
    center : (3,) float64
        Rotation centre in model coordinates (Å): the origin of the camera frame.
    radius : float
        Half the visible width (Å) of the centre plane at zoom 0.
    fov_deg : float
        Field of view that fixes the nominal distance ``D``.
    zoom_z : float
        How far (Å) the scene has been moved toward the viewer; orthographic magnification
        ``D / (D - zoom_z)``.  Perspective ignores it (it divides by each point's own depth).
    """

    center: FloatArray
    radius: float
    fov_deg: float = DEFAULT_FOV_DEG
    zoom_z: float = 0.0

    def __post_init__(self) -> None:
        c = np.array(self.center, dtype=np.float64).reshape(3)
        c.setflags(write=False)
        object.__setattr__(self, "center", c)
        if not np.isfinite(self.radius) or self.radius <= 0:
            raise ValueError(f"frame radius must be positive and finite, got {self.radius}")
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
    def magnification(self) -> float:
        """Orthographic magnification from :attr:`zoom_z`: ``D / (D - zoom_z)``."""
        return float(self.distance / (self.distance - self.zoom_z))

    def zoomed(self, dz: float) -> "CameraFrame":
        """Copy with the scene moved ``dz`` Å further toward the viewer."""
        return replace(self, zoom_z=self.zoom_z + float(dz))

    def widened(self, margin_A: float) -> "CameraFrame":
        """Copy whose radius is ``margin_A`` Å larger: what the frame held still lies inside it after
        a move of up to that much along x or y (T1, T5).  Same centre; the distance grows with it."""
        return self if margin_A <= 0 else replace(self, radius=self.radius + float(margin_A))

    def at_distance(self, distance_A: float) -> "CameraFrame":
        """Copy whose nominal distance is ``distance_A``: only the field of view changes (T3 states D
        to 0.1 Å and draws with exactly that D); centre, radius and so the scale are kept."""
        return replace(self, fov_deg=float(2.0 * np.degrees(np.arcsin(self.radius / distance_A))))

    def to_camera_frame(self, points: Coords, view: ViewName | str = "front") -> Coords:
        """Model coordinates -> the camera frame of ``view``: centre, then rotate into the view.

        Motions are not applied here: a motion is always given in the front camera frame and
        applied before the view turn (``misi_render.moved_front_frame``), so every view shows the
        same moved object.
        """
        return (np.asarray(points, dtype=np.float64) - self.center) @ view_rotation(view).T

    def to_dict(self) -> dict:
        """JSON-friendly description in Å (see :meth:`misi_render.RenderOptions.camera_dict` for the
        record with the image size, projection and scale)."""
        return {
            "center": [round(float(v), 6) for v in self.center],
            "radius": round(float(self.radius), 6),
            "fov_deg": float(self.fov_deg),
            "zoom_z": float(self.zoom_z),
            "distance": round(self.distance, 6),
        }


def fit_frame(
    points: Coords,
    *,
    center: FloatArray | None = None,
    pad: float = DEFAULT_PAD,
    fov_deg: float = DEFAULT_FOV_DEG,
    min_radius: float = 2.0,
) -> CameraFrame:
    """Fit a frame that holds every point in every view and rotation about ``center``.

    ``center`` defaults to the centroid of ``points``; the radius is the largest distance from it,
    plus ``pad`` (a fraction), and never below ``min_radius`` Å.  Pass heavy-atom coordinates of
    the displayed complex.
    """
    p = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    if len(p) == 0:
        raise ValueError("cannot fit a camera frame to zero points")
    if not np.all(np.isfinite(p)):
        raise ValueError("cannot fit a camera frame to non-finite coordinates")
    c = p.mean(axis=0) if center is None else np.asarray(center, dtype=np.float64).reshape(3)
    r = float(np.sqrt(((p - c) ** 2).sum(axis=1)).max()) * (1.0 + pad)
    return CameraFrame(center=c, radius=max(r, min_radius), fov_deg=fov_deg)
