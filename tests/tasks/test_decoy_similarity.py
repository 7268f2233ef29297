"""The decoy check's fast paths give the very numbers of the straightforward ones (no output change)."""

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
from scipy.ndimage import uniform_filter
from skimage.metrics import structural_similarity

from misi_tasks.tasks import _ssim_kernels
from misi_tasks.tasks.decoys import SSIM_SIZE, SsimThumb, grey_thumbnail, image_similarity, thumbnail_similarity


def _reference_thumbnail(image: np.ndarray) -> np.ndarray:
    """The box average written as one reduction (the definition the fast version must match)."""
    f = max(1, image.shape[0] // SSIM_SIZE)
    h, w = (image.shape[0] // f) * f, (image.shape[1] // f) * f
    total = image[:h, :w].reshape(h // f, f, w // f, f, -1).sum(axis=(1, 3, 4), dtype=np.uint64)
    return total / (255.0 * f * f * image.shape[2])


@settings(max_examples=40, deadline=None)
@given(side=st.integers(7, 1100), seed=st.integers(0, 2**32 - 1), channels=st.sampled_from([1, 3, 4]))
def test_grey_thumbnail_equals_block_mean(side: int, seed: int, channels: int) -> None:
    rng = np.random.default_rng(seed)
    image = rng.integers(0, 256, (side, side + seed % 5, channels), dtype=np.uint8)
    image[: side // 3] = 255  # saturated blocks: the integer sums must not overflow
    got, want = grey_thumbnail(image), _reference_thumbnail(image)
    assert got.dtype == np.float64 and got.shape == want.shape
    assert np.array_equal(got, want)


@settings(max_examples=40, deadline=None)
@given(h=st.integers(7, 80), w=st.integers(7, 80), seed=st.integers(0, 2**32 - 1))
def test_ssim_bit_identical_to_scikit_image(h: int, w: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.random((h, w))
    b = np.clip(a + rng.normal(0, 0.2, (h, w)), 0, 1) if seed % 2 else rng.random((h, w))
    want = structural_similarity(a, b, data_range=1.0)
    assert thumbnail_similarity(a, b) == want
    assert thumbnail_similarity(SsimThumb(a), SsimThumb(b)) == want
    assert thumbnail_similarity(SsimThumb(b), a) == structural_similarity(b, a, data_range=1.0)


def test_image_similarity_on_drawn_images() -> None:
    from misi_geom import Complex
    from misi_render import RenderOptions, render_views

    c = Complex.from_atoms([[0.0, 0, 0], [1.4, 0, 0], [2.1, 1.2, 0.3]], ["C", "N", "O"], bonds=[(0, 1), (1, 2)])
    front, left = (v.image for v in render_views(c, ("front", "left"), options=RenderOptions(size=512, ligand_labels=False)))
    want = structural_similarity(_reference_thumbnail(front), _reference_thumbnail(left), data_range=1.0)
    assert image_similarity(front, left) == want < 1.0
    assert image_similarity(front, front) == 1.0


def test_thumbnail_shapes_must_agree() -> None:
    with pytest.raises(ValueError, match="differ in shape"):
        thumbnail_similarity(np.zeros((8, 8)), np.zeros((9, 8)))


@settings(max_examples=60, deadline=None)
@given(h=st.integers(1, 40), w=st.integers(1, 40), size=st.sampled_from([2, 3, 7, 8]),
       scale=st.sampled_from([1e-3, 1.0, 255.0, 1e6]), seed=st.integers(0, 2**32 - 1))
def test_box_filter_equals_scipy_uniform_filter(h: int, w: int, size: int, scale: float, seed: int) -> None:
    """Every pixel, any shape (lines shorter than the window reflect more than once)."""
    x = np.random.default_rng(seed).random((h, w)) * scale
    if seed % 3 == 0:
        x = np.round(x * 255) / 255  # thumbnail-like values
    assert np.array_equal(_ssim_kernels.box_filter(x, size), uniform_filter(x, size=size))


_NOJIT_SCRIPT = r"""
import json
import numpy as np
from misi_tasks.tasks.decoys import grey_thumbnail, image_similarity
rng = np.random.default_rng(5)
a, b = (rng.integers(0, 256, (300, 290, 3), dtype=np.uint8) for _ in range(2))
print(json.dumps({"thumb": grey_thumbnail(a).tolist(), "ssim": image_similarity(a, b)}))
"""


def test_kernels_without_jit_give_the_same_numbers() -> None:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    res = subprocess.run([sys.executable, "-c", _NOJIT_SCRIPT], cwd=Path(__file__).resolve().parents[2],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0, res.stderr[-2000:]
    got = json.loads(res.stdout.strip().splitlines()[-1])
    rng = np.random.default_rng(5)
    a, b = (rng.integers(0, 256, (300, 290, 3), dtype=np.uint8) for _ in range(2))
    assert np.array_equal(np.array(got["thumb"]), grey_thumbnail(a))
    assert got["ssim"] == image_similarity(a, b)


def test_grey_thumbnail_wants_bytes() -> None:
    with pytest.raises(ValueError, match="uint8"):
        grey_thumbnail(np.zeros((8, 8, 3)))
