"""numba kernels: tiled two-layer z-buffer rasterizer for shaded spheres and sticks.

Plain-array signatures only (style rule 11); every jitted helper lives in this module so numba's
on-disk cache stays valid (rule 12).  All coordinates are pixels: pixel ``(row i, column j)`` is
sampled at its centre ``(j + 0.5, i + 0.5)``; depth ``z`` is camera-frame depth times the atom's
px-per-Å, larger is nearer.

**Fragments.**  A sphere (centre ``c``, radius ``r``) gives every pixel whose centre lies within
``r + 0.5`` of ``c`` (in the image plane) one fragment: depth ``cz + sqrt(max(r² - d², 0))`` and
analytic coverage ``clamp(r + 0.5 - d, 0, 1)``.  A stick is an open cylinder of radius ``rho``
from ``A`` along unit ``u`` for ``length`` (already trimmed to the part outside its two balls, which
is exact: the trimmed ends lie inside the balls); its fragments lie within ``rho + 0.5`` of the
projected axis, with coverage ``clamp(rho + 0.5 - dl, 0, 1)`` from that 2D distance ``dl`` and the
depth of the ray's hit (or, in the antialiasing fringe, closest approach).

**Two layers.**  Each pixel keeps its two nearest fragments, ordered by depth and then by smaller
primitive id (spheres ``0..n-1`` = atom index, sticks ``n + b``).  Keeping the top two of a totally
ordered set does not depend on arrival order, so the image never depends on drawing order.
Resolve: ``colour = cov1 * shade1 + (1 - cov1) * cov2 * shade2`` over a black background.  Every
fragment is inserted (there is no early rejection: the insert is branch-free and vectorised, so
testing first would cost more than it saves; a whole primitive lying behind both layers of its
whole box in a tile, the one rejection that is cheap to test, was measured at 1 % of the
primitive-tile pairs of ball-and-stick scenes); the image and visibility are exactly those of the
two-layer model.

**Tiles.**  Primitives are binned to square tiles (edge at most :data:`T` = 64 px) by bounding
box; each tile is drawn and resolved on its own into its own part of the image, so buffers stay in
cache.  The two layers of a tile live in one float64 buffer of six (T, T) fields (nearest depth,
id, coverage; second depth, id, coverage) at compile-time offsets; ids are stored as float64
(exact below 2**53).  :func:`rasterize` walks the tiles in one thread (the default: no threading
layer to start, safe under ``fork`` and concurrent Python threads); :func:`rasterize_parallel`
spreads rows of tiles over numba's threads with ``prange`` (no shared writes), and its output is
byte-identical for any thread count.

**Shading** is deferred to visible fragments: the surface normal is rebuilt from id and depth
(sphere: offset from the centre over the radius; stick: offset from the axis over the radius; in
the antialiasing fringe outside the silhouette, the in-plane normal), then
``colour * (ambient + diffuse * max(n.L, 0)) + specular * max(n.H, 0) ** shininess`` (Blinn-Phong,
white highlight; dropped where it would stay under half an 8-bit level, i.e.
``n.H <= (0.5 / 255 / specular) ** (1 / shininess)``), times a linear depth cue that darkens far
surfaces.  It is computed, not tabulated: a table fine enough to avoid banding misses the cache.
Per tile, a scalar pass gathers each shaded fragment's normal, depth, weight and colour into flat
arrays, and :func:`_shade` evaluates the lighting over them in one branch-free loop that LLVM
turns into SIMD code (the same IEEE operations lane by lane, so the bytes do not depend on the
vector width); the image is then written through a flat view, with no per-pixel index division.

**Performance notes.**  The row loops of spheres and sticks are branch-free (validity is a mask,
the two-layer insert is written with selects) and index one buffer at constant field offsets, so
LLVM vectorises them with no run-time overlap checks; each row is widened to whole groups of
:data:`LANES` pixels, one vector of doubles (the extra pixels fail the exact coverage test, or fall
in buffer columns past the tile's last column, which are never read), so there is no remainder
loop.  The group follows the CPU the kernels are compiled for: 8 with AVX-512, where groups of 4
left a remainder pass on most rows (8 measured 13 % faster for the whole kernel there, 16
slower); 4 otherwise, where 8 widened the typical rows (sticks ~9 px wide, spheres ~21 px at
1024 px) by more pixels for nothing (4 measured 6-7 % faster for the whole kernel on an AVX2
AMD EPYC, ``docs/performance.md``).  The pixels drawn are the same for any group.  numba reference-counts array
arguments on every call of a jitted helper, so per-fragment and per-pixel work is either written
inline or done by helpers that take scalars only; helpers taking arrays are called once per
primitive or tile.  Array indices in the hot loops are cast to ``np.uint64`` where they are known
to be >= 0: numba then emits no negative-index wraparound code (same elements, same results), and
the loops' addresses stay affine, which the vectoriser needs.
"""

