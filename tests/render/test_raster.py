"""The numba kernel against the slow numpy reference, and against itself without JIT."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_render._raster import rasterize
from misi_render.render import DEPTH_CUE, TILE, lighting

from .reference import reference_rasterize


def random_scene(seed: int, size: int, n: int, n_bonds: int, tiny: bool = False):
    rng = np.random.default_rng(seed)
    cx = rng.uniform(-4, size + 4, n)
    cy = rng.uniform(-4, size + 4, n)
    cz = rng.uniform(-20, 20, n)
    rad = rng.uniform(0.3, 2.0, n) if tiny else rng.uniform(1.5, size / 5, n)
    rad[rng.random(n) < 0.1] = 0.0  # some atoms not drawn (hydrogens)
    rgb = rng.uniform(0, 1, (n, 3))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n) if rad[a] > 0 and rad[b] > 0]
    rng.shuffle(pairs)
    pairs = np.array(pairs[:n_bonds], dtype=np.int64).reshape(-1, 2)
    bond_r = np.minimum(rad[pairs[:, 0]], rad[pairs[:, 1]]) * rng.uniform(0.3, 0.8, len(pairs))
    return (cx, cy, cz, rad, rgb, np.ascontiguousarray(pairs[:, 0]), np.ascontiguousarray(pairs[:, 1]), bond_r)


def run_kernel(size, scene, tile=TILE):
    cx, cy, cz, rad, rgb, ba, bb, br = scene
    image = np.zeros((size, size, 3), np.uint8)
    visible = np.zeros(len(cx), bool)
    rasterize(size, tile, cx, cy, cz, rad, rgb, ba, bb, br, lighting(), 30.0, -30.0, DEPTH_CUE, image, visible)
    return image, visible


def run_reference(size, scene):
    cx, cy, cz, rad, rgb, ba, bb, br = scene
    return reference_rasterize(size, cx, cy, cz, rad, rgb, ba, bb, br, lighting(), 30.0, -30.0, DEPTH_CUE)


def assert_images_close(a, b):
    diff = np.abs(a.astype(int) - b.astype(int)).max(axis=2)
    # same geometry in float64; x**n vs squaring may differ in the last bit, which can flip a rounding
    # to 8 bits (diff 1); a fragment exactly on an edge may flip a couple of pixels
    assert (diff > 1).sum() <= 2, f"{(diff > 1).sum()} pixels differ by more than 1, max {diff.max()}"
    assert (diff > 0).mean() < 0.01


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(1, 7), n_bonds=st.integers(0, 6), tiny=st.booleans())
def test_kernel_matches_numpy_reference(seed, n, n_bonds, tiny):
    size = 40
    scene = random_scene(seed, size, n, n_bonds, tiny)
    img, vis = run_kernel(size, scene, tile=16)  # several tiles, primitives crossing tile edges
    ref_img, ref_vis = run_reference(size, scene)
    assert_images_close(img, ref_img)
    assert (vis != ref_vis).sum() <= 1


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_tile_size_does_not_change_the_image(seed):
    scene = random_scene(seed, 64, 12, 8)
    a, va = run_kernel(64, scene, tile=8)
    b, vb = run_kernel(64, scene, tile=64)
    assert np.array_equal(a, b) and np.array_equal(va, vb)


def test_drawing_order_does_not_matter():
    """The top two fragments per pixel do not depend on primitive order (depths without ties)."""
    cx, cy, cz, rad, rgb, ba, bb, br = random_scene(7, 48, 10, 6)
    a, va = run_kernel(48, (cx, cy, cz, rad, rgb, ba, bb, br))
    perm = np.random.default_rng(0).permutation(10)  # new index k holds old atom perm[k]
    inv = np.argsort(perm)
    bperm = np.random.default_rng(1).permutation(len(ba))
    scene = (cx[perm], cy[perm], cz[perm], rad[perm], rgb[perm], inv[ba][bperm], inv[bb][bperm], br[bperm])
    b, vb = run_kernel(48, scene)
    assert np.array_equal(a, b)
    assert np.array_equal(va, vb[inv])


def test_depth_ties_go_to_the_smaller_atom_index():
    # two equal spheres at the same place and depth: atom 0 wins whatever the colours
    rgb = np.array([[1.0, 0, 0], [0, 0, 1.0]])
    scene = (np.array([10.0, 10.0]), np.array([10.0, 10.0]), np.zeros(2), np.array([5.0, 5.0]), rgb,
             np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))  # fmt: skip
    img, vis = run_kernel(20, scene)
    assert vis.tolist() == [True, False]
    assert img[10, 10, 0] > 0 and img[10, 10, 2] == img[10, 10, 1]


# Scenes for the JIT / no-JIT comparison: overlapping balls and sticks, so that nearer fragments
# push older ones into the second layer inside the vectorised loops (a store-order miscompile there
# once changed a few edge pixels by up to 100 levels, which the reference tolerance could miss).
_NOJIT_SCENES = [(5, 24, 5, 3, 8), (11, 32, 6, 5, 16), (12, 30, 6, 5, 12), (13, 32, 7, 6, 32)]

# Scenes for the row-group comparison: bigger balls and sticks, so rows span several groups.
_LANES_SCENES = [(21, 200, 24, 30, 64), (22, 130, 12, 10, 40), (23, 96, 30, 40, 16)]

_KERNEL_SCRIPT = r"""
import json, sys
from misi_render import _raster
if len(sys.argv) > 2:  # rows widened to groups of this many pixels: read when the kernels compile
    _raster.LANES = int(sys.argv[2])
    _raster._LANE_MASK = _raster.LANES - 1
