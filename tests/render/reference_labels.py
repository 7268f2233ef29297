"""The reference label chain: ``label_requests -> place_labels -> drop_labels_over -> draw_labels
-> placed_labels``, one label object at a time.

This is the code :func:`misi_render.render_views` ran before its fast path
(:func:`misi_render.view_labels.label_view`); ``test_label_fast_path.py`` checks that the fast path
draws the same labels, boxes and bytes, and other tests use it to ask which labels a view requests.
It lives with the tests because nothing in ``src/`` uses it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from misi_geom import Complex, residue_starts
from misi_geom.residues import atom_residue_label
from misi_render._layout import composite, place_boxes
from misi_render.labels import (
    ATOM_FILL, FREETYPE_LOCK, LIGAND_FILL, RESIDUE_FILL, PlacedLabel, font_px, ink_box, render_patch,
)  # fmt: skip
from misi_render.screen import ScreenCoords

__all__ = ["Label", "residue_anchors", "label_requests", "place_labels", "drop_labels_over", "draw_labels", "placed_labels"]


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



def placed_labels(labels: list[Label], corners: np.ndarray) -> tuple[PlacedLabel, ...]:
    """The drawn boxes of ``labels`` placed at ``corners`` (as :func:`draw_labels` rounds them)."""
    out = []
    for lab, (x, y) in zip(labels, np.round(np.asarray(corners, dtype=np.float64))):
        b = ink_box(lab.text, lab.font_px)
        out.append(PlacedLabel(lab.text, lab.key, (float(x), float(y), float(x + max(1, b[2] - b[0])), float(y + max(1, b[3] - b[1])))))
    return tuple(out)



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
        anchors = residue_anchors(c, screen, visible & ~c.is_ligand)
        for i in np.flatnonzero(visible & key & ~c.is_ligand):  # a key atom's residue: label it there
            anchors[np.flatnonzero(c.res_index[anchors] == c.res_index[i])] = i
        for i in anchors:
            add(0 if key[i] else 3, int(i), atom_residue_label(c, int(i), residue_chain), res_px, RESIDUE_FILL)
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


def residue_anchors(c: Complex, screen: ScreenCoords, mask: np.ndarray) -> np.ndarray:
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
