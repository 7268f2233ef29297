"""numba kernels for labels: greedy placement (plain arrays in, box corners out) and compositing.

Labels are placed in input (priority) order.  Each label tries 40 candidate boxes around its anchor:
five rings (clearance ``gap + k (h + 2)``, k = 0..4), each with 8 positions (right, left, above,
below, then the four diagonals), shifted into the frame.  It takes the first candidate
that overlaps no earlier label and covers no obstacle point; failing that, the candidate with no label
overlap and the fewest obstacles; failing that, the one with the least overlap area.

Residue labels are anchored by :func:`residue_anchors` (one pass over the atoms instead of numpy's
bincount + lexsort).

Placed boxes and obstacle points are kept in a uniform grid of ``cell``-pixel buckets (linked lists
in flat arrays), so a candidate is only tested against its neighbours and the cost grows about
linearly with the number of labels.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["composite", "composite_rows", "place_boxes", "residue_anchors"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_RINGS = 5  # candidate rings around the anchor (numba freezes this constant at compile time)


@nb.njit(**_JIT)
def _cell_range(lo, hi, cell, ncell):
    a = min(max(int(np.floor(lo / cell)), 0), ncell - 1)
    b = min(max(int(np.floor(hi / cell)), 0), ncell - 1)
    return a, b


@nb.njit(**_JIT)
def place_boxes(ax, ay, gap, w, h, ox, oy, size, left, top):
    """Choose the top-left corner of every label box.

    Parameters
    ----------
    ax, ay, gap, w, h : float64 (L,)
        Anchor (pixels), clearance from the anchor, and box width / height.
    ox, oy : float64 (K,)
        Obstacle points labels should not cover.
    size : int
        Image size; boxes are kept inside ``[0, size]``.
    left, top : float64 (L,)
        Output corners.
    """
    nlab = ax.shape[0]
    nobs = ox.shape[0]
    cell = 32.0
    ncell = int(size // 32) + 1
    # obstacle buckets
    ohead = np.full(ncell * ncell, -1, dtype=np.int64)
    onext = np.full(nobs, -1, dtype=np.int64)
    for k in range(nobs):
        if 0.0 <= ox[k] <= size and 0.0 <= oy[k] <= size:
            cx, _ = _cell_range(ox[k], ox[k], cell, ncell)
            cy, _ = _cell_range(oy[k], oy[k], cell, ncell)
            c = cy * ncell + cx
            onext[k] = ohead[c]
            ohead[c] = k
    # placed-label buckets (a box is entered in every cell it touches)
    cap = 0
    for n in range(nlab):
        cap += (int(w[n] / cell) + 2) * (int(h[n] / cell) + 2)
    lhead = np.full(ncell * ncell, -1, dtype=np.int64)
    lnext = np.empty(cap, dtype=np.int64)
    lwho = np.empty(cap, dtype=np.int64)
    stamp = np.full(nlab, -1, dtype=np.int64)
    used = 0
    dxs = np.array([1.0, -1.0, 0.0, 0.0, 0.7071, 0.7071, -0.7071, -0.7071])
    dys = np.array([0.0, 0.0, -1.0, 1.0, -0.7071, 0.7071, -0.7071, 0.7071])
    trial = 0
    for n in range(nlab):
        best = np.inf
        bx = 0.0
        by = 0.0
        wn, hn = w[n], h[n]
        for ring in range(_RINGS):
            g = gap[n] + ring * (hn + 2.0)
            for c in range(8):
                x = ax[n] + dxs[c] * g
                y = ay[n] + dys[c] * g
                # attach the box by its near edge / corner to the point (x, y)
                if dxs[c] < 0.0:
                    x -= wn
                elif dxs[c] == 0.0:
                    x -= 0.5 * wn
                if dys[c] < 0.0:
                    y -= hn
                elif dys[c] == 0.0:
                    y -= 0.5 * hn
                x = min(max(x, 0.0), max(0.0, size - wn))
                y = min(max(y, 0.0), max(0.0, size - hn))
                trial += 1
                overlap = 0.0
                covered = 0
                gx0, gx1 = _cell_range(x, x + wn, cell, ncell)
                gy0, gy1 = _cell_range(y, y + hn, cell, ncell)
                for gy in range(gy0, gy1 + 1):
                    for gx in range(gx0, gx1 + 1):
                        e = lhead[gy * ncell + gx]
                        while e >= 0:
                            m = lwho[e]
                            if stamp[m] != trial:  # count each neighbour once
                                stamp[m] = trial
                                ow = min(x + wn, left[m] + w[m]) - max(x, left[m])
                                oh = min(y + hn, top[m] + h[m]) - max(y, top[m])
                                if ow > 0.0 and oh > 0.0:
                                    overlap += ow * oh
                            e = lnext[e]
                        k = ohead[gy * ncell + gx]
                        while k >= 0:
                            if x <= ox[k] <= x + wn and y <= oy[k] <= y + hn:
                                covered += 1
                            k = onext[k]
                key = (1e12 if overlap > 0.0 else 0.0) + covered * 1e6 + overlap + (ring * 8 + c) * 1e-3
                if key < best:
                    best, bx, by = key, x, y
                if overlap == 0.0 and covered == 0:
                    break
            if best < 1.0:
                break
        left[n] = bx
        top[n] = by
        gx0, gx1 = _cell_range(bx, bx + wn, cell, ncell)
        gy0, gy1 = _cell_range(by, by + hn, cell, ncell)
        for gy in range(gy0, gy1 + 1):
            for gx in range(gx0, gx1 + 1):
                lwho[used] = n
                lnext[used] = lhead[gy * ncell + gx]
                lhead[gy * ncell + gx] = used
                used += 1


@nb.njit(**_JIT)
def composite(image, keep, paint, starts, ws, hs, xs, ys):
    """Blend pre-rendered labels into ``image`` (uint8 (H, W, 3)) in order, clipped to the frame.

    Label ``n`` covers ``hs[n] x ws[n]`` pixels with top-left ``(xs[n], ys[n])``; its pixels are
    ``keep[starts[n]:starts[n+1]]`` (1 - ink alpha, float32, row-major) and ``paint`` (premultiplied
    RGB): ``pixel = pixel * keep + paint``.
    """
    hh, ww = image.shape[0], image.shape[1]
    for n in range(ws.shape[0]):
        w, h, x0, y0, s0 = ws[n], hs[n], xs[n], ys[n], starts[n]
        for r in range(max(0, -y0), min(h, hh - y0)):
            for c in range(max(0, -x0), min(w, ww - x0)):
                q = s0 + r * w + c
                k = keep[q]
                if k >= 1.0:
                    continue
                for ch in range(3):
                    v = image[y0 + r, x0 + c, ch] * k + paint[q, ch] + 0.5
                    image[y0 + r, x0 + c, ch] = np.uint8(min(v, 255.0))



@nb.njit(**_JIT)
def composite_rows(image, keep, paint, starts, ws, hs, xs, ys):
    """:func:`composite` as straight loops over contiguous row spans: byte for byte the same result.

    ``image`` must be C-contiguous; ``keep`` is float32 (P,), one value per patch pixel, and
    ``paint`` float32 (P, 3).  Every pixel is blended, transparent ones too: there ``keep`` is 1
    and ``paint`` 0, and ``p * 1 + 0 + 0.5`` truncates back to ``p``, so skipping them (as
    :func:`composite` does) changes nothing; without the branch the row loop vectorizes.  The
    blend is the same expression on the same types as :func:`composite`.
    """
    hh, ww = image.shape[0], image.shape[1]
    flat = image.reshape(hh, ww * 3)
    p3 = paint.reshape(-1)
    for n in range(ws.shape[0]):
        w, h, x0, y0, s0 = ws[n], hs[n], xs[n], ys[n], starts[n]
        c_lo, c_hi = max(0, -x0), min(w, ww - x0)
        if c_hi <= c_lo:
            continue
        cols = c_hi - c_lo
        a = 3 * (x0 + c_lo)
        for r in range(max(0, -y0), min(h, hh - y0)):
            b = s0 + r * w + c_lo
            row = flat[y0 + r, a : a + 3 * cols]
            kr = keep[b : b + cols]
            pr = p3[3 * b : 3 * (b + cols)]
            for q in range(cols):
                k = kr[q]
                for ch in range(3):
                    j = 3 * q + ch
                    v = row[j] * k + pr[j] + 0.5
                    row[j] = np.uint8(min(v, 255.0))


@nb.njit(**_JIT)
def residue_anchors(mask, atom_res, x, y, nres):
    """Per residue with atoms in ``mask`` (residue order): its masked atom nearest their 2D centroid.

    ``mask`` bool (N,), ``atom_res`` int64 (N,) residue number of each atom (non-decreasing, from
    ``residue_starts``), ``x``, ``y`` float64 (N,) pixel positions, ``nres`` the residue count.
    Returns the anchor atoms, int64 (R,).  Ties go to the lower atom index.  The centroid is summed
    in atom order and the distance computed as ``labels._residue_anchors`` (numpy's bincount,
    ``(x - mx) ** 2 + (y - my) ** 2`` and a lexsort by residue, distance, index) does: the same atoms.
    """
    cnt = np.zeros(nres, dtype=np.int64)
    sx = np.zeros(nres)
    sy = np.zeros(nres)
    for i in range(mask.shape[0]):
        if mask[i]:
            r = atom_res[i]
            cnt[r] += 1
            sx[r] += x[i]
            sy[r] += y[i]
    best = np.full(nres, -1, dtype=np.int64)
    bestd = np.zeros(nres)
    nout = 0
    for i in range(mask.shape[0]):
        if mask[i]:
            r = atom_res[i]
            dx = x[i] - sx[r] / cnt[r]
            dy = y[i] - sy[r] / cnt[r]
            d = dx * dx + dy * dy
            b = best[r]
            if b < 0:
                best[r] = i
                bestd[r] = d
                nout += 1
            elif d < bestd[r] or (bestd[r] != bestd[r] and d == d):  # lexsort puts NaN last
                best[r] = i
                bestd[r] = d
    out = np.empty(nout, dtype=np.int64)
    k = 0
    for r in range(nres):
        if best[r] >= 0:
            out[k] = best[r]
            k += 1
    return out
