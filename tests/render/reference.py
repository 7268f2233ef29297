"""Slow pure-numpy reference for ``misi_render._raster.rasterize`` (style rule 14).

Written from the kernel's documented model, not from its code: every pixel centre is tested
against every primitive (no tiles, bounding boxes or early rejection), fragments are kept as the
two nearest per pixel by a stable sort on (depth, id), and Blinn-Phong shading is evaluated with
numpy's power instead of the kernel's exponentiation by squaring.
"""

from __future__ import annotations

import numpy as np

__all__ = ["reference_rasterize"]


def _stick_geometry(cx, cy, cz, rad, bond_a, bond_b, bond_r):
    """Trimmed cylinders: start A (B,3), unit u (B,3), length (B,), colour split (B,)."""
    p0 = np.column_stack([cx[bond_a], cy[bond_a], cz[bond_a]])
    p1 = np.column_stack([cx[bond_b], cy[bond_b], cz[bond_b]])
    v = p1 - p0
    ln = np.linalg.norm(v, axis=1)
    u = v / np.where(ln > 0, ln, 1.0)[:, None]
    s0 = np.sqrt(np.maximum(rad[bond_a] ** 2 - bond_r**2, 0.0))
    s1 = ln - np.sqrt(np.maximum(rad[bond_b] ** 2 - bond_r**2, 0.0))
    length = np.where((ln > 0) & (bond_r > 0) & (s1 > s0), s1 - s0, 0.0)
    start = p0 + s0[:, None] * u
    return start, u, length, 0.5 * ln - s0


def _shade(nx, ny, light):
    """(diffuse factor, specular term) for screen normal components (nx, ny)."""
    s2 = nx * nx + ny * ny
    if s2 > 1.0:
        nx, ny, nz = nx / np.sqrt(s2), ny / np.sqrt(s2), 0.0
    else:
        nz = np.sqrt(1.0 - s2)
    ambient, kd, ks, shininess = light[:4]
    diffuse = ambient + kd * max(nx * light[4] + ny * light[5] + nz * light[6], 0.0)
    ndh = nx * light[7] + ny * light[8] + nz * light[9]
    spec_min = (0.5 / 255.0 / ks) ** (1.0 / shininess)  # documented cut: highlights under half a level
    spec = ks * ndh**shininess if ndh > spec_min else 0.0
    return diffuse, spec


def reference_rasterize(size, cx, cy, cz, rad, rgb, bond_a, bond_b, bond_r, light, z_near, z_far, cue):
    """Return ``(image uint8 (size, size, 3), visible bool (n,))`` like the numba kernel."""
    n = len(cx)
    jj, ii = np.meshgrid(np.arange(size), np.arange(size))
    sx, sy = jj + 0.5, ii + 0.5
    frags = []  # (z, id, cov) per primitive, arrays of shape (size, size); z = -inf where absent
    for i in range(n):
        r = rad[i]
        z = np.full((size, size), -np.inf)
        cov = np.zeros((size, size))
        if r > 0:
            d2 = (sx - cx[i]) ** 2 + (sy - cy[i]) ** 2
            hit = d2 < (r + 0.5) ** 2
            z[hit] = cz[i] + np.sqrt(np.maximum(r * r - d2[hit], 0.0))
            cov[hit] = np.minimum(1.0, r + 0.5 - np.sqrt(d2[hit]))
        frags.append((z, cov))
    start, u, length, split = _stick_geometry(cx, cy, cz, rad, bond_a, bond_b, bond_r)
    for b in range(len(bond_a)):
        z = np.full((size, size), -np.inf)
        cov = np.zeros((size, size))
        a = 1.0 - u[b, 2] ** 2
        if length[b] > 0 and a >= 1e-12:
            rho = bond_r[b]
            wx, wy = sx - start[b, 0], sy - start[b, 1]
            e = u[b, :2] / np.sqrt(a)
            dl = np.abs(wx * e[1] - wy * e[0])
            wu = wx * u[b, 0] + wy * u[b, 1]
            bq = -u[b, 2] * wu
            c = wx * wx + wy * wy - wu * wu - rho * rho
            zp = (np.sqrt(np.maximum(bq * bq - a * c, 0.0)) - bq) / a
            s = wu + zp * u[b, 2]
            hit = (dl < rho + 0.5) & (s >= 0) & (s <= length[b])
            z[hit] = start[b, 2] + zp[hit]
            cov[hit] = np.minimum(1.0, rho + 0.5 - dl[hit])
        frags.append((z, cov))
    frags.append((np.full((size, size), -np.inf), np.zeros((size, size))))  # so there are >= 2 layers
    zs = np.stack([f[0] for f in frags])  # (m + 1, size, size)
    covs = np.stack([f[1] for f in frags])
    # nearest first; among equal depths the smaller id (stable sort on -z keeps id order)
    order = np.argsort(-zs, axis=0, kind="stable")[:2]
    image = np.zeros((size, size, 3))
    inv_dz = 1.0 / (z_near - z_far)
    w_prev = np.zeros((size, size))
    for layer in range(2):
        idx = order[layer]
        z = np.take_along_axis(zs, idx[None], 0)[0]
        cov = np.take_along_axis(covs, idx[None], 0)[0]
        present = np.isfinite(z)
        w = cov if layer == 0 else (1.0 - w_prev) * cov
        if layer == 1:
            present &= w_prev < 1.0
        for y, x in zip(*np.nonzero(present)):
            k = idx[y, x]
            px, py = x + 0.5, y + 0.5
            if k < n:
                nx, ny, atom = (px - cx[k]) / rad[k], (py - cy[k]) / rad[k], k
            else:
                b = k - n
                wv = np.array([px, py, z[y, x]]) - start[b]
                wu = wv @ u[b]
                perp = (wv - wu * u[b]) / bond_r[b]
                nx, ny = perp[0], perp[1]
                atom = bond_a[b] if wu < split[b] else bond_b[b]
            diffuse, spec = _shade(nx, ny, light)
            t = min(max((z[y, x] - z_far) * inv_dz, 0.0), 1.0)
            f = w[y, x] * (1.0 - cue * (1.0 - t))
            image[y, x] += (rgb[atom] * diffuse + spec) * f
        w_prev = np.where(present, cov, 0.0) if layer == 0 else w_prev
    out = np.minimum(255.0, image * 255.0 + 0.5).astype(np.uint8)
    top = order[0]
    visible = np.zeros(n, dtype=bool)
    for i in range(n):
        if rad[i] <= 0:
            continue
        x, y = int(np.floor(cx[i])), int(np.floor(cy[i]))
        if 0 <= x < size and 0 <= y < size:
            visible[i] = bool(np.isfinite(zs[top[y, x], y, x]) and top[y, x] == i)
    return out, visible
