"""Small JPEG copies of the dataset's PNGs for the gallery, each written once.

Every image gets two JPEGs named by a hash of its PNG bytes: a strip thumbnail (``-s.jpg``,
:data:`THUMB_PX` wide) and a page image (``-m.jpg``, :data:`VIEW_PX` wide, large enough to read
the residue and atom labels). A file that already exists is never decoded or written again, so an
image shared by several items costs one conversion and rebuilding a site converts only new images.
JPEG (quality 85) rather than WebP: Pillow encodes it about 10x faster, and the black background
with flat-shaded spheres compresses well either way (about 40 kB for a 512 px page image).

At 160 px every whole complex looks like the same hairball, so each item also gets a key thumbnail
(``-k.jpg``, :func:`write_key_thumb`): its key image cropped to the ligand and its contacts. The
ligand is found by its colour: its carbons are the only grey atoms (``#909090``, shaded), pocket
carbons are purple and orange; the light label text and its grey anti-aliased edges are masked out
first (every pixel within a few pixels of label-white), and of the grey pixels left only the cluster
around the densest spot counts (cells of 1/32 of the image, joined when they touch; stray highlights
elsewhere are dropped); the crop is the box holding the middle 96% of those pixels, grown by
:data:`CROP_MARGIN` on every side and made square (the whole image when no ligand pixel is found).
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

from PIL import Image

from misi_tasks._atomic import atomic_write_bytes

__all__ = ["CROP_MARGIN", "THUMB_PX", "VIEW_PX", "Thumb", "key_thumb_name", "ligand_box", "thumb_names",
           "write_key_thumb", "write_thumbs"]

#: Width of the strip thumbnails on the index and task pages, in pixels.
THUMB_PX = 160
#: Width of the images on the item pages, in pixels.
VIEW_PX = 512
_QUALITY = 85
#: Room around the ligand in a key thumbnail, as a fraction of the ligand box's larger side.
CROP_MARGIN = 0.15
_MIN_LIGAND_PX = 12


@dataclass(frozen=True)
class Thumb:
    """File names (relative to the image folder) of one image's two JPEGs and whether they were new."""

    small: str
    medium: str
    written: bool


def thumb_names(png: bytes) -> tuple[str, str]:
    """Return the (small, medium) file names of an image, from a hash of its bytes.

    >>> thumb_names(b"abc")[0]
    'a9993e364706816aba3e-s.jpg'
    """
    key = hashlib.sha1(png).hexdigest()[:20]
    return f"{key}-s.jpg", f"{key}-m.jpg"


def _save(image: Image.Image, path: Path) -> None:
    buf = io.BytesIO()
    image.save(buf, format="JPEG", quality=_QUALITY, optimize=False)
    atomic_write_bytes(path, buf.getvalue(), fsync=False)  # a half-written file is never taken for a finished one


def _shrink(image: Image.Image, width: int) -> Image.Image:
    """Scale down to ``width``: first by the largest integer box factor (``reduce``, about 4x faster
    than a resampling filter on a 1024 px image), then resample the rest if any."""
    if image.width <= width:
        return image
    factor = image.width // width
    if factor > 1:
        image = image.reduce(factor)
    if image.width > width:
        height = max(1, round(image.height * width / image.width))
        image = image.resize((width, height), Image.Resampling.BILINEAR)
    return image


def write_thumbs(png: bytes, folder: Path) -> Thumb:
    """Write the two JPEGs of one PNG into ``folder`` unless they are there already.

    Raises
    ------
    ValueError
        If ``png`` is not an image Pillow can read.
    """
    small, medium = thumb_names(png)
    if (folder / small).exists() and (folder / medium).exists():
        return Thumb(small, medium, False)
    try:
        im = Image.open(io.BytesIO(png))  # in memory: nothing to close
        im.load()
    except Exception as exc:  # Pillow raises several types for broken data
        raise ValueError(f"not a readable image ({exc})") from None
    page = _shrink(im if im.mode == "RGB" else im.convert("RGB"), VIEW_PX)
    _save(page, folder / medium)
    _save(_shrink(page, THUMB_PX), folder / small)
    return Thumb(small, medium, True)


