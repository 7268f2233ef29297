"""Finding atoms in the pixels by their colour: the audit's eyes.

An atom is *seen* at its projected centre when the pixel there has the atom's colour.  Colours are
the spec's (section 2): O red, N blue, ligand C grey, pocket-residue C alternating purple and orange
between neighbouring residues, other elements their Jmol CPK colour; the background is black.
Shading (lighting, depth cue, antialiasing against the black background) scales a colour, so a
pixel is compared by its *chromaticity*, the colour divided by its brightest channel.  A pixel's
colour class (:func:`classify`, through a lookup table) is :data:`DARK_CLASS` when too dark to
tell, the index of the nearest palette colour within :data:`TOLERANCE`, or :data:`OTHER_CLASS`
(label text, mixed edges); :func:`class_map` decodes an image into :class:`Pixels`, its map of
colour classes.  Labels and sticks cover some centres, so checks
compare fractions of atoms seen, never single pixels.

>>> import numpy as np
>>> img = np.zeros((4, 4, 3), np.uint8); img[1, 2] = (200, 8, 8)   # a shaded oxygen at x=2, y=1
>>> cls = Pixels(img)
>>> seen(cls, np.array([2.5, 0.5]), np.array([1.5, 1.5]), atom_classes(["O", "O"], [True, True], [0, 0])).tolist()
[True, False]
"""

from __future__ import annotations

import io
import struct

import numpy as np
from PIL import Image
from zlib_ng import zlib_ng

__all__ = ["Pixels", "class_map", "classify", "atom_classes", "ball_radii", "seen", "seen_fraction", "unhidden", "in_image",
           "clamp",
           "DARK_CLASS", "OTHER_CLASS", "UNKNOWN"]

_HEX = {  # spec section 2, Jmol CPK for the elements of proteins, ligands and common ions
    "O": "FF0D0D", "N": "3050F8", "S": "FFFF30", "P": "FF8000", "F": "90E050", "Cl": "1FF01F",
    "Br": "A62929", "I": "940094", "B": "FFB5B5", "Se": "FFA100", "Mg": "8AFF00", "Ca": "3DFF00",
    "Fe": "E06633", "Na": "AB5CF2", "K": "8F40D4", "Co": "F090A0", "Ni": "50D050",
}  # Zn, Mn, Cu, Cd and Hg are left out: their chromaticities lie within 0.2 of a carbon colour's
#: Palette entries: elements, then ligand carbon, pocket carbon of even and of odd residues.
_NAMES = list(_HEX) + ["C ligand", "C even", "C odd"]
_RGB = np.array([[int(h[i:i + 2], 16) for i in (0, 2, 4)] for h in list(_HEX.values()) + ["909090", "BF99F2", "F2B366"]],
                dtype=np.float64)
_CHROMA = (_RGB / _RGB.max(axis=1, keepdims=True)).astype(np.float32)
#: Van der Waals radii (Å, Bondi) for ball sizes; others 1.8.
_VDW = {"C": 1.70, "N": 1.55, "O": 1.52, "S": 1.80, "P": 1.80, "F": 1.47, "Cl": 1.75, "Br": 1.85, "I": 1.98}
#: A pixel whose brightest channel is below this (0-255) shows nothing that can be told apart.
DARK = 40
#: Largest chromaticity distance at which a pixel still shows a palette colour.
TOLERANCE = 0.16
#: Most white (0-255 per channel) a highlight adds to a ball's colour that is taken back out.
HIGHLIGHT = 60.0
DARK_CLASS, OTHER_CLASS, UNKNOWN = -1, -2, -3


def _lookup_table() -> np.ndarray:
    """Class of every colour quantised to 5 bits per channel (the centre of its cell).

    A specular highlight adds white to a ball's colour, so a cell also matches a palette colour
    after taking up to :data:`HIGHLIGHT` of white back out of it (a pure shade is the case of none).
    """
    q = (np.arange(32) * 8 + 4).astype(np.float32)
    r, g, b = np.meshgrid(q, q, q, indexing="ij")
    rgb = np.stack([r, g, b], axis=-1).reshape(-1, 3)
    best = np.full((len(rgb), len(_CHROMA)), np.inf, dtype=np.float32)
    for white in np.linspace(0.0, HIGHLIGHT, 5):
        base = rgb - white
        top = base.max(axis=1)
        ok = (base.min(axis=1) >= -4.0) & (top >= DARK / 2)  # that much white was there to take out
        rel = base / np.maximum(top, 1.0)[:, None]
        d = np.sqrt(((rel[:, None, :] - _CHROMA[None]) ** 2).sum(axis=-1))
        best = np.where(ok[:, None], np.minimum(best, d), best)
    out = np.where(best.min(axis=1) <= TOLERANCE, best.argmin(axis=1), OTHER_CLASS)
    return np.where(rgb.max(axis=1) < DARK, DARK_CLASS, out).astype(np.int8)


_LUT = _lookup_table()


