"""numba kernels of the decoy check: grey thumbnails and SSIM terms, bit-identical to the numpy path.

Plain-array signatures only (style rule 11), and every jitted helper lives in this module so
numba's on-disk cache stays valid (rule 12).  :mod:`misi_tasks.tasks.decoys` validates and
calls; the references these kernels must equal bit for bit are kept in the tests
(``tests/tasks/test_decoy_similarity.py``):

* :func:`grey_block_sums` is the exact integer block sum of ``grey_thumbnail`` (any order is exact);
* :func:`box_filter` is ``scipy.ndimage.uniform_filter(x, size)`` with mode ``'reflect'``: one
  running-sum pass along axis 0, then one along axis 1 over the first pass's output; each line's
  sum starts as the plain sum of its first window, is updated by ``entering - leaving`` and each
  output is ``sum / size`` — the order of operations of scipy 1.17's C loop (checked against it
  in the tests, not read off its documentation), so the rounding is the same;
* :func:`thumb_terms` and :func:`ssim_map` are scikit-image's ``structural_similarity``
  expressions, operation for operation (no fused multiply-add: numba leaves ``fastmath`` off).

The thumbnails are small (256 px a side), so the kernels run on one thread.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["grey_block_sums", "box_filter", "thumb_terms", "ssim_map"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")


@nb.njit(**_JIT)
def grey_block_sums(image, f, divisor):
    """``(H // f, W // f)`` float64: each f x f block's sum over rows, columns and channels of the
    uint8 ``image`` (H, W, C), exact as an integer, divided by ``divisor``."""
    h, w, c = image.shape
    oh, ow = h // f, w // f
    fc = f * c
    out = np.empty((oh, ow), dtype=np.float64)
    rows = np.empty(w * c, dtype=np.int32)  # f rows of one block row added, at most f * 255
    acc = np.empty(ow, dtype=np.int32)  # each block's sum, at most f * f * c * 255
    for i in range(oh):
        first = image[i * f].reshape(w * c)
        for j in range(w * c):
            rows[j] = first[j]
        for k in range(1, f):
            row = image[i * f + k].reshape(w * c)
            for j in range(w * c):
                rows[j] += row[j]
        # the blocks side by side, one column of the block at a time: the loop over blocks has
        # no carried sum, unlike summing each block's f * c values in turn (0.77 -> 0.43 ms at
        # 1024 px); integer sums are exact in any order
        for q in range(ow):
            acc[q] = 0
        for t in range(fc):
            for q in range(ow):
                acc[q] += rows[q * fc + t]
        for q in range(ow):
            out[i, q] = np.float64(acc[q]) / divisor
    return out


@nb.njit(inline="always", **_JIT)
def _reflect(i, n):
    """Index ``i`` (possibly outside [0, n)) folded back by scipy's ``'reflect'`` rule
    (d c b a | a b c d | d c b a), repeated for lines shorter than the window."""
    period = 2 * n
    m = i % period
    if m < 0:
        m += period
    if m >= n:
        m = period - 1 - m
    return m


@nb.njit(**_JIT)
def box_filter(x, size):
    """``scipy.ndimage.uniform_filter(x, size)`` of a 2-D float64 array (mode ``'reflect'``), ``size >= 2``
    (scipy copies an axis of size 1 instead of filtering it).

    Two running-sum passes, as ``uniform_filter1d`` along axis 0 and then along axis 1 of its output.
    One function rather than one per pass: each jitted function adds to the cold-cache compile.
    """
    h, w = x.shape
    size1 = size // 2
    size2 = size - size1 - 1
    out = np.empty_like(x)
    # axis 0: the columns' sums side by side, so the loop over a row vectorises
    tmp = np.zeros(w, dtype=np.float64)
    for ll in range(-size1, size2 + 1):
        r = x[_reflect(ll, h)]
        for j in range(w):
            tmp[j] += r[j]
    for j in range(w):
        out[0, j] = tmp[j] / size
    for ll in range(1, h):
        enter = x[_reflect(ll + size2, h)]
        leave = x[_reflect(ll - size1 - 1, h)]
        for j in range(w):
            tmp[j] += enter[j] - leave[j]
            out[ll, j] = tmp[j] / size
    # axis 1, in place: each row is copied, reflected at both ends, into a line buffer first
    line = np.empty(w + size - 1, dtype=np.float64)
    for i in range(h):
        row = out[i]
        for ll in range(w):
            line[ll + size1] = row[ll]
        for ll in range(-size1, 0):
            line[ll + size1] = row[_reflect(ll, w)]
        for ll in range(w, w + size2):
            line[ll + size1] = row[_reflect(ll, w)]
        s = 0.0
        for ll in range(size):
            s += line[ll]
        row[0] = s / size
        for ll in range(1, w):
            s += line[ll + size - 1] - line[ll - 1]
            row[ll] = s / size
    return out


@nb.njit(**_JIT)
def thumb_terms(im, size, cov_norm):
    """``(ux, vx, ux2)``: the box mean, sample variance and squared mean of one thumbnail."""
    h, w = im.shape
    sq = np.empty_like(im)
    for i in range(h):
        for j in range(w):
            sq[i, j] = im[i, j] * im[i, j]
    ux = box_filter(im, size)
    uxx = box_filter(sq, size)
    vx = np.empty_like(im)
    ux2 = np.empty_like(im)
    for i in range(h):
        for j in range(w):
            u = ux[i, j]
            vx[i, j] = cov_norm * (uxx[i, j] - u * u)
            ux2[i, j] = u * u
    return ux, vx, ux2


@nb.njit(**_JIT)
def ssim_map(x, y, ux, uy, vx, vy, ux2, uy2, size, cov_norm, c1, c2):
    """The SSIM map of two thumbnails from their :func:`thumb_terms` (float64, the shape of ``x``)."""
    h, w = x.shape
    s = np.empty_like(x)
    for i in range(h):
        for j in range(w):
            s[i, j] = x[i, j] * y[i, j]
    uxy = box_filter(s, size)
    for i in range(h):
        for j in range(w):
            vxy = cov_norm * (uxy[i, j] - ux[i, j] * uy[i, j])
            a1 = 2.0 * ux[i, j] * uy[i, j] + c1
            a2 = 2.0 * vxy + c2
            b1 = ux2[i, j] + uy2[i, j] + c1
            b2 = vx[i, j] + vy[i, j] + c2
            s[i, j] = (a1 * a2) / (b1 * b2)
    return s