def key_thumb_name(png: bytes) -> str:
    """File name of an image's key thumbnail (cropped to the ligand).

    >>> key_thumb_name(b"abc")
    'a9993e364706816aba3e-k.jpg'
    """
    return thumb_names(png)[0][:-6] + "-k.jpg"


def ligand_box(image: Image.Image) -> tuple[int, int, int, int]:
    """The square box (left, top, right, bottom) around the ligand's grey pixels, with margin, inside
    the image; the whole image when fewer than a dozen grey pixels are found.

    >>> im = Image.new("RGB", (100, 80))
    >>> im.paste((144, 144, 144), (60, 30, 70, 40))      # a grey ligand; elsewhere black
    >>> ligand_box(im)
    (58, 28, 71, 41)
    """
    import numpy as np

    rgb = np.asarray(image.convert("RGB"), dtype=np.int16)
    hi, lo = rgb.max(axis=2), rgb.min(axis=2)
    unsaturated = hi - lo <= 0.15 * hi
    label = unsaturated & (hi > 200)
    d = max(2, image.width // 256)                       # label edges: up to a few pixels from the text
    padded = np.pad(label, d)
    near_label = np.zeros_like(label)
    for dy in range(2 * d + 1):
        for dx in range(2 * d + 1):
            near_label |= padded[dy:dy + label.shape[0], dx:dx + label.shape[1]]
    grey = unsaturated & (hi >= 40) & (hi <= 200) & ~near_label
    ys, xs = _main_cluster(grey, max(4, image.width // 32))
    w, h = image.size
    if len(xs) < _MIN_LIGAND_PX:
        return 0, 0, w, h
    x0, x1 = np.percentile(xs, [2, 98])
    y0, y1 = np.percentile(ys, [2, 98])
    side = max(x1 - x0, y1 - y0) + 1
    side = min(max(w, h), round(side * (1 + 2 * CROP_MARGIN)))
    cx, cy = (x0 + x1 + 1) / 2, (y0 + y1 + 1) / 2
    left = int(min(max(0, round(cx - side / 2)), max(0, w - side)))
    top = int(min(max(0, round(cy - side / 2)), max(0, h - side)))
    return left, top, min(w, left + side), min(h, top + side)


def _main_cluster(mask, cell: int):
    """Coordinates (ys, xs) of the ``mask`` pixels in the group of touching ``cell``-sized cells
    around the cell holding the most of them."""
    import numpy as np

    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return ys, xs
    cy, cx = ys // cell, xs // cell
    counts: dict[tuple[int, int], int] = {}
    for key in zip(cy.tolist(), cx.tolist()):
        counts[key] = counts.get(key, 0) + 1
    seed = max(counts, key=lambda k: (counts[k], -k[0], -k[1]))
    keep, todo = {seed}, [seed]
    while todo:
        y, x = todo.pop()
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                nb = (y + dy, x + dx)
                if nb in counts and nb not in keep:
                    keep.add(nb)
                    todo.append(nb)
    inside = np.array([(a, b) in keep for a, b in zip(cy.tolist(), cx.tolist())])
    return ys[inside], xs[inside]


def write_key_thumb(png: bytes, folder: Path) -> tuple[str, bool]:
    """Write an image's key thumbnail (cropped to :func:`ligand_box`, :data:`THUMB_PX` wide) unless
    it is there; return its name and whether it was written.

    Raises
    ------
    ValueError
        If ``png`` is not an image Pillow can read.
    """
    name = key_thumb_name(png)
    if (folder / name).exists():
        return name, False
    try:
        im = Image.open(io.BytesIO(png))
        im.load()
    except Exception as exc:  # Pillow raises several types for broken data
        raise ValueError(f"not a readable image ({exc})") from None
    im = im if im.mode == "RGB" else im.convert("RGB")
    crop = im.crop(ligand_box(im))
    if crop.width < THUMB_PX:
        crop = crop.resize((THUMB_PX, max(1, round(crop.height * THUMB_PX / crop.width))), Image.Resampling.BICUBIC)
    _save(_shrink(crop, THUMB_PX), folder / name)
    return name, True
