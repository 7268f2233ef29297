"""numba kernels: tiled, supersampled z-buffer rasterizer for shaded spheres and sticks.

Plain-array signatures only (style rule 11); every jitted helper lives in this module so numba's
on-disk cache stays valid (rule 12).  Coordinates are in pixels: a sample of pixel ``(row i,
column j)`` sits at ``(j + xo[k], i + yo[k])`` with the S-rooks pattern ``xo`` (one sample per
sub-row, ``yo[k] = (2k + 1) / 2S``).  Depth ``z`` is in pixels too (camera-frame depth times the
atom's px-per-Å), larger is nearer.

Primitive ids: spheres ``0..n-1`` (atom index), sticks ``n + b`` (bond index).  A sample keeps the
nearest surface; equal depths go to the smaller id, so results never depend on drawing order.

The image is split into square tiles; primitives are binned to the tiles their bounding boxes
touch and every tile is drawn, shaded and resolved independently into its own part of the output
(``prange`` over tiles, no shared writes), which keeps the per-tile buffers in cache and makes the
output byte-identical for any thread count.

Shading is deferred: after all primitives of a tile are drawn, each sample's surface normal is
recomputed from its id and depth and looked up in a lighting table ``lut[iy, ix] = (diffuse,
specular)`` indexed by the normal's screen components (so lighting constants are inputs, not code).
A linear depth cue darkens far surfaces.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["rasterize"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_PJIT = dict(_JIT, parallel=True)


@nb.njit(**_JIT)
def _bin_primitives(x0, x1, y0, y1, ntiles_x, tile):
    """CSR lists of the primitives whose pixel bounding boxes touch each tile (primitive order)."""
    m = x0.shape[0]
    nt = ntiles_x * ntiles_x
    counts = np.zeros(nt + 1, dtype=np.int64)
    for p in range(m):
        if x1[p] < x0[p] or y1[p] < y0[p]:
            continue
        for ty in range(y0[p] // tile, y1[p] // tile + 1):
            for tx in range(x0[p] // tile, x1[p] // tile + 1):
                counts[ty * ntiles_x + tx + 1] += 1
    start = np.cumsum(counts)
    fill = start[:-1].copy()
    items = np.empty(start[-1], dtype=np.int64)
    for p in range(m):
        if x1[p] < x0[p] or y1[p] < y0[p]:
            continue
        for ty in range(y0[p] // tile, y1[p] // tile + 1):
            for tx in range(x0[p] // tile, x1[p] // tile + 1):
                t = ty * ntiles_x + tx
                items[fill[t]] = p
                fill[t] += 1
    return start, items


@nb.njit(**_JIT)
def _draw_sphere(i, cx, cy, cz, r, X0, Y0, tw, th, xo, yo, depth, ids):
    S = xo.shape[0]
    r2 = r * r
    plo = max(0, int(np.floor(cy - r)) - Y0)
    phi = min(th - 1, int(np.floor(cy + r)) - Y0)
    for p in range(plo, phi + 1):
        for k in range(S):
            dy = Y0 + p + yo[k] - cy
            h2 = r2 - dy * dy
            if h2 < 0.0:
                continue
            hw = np.sqrt(h2)
            jlo = max(0, int(np.ceil(cx - hw - xo[k])) - X0 - 1)
            jhi = min(tw - 1, int(np.floor(cx + hw - xo[k])) - X0 + 1)
            row = p * S + k
            for j in range(jlo, jhi + 1):
                dx = X0 + j + xo[k] - cx
                d2 = h2 - dx * dx
                if d2 < 0.0:
                    continue
                z = cz + np.sqrt(d2)
                zb = depth[row, j]
                if z > zb or (z == zb and i < ids[row, j]):
                    depth[row, j] = z
                    ids[row, j] = i


@nb.njit(**_JIT)
def _span(lo, hi, a, b):
    """Intersect [lo, hi] with the interval between a and b (in either order)."""
    if a > b:
        a, b = b, a
    return max(lo, a), min(hi, b)


@nb.njit(**_JIT)
def _draw_stick(pid, ax, ay, az, ux, uy, uz, length, rho, X0, Y0, tw, th, xo, yo, depth, ids):
    """Cylinder of radius ``rho`` from A along unit ``u`` for ``length`` (open ends: they lie in balls)."""
    S = xo.shape[0]
    vx, vy = ux * length, uy * length
    l2 = np.sqrt(vx * vx + vy * vy)
    a = 1.0 - uz * uz
    if l2 < 1e-9 or a < 1e-12:
        return
    ex, ey = vx / l2, vy / l2
    rho2 = rho * rho
    ylo = min(ay, ay + vy) - rho
    yhi = max(ay, ay + vy) + rho
    plo = max(0, int(np.floor(ylo)) - Y0)
    phi = min(th - 1, int(np.floor(yhi)) - Y0)
    for p in range(plo, phi + 1):
        for k in range(S):
            sy = Y0 + p + yo[k]
            dy = sy - ay
            xlo, xhi = X0 - 1.0, X0 + tw + 1.0
            if abs(ey) > 1e-12:  # within rho of the projected axis line
                xlo, xhi = _span(xlo, xhi, ax + (dy * ex - rho) / ey, ax + (dy * ex + rho) / ey)
            elif abs(dy) > rho:
                continue
            if abs(ex) > 1e-12:  # projected parameter within [-rho, l2 + rho]
                xlo, xhi = _span(xlo, xhi, ax + (-rho - dy * ey) / ex, ax + (l2 + rho - dy * ey) / ex)
            elif dy * ey < -rho or dy * ey > l2 + rho:
                continue
            if xhi < xlo:
                continue
            jlo = max(0, int(np.floor(xlo - xo[k])) - X0)
            jhi = min(tw - 1, int(np.ceil(xhi - xo[k])) - X0)
            row = p * S + k
            for j in range(jlo, jhi + 1):
                wx = X0 + j + xo[k] - ax
                wu = wx * ux + dy * uy
                b = -uz * wu
                c = wx * wx + dy * dy - wu * wu - rho2
                disc = b * b - a * c
                if disc < 0.0:
                    continue
                zp = (-b + np.sqrt(disc)) / a
                s = wu + zp * uz
                if s < 0.0 or s > length:
                    continue
                z = az + zp
                zb = depth[row, j]
                if z > zb or (z == zb and pid < ids[row, j]):
                    depth[row, j] = z
                    ids[row, j] = pid


@nb.njit(**_JIT)
def _shade(idx, sx, sy, z, cx, cy, cz, rad, rgb, bond_a, bond_b, bond_r, bu, blen, lut, z_near, z_far, cue, out):
    """Shaded colour of one sample into ``out[0:3]``."""
    n = cx.shape[0]
    if idx < n:
        nx = (sx - cx[idx]) / rad[idx]
        ny = (sy - cy[idx]) / rad[idx]
        atom = idx
    else:
        b = idx - n
        a0 = bond_a[b]
        wx, wy, wz = sx - cx[a0], sy - cy[a0], z - cz[a0]
        wu = wx * bu[b, 0] + wy * bu[b, 1] + wz * bu[b, 2]
        nx = (wx - wu * bu[b, 0]) / bond_r[b]
        ny = (wy - wu * bu[b, 1]) / bond_r[b]
        atom = a0 if wu < 0.5 * blen[b] else bond_b[b]
    nl = lut.shape[0]
    ix = int((nx + 1.0) * 0.5 * (nl - 1) + 0.5)
    iy = int((ny + 1.0) * 0.5 * (nl - 1) + 0.5)
    ix = min(max(ix, 0), nl - 1)
    iy = min(max(iy, 0), nl - 1)
    diffuse = lut[iy, ix, 0]
    spec = lut[iy, ix, 1]
    t = (z - z_far) / (z_near - z_far) if z_near > z_far else 1.0
    t = min(max(t, 0.0), 1.0)
    f = 1.0 - cue * (1.0 - t)
    for c in range(3):
        out[c] = (rgb[atom, c] * diffuse + spec) * f


@nb.njit(**_JIT)
def _draw_tile(t, start, items, ntiles_x, tile, size, xo, yo, cx, cy, cz, rad, rgb,
               bond_a, bond_b, bond_r, bu, blen, lut, z_near, z_far, cue, image, visible):  # fmt: skip
    S = xo.shape[0]
    n = cx.shape[0]
    X0 = (t % ntiles_x) * tile
    Y0 = (t // ntiles_x) * tile
    tw = min(tile, size - X0)
    th = min(tile, size - Y0)
    depth = np.full((th * S, tw), -np.inf)
    ids = np.full((th * S, tw), -1, dtype=np.int32)
    for q in range(start[t], start[t + 1]):
        pid = items[q]
        if pid < n:
            _draw_sphere(pid, cx[pid], cy[pid], cz[pid], rad[pid], X0, Y0, tw, th, xo, yo, depth, ids)
        else:
            b = pid - n
            a0 = bond_a[b]
            _draw_stick(pid, cx[a0], cy[a0], cz[a0], bu[b, 0], bu[b, 1], bu[b, 2], blen[b], bond_r[b],
                        X0, Y0, tw, th, xo, yo, depth, ids)  # fmt: skip
    col = np.empty(3)
    for p in range(th):
        for j in range(tw):
            acc0 = 0.0
            acc1 = 0.0
            acc2 = 0.0
            for k in range(S):
                idx = ids[p * S + k, j]
                if idx < 0:
                    continue
                _shade(idx, X0 + j + xo[k], Y0 + p + yo[k], depth[p * S + k, j], cx, cy, cz, rad, rgb,
                       bond_a, bond_b, bond_r, bu, blen, lut, z_near, z_far, cue, col)  # fmt: skip
                acc0 += col[0]
                acc1 += col[1]
                acc2 += col[2]
            image[Y0 + p, X0 + j, 0] = np.uint8(min(255.0, acc0 * 255.0 / S + 0.5))
            image[Y0 + p, X0 + j, 1] = np.uint8(min(255.0, acc1 * 255.0 / S + 0.5))
            image[Y0 + p, X0 + j, 2] = np.uint8(min(255.0, acc2 * 255.0 / S + 0.5))
    # visibility: the majority of the samples in an atom's centre pixel belong to that atom
    for q in range(start[t], start[t + 1]):
        i = items[q]
        if i >= n:
            break
        px = int(np.floor(cx[i])) - X0
        py = int(np.floor(cy[i])) - Y0
        if px < 0 or py < 0 or px >= tw or py >= th:
            continue
        own = 0
        for k in range(S):
            if ids[py * S + k, px] == i:
                own += 1
        visible[i] = 2 * own > S


@nb.njit(**_PJIT)
def rasterize(size, tile, xo, cx, cy, cz, rad, rgb, bond_a, bond_b, bond_r, lut, z_near, z_far, cue, image, visible):
    """Draw spheres and sticks into ``image`` and flag visible atoms.

    Parameters
    ----------
    size, tile : int
        Image width = height and tile edge, pixels.
    xo : float64 (S,)
        Sample x offsets within a pixel (S-rooks pattern; the y offsets are ``(2k+1)/2S``).
    cx, cy, cz, rad : float64 (n,)
        Sphere centres and radii in pixels (depth ``cz`` larger = nearer); ``rad <= 0`` = not drawn.
    rgb : float64 (n, 3)
        Atom colours in [0, 1].
    bond_a, bond_b : int64 (B,)
        Stick end atoms (both drawn); each half takes its own atom's colour.
    bond_r : float64 (B,)
        Stick radii in pixels.
    lut : float64 (L, L, 2)
        Lighting table (diffuse, specular) over the normal's screen components in [-1, 1].
    z_near, z_far, cue : float
        Depth-cue range (pixels) and strength: colour factor ``1 - cue`` at ``z_far``, 1 at ``z_near``.
    image : uint8 (size, size, 3)
        Output, written tile by tile (pixels left untouched where nothing is drawn).
    visible : bool (n,)
        Output: set True for atoms owning the majority of their centre pixel's samples.
    """
    n = cx.shape[0]
    nb_ = bond_a.shape[0]
    S = xo.shape[0]
    yo = (2.0 * np.arange(S) + 1.0) / (2.0 * S)
    bu = np.zeros((nb_, 3))
    blen = np.zeros(nb_)
    m = n + nb_
    x0 = np.zeros(m, dtype=np.int64)
    x1 = np.full(m, -1, dtype=np.int64)
    y0 = np.zeros(m, dtype=np.int64)
    y1 = np.full(m, -1, dtype=np.int64)
    lim = size - 1
    for i in range(n):
        r = rad[i]
        if r > 0.0 and cx[i] + r >= 0.0 and cy[i] + r >= 0.0 and cx[i] - r < size and cy[i] - r < size:
            x0[i] = max(0, int(np.floor(cx[i] - r)))
            x1[i] = min(lim, int(np.floor(cx[i] + r)))
            y0[i] = max(0, int(np.floor(cy[i] - r)))
            y1[i] = min(lim, int(np.floor(cy[i] + r)))
    for b in range(nb_):
        a0, a1 = bond_a[b], bond_b[b]
        dx, dy, dz = cx[a1] - cx[a0], cy[a1] - cy[a0], cz[a1] - cz[a0]
        ln = np.sqrt(dx * dx + dy * dy + dz * dz)
        if ln <= 0.0 or bond_r[b] <= 0.0:
            continue
        bu[b, 0], bu[b, 1], bu[b, 2] = dx / ln, dy / ln, dz / ln
        blen[b] = ln
        r = bond_r[b]
        lox, hix = min(cx[a0], cx[a1]) - r, max(cx[a0], cx[a1]) + r
        loy, hiy = min(cy[a0], cy[a1]) - r, max(cy[a0], cy[a1]) + r
        if hix >= 0.0 and hiy >= 0.0 and lox < size and loy < size:
            x0[n + b] = max(0, int(np.floor(lox)))
            x1[n + b] = min(lim, int(np.floor(hix)))
            y0[n + b] = max(0, int(np.floor(loy)))
            y1[n + b] = min(lim, int(np.floor(hiy)))
    ntiles_x = (size + tile - 1) // tile
    start, items = _bin_primitives(x0, x1, y0, y1, ntiles_x, tile)
    for t in nb.prange(ntiles_x * ntiles_x):
        if start[t + 1] > start[t]:
            _draw_tile(t, start, items, ntiles_x, tile, size, xo, yo, cx, cy, cz, rad, rgb,
                       bond_a, bond_b, bond_r, bu, blen, lut, z_near, z_far, cue, image, visible)  # fmt: skip
