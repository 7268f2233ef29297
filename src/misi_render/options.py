"""How images are drawn: one record of the renderer's options (pixels, projection, style, labels).

:class:`RenderOptions` is everything :func:`misi_render.render_views` needs besides *what* to draw
(a complex), *where from* (a :class:`misi_geom.CameraFrame`, in Å) and what a call is about (a
motion, the residue whose atoms are named, the key atoms).  A dataset run holds one; it also
turns a frame into pixels (:meth:`RenderOptions.project`, :meth:`RenderOptions.scale`) and
describes both for an item's metadata (:meth:`RenderOptions.camera_dict`).

>>> import numpy as np
>>> from misi_geom import fit_frame
>>> opts = RenderOptions(size=100)
>>> frame = fit_frame(np.array([[0.0, 0, 0], [10.0, 0, 0]]))
>>> round(opts.scale(frame), 4), opts.camera_dict(frame)["scale_px_per_A"]
(9.5238, 9.52381)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from misi_geom import CameraFrame
from misi_render.screen import Projection, ScreenCoords, pixel_scale, project

__all__ = ["RenderOptions", "Style"]

Style = Literal["ball-and-stick", "spacefill"]


@dataclass(frozen=True)
class RenderOptions:
    """How a complex is drawn: image size, projection, style and which labels.

    Parameters
    ----------
    size : int
        Image width = height in pixels (at least 8).
    projection : {"orthographic", "perspective"}
    style : {"ball-and-stick", "spacefill"}
    residue_labels, ligand_labels : bool
        Label pocket residues (``"ASN 460"``) / ligand atoms (atom names).
    residue_chain : bool, optional
        Residue labels carry the chain id (``"ASP 29 A"``).  None: when the drawn complex spans more
        than one chain; pass the whole pocket's answer when drawing a slice of it.
    """

    size: int = 1024
    projection: Projection = "orthographic"
    style: Style = "ball-and-stick"
    residue_labels: bool = True
    ligand_labels: bool = True
    residue_chain: bool | None = None

    def __post_init__(self) -> None:
        if int(self.size) != self.size or int(self.size) < 8:
            raise ValueError(f"image size must be an integer of at least 8 pixels, got {self.size}")
        object.__setattr__(self, "size", int(self.size))
        if self.projection not in ("orthographic", "perspective"):
            raise ValueError(f"projection must be 'orthographic' or 'perspective', got {self.projection!r}")
        if self.style not in ("ball-and-stick", "spacefill"):
            raise ValueError(f"style must be 'ball-and-stick' or 'spacefill', got {self.style!r}")

    def scale(self, frame: CameraFrame) -> float:
        """Pixels per Å in ``frame``'s centre plane at zoom 0."""
        return pixel_scale(frame, self.size)

    def project(self, frame: CameraFrame, cam_points: np.ndarray) -> ScreenCoords:
        """Screen coordinates of camera-frame points (N, 3), Å, of ``frame`` (:func:`misi_render.screen.project`)."""
        return project(frame, cam_points, self.size, self.projection)

    def in_image(self, screen: ScreenCoords) -> np.ndarray:
        """bool (N,): the projected point lies in front of the camera and inside the image."""
        s = self.size
        return screen.in_front & (screen.x_px >= 0) & (screen.x_px < s) & (screen.y_px >= 0) & (screen.y_px < s)

    def camera_dict(self, frame: CameraFrame) -> dict:
        """JSON-friendly description of the camera an image is drawn with: ``frame`` in Å, plus the
        image size, projection and scale (dataset metadata)."""
        return {**frame.to_dict(), "size": self.size, "projection": self.projection,
                "scale_px_per_A": round(self.scale(frame), 6)}

    def to_dict(self) -> dict:
        """The run-wide drawing settings (dataset metadata ``render``): size, projection, style."""
        return {"size": self.size, "projection": self.projection, "style": self.style}