from __future__ import annotations

import numba as nb
import numpy as np

__all__ = ["rasterize", "rasterize_parallel", "stick_params"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")
_PJIT = dict(_JIT, parallel=True)

#: Largest tile edge (pixels) and the row stride of the layer buffer.  Its six fields (nearest
#: depth, id, coverage; second depth, id, coverage) are (T, T) blocks at compile-time offsets, so
#: LLVM proves them apart and vectorises the insert loops without run-time overlap checks.
T = 64
_TT = T * T
#: Padding (doubles) of each row of the gathered shading inputs ``J1``/``J2``.  Unpadded, a full
#: tile's rows lie 32 KB apart, so the eight values stored per fragment (and the layer fields read
#: beside them) all map to one set of the 8-way 32 KB L1 cache and evict each other; 40 doubles
#: (5 cache lines) put the eight rows in eight sets: 7-10 % off the whole kernel (best of 15-21
#: rounds, 36 dev views at 1024 px, AVX2 AMD EPYC), same bytes.
_J_PAD = 40


def _vector_lanes() -> int:
    """Doubles in one vector register of the CPU numba compiles for: 8 with AVX-512, else 4."""
    features = nb.config.CPU_FEATURES  # set when numba is told to compile for another CPU
    if features is None:
        from llvmlite import binding

        return 8 if binding.get_host_cpu_features().get("avx512f", False) else 4
    return 8 if "+avx512f" in features.split(",") else 4


#: Pixels per group of a drawn row (see "Performance notes"); a compile-time constant of the kernels,
#: and numba keys its on-disk cache by the CPU's features, so a cache never holds the other width.
LANES = _vector_lanes()
_LANE_MASK = LANES - 1
_F1, _F2, _F3, _F4, _F5 = (np.uint64(k * _TT) for k in range(1, 6))


@nb.njit(**_JIT)
def _bin_primitives(x0, x1, y0, y1, ntiles_x, tile):
    """CSR lists of the primitives whose pixel bounding boxes touch each tile, in index order."""
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


@nb.njit(inline="always", **_JIT)
def _insert(o, valid, z, fi, cov, L):
    """Two-layer insert of fragment ``(z, id fi, cov)`` at pixel ``o`` of the layer buffer ``L``,
    written with selects only (no branch), so the loops calling it vectorise; ``valid`` False
    leaves the pixel as is.

    Keep the second layer's stores first.  With the nearest layer stored first, the vectorised
    loops (numba 0.68.1, llvmlite 0.50) wrote the new coverage into the second layer where the old
    one belongs, on a few edge pixels.  The JIT / no-JIT and order tests in
    ``tests/render/test_raster.py`` fail if that happens again.

    The nearest layer's stores keep the old value plus ``0.0``: LLVM (no fast-math) cannot fold
    ``x + 0.0`` back to ``x``, so it writes the select with a full vector store instead of turning
    "store the new value where ``first``" into an AVX2 masked store (``vmaskmovpd``, slow on AMD):
    11 % off the whole kernel on an AVX2 AMD EPYC with rows of 4 (36 dev views at 1024 px,
    4.8 -> 4.2 ms).  The value is the same except that ``-0.0`` becomes ``+0.0``, which only depths
    can be (ids are >= 0, a drawn coverage > 0); two depths of opposite zero sign compare equal,
    and in shading they only enter sums and products whose bytes they cannot change.
    """
    za, ia, ca = L[o], L[o + _F1], L[o + _F2]
    zb, ib, cb = L[o + _F3], L[o + _F4], L[o + _F5]
    first = valid & ((z > za) | ((z == za) & (fi < ia)))
    second = valid & ((z > zb) | ((z == zb) & (fi < ib)))
    L[o + _F3] = za if first else (z if second else zb)
    L[o + _F4] = ia if first else (fi if second else ib)
    L[o + _F5] = ca if first else (cov if second else cb)
    # ``+ 0.0``: a full store of a select, not a masked store of the new values (below)
    L[o] = z if first else za + 0.0
    L[o + _F1] = fi if first else ia + 0.0
    L[o + _F2] = cov if first else ca + 0.0


@nb.njit(**_JIT)
def _draw_sphere(i, cx, cy, cz, r, X0, Y0, tw, th, colx, L):
    fi = float(i)
    re = r + 0.5
    re2 = re * re
    r2 = r * r
    ri2 = (r - 0.5) * (r - 0.5) if r > 0.5 else -1.0  # fully covered within r - 0.5
    plo = max(0, int(np.floor(cy - re - 0.5)) - Y0)
    phi = min(th - 1, int(np.ceil(cy + re - 0.5)) - Y0)
    for pp in range(plo, phi + 1):
        dy = Y0 + pp + 0.5 - cy
        h2 = re2 - dy * dy
        if h2 <= 0.0:
            continue
        hw = np.sqrt(h2)
        jlo = max(0, int(np.floor(cx - hw - 0.5)) - X0)
        jhi = min(tw - 1, int(np.ceil(cx + hw - 0.5)) - X0)
        if jhi < jlo:
            continue
        base = np.uint64(pp * T)
        # whole groups of LANES pixels (one vector): no remainder loop; the extra pixels fail the
        # exact test (or lie in buffer columns past the tile's last one, never read)
        for j in range(np.uint64(jlo & ~_LANE_MASK), np.uint64(jhi | _LANE_MASK) + np.uint64(1)):  # vectorised
            o = base + j
            dx = colx[j] - cx
            d2 = dx * dx + dy * dy
            cov = 1.0 if d2 <= ri2 else min(1.0, re - np.sqrt(d2))
            z = cz + np.sqrt(max(r2 - d2, 0.0))
            _insert(o, d2 < re2, z, fi, cov, L)


@nb.njit(**_JIT)
def _span(lo, hi, a, b):
    """Intersect [lo, hi] with the interval between a and b (in either order)."""
    if a > b:
        a, b = b, a
    return max(lo, a), min(hi, b)


@nb.njit(**_JIT)
def _draw_stick(pid, ax, ay, az, ux, uy, uz, length, rho, X0, Y0, tw, th, colx, L):
    fi = float(pid)
    vy = uy * length
    a = 1.0 - uz * uz  # = (projected length of u)^2
    if a < 1e-12 or length <= 0.0:
        return
    l2u = np.sqrt(a)
    ex, ey = ux / l2u, uy / l2u
    l2 = length * l2u
    re = rho + 0.5
    # a hit at axis parameter s in [0, length] has projected axis parameter t = wx * ex + dy * ey
    # within |uz| * rho of [0, l2] (t = l2u * s - uz * sqrt(disc) / l2u with disc <= a * rho^2; in the
    # fringe disc = 0), so rows are spanned to te (with a margin far above rounding error) rather than
    # re > te: the pixels skipped would all fail the s test below
    te = abs(uz) * rho + 0.25
    rho2 = rho * rho
    inv_a = 1.0 / a
    iey = 1.0 / ey if abs(ey) > 1e-12 else 0.0
    iex = 1.0 / ex if abs(ex) > 1e-12 else 0.0
    plo = max(0, int(np.floor(min(ay, ay + vy) - re - 0.5)) - Y0)
    phi = min(th - 1, int(np.ceil(max(ay, ay + vy) + re - 0.5)) - Y0)
    for pp in range(plo, phi + 1):
        dy = Y0 + pp + 0.5 - ay
        xlo, xhi = X0 - 1.0, X0 + tw + 1.0
        if abs(ey) > 1e-12:  # within re of the projected axis line
            xlo, xhi = _span(xlo, xhi, ax + (dy * ex - re) * iey, ax + (dy * ex + re) * iey)
        elif abs(dy) >= re:
            continue
        if abs(ex) > 1e-12:  # projected axis parameter within [-te, l2 + te]
            xlo, xhi = _span(xlo, xhi, ax + (-te - dy * ey) * iex, ax + (l2 + te - dy * ey) * iex)
        elif dy * ey < -te or dy * ey > l2 + te:
            continue
        # the spans use reciprocals (no division per row); widened far beyond their rounding
        # difference from the quotients, they hold every pixel the quotients' spans held
        xlo -= 1e-6
        xhi += 1e-6
        if xhi < xlo:
            continue
        jlo = max(0, int(np.floor(xlo - 0.5)) - X0)
        jhi = min(tw - 1, int(np.ceil(xhi - 0.5)) - X0)
        if jhi < jlo:
            continue
        base = np.uint64(pp * T)
        # whole groups of LANES pixels (one vector): no remainder loop; the extra pixels fail the
        # exact test (or lie in buffer columns past the tile's last one, never read)
        for j in range(np.uint64(jlo & ~_LANE_MASK), np.uint64(jhi | _LANE_MASK) + np.uint64(1)):  # vectorised
            o = base + j
            wx = colx[j] - ax
            dl = abs(wx * ey - dy * ex)
            wu = wx * ux + dy * uy
            b = -uz * wu
            c = wx * wx + dy * dy - wu * wu - rho2
            disc = max(b * b - a * c, 0.0)
            zp = (np.sqrt(disc) - b) * inv_a
            s = wu + zp * uz
            _insert(o, (dl < re) & (s >= 0.0) & (s <= length), az + zp, fi, min(1.0, re - dl), L)


@nb.njit(**_JIT)
def _sphere_normal(sx, sy, z, cx, cy, cz, inv_r):
    """Normal of a sphere fragment before the fringe correction (scalars only, inlines)."""
    return (sx - cx) * inv_r, (sy - cy) * inv_r, (z - cz) * inv_r


@nb.njit(**_JIT)
def _stick_normal(sx, sy, z, ax, ay, az, ux, uy, uz, split, inv_rho):
    """Normal of a stick fragment before the fringe correction, and whether it lies on the second
    atom's half."""
    wx, wy, wz = sx - ax, sy - ay, z - az
    wu = wx * ux + wy * uy + wz * uz
    nx, ny, nz = (wx - wu * ux) * inv_rho, (wy - wu * uy) * inv_rho, (wz - wu * uz) * inv_rho
    return nx, ny, nz, wu >= split


@nb.njit(**_JIT)
def _shade(nj, J, O, light, z_far, inv_dz, cue):
    """Weighted, depth-cued Blinn-Phong colours of ``nj`` fragments, in a branch-free loop that LLVM
    vectorises.

    ``J`` (8, >= nj): unit normal (3), depth, weight, colour (3); ``O`` (3, >= nj): the colours
    ``w * (rgb * diffuse + specular) * cue``.  Each array is one allocation, so the vectoriser's
    overlap check is a single comparison.
    """
    ambient, kd, ks, shininess = light[0], light[1], light[2], int(light[3])
    lx, ly, lz, hx, hy, hz = light[4], light[5], light[6], light[7], light[8], light[9]
    spec_min = (0.5 / 255.0 / max(ks, 1e-12)) ** (1.0 / max(shininess, 1))  # ks * x**n < half a level
    for k in range(nj):
        nx, ny, nz, z, w = J[0, k], J[1, k], J[2, k], J[3, k], J[4, k]
        # in the antialiasing fringe outside the silhouette, the in-plane normal (sc = 1 inside)
        s2 = nx * nx + ny * ny
        sc = 1.0 / np.sqrt(max(s2, 1.0))
        nx, ny = nx * sc, ny * sc
        nz = 0.0 if s2 > 1.0 else nz
        diffuse = ambient + kd * max(nx * lx + ny * ly + nz * lz, 0.0)
        ndh = nx * hx + ny * hy + nz * hz
        # ks * ndh ** shininess by squaring, branch-free (shininess < 256); x >= spec_min keeps the
        # lanes whose highlight is dropped away from denormals
        x = max(ndh, spec_min)
        spec = ks
        e = shininess
        for _ in range(8):
            spec = spec * x if e & 1 else spec
            e >>= 1
            x = x * x if e else x
        spec = spec if ndh > spec_min else 0.0  # below it the highlight rounds to nothing
        f = w * (1.0 - cue * (1.0 - min(max((z - z_far) * inv_dz, 0.0), 1.0)))
        O[0, k] = (J[5, k] * diffuse + spec) * f
        O[1, k] = (J[6, k] * diffuse + spec) * f
        O[2, k] = (J[7, k] * diffuse + spec) * f


@nb.njit(**_JIT)
def _draw_tile(t, start, items, ntiles_x, tile, size, cx, cy, cz, rad, rgb,
               bond_a, bond_b, bond_r, bp, inv_rad, light, z_far, inv_dz, cue, image, visible,
               L, colx, J1, J2, O1, O2, jpix, jpar):  # fmt: skip
    """Draw, shade and resolve one tile, using the scratch buffers given (layers reset here).

    Pixel ``(p, j)`` of the tile is element ``p * T + j`` of each field of ``L``; ``colx[j]`` is
    the x of column j's pixel centres.  A layer is empty where its depth is -inf (ids and
    coverages there are stale and never read).
    """
    n = cx.shape[0]
    X0 = (t % ntiles_x) * tile
    Y0 = (t // ntiles_x) * tile
    tw = min(tile, size - X0)
    th = min(tile, size - Y0)
    for p in range(th):
        for j in range(tw):
            o = np.uint64(p * T + j)
            L[o] = -np.inf
            L[o + _F3] = -np.inf
    for j in range(T):
        colx[j] = X0 + j + 0.5  # pixel-centre x, as every primitive computes it
    for q in range(start[t], start[t + 1]):
        pid = items[q]
        if pid < n:
            _draw_sphere(pid, cx[pid], cy[pid], cz[pid], rad[pid], X0, Y0, tw, th, colx, L)
        else:
            b = pid - n
            _draw_stick(pid, bp[b, 0], bp[b, 1], bp[b, 2], bp[b, 3], bp[b, 4], bp[b, 5], bp[b, 6], bond_r[b],
                        X0, Y0, tw, th, colx, L)  # fmt: skip
    # shading inputs: every nearest fragment (J1), and the fragment behind each partly covered one (J2);
    # the sphere/stick dispatch is written out for each layer because a helper taking the arrays
    # costs reference counting per pixel (measured 2x slower for the whole kernel)
    n1 = 0
    n2 = 0
    for p in range(th):
        sy = Y0 + p + 0.5
        for j in range(tw):
            o = np.uint64(p * T + j)
            z = L[o]
            if z == -np.inf:
                continue
            sx = X0 + j + 0.5
            w1 = L[o + _F2]
            k = np.uint64(n1)
            n1 += 1
            idx = int(L[o + _F1])
            if idx < n:
                ui = np.uint64(idx)
                nx, ny, nz = _sphere_normal(sx, sy, z, cx[ui], cy[ui], cz[ui], inv_rad[ui])
                atom = ui
            else:
                b = np.uint64(idx - n)
                nx, ny, nz, far = _stick_normal(sx, sy, z, bp[b, 0], bp[b, 1], bp[b, 2], bp[b, 3], bp[b, 4],
                                                bp[b, 5], bp[b, 7], bp[b, 8])  # fmt: skip
                atom = np.uint64(bond_b[b] if far else bond_a[b])
            J1[0, k], J1[1, k], J1[2, k], J1[3, k], J1[4, k] = nx, ny, nz, z, w1
            J1[5, k], J1[6, k], J1[7, k] = rgb[atom, 0], rgb[atom, 1], rgb[atom, 2]
            jpix[k] = 3 * ((Y0 + p) * size + X0 + j)
            z = L[o + _F3]
            if w1 < 1.0 and z > -np.inf:  # partly covered: blend the layer behind
                idx = int(L[o + _F4])
                if idx < n:
                    ui = np.uint64(idx)
                    nx, ny, nz = _sphere_normal(sx, sy, z, cx[ui], cy[ui], cz[ui], inv_rad[ui])
                    atom = ui
                else:
                    b = np.uint64(idx - n)
                    nx, ny, nz, far = _stick_normal(sx, sy, z, bp[b, 0], bp[b, 1], bp[b, 2], bp[b, 3], bp[b, 4],
                                                    bp[b, 5], bp[b, 7], bp[b, 8])  # fmt: skip
                    atom = np.uint64(bond_b[b] if far else bond_a[b])
                k2 = np.uint64(n2)
                n2 += 1
                J2[0, k2], J2[1, k2], J2[2, k2], J2[3, k2], J2[4, k2] = nx, ny, nz, z, (1.0 - w1) * L[o + _F5]
                J2[5, k2], J2[6, k2], J2[7, k2] = rgb[atom, 0], rgb[atom, 1], rgb[atom, 2]
                jpar[k2] = k
    _shade(n1, J1, O1, light, z_far, inv_dz, cue)
    _shade(n2, J2, O2, light, z_far, inv_dz, cue)
    for k2 in range(n2):
        k = np.uint64(jpar[k2])
        O1[0, k] += O2[0, k2]
        O1[1, k] += O2[1, k2]
        O1[2, k] += O2[2, k2]
    for k in range(n1):
        o = np.uint64(jpix[k])
        image[o] = np.uint8(min(255.0, O1[0, k] * 255.0 + 0.5))
        image[o + 1] = np.uint8(min(255.0, O1[1, k] * 255.0 + 0.5))
        image[o + 2] = np.uint8(min(255.0, O1[2, k] * 255.0 + 0.5))
    # visibility: the atom is the nearest fragment at its centre pixel
    for q in range(start[t], start[t + 1]):
        i = items[q]
        if i >= n:
            continue
        px = int(np.floor(cx[i])) - X0
        py = int(np.floor(cy[i])) - Y0
        if 0 <= px < tw and 0 <= py < th:
            o = np.uint64(py * T + px)
            visible[i] = L[o] > -np.inf and L[o + _F1] == i


@nb.njit(**_JIT)
def stick_params(cx, cy, cz, rad, bond_a, bond_b, bond_r):
    """Per-bond trimmed cylinder: ``(Ax, Ay, Az, ux, uy, uz, length, split, 1/rho)`` float64 (B, 9).

    The cylinder starts where the bond leaves ball ``a`` and ends where it enters ball ``b``;
    ``split`` is the axis parameter of the bond midpoint, where the colour changes from atom ``a``
    to atom ``b``.  Length 0 means nothing to draw.
    """
    nb_ = bond_a.shape[0]
    bp = np.zeros((nb_, 9))
    for b in range(nb_):
        a0, a1 = bond_a[b], bond_b[b]
        dx, dy, dz = cx[a1] - cx[a0], cy[a1] - cy[a0], cz[a1] - cz[a0]
        ln = np.sqrt(dx * dx + dy * dy + dz * dz)
        rho = bond_r[b]
        if ln <= 0.0 or rho <= 0.0:
            continue
        ux, uy, uz = dx / ln, dy / ln, dz / ln
        s0 = np.sqrt(max(rad[a0] * rad[a0] - rho * rho, 0.0))
        s1 = ln - np.sqrt(max(rad[a1] * rad[a1] - rho * rho, 0.0))
        if s1 <= s0:
            continue
        bp[b, 0], bp[b, 1], bp[b, 2] = cx[a0] + s0 * ux, cy[a0] + s0 * uy, cz[a0] + s0 * uz
        bp[b, 3], bp[b, 4], bp[b, 5] = ux, uy, uz
        bp[b, 6] = s1 - s0
        bp[b, 7] = 0.5 * ln - s0
        bp[b, 8] = 1.0 / rho
    return bp


@nb.njit(**_JIT)
def _setup(size, tile, cx, cy, cz, rad, bond_a, bond_b, bond_r):
    """Stick geometry and the per-tile primitive lists."""
    n = cx.shape[0]
    nb_ = bond_a.shape[0]
    bp = stick_params(cx, cy, cz, rad, bond_a, bond_b, bond_r)
    m = n + nb_
    x0 = np.zeros(m, dtype=np.int64)
    x1 = np.full(m, -1, dtype=np.int64)
    y0 = np.zeros(m, dtype=np.int64)
    y1 = np.full(m, -1, dtype=np.int64)
    lim = size - 1
    for q in range(m):
        if q < n:
            if rad[q] <= 0.0:
                continue
            e = rad[q] + 1.0
            lox, hix, loy, hiy = cx[q] - e, cx[q] + e, cy[q] - e, cy[q] + e
        else:
            b = q - n
            if bp[b, 6] <= 0.0:
                continue
            e = bond_r[b] + 1.0
            xe, ye = bp[b, 0] + bp[b, 3] * bp[b, 6], bp[b, 1] + bp[b, 4] * bp[b, 6]
            lox, hix = min(bp[b, 0], xe) - e, max(bp[b, 0], xe) + e
            loy, hiy = min(bp[b, 1], ye) - e, max(bp[b, 1], ye) + e
        if hix >= 0.0 and hiy >= 0.0 and lox < size and loy < size:
            x0[q] = max(0, int(np.floor(lox)))
            x1[q] = min(lim, int(np.floor(hix)))
            y0[q] = max(0, int(np.floor(loy)))
            y1[q] = min(lim, int(np.floor(hiy)))
    ntiles_x = (size + tile - 1) // tile
    # in index order (spheres, then sticks): the image does not depend on the order, and index
    # order keeps neighbouring atoms together, which measured faster than front to back
    start, items = _bin_primitives(x0, x1, y0, y1, ntiles_x, tile)
    inv_rad = np.zeros(n)
    for i in range(n):
        if rad[i] > 0.0:
            inv_rad[i] = 1.0 / rad[i]
    return bp, inv_rad, start, items, ntiles_x


@nb.njit(**_JIT)
def _draw_row(ty, start, items, ntiles_x, tile, size, cx, cy, cz, rad, rgb,
              bond_a, bond_b, bond_r, bp, inv_rad, light, z_far, inv_dz, cue, image, visible):  # fmt: skip
    """Draw one row of tiles with scratch buffers allocated once for the row."""
    L = np.empty(6 * _TT)
    colx = np.empty(T)
    J1, J2 = np.empty((8, tile * tile + _J_PAD)), np.empty((8, tile * tile + _J_PAD))
    O1, O2 = np.empty((3, tile * tile)), np.empty((3, tile * tile))
    jpix = np.empty(tile * tile, dtype=np.int64)
    jpar = np.empty(tile * tile, dtype=np.int64)
    for tx in range(ntiles_x):
        t = ty * ntiles_x + tx
        if start[t + 1] > start[t]:
            _draw_tile(t, start, items, ntiles_x, tile, size, cx, cy, cz, rad, rgb,
                       bond_a, bond_b, bond_r, bp, inv_rad, light, z_far, inv_dz, cue, image, visible,
                       L, colx, J1, J2, O1, O2, jpix, jpar)  # fmt: skip


@nb.njit(**_JIT)
def rasterize(size, tile, cx, cy, cz, rad, rgb, bond_a, bond_b, bond_r, light, z_near, z_far, cue, image, visible):
    """Draw spheres and sticks into ``image`` and flag visible atoms.

    Parameters
    ----------
    size, tile : int
        Image width = height and tile edge (1 to :data:`T` = 64), pixels.
    cx, cy, cz, rad : float64 (n,)
        Sphere centres and radii in pixels (depth ``cz`` larger = nearer); ``rad <= 0`` = not drawn.
    rgb : float64 (n, 3)
        Atom colours in [0, 1].
    bond_a, bond_b : int64 (B,)
        Stick end atoms (both drawn); each half takes its own atom's colour.
    bond_r : float64 (B,)
        Stick radii in pixels.
    light : float64 (10,)
        ``ambient, diffuse, specular, shininess (integer, 1..255), L (3,), H (3,)``: weights,
        Blinn-Phong exponent, unit light and half vectors in screen axes (x right, y down, z to the
        viewer).
    z_near, z_far, cue : float
        Depth-cue range (pixels) and strength: colour factor ``1 - cue`` at ``z_far``, 1 at ``z_near``.
    image : uint8 (size, size, 3)
        Output, written tile by tile (pixels left untouched where nothing is drawn).
    visible : bool (n,)
        Output: set True for atoms that are the nearest fragment at their centre pixel.
    """
    if tile < 1 or tile > T:
        raise ValueError("tile must be 1..64 pixels")
    bp, inv_rad, start, items, ntiles_x = _setup(size, tile, cx, cy, cz, rad, bond_a, bond_b, bond_r)
    inv_dz = 1.0 / (z_near - z_far) if z_near > z_far else 0.0
    flat = image.reshape(size * size * 3)
    for ty in range(ntiles_x):
        _draw_row(ty, start, items, ntiles_x, tile, size, cx, cy, cz, rad, rgb,
                  bond_a, bond_b, bond_r, bp, inv_rad, light, z_far, inv_dz, cue, flat, visible)  # fmt: skip


@nb.njit(**_PJIT)
def rasterize_parallel(size, tile, cx, cy, cz, rad, rgb, bond_a, bond_b, bond_r, light, z_near, z_far, cue, image,
                       visible):  # fmt: skip
    """:func:`rasterize` with rows of tiles spread over numba's threads (same output, byte for byte)."""
    if tile < 1 or tile > T:
        raise ValueError("tile must be 1..64 pixels")
    bp, inv_rad, start, items, ntiles_x = _setup(size, tile, cx, cy, cz, rad, bond_a, bond_b, bond_r)
    inv_dz = 1.0 / (z_near - z_far) if z_near > z_far else 0.0
    flat = image.reshape(size * size * 3)
    for ty in nb.prange(ntiles_x):  # rows write disjoint parts of image and visible
        _draw_row(ty, start, items, ntiles_x, tile, size, cx, cy, cz, rad, rgb,
                  bond_a, bond_b, bond_r, bp, inv_rad, light, z_far, inv_dz, cue, flat, visible)  # fmt: skip
