"""The PNG encoding is lossless: decoding misi's PNGs gives back exactly the rendered pixels.

Pixels must never change when the encoding or the storage of images does.  Checked on
arbitrary images through PIL, and on real renders decoded the way Hugging Face ``datasets`` decodes
an ``Image`` cell, compared with the pixels of PNGs written at commit 1948be6 -- the fixtures in
``tests/render/data/`` (see its ``README.md``).
"""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from misi_geom import load_complex
from misi_geom.samples import sample_root
from misi_render import RenderOptions, encode_png, render_views, save_png

DATA = Path(__file__).parent / "data"


def _pil_pixels(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


# images with the structure of renders (flat background, runs, edges) as well as noise
_images = st.tuples(st.integers(1, 40), st.integers(1, 40), st.integers(0, 2**32 - 1), st.sampled_from(
    ["noise", "blocks", "extremes"])).map(lambda t: _make(*t))


def _make(h: int, w: int, seed: int, kind: str) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "noise":
        return rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    if kind == "extremes":  # 0 and 255 only: the Up filter wraps around
        return (rng.integers(0, 2, (h, w, 3)) * 255).astype(np.uint8)
    img = np.zeros((h, w, 3), np.uint8)
    for _ in range(3):
        y, x = rng.integers(0, h), rng.integers(0, w)
        img[y: y + rng.integers(1, h + 1), x: x + rng.integers(1, w + 1)] = rng.integers(0, 256, 3)
    return img


@settings(max_examples=150, deadline=None)
@given(_images)
def test_any_image_decodes_to_itself(img):
    data = encode_png(img)
    assert np.array_equal(_pil_pixels(data), img)


@pytest.fixture(scope="module")
def renders() -> dict[str, np.ndarray]:
    """The two fixture views, rendered now, and 1024 px views of one sample with labels."""
    c = load_complex(sample_root() / "1h1d")
    small = RenderOptions(size=256, residue_labels=False, ligand_labels=False)
    out = {v.name: v.image for v in render_views(c, ("front", "top"), options=small)}
    out |= {f"{v.name}-1024": v.image for v in render_views(c, ("front", "left"), options=RenderOptions(size=1024))}
    return out


@pytest.mark.parametrize("view", ["front", "top"])
def test_pixels_are_those_of_the_1948be6_encoder(renders, view, tmp_path):
    """A PNG written at 1948be6 and one written now of the same render decode to the same pixels."""
    old = _pil_pixels((DATA / f"1h1d_{view}_256_1948be6.png").read_bytes())
    new = save_png(renders[view], tmp_path / "new.png").read_bytes()
    assert old.shape == (256, 256, 3) and (old != 0).any()
    assert np.array_equal(_pil_pixels(new), old)


def test_datasets_image_feature_decodes_renders_exactly(renders):
    """What a user of the dataset gets: ``datasets``' Image feature decoding the PNG bytes."""
    datasets = pytest.importorskip("datasets")
    feature = datasets.Image()
    for name, img in renders.items():
        decoded = feature.decode_example({"bytes": encode_png(img), "path": None})
        assert decoded.mode == "RGB" and np.array_equal(np.asarray(decoded), img), name
