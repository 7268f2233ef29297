"""PNG bytes are a pure function of the pixels: same image -> same bytes, in any process.

ISA-L (used before zlib-ng) gave different streams for the same pixels in some processes, depending
on process state (see ``misi_render/png.py``); these tests encode real renders many times, with the
heap filled with random garbage in between, in this process and in fresh processes started with
different ``MALLOC_PERTURB_`` values (glibc then fills every malloc'd block with that byte).  They
could not be made to fail reliably on ISA-L: they guard the property.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from misi_geom import load_complex
from misi_render import RenderOptions, encode_png, render_views
import misi_render.png as png_module
from misi_geom.samples import sample_root

_VIEWS = ("front", "left", "top", "back", "right", "bottom")


@pytest.fixture(scope="module")
def images() -> np.ndarray:
    """The six 1024 px views of one sample complex plus one view of two others."""
    imgs = [v.image for v in render_views(load_complex(sample_root() / "1h1d"), _VIEWS, options=RenderOptions(size=1024))]
    for cid in ("2w9r", "4cjq"):
        imgs += [v.image for v in render_views(load_complex(sample_root() / cid), ("top",), options=RenderOptions(size=1024))]
    return np.stack(imgs)


def _digests(imgs: np.ndarray) -> list[str]:
    return [hashlib.sha256(encode_png(im)).hexdigest() for im in imgs]


def _idat(png: bytes) -> bytes:
    return png[8 + 25 + 8: -12 - 4]


def test_same_image_same_bytes_many_times_in_one_process(images):
    rng = np.random.default_rng(11)
    first = _digests(images)
    for _ in range(4):
        # leave random garbage on the heap where the encoder's buffers will be allocated
        junk = [bytearray(rng.integers(0, 256, int(n), dtype=np.uint8)) for n in rng.integers(1e4, 2e6, 4)]
        del junk
        for k in rng.permutation(len(images)):
            assert hashlib.sha256(encode_png(images[k])).hexdigest() == first[k]


def test_png_stream_decodes_to_the_filtered_pixels(images):
    data = zlib.decompress(_idat(encode_png(images[0])))
    h, w = images[0].shape[:2]
    assert len(data) == h * (1 + 3 * w)
    rows = np.frombuffer(data, np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 2).all()  # Up filter
    pixels = np.cumsum(rows[:, 1:].astype(np.uint64), axis=0).astype(np.uint8)  # undo Up (mod 256)
    assert np.array_equal(pixels.reshape(h, w, 3), images[0])


_CHILD = """
import sys, hashlib, numpy as np
rng = np.random.default_rng(int(sys.argv[2]))
junk = [bytearray(rng.integers(0, 256, int(n), dtype=np.uint8)) for n in rng.integers(1e4, 4e6, 6)]
del junk
import importlib.util
spec = importlib.util.spec_from_file_location("png", sys.argv[3])  # the module alone: no numba start-up
png = importlib.util.module_from_spec(spec)
spec.loader.exec_module(png)
encode_png = png.encode_png
imgs = np.load(sys.argv[1])
for k in rng.permutation(len(imgs)).tolist() * 2:
    print(k, hashlib.sha256(encode_png(imgs[k])).hexdigest())
"""


def test_same_image_same_bytes_in_several_processes(images, tmp_path: Path):
    np.save(tmp_path / "imgs.npy", images)
    expected = _digests(images)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    procs = [
        subprocess.Popen([sys.executable, "-c", _CHILD, str(tmp_path / "imgs.npy"), str(seed),
                          png_module.__file__],
                         env={**env, "MALLOC_PERTURB_": str(perturb)}, stdout=subprocess.PIPE, text=True)
        for seed, perturb in ((1, 0), (2, 1), (3, 85), (4, 254))
    ]
    for p in procs:
        out, _ = p.communicate(timeout=300)
        assert p.returncode == 0
        lines = [line.split() for line in out.splitlines()]
        assert len(lines) == 2 * len(images)
        for k, digest in lines:
            assert digest == expected[int(k)]


def test_scratch_buffer_reuse_across_shapes_and_threads(images):
    """encode_png filters into a per-thread buffer kept between calls: interleaved shapes, views
    that are not contiguous and two threads at once give the bytes of a fresh serial encode;
    save_png writes those bytes."""
    from concurrent.futures import ThreadPoolExecutor

    imgs = [images[0], images[1][:300, 5:600], images[2][::2, ::3], np.asfortranarray(images[3]), images[4]]
    want = [png_module.encode_png(np.array(im)) for im in imgs]
    for k in [0, 1, 0, 2, 3, 1, 4, 4, 2]:
        assert png_module.encode_png(imgs[k]) == want[k]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(png_module.encode_png, [imgs[k] for k in [0, 1, 2, 3, 4] * 4]))
    assert got == want * 4
    h, w = imgs[1].shape[:2]
    rows = np.frombuffer(zlib.decompress(_idat(want[1])), np.uint8).reshape(h, 1 + 3 * w)
    assert (rows[:, 0] == 2).all() and np.array_equal(np.cumsum(rows[:, 1:].astype(np.uint64), axis=0).astype(np.uint8).reshape(h, w, 3), imgs[1])
