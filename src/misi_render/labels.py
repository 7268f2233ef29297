"""Text labels: choose what to label, place labels without overlaps, draw them.

Labels (spec section 2): each pocket residue ``"ASN 460"`` next to one of its visible atoms (with
the chain, ``"ASP 29 A"``, when the pocket spans more than one chain: :func:`residue_label`), each
visible ligand heavy atom by its atom name, and optionally every visible heavy atom of one chosen
residue by its atom name.  Only atoms flagged visible by the rasterizer get labels, so a label never
points at an atom hidden behind another one.

Ligand atom names are made unique by :func:`with_unique_ligand_labels` (rule:
:data:`LIGAND_LABEL_RULE`); the task layer applies it once to the complex it both draws and answers
from, so an answer never names an atom differently from its image.

Placement is greedy and deterministic: labels are placed in priority order (the *key* atoms a
question is about, chosen-residue atoms, ligand atoms, residues); each tries candidate boxes around
its anchor on five rings (right, left, above, below, diagonals), shifted into the frame, and takes
the first with no overlap with earlier labels and covering the fewest ligand or key atoms; if none
is free, the least-overlapping one.  A label of a non-key atom that would still cover a key atom's
disc is not drawn at all, so labels never hide the atoms a question is about.  Text is
the bundled DejaVu Sans Bold, light coloured with a black outline, sized in proportion to the image
(:func:`font_px`; 17 px residue labels and 14 px atom names at 1024 px), rendered once per text by
Pillow and composited by a numba kernel.

:mod:`misi_render.view_labels` is the fast path :func:`misi_render.render_views` takes; this
module's chain :func:`label_requests` -> :func:`place_labels` -> :func:`drop_labels_over` ->
:func:`draw_labels` -> :func:`placed_labels` is its reference.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from misi_geom import Complex, residue_starts
from misi_geom.residues import atom_residue_label
from misi_render.screen import ScreenCoords
from misi_render._layout import composite, place_boxes

__all__ = [
    "Label", "font_path", "font_px", "get_font", "label_requests", "place_labels", "draw_labels",
    "LIGAND_LABEL_RULE", "unique_ligand_labels", "with_unique_ligand_labels", "pocket_has_chains",
    "residue_label", "drop_labels_over", "PlacedLabel", "placed_labels", "FREETYPE_LOCK", "ink_box", "render_patch",
]

#: How drawn ligand atoms are labelled (stated in the prompts).
LIGAND_LABEL_RULE = (
    "a name that the ligand file gives to more than one drawn atom is numbered in file order with an "
    "underscore (N_1, N_2, N_3)"
)


def unique_ligand_labels(c: Complex) -> np.ndarray:
    """Atom names with every drawn (heavy) ligand atom's name made unique.

    Rule (:data:`LIGAND_LABEL_RULE`): a name that is unique among the ligand's heavy atoms is kept;
    a name shared by k > 1 of them becomes ``<name>_1`` ... ``<name>_k`` in file order.  Should that
    collide with another name, or pass the 8-character limit, the name part is shortened and
    primes are appended until the label is unique (in the rare case that is not enough, the next
    free number is used).  Pocket atoms and hydrogens keep their names.

    Returns
    -------
    ndarray, dtype='<U8', shape=(N,)

    Examples
    --------
    >>> c = Complex.from_atoms([[0.0, 0, 0]] * 4, ["N", "C", "N", "O"], atom_name=["N", "CA", "N", "O1"],
    ...                        is_ligand=[True] * 4)
    >>> unique_ligand_labels(c).tolist()
    ['N_1', 'CA', 'N_2', 'O1']
    """
    names = np.array(c.atom_name, dtype="<U8", copy=True)
    rows = np.flatnonzero(c.is_ligand & ~c.is_hydrogen)
    counts: dict[str, int] = {}
    for i in rows:
        counts[str(names[i])] = counts.get(str(names[i]), 0) + 1
    taken = {str(names[i]) for i in rows if counts[str(names[i])] == 1}
    seen: dict[str, int] = {}
    for i in rows:
        name = str(names[i])
        if counts[name] == 1:
            continue
        seen[name] = seen.get(name, 0) + 1
        label = _free_label(name, seen[name], taken)
        taken.add(label)
        names[i] = label
    return names


def _free_label(name: str, number: int, taken: set[str]) -> str:
    """``<name>_<number>`` cut to 8 characters, else with primes, else with the next free number.

    Every candidate is distinct (its number and its count of trailing primes differ), and there
    are more candidates than ``taken`` holds, so this always ends.
    """
    for k in itertools.count(number):
        for primes in range(8 - len(f"_{k}") + 1):
            tail = f"_{k}" + "'" * primes
            label = name[: 8 - len(tail)] + tail
            if label not in taken:
                return label
    raise AssertionError("unreachable")  # pragma: no cover


def with_unique_ligand_labels(c: Complex) -> Complex:
    """``c`` with :func:`unique_ligand_labels` as its atom names (a copy; ``c`` is untouched)."""
    from dataclasses import replace

    return replace(c, atom_name=unique_ligand_labels(c))


def pocket_has_chains(c: Complex) -> bool:
    """Whether the pocket (non-ligand heavy atoms) spans more than one chain id."""
    pocket = ~c.is_ligand & ~c.is_hydrogen
    return len(np.unique(c.chain_id[pocket])) > 1


def residue_label(c: Complex, i: int, with_chain: bool = False) -> str:
    """Display label of atom ``i``'s residue: ``"ASN 460"``, ``"GLY 184A"``, or with the chain
    ``"ASP 29 A"`` (:func:`misi_geom.residues.atom_residue_label`, the text prompts and answers use too)."""
    return atom_residue_label(c, i, with_chain)

RESIDUE_FILL = (255, 255, 255)
LIGAND_FILL = (255, 236, 140)
ATOM_FILL = (160, 232, 255)
OUTLINE = (0, 0, 0)

_RESIDUE_FRACTION = 0.0165  # residue label height / image size
_ATOM_FRACTION = 0.0135  # atom-name label height / image size


@dataclass(frozen=True)
class Label:
    """One label to place: ``text`` near ``anchor`` (pixel position of the atom it names).

    ``gap`` is the clearance kept from the anchor (the atom's radius plus a margin), ``font_px`` the
    font size and ``fill`` the text colour (RGB 0-255); ``key`` marks the label of an atom a
    question is about (placed first, never dropped).
    """

    text: str
    anchor: tuple[float, float]
    gap: float
    font_px: int
    fill: tuple[int, int, int]
    key: bool = False


@dataclass(frozen=True)
class PlacedLabel:
    """A drawn label: its text, whether it names a key atom, and its ink box (pixels, x0 <= x < x1)."""

    text: str
    key: bool
    box: tuple[float, float, float, float]


def placed_labels(labels: list[Label], corners: np.ndarray) -> tuple[PlacedLabel, ...]:
    """The drawn boxes of ``labels`` placed at ``corners`` (as :func:`draw_labels` rounds them)."""
    out = []
    for lab, (x, y) in zip(labels, np.round(np.asarray(corners, dtype=np.float64))):
        b = ink_box(lab.text, lab.font_px)
        out.append(PlacedLabel(lab.text, lab.key, (float(x), float(y), float(x + max(1, b[2] - b[0])), float(y + max(1, b[3] - b[1])))))
    return tuple(out)


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


#: FreeType faces are not safe to use from two threads at once; every use of a font holds this.
FREETYPE_LOCK = threading.RLock()


@lru_cache(maxsize=8192)
def ink_box(text: str, px: int) -> tuple[int, int, int, int]:
    """The ink bounding box (left, top, right, bottom) of ``text`` at ``px`` with its outline."""
    with FREETYPE_LOCK:
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
    residue_chain: bool = False,
    key_atoms: np.ndarray | None = None,
) -> list[Label]:
    """Unplaced labels for the visible atoms of one view, in placement priority order.

    Labels of ``key_atoms`` (bool (N,)) come first: ligand key atoms by name, and the residue label
    of a pocket key atom's residue anchored on that atom.  ``residue_chain`` adds the chain id to
    residue labels.
    """
    entries: list[tuple[int, int, Label]] = []  # (priority, order, label)
    key = np.zeros(len(c), dtype=bool) if key_atoms is None else np.asarray(key_atoms, dtype=bool)
    gap = radius_px + max(2.0, size / 512.0)
    atom_px, res_px = font_px(size, "atom"), font_px(size, "residue")

    def add(priority: int, i: int, text: str, px: int, fill: tuple[int, int, int]) -> None:
        anchor = (screen.x_px[i], screen.y_px[i])
        entries.append((priority, len(entries), Label(text, anchor, gap[i], px, fill, key=priority == 0)))

    if atom_label_residue is not None:
        for i in np.flatnonzero(visible & (c.res_index == atom_label_residue)):
            add(0 if key[i] else 1, int(i), str(c.atom_name[i]), atom_px, ATOM_FILL)
    if ligand_labels:
        for i in np.flatnonzero(visible & c.is_ligand):
            if atom_label_residue is not None and c.res_index[i] == atom_label_residue:
                continue
            add(0 if key[i] else 2, int(i), str(c.atom_name[i]), atom_px, LIGAND_FILL)
    if residue_labels:
        anchors = _residue_anchors(c, screen, visible & ~c.is_ligand)
        for i in np.flatnonzero(visible & key & ~c.is_ligand):  # a key atom's residue: label it there
            anchors[np.flatnonzero(c.res_index[anchors] == c.res_index[i])] = i
        for i in anchors:
            add(0 if key[i] else 3, int(i), residue_label(c, int(i), residue_chain), res_px, RESIDUE_FILL)
    return [lab for _, _, lab in sorted(entries, key=lambda e: (e[0], e[1]))]


def drop_labels_over(
    labels: list[Label], corners: np.ndarray, centers: np.ndarray, radii: np.ndarray
) -> tuple[list[Label], np.ndarray]:
    """Drop every non-key label whose ink box touches a protected disc.

    ``centers`` (K, 2) and ``radii`` (K,) are pixel discs (the key atoms) that no other label may
    hide.  Returns the remaining labels and their corners.
    """
    if len(labels) == 0 or len(centers) == 0:
        return labels, corners
    boxes = np.array([ink_box(lab.text, lab.font_px) for lab in labels], dtype=np.float64)
    xy = np.round(np.asarray(corners, dtype=np.float64))  # where draw_labels puts them
    x0, y0 = xy[:, 0], xy[:, 1]
    x1, y1 = x0 + np.maximum(1, boxes[:, 2] - boxes[:, 0]), y0 + np.maximum(1, boxes[:, 3] - boxes[:, 1])
    cx, cy = centers[:, 0][None, :], centers[:, 1][None, :]
    nx = np.clip(cx, x0[:, None], x1[:, None])
    ny = np.clip(cy, y0[:, None], y1[:, None])
    hits = ((nx - cx) ** 2 + (ny - cy) ** 2 < radii[None, :] ** 2).any(axis=1)
    ok = np.array([lab.key for lab in labels], dtype=bool) | ~hits
    return [lab for lab, k in zip(labels, ok) if k], corners[ok]


def _residue_anchors(c: Complex, screen: ScreenCoords, mask: np.ndarray) -> np.ndarray:
    """Per residue with atoms in ``mask`` (residue order): its masked atom nearest their 2D centroid."""
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return idx
    starts = residue_starts(c)
    res = np.searchsorted(starts, idx, side="right") - 1
    nres = len(starts)
    x, y = screen.x_px[idx], screen.y_px[idx]
    cnt = np.bincount(res, minlength=nres)
    mx = np.bincount(res, x, minlength=nres) / np.maximum(cnt, 1)
    my = np.bincount(res, y, minlength=nres) / np.maximum(cnt, 1)
    d = (x - mx[res]) ** 2 + (y - my[res]) ** 2
    order = np.lexsort((idx, d, res))
    first = np.r_[True, res[order][1:] != res[order][:-1]]
    return idx[order][first]


def place_labels(labels: list[Label], size: int, obstacles: np.ndarray | None = None) -> np.ndarray:
    """Place every label inside the frame, nudged away from earlier labels.

    Parameters
    ----------
    labels : list of Label
        In priority order (earlier labels claim space first).
    size : int
        Image size in pixels.
    obstacles : ndarray, shape=(K, 2), optional
        Pixel positions labels should avoid covering (e.g. visible ligand atoms).

    Returns
    -------
    corners : ndarray, dtype=float64, shape=(L, 2)
        Top-left corner (x, y) of each label's ink box (see :mod:`misi_render._layout`).
    """
    corners = np.zeros((len(labels), 2))
    if not labels:
        return corners
    obs = np.zeros((0, 2)) if obstacles is None else np.asarray(obstacles, dtype=np.float64).reshape(-1, 2)
    boxes = np.array([ink_box(lab.text, lab.font_px) for lab in labels], dtype=np.float64)
    w = np.ascontiguousarray(boxes[:, 2] - boxes[:, 0])
    h = np.ascontiguousarray(boxes[:, 3] - boxes[:, 1])
    anchors = np.array([lab.anchor for lab in labels], dtype=np.float64)
    gap = np.array([lab.gap for lab in labels], dtype=np.float64)
    ax, ay = np.ascontiguousarray(anchors[:, 0]), np.ascontiguousarray(anchors[:, 1])
    left, top = np.zeros(len(labels)), np.zeros(len(labels))
    place_boxes(ax, ay, gap, w, h, np.ascontiguousarray(obs[:, 0]), np.ascontiguousarray(obs[:, 1]), int(size), left, top)
    corners[:, 0], corners[:, 1] = left, top
    return corners


@lru_cache(maxsize=8192)
def _text_patch(text: str, px: int, fill: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """Pre-rendered label: ``keep`` (h*w,) float32 = 1 - ink alpha, ``paint`` (h*w, 3) float32."""
    with FREETYPE_LOCK:
        return render_patch(text, px, fill)


def render_patch(text: str, px: int, fill: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A label's pixels (``keep`` mask, ``paint`` colours) over its ink box, drawn once per text."""
    b = ink_box(text, px)
    size = (max(1, b[2] - b[0]), max(1, b[3] - b[1]))
    font, sw = get_font(px), _stroke(px)
    outline = Image.new("L", size, 0)
    ImageDraw.Draw(outline).text((-b[0], -b[1]), text, font=font, fill=255, stroke_width=sw, stroke_fill=255)
    glyphs = Image.new("L", size, 0)
    ImageDraw.Draw(glyphs).text((-b[0], -b[1]), text, font=font, fill=255)
    a_out = np.asarray(outline, dtype=np.float32).reshape(-1) / 255.0
    a_fill = np.asarray(glyphs, dtype=np.float32).reshape(-1) / 255.0
    keep = 1.0 - np.maximum(a_out, a_fill)
    paint = a_fill[:, None] * np.asarray(fill, dtype=np.float32)
    return keep, paint


def draw_labels(image: np.ndarray, labels: list[Label], corners: np.ndarray) -> np.ndarray:
    """Composite labels at ``corners`` (from :func:`place_labels`) onto ``image``; returns a new array.

    Each label is light text with a black outline, pre-rendered once per (text, size, colour) with
    Pillow and blended by a small numba kernel; parts outside the frame are clipped.
    """
    out = np.array(image, dtype=np.uint8, copy=True)
    if not labels:
        return out
    patches = [_text_patch(lab.text, lab.font_px, lab.fill) for lab in labels]
    boxes = [ink_box(lab.text, lab.font_px) for lab in labels]
    ws = np.array([max(1, b[2] - b[0]) for b in boxes], dtype=np.int64)
    hs = np.array([max(1, b[3] - b[1]) for b in boxes], dtype=np.int64)
    starts = np.zeros(len(labels) + 1, dtype=np.int64)
    np.cumsum(ws * hs, out=starts[1:])
    keep = np.concatenate([p[0] for p in patches])
    paint = np.concatenate([p[1] for p in patches])
    xy = np.round(np.asarray(corners, dtype=np.float64)).astype(np.int64)
    composite(out, keep, paint, starts, ws, hs, np.ascontiguousarray(xy[:, 0]), np.ascontiguousarray(xy[:, 1]))
    return out
