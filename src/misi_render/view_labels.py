"""Labels of one view: choose, place, drop and draw them (what :func:`misi_render.render_views` runs).

Placement is greedy and deterministic: labels are placed in priority order (the *key* atoms a
question is about, chosen-residue atoms, ligand atoms, residues); each tries candidate boxes around
its anchor on five rings (right, left, above, below, diagonals), shifted into the frame, and takes
the first with no overlap with earlier labels and covering the fewest ligand or key atoms; if none
is free, the least-overlapping one (:func:`misi_render._layout.place_boxes`).  A label of a
non-key atom that would still cover a key atom's disc is not drawn at all, so labels never hide
the atoms a question is about.

:func:`label_view` gives the same labels, placement, dropping and pixels as a reference chain that
handles one label object at a time (``tests/render/reference_labels.py``, which
``tests/render/test_label_fast_path.py`` compares it with byte for byte), but with per-label arrays
instead of label objects, every text patch kept in one atlas
(:class:`_Atlas`, no per-view concatenation), what no view changes kept per complex
(:class:`_LabelCache`, kept while the complex lives: each label's text and atlas entry, each atom's
residue number), residue
anchors found by a numba kernel, the labels composited into the caller's image in place, and the
placed labels kept as arrays (:class:`DrawnLabels`) until someone reads them.
"""

from __future__ import annotations

import itertools
import threading
import weakref

import numpy as np

from misi_geom import Complex, residue_starts
from misi_geom.residues import atom_residue_label
from misi_render._layout import composite_rows, place_boxes, residue_anchors
from misi_render.labels import (
    FREETYPE_LOCK, ATOM_FILL, LABEL_KINDS, LIGAND_FILL, RESIDUE_FILL, PlacedLabel, ink_box, render_patch, font_px,
)  # fmt: skip
from misi_render.screen import ScreenCoords

__all__ = ["label_view", "DrawnLabels"]


