"""PNG encoding and atomic saving.

PNG output is on the hot path (one file per rendered view), so misi writes PNGs itself: the "Up"
filter on every row (computed with numpy), one deflate stream, three chunks.  Up + zlib-ng level 1
is ~5x faster than the standard library's zlib and ~13x faster than Pillow at level 1 (the
encoders measured: ``docs/performance.md``, "PNG encoders").

Pillow filters every row adaptively, which costs as much as the compression.  The choice: the Up
filter, then zlib-ng (the ``zlib-ng`` package, a required dependency) at :data:`PNG_COMPRESS_LEVEL`.
The filtered rows go to a per-thread scratch buffer reused between images (no 3 MB allocation and
its page faults per image), checksums use zlib-ng's crc32, and the compressed data is copied once
(:func:`encode_png`) or not at all (:func:`save_png` writes the parts).

Determinism.  The bytes must be a pure function of the pixels.  ISA-L (python-isal) is not: the
same image, encoded by the same ``isal`` in two processes, sometimes gave two different (equally
valid, same-length) streams -- a different match chosen early in the stream -- at level 1 in about
1 process in 20, and at level 2, used after that was found, still in about 1 generation run in 8 of
the golden-hash benchmark (``benchmarks/golden_hash.py``; pixels identical, 9 bytes of one PNG
different).  It could not be reproduced on demand (heap garbage, ``MALLOC_PERTURB_``, the previous
image, memory after the input: none changed the bytes), so it depends on process state that
ISA-L's assembly reads uninitialised.  zlib-ng initialises all the state it reads (it is tested
under MemorySanitizer) and is used as a one-shot ``compress`` on a complete buffer, so there is no
stream state carried between images.  There is no fallback encoder: another deflate
implementation would give other bytes, and output must not depend on what happens to be
installed.  ``tests/render/test_png_determinism.py`` encodes real renders many times, in this
process and in fresh processes with different heaps, and compares the bytes; a fault that needs a
particular process state cannot be forced, so it guards the property, not a cause.

>>> import numpy as np
>>> data = encode_png(np.zeros((8, 8, 3), dtype=np.uint8))
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import os
import struct
import tempfile
import threading
from pathlib import Path

import numpy as np
from zlib_ng import zlib_ng

__all__ = ["PNG_COMPRESS_LEVEL", "encode_png", "save_png"]

#: zlib-ng deflate level of every PNG (see the module docstring for the measurements).
PNG_COMPRESS_LEVEL = 1


def _check_image(image: np.ndarray) -> np.ndarray:
    a = np.asarray(image)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"expected a uint8 (H, W, 3) image, got dtype {a.dtype} and shape {a.shape}")
    return np.ascontiguousarray(a)


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib_ng.crc32(data, zlib_ng.crc32(tag)))


_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_IEND = _chunk(b"IEND", b"")
_IDAT_CRC = zlib_ng.crc32(b"IDAT")
#: Per-thread filtered-row buffer, reused while the image shape stays the same: a fresh 3 MB array
#: per image costs its page faults (about as much as the filter itself).
_SCRATCH = threading.local()


def _filtered_rows(a: np.ndarray) -> np.ndarray:
    """The deflate input: each row of ``a`` as filter type 2 ("Up") then the row minus the row above
    (mod 256).  A view of this thread's scratch buffer, valid until its next call."""
    h, w = a.shape[:2]
    raw = getattr(_SCRATCH, "raw", None)
    if raw is None or raw.shape != (h, 1 + w * 3):
        raw = _SCRATCH.raw = np.empty((h, 1 + w * 3), dtype=np.uint8)
        raw[:, 0] = 2  # PNG filter type "Up"; never overwritten below
    flat = a.reshape(h, w * 3)
    raw[:1, 1:] = flat[:1]
    np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])
    return raw


def _png_parts(image: np.ndarray, compress_level: int | None) -> list[bytes]:
    """The PNG file as a few byte strings (joined by :func:`encode_png`, written as they are by
    :func:`save_png`): the compressed data is not copied again."""
    a = _check_image(image)
    h, w = a.shape[:2]
    data = zlib_ng.compress(_filtered_rows(a), PNG_COMPRESS_LEVEL if compress_level is None else int(compress_level))
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bit, truecolour, no interlace
    return [_SIGNATURE + _chunk(b"IHDR", header) + struct.pack(">I", len(data)) + b"IDAT", data,
            struct.pack(">I", zlib_ng.crc32(data, _IDAT_CRC)) + _IEND]  # fmt: skip


def encode_png(image: np.ndarray, compress_level: int | None = None) -> bytes:
    """Encode an RGB image as PNG bytes (8-bit RGB, Up filter, one IDAT chunk).

    Parameters
    ----------
    image : ndarray, dtype=uint8, shape=(H, W, 3)
    compress_level : int, optional
        zlib-ng deflate level 0-9; default :data:`PNG_COMPRESS_LEVEL`.

    Returns
    -------
    bytes
        A complete PNG file; the same image always gives the same bytes (same package versions).
    """
    return b"".join(_png_parts(image, compress_level))


def save_png(image: np.ndarray, path: str | os.PathLike, compress_level: int | None = None) -> Path:
    """Write an RGB image to ``path`` atomically (temporary file in the same folder + ``os.replace``).

    Returns
    -------
    Path
        The written path.
    """
    parts = _png_parts(image, compress_level)
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.writelines(parts)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
