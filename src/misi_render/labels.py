"""Text labels: choose what to label, place labels without overlaps, draw them with Pillow.

Labels (spec section 2): each pocket residue ``"ASN 460"`` next to one of its visible atoms, each
visible ligand heavy atom by its atom name, and optionally every visible heavy atom of one chosen
residue by its atom name.  Only atoms flagged visible by the rasterizer get labels, so a label never
points at an atom hidden behind another one.

Placement is greedy and deterministic: labels are placed in priority order (chosen-residue atoms,
ligand atoms, residues); each tries candidate boxes around its anchor on three rings (right, left,
above, below, diagonals), shifted into the frame, and takes the first with no overlap with earlier
labels and covering the fewest ligand atoms; if none is free, the least-overlapping one.  Text is
the bundled DejaVu Sans Bold, light coloured with a black outline, sized in proportion to the image
(:func:`font_px`; 17 px residue labels at 1024 px).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from misi_geom import Complex, ScreenCoords

__all__ = ["Label", "font_path", "font_px", "get_font", "label_requests", "place_labels", "draw_labels"]

RESIDUE_FILL = (255, 255, 255)
LIGAND_FILL = (255, 236, 140)
ATOM_FILL = (160, 232, 255)
OUTLINE = (0, 0, 0)

_RESIDUE_FRACTION = 0.0165  # residue label height / image size
_ATOM_FRACTION = 0.0135  # atom-name label height / image size


@dataclass(frozen=True)
class Label:
    """One label: ``text`` drawn with its ink box's top-left corner at ``(left, top)`` (pixels).

    ``anchor`` is the pixel position of the atom it names and ``gap`` the clearance kept from it.
    """

    text: str
    anchor: tuple[float, float]
    gap: float
    font_px: int
    fill: tuple[int, int, int]
    left: float = 0.0
    top: float = 0.0


def font_path() -> str:
    """Path of the bundled TrueType font (DejaVu Sans Bold, Bitstream Vera licence in ``fonts/``)."""
    return str(resources.files("misi_render").joinpath("fonts", "DejaVuSans-Bold.ttf"))


def font_px(size: int, kind: str = "residue") -> int:
    """Font size in pixels for an image of ``size`` pixels; ``kind`` is ``"residue"`` or ``"atom"``."""
    if kind == "residue":
        return max(8, int(round(size * _RESIDUE_FRACTION)))
    return max(7, int(round(size * _ATOM_FRACTION)))


@lru_cache(maxsize=32)
def get_font(px: int) -> ImageFont.FreeTypeFont:
    """The bundled font at ``px`` pixels (cached)."""
    return ImageFont.truetype(font_path(), int(px))


def _stroke(px: int) -> int:
    return max(1, int(round(px * 0.12)))


@lru_cache(maxsize=4096)
def _ink_box(text: str, px: int) -> tuple[int, int, int, int]:
    return get_font(px).getbbox(text, stroke_width=_stroke(px))


def label_requests(
    c: Complex,
    screen: ScreenCoords,
    visible: np.ndarray,
    radius_px: np.ndarray,
    size: int,
    *,
    residue_labels: bool = True,
    ligand_labels: bool = True,
    atom_label_residue: int | None = None,
) -> list[Label]:
    """Unplaced labels for the visible atoms of one view, in placement priority order."""
    out: list[Label] = []
    gap = radius_px + max(2.0, size / 512.0)
    atom_px, res_px = font_px(size, "atom"), font_px(size, "residue")
    if atom_label_residue is not None:
        for i in np.flatnonzero(visible & (c.res_index == atom_label_residue)):
            out.append(Label(str(c.atom_name[i]), (screen.x_px[i], screen.y_px[i]), gap[i], atom_px, ATOM_FILL))
    if ligand_labels:
        for i in np.flatnonzero(visible & c.is_ligand):
            if atom_label_residue is not None and c.res_index[i] == atom_label_residue:
                continue
            out.append(Label(str(c.atom_name[i]), (screen.x_px[i], screen.y_px[i]), gap[i], atom_px, LIGAND_FILL))
    if residue_labels:
        for res in c.residues():
            if res.is_ligand:
                continue
            idx = np.arange(res.start, res.stop)[visible[res.start : res.stop]]
            if len(idx) == 0:
                continue
            xy = np.column_stack([screen.x_px[idx], screen.y_px[idx]])
            centre = xy.mean(axis=0)
            k = int(np.argmin(((xy - centre) ** 2).sum(axis=1)))
            i = idx[k]
            out.append(Label(res.label, (screen.x_px[i], screen.y_px[i]), gap[i], res_px, RESIDUE_FILL))
    return out


def _candidates(lab: Label, w: float, h: float, size: int) -> np.ndarray:
    """Candidate (left, top) corners around the anchor, nearest ring first, clamped into the frame."""
    x, y = lab.anchor
    rows = []
    for ring in range(3):
        g = lab.gap + ring * (h + 2.0)
        d = 0.7071 * g
        rows += [
            (x + g, y - h / 2), (x - g - w, y - h / 2), (x - w / 2, y - g - h), (x - w / 2, y + g),
            (x + d, y - d - h), (x + d, y + d), (x - d - w, y - d - h), (x - d - w, y + d),
        ]  # fmt: skip
    cand = np.array(rows, dtype=np.float64)
    cand[:, 0] = np.clip(cand[:, 0], 0.0, max(0.0, size - w))
    cand[:, 1] = np.clip(cand[:, 1], 0.0, max(0.0, size - h))
    return cand


def place_labels(labels: list[Label], size: int, obstacles: np.ndarray | None = None) -> list[Label]:
    """Give every label a position inside the frame, nudged away from earlier labels.

    Parameters
    ----------
    labels : list of Label
        In priority order (earlier labels claim space first).
    size : int
        Image size in pixels.
    obstacles : ndarray, shape=(K, 2), optional
        Pixel positions labels should avoid covering (e.g. visible ligand atoms).
    """
    obstacles = np.zeros((0, 2)) if obstacles is None else np.asarray(obstacles, dtype=np.float64).reshape(-1, 2)
    boxes = np.zeros((len(labels), 4))  # x0, y0, x1, y1 of placed labels
    placed: list[Label] = []
    for n, lab in enumerate(labels):
        b = _ink_box(lab.text, lab.font_px)
        w, h = float(b[2] - b[0]), float(b[3] - b[1])
        cand = _candidates(lab, w, h, size)
        x0, y0 = cand[:, 0:1], cand[:, 1:2]
        prev = boxes[:n]
        ow = np.minimum(x0 + w, prev[:, 2]) - np.maximum(x0, prev[:, 0])
        oh = np.minimum(y0 + h, prev[:, 3]) - np.maximum(y0, prev[:, 1])
        overlap = (np.clip(ow, 0, None) * np.clip(oh, 0, None)).sum(axis=1)
        ox, oy = obstacles[:, 0], obstacles[:, 1]
        covered = ((ox >= x0) & (ox <= x0 + w) & (oy >= y0) & (oy <= y0 + h)).sum(axis=1)
        # lexicographic: free of other labels, then fewest covered atoms, then candidate order
        key = (overlap > 0) * 1e12 + covered * 1e6 + np.where(overlap > 0, overlap, 0.0) + np.arange(len(cand)) * 1e-3
        k = int(np.argmin(key))
        boxes[n] = (cand[k, 0], cand[k, 1], cand[k, 0] + w, cand[k, 1] + h)
        placed.append(
            Label(lab.text, lab.anchor, lab.gap, lab.font_px, lab.fill, left=float(cand[k, 0]), top=float(cand[k, 1]))
        )
    return placed


def draw_labels(image: np.ndarray, labels: list[Label]) -> np.ndarray:
    """Draw placed labels onto a copy of ``image`` (uint8 (H, W, 3)); returns the new array."""
    if not labels:
        return image
    img = Image.fromarray(image)
    draw = ImageDraw.Draw(img)
    for lab in labels:
        b = _ink_box(lab.text, lab.font_px)
        xy = (int(round(lab.left - b[0])), int(round(lab.top - b[1])))
        draw.text(xy, lab.text, font=get_font(lab.font_px), fill=lab.fill,
                  stroke_width=_stroke(lab.font_px), stroke_fill=OUTLINE)  # fmt: skip
    return np.asarray(img).copy()