class _Atlas:
    """Every text patch drawn so far, in one pair of flat arrays (grown by doubling).

    ``index`` maps (text, font px, fill) to (offset, width, height, ink width, ink height); the
    patch's pixels are ``keep[offset:offset + w*h]`` and ``paint[...]`` as :func:`render_patch`
    makes them.  Lookups and growth hold :data:`FREETYPE_LOCK`; a reader takes the arrays after
    its lookups, and growth copies into new arrays, so the snapshot it holds stays valid.  Past
    :data:`_Atlas.MAX_PIXELS` the atlas starts again empty (bounded memory in long runs).
    """

    #: 48 MB of patches (16 bytes a pixel).  The labels a worker draws in a stretch of a run (its
    #: complexes', their T5 partners', the common atom names) are ~2.6K patches, ~2.7M pixels at
    #: 1024 px on the dev set; the earlier 1M-pixel atlas restarted every ~1,000 patches and drew
    #: each patch 3-5 times (0.42 -> 0.16 ms of patch drawing per image with this size).
    MAX_PIXELS = 3 << 20

    def __init__(self) -> None:
        self.reset()

    def reset(self) -> None:
        self.generation = next(_GENERATIONS)  # entries kept by a _LabelCache are valid in one generation
        self.keep = np.empty(1 << 16, dtype=np.float32)  # entries past ``used`` are never read
        self.paint = np.empty((1 << 16, 3), dtype=np.float32)
        self.used = 0
        self.index: dict[tuple[str, int, tuple[int, int, int]], tuple[int, int, int, int, int]] = {}

    def _add(self, key: tuple[str, int, tuple[int, int, int]]) -> tuple[int, int, int, int, int]:
        text, px, fill = key
        b = ink_box(text, px)
        keep, paint = render_patch(text, px, fill)
        n = keep.shape[0]
        w, h = max(1, b[2] - b[0]), max(1, b[3] - b[1])
        if self.used + n > self.keep.shape[0]:  # grow by doubling, to little more than MAX_PIXELS
            cap = max(min(2 * self.keep.shape[0], self.MAX_PIXELS + (1 << 16)), self.used + n)
            grown = (np.empty(cap, dtype=np.float32), np.empty((cap, 3), dtype=np.float32))
            for new, old in zip(grown, (self.keep, self.paint)):
                new[: self.used] = old[: self.used]
            self.keep, self.paint = grown
        sl = slice(self.used, self.used + n)
        self.keep[sl], self.paint[sl] = keep, paint
        entry = (self.used, w, h, b[2] - b[0], b[3] - b[1])
        self.used += n
        self.index[key] = entry
        return entry

    def lookup(self, keys: list) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(entries (L, 5) int64, keep, paint) for ``keys``, adding the patches not drawn yet."""
        with FREETYPE_LOCK:
            if self.used > self.MAX_PIXELS and any(k not in self.index for k in keys):
                self.reset()
            get = self.index.get
            rows = [get(k) or self._add(k) for k in keys]
            return np.array(rows, dtype=np.int64).reshape(-1, 5), self.keep, self.paint

    def lookup_cached(self, cache: _LabelCache, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """:meth:`lookup` of the labels ``labels`` (flat indices into ``cache``), via the entries
        ``cache`` kept from earlier views: only labels not drawn before build their key."""
        with FREETYPE_LOCK:
            if cache.generation != self.generation:
                cache.entries.fill(-1)
                cache.generation = self.generation
            ent = cache.entries[labels]
            miss = np.flatnonzero(ent[:, 0] < 0)
            if len(miss):
                keys = [cache.key(j) for j in labels[miss].tolist()]
                if self.used > self.MAX_PIXELS and any(k not in self.index for k in keys):
                    self.reset()
                    cache.entries.fill(-1)
                    cache.generation = self.generation
                    miss = np.arange(len(labels))
                    keys = [cache.key(j) for j in labels.tolist()]
                get = self.index.get
                rows = np.array([get(k) or self._add(k) for k in keys], dtype=np.int64).reshape(-1, 5)
                ent[miss] = rows
                cache.entries[labels[miss]] = rows
            return ent, self.keep, self.paint


_GENERATIONS = itertools.count()
_ATLAS = _Atlas()

class _LabelCache:
    """What labelling one complex at one image size needs that no view changes.

    Labels are numbered ``kind * N + atom`` (kind 0: chosen-residue atom name, 1: ligand atom name,
    2: residue label); ``text`` and ``entries`` (the atlas entry, -1 until first drawn, valid in
    atlas ``generation``) are filled the first time a label is drawn.  ``atom_res`` is each atom's
    residue number in :func:`misi_geom.residue_starts` order.
    """

    def __init__(self, c: Complex, chain: bool, size: int) -> None:
        n = len(c)
        starts = residue_starts(c)
        self._complex = weakref.ref(c)  # the cache lives as long as its complex, not longer
        self.chain, self.n, self.nres = chain, n, len(starts)
        self.atom_res = np.ascontiguousarray(np.searchsorted(starts, np.arange(n), side="right") - 1, dtype=np.int64)
        self.pocket = ~c.is_ligand
        self.text: list[str | None] = [None] * (3 * n)
        self.entries = np.full((3 * n, 5), -1, dtype=np.int64)
        self.generation = -1
        atom_px, res_px = font_px(size, "atom"), font_px(size, "residue")
        self.styles = ((atom_px, ATOM_FILL), (atom_px, LIGAND_FILL), (res_px, RESIDUE_FILL))

    def key(self, j: int) -> tuple[str, int, tuple[int, int, int]]:
        """The atlas key (text, font px, fill) of label ``j``, noting its text."""
        kind, i = divmod(j, self.n)
        text = self.text[j]
        if text is None:
            c = self._complex()
            assert c is not None, "a label cache outlived its complex"
            text = self.text[j] = atom_residue_label(c, i, self.chain) if kind == 2 else str(c.atom_name[i])
        return (text, *self.styles[kind])


#: The label caches of the complexes alive: complex -> {(chain, size): cache}.  Weakly keyed
#: (a ``Complex`` compares and hashes by identity), so a complex's caches go with it.
_LABEL_CACHES: weakref.WeakKeyDictionary[Complex, dict[tuple[bool, int], _LabelCache]] = weakref.WeakKeyDictionary()
_LABEL_CACHES_LOCK = threading.Lock()


def _label_cache(c: Complex, chain: bool, size: int) -> _LabelCache:
    with _LABEL_CACHES_LOCK:
        per_complex = _LABEL_CACHES.setdefault(c, {})
        cache = per_complex.get((chain, size))
        if cache is None:
            cache = per_complex[(chain, size)] = _LabelCache(c, chain, size)
        return cache


class DrawnLabels:
    """The labels one view drew, kept as arrays; iterating gives their :class:`PlacedLabel`.

    :func:`label_view` returns this instead of a tuple because building a few hundred
    :class:`PlacedLabel` per view costs about 0.1 ms and rendering never reads them:
    :attr:`misi_render.RenderedView.labels` builds the tuple the first time it is read.
    """

    __slots__ = ("_text", "_labels", "_key", "_x0", "_y0", "_x1", "_y1", "_n")

    def __init__(self, text, labels, key, x0, y0, x1, y1, n: int) -> None:
        self._text, self._labels, self._key = text, labels, key
        self._x0, self._y0, self._x1, self._y1 = x0, y0, x1, y1
        self._n = n  # atoms of the complex: label j names atom j % n, of kind LABEL_KINDS[j // n]

    def __len__(self) -> int:
        return len(self._labels)

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(boxes (L, 4) float64, atom (L,) int64, kind (L,) int64)``: each label's box, the atom it
        names and its kind as an index into :data:`misi_render.labels.LABEL_KINDS`, without building
        :class:`PlacedLabel` objects."""
        boxes = np.column_stack([self._x0, self._y0, self._x1, self._y1]).astype(np.float64).reshape(-1, 4)
        return boxes, self._labels % self._n, self._labels // self._n

    def __iter__(self):
        text, n = self._text, self._n
        return (PlacedLabel(text[j], kk, (a, b, c, d), j % n, LABEL_KINDS[j // n]) for j, kk, a, b, c, d in zip(
            self._labels.tolist(), self._key.tolist(), self._x0.tolist(), self._y0.tolist(), self._x1.tolist(),
            self._y1.tolist()))  # fmt: skip


def label_view(
    c: Complex,
    screen: ScreenCoords,
    visible: np.ndarray,
    drawn: np.ndarray,
    radius_px: np.ndarray,
    size: int,
    image: np.ndarray,
    *,
    residue_labels: bool = True,
    ligand_labels: bool = True,
    atom_label_residue: int | None = None,
    residue_chain: bool = False,
    key_atoms: np.ndarray | None = None,
) -> DrawnLabels | tuple[()]:
    """Label one view: choose, place, drop and draw its labels into ``image`` (in place).

    Labels are placed avoiding the key atoms and the visible ligand / chosen-residue atoms; a
    non-key label touching a key atom's disc is dropped.  ``drawn`` marks the atoms the rasterizer could draw (heavy, finite, in front of the camera).

    Returns
    -------
    DrawnLabels or ()
        The drawn labels, in drawing order (``tuple(...)`` of it gives their :class:`PlacedLabel`).
    """
    n = len(c)
    cache = _label_cache(c, bool(residue_chain), int(size))
    key = np.zeros(n, dtype=bool) if key_atoms is None else np.asarray(key_atoms, dtype=bool)
    lab_parts, prio_parts = [], []  # labels (kind * n + atom) and their priorities
    if atom_label_residue is not None:
        i = np.flatnonzero(visible & (c.res_index == atom_label_residue))
        lab_parts.append(i), prio_parts.append(np.where(key[i], 0, 1))
    if ligand_labels:
        sel = visible & c.is_ligand
        if atom_label_residue is not None:
            sel &= c.res_index != atom_label_residue
        i = np.flatnonzero(sel)
        lab_parts.append(i + n), prio_parts.append(np.where(key[i], 0, 2))
    if residue_labels:
        anchors = residue_anchors(visible & cache.pocket, cache.atom_res, np.ascontiguousarray(screen.x_px, dtype=np.float64),
                                  np.ascontiguousarray(screen.y_px, dtype=np.float64), cache.nres)  # fmt: skip
        if key_atoms is not None:
            for i in np.flatnonzero(visible & key & cache.pocket):  # a key atom's residue: label it there
                anchors[np.flatnonzero(c.res_index[anchors] == c.res_index[i])] = i
        lab_parts.append(anchors + 2 * n), prio_parts.append(np.where(key[anchors], 0, 3))
    if not lab_parts or sum(len(i) for i in lab_parts) == 0:
        return ()
    prio = np.concatenate(prio_parts)
    order = np.argsort(prio, kind="stable")
    labs = np.concatenate(lab_parts).astype(np.int64)[order]
    idx = labs % n
    is_key = prio[order] == 0
    entries, keep, paint = _ATLAS.lookup_cached(cache, labs)
    # placement: ink-box sizes, anchors, clearance, obstacles
    gap = (radius_px + max(2.0, size / 512.0))[idx]
    ax = np.ascontiguousarray(screen.x_px[idx], dtype=np.float64)
    ay = np.ascontiguousarray(screen.y_px[idx], dtype=np.float64)
    w_ink = entries[:, 3].astype(np.float64)
    h_ink = entries[:, 4].astype(np.float64)
    key_drawn = key & drawn & screen.in_front if key_atoms is not None else key
    avoid = key_drawn | (visible & (c.is_ligand | (c.res_index == (-1 if atom_label_residue is None else atom_label_residue))))
    ox = np.ascontiguousarray(screen.x_px[avoid], dtype=np.float64)
    oy = np.ascontiguousarray(screen.y_px[avoid], dtype=np.float64)
    left, top = np.zeros(len(idx)), np.zeros(len(idx))
    place_boxes(ax, ay, np.ascontiguousarray(gap, dtype=np.float64), w_ink, h_ink, ox, oy, int(size), left, top)
    x0, y0 = np.round(left), np.round(top)
    ws, hs = entries[:, 1], entries[:, 2]
    x1, y1 = x0 + ws, y0 + hs
    # drop the non-key labels touching a key atom's disc
    if key_atoms is not None and key_drawn.any():
        cx, cy = screen.x_px[key_drawn][None, :], screen.y_px[key_drawn][None, :]
        r = radius_px[key_drawn][None, :]
        nx = np.clip(cx, x0[:, None], x1[:, None])
        ny = np.clip(cy, y0[:, None], y1[:, None])
        ok = is_key | ~((nx - cx) ** 2 + (ny - cy) ** 2 < r**2).any(axis=1)
        if not ok.all():
            x0, y0, x1, y1, ws, hs, entries, is_key, labs = (
                x0[ok], y0[ok], x1[ok], y1[ok], ws[ok], hs[ok], entries[ok], is_key[ok], labs[ok])
            if len(labs) == 0:
                return ()
    xs, ys = x0.astype(np.int64), y0.astype(np.int64)
    target = image if image.flags.c_contiguous else np.ascontiguousarray(image)
    composite_rows(target, keep, paint, np.ascontiguousarray(entries[:, 0]), np.ascontiguousarray(ws),
                   np.ascontiguousarray(hs), xs, ys)
    if target is not image:
        image[...] = target
    return DrawnLabels(cache.text, labs, is_key, x0, y0, x1, y1, cache.n)