from tests.render.test_raster import random_scene, run_kernel  # run from the repository root
out = []
for seed, size, n, nb, tile in json.loads(sys.argv[1]):
    img, vis = run_kernel(size, random_scene(seed, size, n, nb), tile=tile)
    out.append({"img": img.tolist(), "vis": vis.tolist()})
print(json.dumps(out))
"""


def assert_kernel_elsewhere_draws_the_same(scenes, env, *args):
    """The kernel run in a fresh process with ``env`` (and ``args`` for the script above) draws
    exactly this process's images and visibility on ``scenes`` ((seed, size, n, bonds, tile) each)."""
    res = subprocess.run(
        [sys.executable, "-c", _KERNEL_SCRIPT, json.dumps(scenes), *args], cwd=Path(__file__).resolve().parents[2],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr[-2000:]
    data = json.loads(res.stdout.strip().splitlines()[-1])
    for (seed, size, n, nb, tile), ref in zip(scenes, data, strict=True):
        img, vis = run_kernel(size, random_scene(seed, size, n, nb), tile=tile)
        assert img.any()
        assert np.array_equal(np.array(ref["img"], dtype=np.uint8), img), (seed, size, tile)
        assert ref["vis"] == vis.tolist()


def test_kernel_without_jit_gives_the_same_image():
    assert_kernel_elsewhere_draws_the_same(_NOJIT_SCENES, dict(os.environ, NUMBA_DISABLE_JIT="1"))


def test_the_row_groups_of_either_vector_width_draw_the_same_image(tmp_path):
    """Rows are widened to groups of 4 or 8 pixels, after the CPU (``_raster.LANES``): a kernel
    compiled with the other width (in a fresh numba cache) gives the same bytes, so output never
    depends on the CPU."""
    from misi_render import _raster

    other = 8 if _raster.LANES == 4 else 4
    assert_kernel_elsewhere_draws_the_same(_LANES_SCENES, dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)), str(other))


def test_tile_edge_above_the_buffer_is_refused():
    with pytest.raises(ValueError, match="tile"):
        run_kernel(16, random_scene(1, 16, 2, 1), tile=65)
