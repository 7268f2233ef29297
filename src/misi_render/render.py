"""``render_views``: labelled ball-and-stick / space-filling images of a complex, one per view.

Pipeline per view: model coordinates -> front camera frame (centred on the frame's centre) ->
the optional motion on the masked atoms, in that *front* frame -> the view rotation ->
:meth:`RenderOptions.project` (pixels) -> numba rasterizer (:mod:`misi_render._raster`) -> labels
(:mod:`misi_render.labels`).  The motion moves the 3-D object once, before any view turns it, so
every view of one call shows the same moved object (rotations do not commute: a motion applied in
each view's own screen axes would move the object differently in every view).  For the front view
the front frame *is* the screen frame, so ``move x 3`` there shifts the image 3 Å to the right.
The recorded :class:`RenderedView.screen` is the very projection the pixels were drawn from.

Drawing conventions: black background; hydrogens are never drawn and bonds touching them are
skipped; atoms behind a perspective camera are not drawn.  Lighting: ambient + Lambert diffuse from
the upper left front plus a small Blinn-Phong highlight, and a linear depth cue (far side 35 %
darker).  Antialiasing: analytic edge coverage with two depth layers per pixel (see
:mod:`misi_render._raster`).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from misi_geom import SE3, CameraFrame, Complex, fit_frame, view_rotation
from misi_render import labels as _labels
from misi_render import view_labels as _view_labels
from misi_render.options import RenderOptions, Style
from misi_render.screen import ScreenCoords
from misi_render._raster import rasterize, rasterize_parallel
from misi_render.palette import atom_colors, atom_radii, stick_radii
from misi_render.png import decode_png, encode_png

__all__ = ["RenderedView", "Style", "render_views", "moved_front_frame", "warm_up", "draw_scene", "lighting", "TILE", "parallel_default"]

#: Tile edge in pixels for the rasterizer.
TILE = 64


def parallel_default() -> bool:
    """Whether a draw that does not say uses the multi-threaded kernel: ``MISI_RENDER_PARALLEL=1``,
    read when asked (not at import, so a process's setting is what its environment says now).  Off
    by default: dataset generation parallelises over processes, and the single-threaded kernel
    needs no threading layer (safe with ``fork`` and concurrent Python threads).  Both give
    byte-identical images."""
    return os.environ.get("MISI_RENDER_PARALLEL", "0") == "1"

#: Lighting: ambient, diffuse and specular weights, Blinn-Phong exponent, light direction
#: (screen axes: x right, y down, z toward the viewer) and depth-cue strength.
AMBIENT, DIFFUSE, SPECULAR, SHININESS = 0.32, 0.72, 0.30, 40
LIGHT_DIR = (-0.35, -0.45, 0.82)
DEPTH_CUE = 0.35


class _BuiltOnRead:
    """Dataclass field descriptor: a :class:`misi_render.view_labels.DrawnLabels` given to the field is
    turned into a tuple (of PlacedLabel) the first time the field is read; a tuple is kept as is."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            return ()  # the field's default
        value = obj.__dict__[self.slot]
        if not isinstance(value, tuple):
            value = obj.__dict__[self.slot] = tuple(value)
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value


class _PixelsOnRead:
    """Dataclass field descriptor for :attr:`RenderedView.image`: the pixel array, or -- in a view
    made by :meth:`RenderedView.compact` -- its PNG bytes, decoded the first time the field is read
    (PNG is lossless, so the same pixels).  The field stays a required argument."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj, owner=None):
        if obj is None:
            raise AttributeError(self.slot[1:])  # no class-level default: the field stays required
        value = obj.__dict__[self.slot]
        if isinstance(value, bytes):
            value = obj.__dict__[self.slot] = decode_png(value)
        return value

    def __set__(self, obj, value) -> None:
        obj.__dict__[self.slot] = value


@dataclass(frozen=True, eq=False)
class RenderedView:
    """One rendered image and the numbers it was drawn from.

    Attributes
    ----------
    name : str
        View name (``"front"``, ...) or ``"custom"`` for a rotation matrix.
    image : ndarray, dtype=uint8, shape=(size, size, 3)
    screen : misi_render.ScreenCoords
        Projection of *all* atoms of the complex, aligned with its rows.
    visible : ndarray, dtype=bool, shape=(N,)
        Heavy atom drawn and owning its centre pixel (not occluded); False for hydrogens and
        off-screen atoms.
    frame : misi_geom.CameraFrame
        What the image shows, in Å.
    options : RenderOptions
        How it was drawn (size, projection, style, labels).
    view : ndarray, dtype=float64, shape=(3, 3)
        The view rotation, applied after the motion (see :func:`render_views`).
    labels : tuple of misi_render.labels.PlacedLabel
        Every label drawn, with its ink box in pixels (built from the label arrays when first read).
    """

    name: str
    image: np.ndarray = _PixelsOnRead()  # type: ignore[assignment]  # PNG bytes in a compact view
    screen: ScreenCoords
    visible: np.ndarray
    frame: CameraFrame
    options: RenderOptions
    view: np.ndarray
    labels: tuple = _BuiltOnRead()  # type: ignore[assignment]  # a DrawnLabels becomes a tuple on read

    @property
    def size(self) -> int:
        """Image width = height in pixels."""
        return self.options.size

    def label_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Every drawn label as arrays: ``(boxes (L, 4) float64, atom (L,) int64, kind (L,) int64)``
        (the atom each names, its kind an index into :data:`misi_render.labels.LABEL_KINDS`), in
        :attr:`labels` order, without building the :class:`~misi_render.labels.PlacedLabel` tuple."""
        value = self.__dict__["_labels"]
        if isinstance(value, tuple):
            kinds = {k: i for i, k in enumerate(_labels.LABEL_KINDS)}
            return (np.array([p.box for p in value], dtype=np.float64).reshape(-1, 4),
                    np.array([p.atom for p in value], dtype=np.int64),
                    np.array([kinds.get(p.kind, -1) for p in value], dtype=np.int64))
        return value.arrays()

    @property
    def scale(self) -> float:
        """Pixels per Å in the frame's centre plane at zoom 0."""
        return self.options.scale(self.frame)

    def png_bytes(self) -> bytes:
        """The image encoded as PNG (see :func:`misi_render.encode_png`)."""
        value = self.__dict__["_image"]
        return value if isinstance(value, bytes) else encode_png(value)

    def compact(self, png: bytes | None = None) -> RenderedView:
        """This view holding its image as PNG bytes (``png``, which must be :meth:`png_bytes`;
        encoded here if not given): ~12x less memory at 1024 px, for a view kept for its numbers
        (screen coordinates, visibility, labels).  Reading :attr:`image` decodes the same pixels."""
        from dataclasses import replace

        return replace(self, image=self.png_bytes() if png is None else png)


def lighting() -> np.ndarray:
    """Lighting parameters for the kernel: ambient, diffuse, specular, shininess, L (3), H (3).

    Returns
    -------
    ndarray, dtype=float64, shape=(10,)
    """
    light = np.asarray(LIGHT_DIR, dtype=np.float64)
    light = light / np.linalg.norm(light)
    half = light + np.array([0.0, 0.0, 1.0])
    half = half / np.linalg.norm(half)
    return np.concatenate([[AMBIENT, DIFFUSE, SPECULAR, float(SHININESS)], light, half])


@dataclass(frozen=True)
class _Scene:
    """Per-complex drawing arrays shared by all views."""

    drawn: np.ndarray  # bool (N,): heavy atoms
    rgb: np.ndarray  # float64 (N, 3)
    radius_A: np.ndarray  # float64 (N,)
    bonds: np.ndarray  # int64 (B, 2), heavy-heavy
    stick_A: np.ndarray  # float64 (B,)


def _prepare(c: Complex, style: str) -> _Scene:
    radius = atom_radii(c, style)
    drawn = ~c.is_hydrogen & np.all(np.isfinite(c.coord), axis=1)
    if style == "ball-and-stick" and len(c.bonds):
        b = c.bonds.astype(np.int64)
        b = b[drawn[b[:, 0]] & drawn[b[:, 1]] & (b[:, 0] != b[:, 1])]
    else:
        b = np.zeros((0, 2), dtype=np.int64)
    return _Scene(drawn, np.ascontiguousarray(atom_colors(c)), radius, np.ascontiguousarray(b), stick_radii(c, b))


def draw_scene(
    scene: _Scene, screen: ScreenCoords, frame: CameraFrame, options: RenderOptions, parallel: bool | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Rasterize one projected scene; returns ``(image uint8 (size, size, 3), visible bool (N,))``.

    ``screen`` is ``options.project(frame, ...)``; ``frame`` and ``options`` also fix the depth-cue
    range.  ``parallel`` picks the multi-threaded kernel (default :func:`parallel_default`); the pixels are
    the same.
    """
    size = options.size
    k = screen.px_per_A
    drawn = scene.drawn & screen.in_front & np.isfinite(k)
    cx = np.ascontiguousarray(screen.x_px, dtype=np.float64)
    cy = np.ascontiguousarray(screen.y_px, dtype=np.float64)
    kk = np.where(drawn, k, 0.0)
    cz = np.ascontiguousarray(np.where(drawn, screen.depth * kk, 0.0))
    rad = np.ascontiguousarray(np.where(drawn, scene.radius_A * kk, 0.0))
    keep = drawn[scene.bonds[:, 0]] & drawn[scene.bonds[:, 1]]
    b = scene.bonds[keep]
    bond_a = np.ascontiguousarray(b[:, 0])
    bond_b = np.ascontiguousarray(b[:, 1])
    bond_r = np.ascontiguousarray(scene.stick_A[keep] * 0.5 * (kk[bond_a] + kk[bond_b]))
    k_ref = options.scale(frame) * (frame.magnification if options.projection == "orthographic" else 1.0)
    z_near, z_far = frame.radius * k_ref, -frame.radius * k_ref
    image = np.zeros((size, size, 3), dtype=np.uint8)
    visible = np.zeros(len(cx), dtype=np.bool_)
    kernel = rasterize_parallel if (parallel_default() if parallel is None else parallel) else rasterize
    kernel(size, TILE, cx, cy, cz, rad, scene.rgb, bond_a, bond_b, bond_r,
              lighting(), float(z_near), float(z_far), DEPTH_CUE, image, visible)  # fmt: skip
    return image, visible & drawn


def _resolve_view(view) -> tuple[str, np.ndarray]:
    if isinstance(view, str):
        return view.lower(), view_rotation(view)
    r = np.asarray(view, dtype=np.float64)
    if r.shape != (3, 3) or not np.all(np.isfinite(r)):
        raise ValueError(f"a view must be a view name or a 3x3 rotation matrix, got shape {r.shape}")
    if not np.allclose(r @ r.T, np.eye(3), atol=1e-6) or np.linalg.det(r) < 0:
        raise ValueError("a view matrix must be a proper rotation (orthonormal, determinant +1)")
    return "custom", r.copy()


def render_views(
    complex: Complex,
    views: Sequence[str | np.ndarray] = ("front",),
    *,
    frame: CameraFrame | None = None,
    options: RenderOptions = RenderOptions(),
    motion: SE3 | None = None,
    motion_mask: np.ndarray | None = None,
    atom_label_residue: int | None = None,
    key_atoms: np.ndarray | None = None,
) -> list[RenderedView]:
    """Render a complex (any slice) from one or more views.

    *Where from* is ``frame`` (Å, geometry), *how* is ``options`` (pixels, projection, style,
    labels); the remaining arguments say what this call is about.

    Parameters
    ----------
    complex : misi_geom.Complex
        Atoms to draw; hydrogens are kept in the outputs but never drawn.
    views : sequence of str or (3, 3) arrays
        View names (``"front"``, ``"left"``, ``"top"``, ``"back"``, ``"right"``, ``"bottom"``) or
        rotation matrices applied to the centred model coordinates before projection.
    frame : misi_geom.CameraFrame, optional
        Default: :func:`misi_geom.fit_frame` on the heavy-atom coordinates.
    options : RenderOptions
        Image size, projection, style and labels (default: 1024 px, orthographic, ball-and-stick,
        residue and ligand labels, chain ids when the complex spans several chains).
    motion : misi_geom.SE3, optional
        Rigid motion of the masked atoms in the **front camera frame** (model axes, origin at the
        frame's centre; X right, Y up, Z toward the viewer of the front view), applied *before*
        the view rotation.  Every view then shows the one moved 3-D object: the left view of a
        moved ligand is the front-frame moved ligand turned +90° about Y.  (The motion is never
        in a side view's own screen axes.)
    motion_mask : ndarray, dtype=bool, shape=(N,), optional
        Atoms the motion applies to (default all).
    atom_label_residue : int, optional
        ``res_index`` of a residue whose heavy atoms get atom-name labels.
    key_atoms : ndarray, dtype=bool, shape=(N,), optional
        The atoms a question is about: their labels are placed first, and any other label that
        would cover one of them (its drawn disc) is left out.

    Returns
    -------
    list of RenderedView
        One per view, in order.

    Examples
    --------
    >>> from misi_geom import Complex
    >>> c = Complex.from_atoms([[0.0, 0, 0], [1.4, 0, 0]], ["C", "O"], bonds=[(0, 1)])
    >>> out = render_views(c, ("front", "left"), options=RenderOptions(size=64, ligand_labels=False))
    >>> [v.name for v in out], out[0].image.shape, out[0].visible.tolist()
    (['front', 'left'], (64, 64, 3), [True, True])
    """
    if not isinstance(complex, Complex):
        raise TypeError(f"render_views expects a misi_geom.Complex, got {type(complex).__name__}")
    if not isinstance(options, RenderOptions):
        raise TypeError(f"options must be a misi_render.RenderOptions, got {type(options).__name__}")
    if isinstance(views, str) or (isinstance(views, np.ndarray) and views.shape == (3, 3)):
        views = [views]
    resolved = [_resolve_view(v) for v in views]
    n = len(complex)
    heavy = ~complex.is_hydrogen
    if not heavy.any():
        raise ValueError("nothing to draw: the complex has no heavy atoms")
    if not np.all(np.isfinite(complex.coord[heavy])):
        raise ValueError("cannot draw atoms with non-finite coordinates")
    if frame is None:
        frame = fit_frame(complex.coord[heavy])
    if motion_mask is not None:
        motion_mask = np.asarray(motion_mask)
        if motion_mask.dtype != np.bool_ or motion_mask.shape != (n,):
            raise ValueError(f"motion_mask must be a bool array of shape ({n},), got {motion_mask.dtype} {motion_mask.shape}")
    if atom_label_residue is not None and not np.any(complex.res_index == atom_label_residue):
        raise ValueError(f"atom_label_residue {atom_label_residue} is not a res_index of this complex")
    if key_atoms is not None:
        key_atoms = np.asarray(key_atoms)
        if key_atoms.dtype != np.bool_ or key_atoms.shape != (n,):
            raise ValueError(f"key_atoms must be a bool array of shape ({n},), got {key_atoms.dtype} {key_atoms.shape}")
    residue_chain = options.residue_chain
    if residue_chain is None:
        residue_chain = _labels.pocket_has_chains(complex)
    label_opts = dict(residue_labels=options.residue_labels, ligand_labels=options.ligand_labels,
                      atom_label_residue=atom_label_residue, residue_chain=bool(residue_chain), key_atoms=key_atoms)
    scene = _prepare(complex, options.style)
    front = moved_front_frame(complex.coord, frame, motion, motion_mask)
    out = []
    for name, rot in resolved:
        screen = options.project(frame, front @ rot.T)
        image, visible = draw_scene(scene, screen, frame, options)
        placed: tuple | _view_labels.DrawnLabels = ()
        if options.residue_labels or options.ligand_labels or atom_label_residue is not None:
            image, placed = _draw_view_labels(complex, scene, screen, visible, options.size, image, **label_opts)
        image.setflags(write=False)
        visible.setflags(write=False)
        out.append(RenderedView(name, image, screen, visible, frame, options, rot, placed))
    return out


def moved_front_frame(
    coord: np.ndarray, frame: CameraFrame, motion: SE3 | None = None, motion_mask: np.ndarray | None = None
) -> np.ndarray:
    """Front-camera-frame coordinates (Å) after ``motion`` of the ``motion_mask`` atoms.

    This is the one 3-D state that every view of :func:`render_views` turns and projects:
    a view's camera-frame coordinates are ``moved_front_frame(...) @ view_rotation(view).T``.

    Returns
    -------
    ndarray, dtype=float64, shape=(N, 3)
    """
    pts = np.asarray(coord, dtype=np.float64) - frame.center
    if motion is None:
        return pts
    if motion_mask is None:
        return motion.apply(pts)
    pts = pts.copy()
    pts[motion_mask] = motion.apply(pts[motion_mask])
    return pts


def _draw_view_labels(c, scene, screen, visible, size, image, *, atom_label_residue, key_atoms, **opts):
    """Label one view into ``image`` (in place); returns ``(image, placed labels)`` (a
    :class:`misi_render.view_labels.DrawnLabels`, or ``()``)."""
    k = screen.px_per_A
    if not np.isfinite(k).all():  # never for checked input (behind the camera k is 0); saves ~5 us
        k = np.nan_to_num(k)
    radius_px = np.where(scene.drawn, scene.radius_A * k, 0.0)
    placed = _view_labels.label_view(c, screen, visible, scene.drawn, radius_px, size, image,
                                     atom_label_residue=atom_label_residue, key_atoms=key_atoms, **opts)
    return image, placed


def warm_up() -> None:
    """Load (or, on a cold cache, compile) every numba kernel by drawing a tiny labelled scene.

    Call once per worker process before timing-sensitive work; rendering calls it implicitly.
    """
    c = Complex.from_atoms(
        np.array([[0.0, 0.0, 0.0], [1.4, 0.0, 0.0], [2.0, 1.2, 0.0]]), ["C", "N", "O"],
        bonds=[(0, 1), (1, 2)], is_ligand=[False, False, True], res_index=[0, 0, 1],
    )  # fmt: skip
    options = RenderOptions(size=32)
    for parallel in (False, True) if parallel_default() else (False,):
        render_views(c, ("front",), options=options)
        scene = _prepare(c, "ball-and-stick")
        frame = fit_frame(c.coord)
        draw_scene(scene, options.project(frame, frame.to_camera_frame(c.coord)), frame, options, parallel=parallel)