def classify(image: np.ndarray) -> np.ndarray:
    """uint8 (H, W, 3) -> int8 (H, W) colour classes (see the module docs)."""
    q = image >> 3  # 5 bits per channel: the lookup table's cell
    idx = q[..., 0].astype(np.uint16)
    idx <<= 5
    idx |= q[..., 1]
    idx <<= 5
    idx |= q[..., 2]
    return _LUT.take(idx)


class Pixels:
    """A decoded image as its colour classes (:func:`classify`), one int8 per pixel: checks read
    the classes at atom centres, along outlines or on strided grids (:meth:`at`, :meth:`strided`)."""

    def __init__(self, rgb: np.ndarray | None = None, *, classes: np.ndarray | None = None) -> None:
        if (rgb is None) == (classes is None):
            raise ValueError("Pixels takes either rgb or classes")
        self._classes = classify(rgb) if classes is None else classes
        self.shape = tuple(self._classes.shape)
        #: Results of :func:`misi_tasks.audit.views.view_seen` on this image, by camera, view and pose.
        self.seen: dict[tuple, float] = {}

    @property
    def classes(self) -> np.ndarray:
        """int8 (H, W) colour classes of every pixel."""
        return self._classes

    @property
    def nbytes(self) -> int:
        """Memory the class map holds (the audit's image cache is bounded by it)."""
        return int(self._classes.nbytes)

    def at(self, yi: np.ndarray, xi: np.ndarray) -> np.ndarray:
        """Classes of the pixels (row ``yi``, column ``xi``, inside the image), any matching shapes."""
        return self._classes[yi, xi]

    def strided(self, stride: int) -> np.ndarray:
        """The class map of every ``stride``-th row and column (from row and column ``stride // 2``)."""
        return self._classes[stride // 2::stride, stride // 2::stride]


def _png_rows(data: bytes) -> tuple[np.ndarray, int, int] | None:
    """(the filtered scanlines, height, width) of an 8-bit RGB, non-interlaced PNG whose rows all use
    the "Up" filter (as misi writes them; the first row may say None, which for the first row is the
    same thing), else None."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return None
    pos, idat, head = 8, [], None
    while pos + 8 <= len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", data[pos + 8:pos + 8 + n])
        elif kind == b"IDAT":
            idat.append(data[pos + 8:pos + 8 + n])
        elif kind == b"IEND":
            break
        pos += 12 + n
    if head is None or head[2:] != (8, 2, 0, 0, 0):
        return None
    w, h = head[0], head[1]
    size = h * (3 * w + 1)
    try:  # the exact output size: inflating into one buffer is ~3x faster than growing it
        raw = zlib_ng.decompress(b"".join(idat), bufsize=size)
    except zlib_ng.error:
        return None
    if len(raw) != size:
        return None
    rows = np.frombuffer(raw, dtype=np.uint8).reshape(h, 3 * w + 1)
    if rows[0, 0] not in (0, 2) or not np.all(rows[1:, 0] == 2):
        return None
    return rows[:, 1:], h, w


def _up_sum(filtered: np.ndarray, block: int = 16) -> np.ndarray:
    """Undo the Up filter: each byte plus every byte above it, modulo 256 (a new array).  Blocked, to
    touch the bytes about three times instead of once per row in Python or log2(rows) times: a
    running sum down each block of ``block`` rows, the blocks' last rows summed, each block plus the
    total of the blocks above it."""
    rows, cols = filtered.shape
    n = -(-rows // block)
    buf = np.zeros((n * block, cols), dtype=np.uint8)
    buf[:rows] = filtered
    v = buf.reshape(n, block, cols)
    for i in range(1, block):
        np.add(v[:, i], v[:, i - 1], out=v[:, i])
    carry = v[:, block - 1].copy()
    for j in range(1, n):
        np.add(carry[j], carry[j - 1], out=carry[j])
    v[1:] += carry[:-1, None, :]
    return buf[:rows]


def _fast_pixels(data: bytes) -> Pixels | None:
    """A PNG as misi writes it (:func:`_png_rows`) as :class:`Pixels`, else None.

    Most of a molecule image is black: with the Up filter a scanline that repeats the one above is
    all zeros, so only the band of rows and columns holding a non-zero filtered byte is unfiltered
    (a running sum down the rows, :func:`_up_sum`) and classified; the rows above it are black, the
    rows below repeat its last row, the columns beside it are black.
    """
    got = _png_rows(data)
    if got is None:
        return None
    rows, h, w = got
    classes = np.full((h, w), DARK_CLASS, dtype=np.int8)
    lit_rows = np.flatnonzero(rows.max(axis=1))  # max: faster than any on uint8
    if len(lit_rows):
        r0, r1 = int(lit_rows[0]), int(lit_rows[-1]) + 1
        lit_cols = np.flatnonzero(rows[r0:r1].max(axis=0))
        c0, c1 = int(lit_cols[0]) // 3, int(lit_cols[-1]) // 3 + 1  # pixel columns
        band = classify(_up_sum(rows[r0:r1, 3 * c0:3 * c1]).reshape(r1 - r0, c1 - c0, 3))
        classes[r0:r1, c0:c1] = band
        classes[r1:, c0:c1] = band[-1]
    return Pixels(classes=classes)


def class_map(data: bytes) -> Pixels:
    """PNG bytes -> :class:`Pixels` (an audit decodes each image once through
    :class:`misi_tasks.audit.views.AuditCache`)."""
    got = _fast_pixels(data)
    if got is None:
        with Image.open(io.BytesIO(data)) as im:
            return Pixels(np.asarray(im if im.mode == "RGB" else im.convert("RGB")))
    return got


def _canon(e: str) -> str:
    e = str(e).strip()
    return e[:1].upper() + e[1:].lower()


def atom_classes(elements, is_ligand, res_index) -> np.ndarray:
    """Expected colour class of each atom (:data:`UNKNOWN` for an element without a known colour)."""
    out = np.full(len(elements), UNKNOWN, dtype=np.int8)
    for i, (e, lig, r) in enumerate(zip(elements, is_ligand, res_index)):
        e = _canon(e)
        name = ("C ligand" if lig else ("C even" if int(r) % 2 == 0 else "C odd")) if e == "C" else e
        if name in _NAMES:
            out[i] = _NAMES.index(name)
    return out


def ball_radii(elements, is_ligand, style: str) -> np.ndarray:
    """Drawn ball radii (Å): ball-and-stick 0.25 (pocket) / 0.30 (ligand) of the vdW radius; spacefill all of it."""
    vdw = np.array([_VDW.get(_canon(e), 1.8) for e in elements])
    if style == "spacefill":
        return vdw
    return vdw * np.where(np.asarray(is_ligand, dtype=bool), 0.30, 0.25)


def in_image(x_px: np.ndarray, y_px: np.ndarray, size: int, margin: float = 0.0) -> np.ndarray:
    """bool: the projected centre lies inside the image (``margin`` px from its edges)."""
    return (x_px >= margin) & (x_px < size - margin) & (y_px >= margin) & (y_px < size - margin)


def clamp(i: np.ndarray, top: int) -> np.ndarray:
    """Integer pixel indices clamped to 0..``top`` in place (``np.clip`` without its wrapper's cost)."""
    np.maximum(i, 0, out=i)
    return np.minimum(i, top, out=i)


def seen(classes: np.ndarray, x_px: np.ndarray, y_px: np.ndarray, atom_cls: np.ndarray) -> np.ndarray:
    """bool: the pixel under each projected centre has that atom's colour (False off-image or unknown).

    ``x_px``, ``y_px`` may have any leading shape (candidate poses x atoms); ``atom_cls`` is per atom.
    """
    h, w = classes.shape
    xi = np.floor(x_px).astype(np.int64)
    yi = np.floor(y_px).astype(np.int64)
    inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
    yi, xi = clamp(yi, h - 1), clamp(xi, w - 1)
    got = classes.at(yi, xi) if isinstance(classes, Pixels) else classes[yi, xi]
    return inside & (got == atom_cls) & (atom_cls >= 0)


def seen_fraction(classes: np.ndarray, x_px: np.ndarray, y_px: np.ndarray, atom_cls: np.ndarray,
                  counted: np.ndarray | None = None) -> float:
    """Fraction of the ``counted`` atoms (default all) with a known colour inside the image that are seen."""
    base = (atom_cls >= 0) & in_image(x_px, y_px, classes.shape[1])
    if counted is not None:
        base = base & counted
    return float((seen(classes, x_px, y_px, atom_cls) & base).sum() / max(int(base.sum()), 1))


def unhidden(x_px: np.ndarray, y_px: np.ndarray, depth_px: np.ndarray, radius_px: np.ndarray) -> np.ndarray:
    """bool (N,): no other ball's surface lies in front of this atom's own front point (the audit's own
    occlusion test: balls as spheres, all in pixels, depth growing toward the viewer; sticks, thinner
    than the balls, are ignored)."""
    from scipy.spatial import cKDTree

    n = len(x_px)
    xy = np.column_stack([x_px, y_px])
    pairs = cKDTree(xy).query_pairs(float(radius_px.max(initial=0.0)), output_type="ndarray")
    i = np.concatenate([pairs[:, 0], pairs[:, 1]])  # the covered atom
    j = np.concatenate([pairs[:, 1], pairs[:, 0]])  # the ball that may cover it
    d2 = ((xy[i] - xy[j]) ** 2).sum(axis=1)
    r2 = radius_px[j] ** 2
    surface = depth_px[j] + np.sqrt(np.maximum(r2 - d2, 0.0))  # ball j's front surface over atom i
    covers = (d2 < r2) & (surface > depth_px[i] + radius_px[i] + 0.5)
    out = np.ones(n, dtype=bool)
    out[i[covers]] = False
    return out
