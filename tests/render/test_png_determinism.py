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
import struct
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


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    """(type, data) of each chunk of a PNG file, in order, each checked against its CRC."""
    out, pos = [], 8
    while pos < len(png):
        n = int.from_bytes(png[pos:pos + 4], "big")
        kind, data = png[pos + 4:pos + 8], png[pos + 8:pos + 8 + n]
        assert int.from_bytes(png[pos + 8 + n:pos + 12 + n], "big") == zlib.crc32(kind + data)
        out.append((kind, data))
        pos += 12 + n
    return out


def _scanlines(png: bytes) -> np.ndarray:
    """The filtered scanlines (filter byte first) of an 8-bit RGB PNG, checked to be one."""
    chunks = _chunks(png)
    kinds = [k for k, _ in chunks]
    assert kinds[0] == b"IHDR" and kinds[-1] == b"IEND" and kinds.count(b"IDAT") == 1
    w, h, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, interlace) == (8, 2, 0)
    data = zlib.decompress(b"".join(d for k, d in chunks if k == b"IDAT"))
    assert len(data) == h * (1 + 3 * w)
    return np.frombuffer(data, np.uint8).reshape(h, 1 + 3 * w)


def _undo_up(rows: np.ndarray) -> np.ndarray:
    """Pixels (H, W, 3) of scanlines that all use the Up filter (the first one may say None, which is
    the same for the first row)."""
    assert rows[0, 0] in (0, 2) and (rows[1:, 0] == 2).all()
    h = rows.shape[0]
    return np.cumsum(rows[:, 1:].astype(np.uint64), axis=0).astype(np.uint8).reshape(h, -1, 3)


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
    """One IDAT of Up-filtered rows (what misi-audit's fast decoder reads), checksums valid."""
    assert np.array_equal(_undo_up(_scanlines(encode_png(images[0]))), images[0])


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


def test_views_shapes_and_threads_give_the_bytes_of_a_serial_encode(images):
    """Interleaved shapes, views that are not contiguous and two threads at once give the bytes of a
    fresh serial encode of a contiguous copy."""
    from concurrent.futures import ThreadPoolExecutor

    imgs = [images[0], images[1][:300, 5:600], images[2][::2, ::3], np.asfortranarray(images[3]), images[4]]
    want = [png_module.encode_png(np.array(im)) for im in imgs]
    for k in [0, 1, 0, 2, 3, 1, 4, 4, 2]:
        assert png_module.encode_png(imgs[k]) == want[k]
    with ThreadPoolExecutor(2) as pool:
        got = list(pool.map(png_module.encode_png, [imgs[k] for k in [0, 1, 2, 3, 4] * 4]))
    assert got == want * 4
    assert np.array_equal(_undo_up(_scanlines(want[1])), imgs[1])
