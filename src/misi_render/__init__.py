"""misi_render: numba rasterizer for labelled ball-and-stick / space-filling molecule images.

:func:`render_views` turns a :class:`misi_geom.Complex` (any slice) into one
:class:`RenderedView` per view: a uint8 RGB image plus the screen coordinates and visibility of
every atom, computed from the same projection the pixels were drawn from.  The geometry layer says
what an image shows, in Å (:class:`misi_geom.CameraFrame`, :func:`misi_geom.fit_frame`); this
package owns the pixels: :class:`RenderOptions` (size, projection, style, labels) projects a frame
onto the screen (:class:`ScreenCoords`).

>>> from misi_render import RenderOptions, render_views, encode_png
>>> from misi_geom import Complex, fit_frame
>>> c = Complex.from_atoms([[0.0, 0, 0]], ["N"])
>>> view, = render_views(c, frame=fit_frame(c.coord), options=RenderOptions(size=32, ligand_labels=False))
>>> view.image.shape, bool(view.visible[0]), encode_png(view.image)[:4]
((32, 32, 3), True, b'\\x89PNG')
"""

from misi_render.palette import (
    BALL_SCALE,
    LIGAND_BALL_SCALE,
    LIGAND_STICK_RADIUS,
    STICK_RADIUS,
    atom_colors,
    atom_radii,
    element_color,
)
from misi_render.png import encode_png, save_png
from misi_render.options import RenderOptions, Style
from misi_render.render import RenderedView, moved_front_frame, render_views, warm_up
from misi_render.screen import Projection, ScreenCoords

__all__ = [
    "BALL_SCALE",
    "LIGAND_BALL_SCALE",
    "LIGAND_STICK_RADIUS",
    "Projection",
    "RenderOptions",
    "RenderedView",
    "ScreenCoords",
    "STICK_RADIUS",
    "Style",
    "atom_colors",
    "atom_radii",
    "element_color",
    "encode_png",
    "moved_front_frame",
    "render_views",
    "save_png",
    "warm_up",
]
