"""PNG encoding and atomic saving.

PNG output is on the hot path (one file per rendered view), so misi writes PNGs itself: the "Up"
filter on every row (computed with numpy), one zlib stream, three chunks.  Measured on 1024 px
renders of the sample pockets (mostly black background, ``benchmarks/bench_render.py``):

==========================================  =========  =========
encoder                                      ms          kB
==========================================  =========  =========
Pillow ``compress_level=6`` (its default)    78          359
Pillow ``compress_level=1``, optimize off    42          384
Up filter + zlib level 1 (stdlib)            18          388
Up filter + ISA-L level 1 (``isal``)         2.8         390
==========================================  =========  =========

ISA-L level 2 against level 1 on the 30 views of the five sample complexes, interleaved in one
process, best of 5: 2.27 against 2.11 ms per image (+7 %, at load 6), 336 against 337 kB.

Pillow filters every row adaptively, which costs as much as the compression.  The choice: the Up
filter, then ISA-L (the ``isal`` package) at its level 2 -- as fast as its level 1 and a little
smaller -- and the standard library's zlib at :data:`PNG_COMPRESS_LEVEL` = 1 when ``isal`` is not
installed.  Pixels never depend on the backend.

Determinism.  ISA-L's level 1 is *not* deterministic across processes: the same image, encoded by
the same ``isal`` in two processes, sometimes gave two different (equally valid, same-length)
streams (they differ in a few bytes where an equally good match was chosen).
Within one process the bytes never changed.  The choice depends on the state of the process: it
appeared only after the heap had been through large allocations (numba, RDKit, gemmi imported; or
a freed 4 MB block plus ``MALLOC_PERTURB_``), and python-isal allocates ISA-L's level buffer with
``PyMem_Malloc``, uninitialised.  valgrind reports no uninitialised read on the level-1 path, so the
exact mechanism is not pinned down.  Counted over the experiments (the 30 views of the five sample
complexes per process): level 1 gave a different stream for 1-2 images in 7 of about 140
processes; level 2 in none of about 100, level 3 in none of about 60, with the same heap
disturbances.  Level 2 costs about as much time as level 1, so level 2 is used.  Every PNG is one
``compress`` call on a complete buffer.  ``tests/render/test_png_determinism.py`` encodes real
renders many times, in this process and in four processes with different heaps, and compares the
bytes; it cannot fail reliably on level 1 (the fault needs a particular heap), so it guards the
property, not the cause.

>>> import numpy as np
>>> data = encode_png(np.zeros((8, 8, 3), dtype=np.uint8))
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import os
import struct
import tempfile
import zlib
from pathlib import Path

import numpy as np

try:  # optional, much faster deflate with the same output format
    from isal import isal_zlib as _deflate
except ImportError:  # pragma: no cover - depends on the installation
    _deflate = None

__all__ = ["ISAL_LEVEL", "PNG_COMPRESS_LEVEL", "encode_png", "save_png"]

#: zlib level used for every PNG when ``isal`` is missing (see the module docstring).
PNG_COMPRESS_LEVEL = 1
#: ISA-L level used for every PNG: 2, never 1, whose bytes vary between processes (module docs).
ISAL_LEVEL = 2


def _check_image(image: np.ndarray) -> np.ndarray:
    a = np.asarray(image)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"expected a uint8 (H, W, 3) image, got dtype {a.dtype} and shape {a.shape}")
    return np.ascontiguousarray(a)


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF)


def encode_png(image: np.ndarray, compress_level: int | None = None) -> bytes:
    """Encode an RGB image as PNG bytes (8-bit RGB, Up filter, one IDAT chunk).

    Parameters
    ----------
    image : ndarray, dtype=uint8, shape=(H, W, 3)
    compress_level : int, optional
        Deflate level.  Default: :data:`ISAL_LEVEL` with ISA-L, :data:`PNG_COMPRESS_LEVEL` with
        zlib.  With ISA-L, levels 2-3 are used as given, 0-1 become 2 (level 1 is not
        deterministic, see the module docstring), higher levels 3.

    Returns
    -------
    bytes
        A complete PNG file; the same image always gives the same bytes (same package versions).
    """
    a = _check_image(image)
    h, w = a.shape[:2]
    flat = a.reshape(h, w * 3)
    raw = np.empty((h, 1 + w * 3), dtype=np.uint8)
    raw[:, 0] = 2  # PNG filter type "Up": each byte minus the byte above it (mod 256)
    raw[:1, 1:] = flat[:1]
    np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])
    if _deflate is not None:
        level = ISAL_LEVEL if compress_level is None else min(max(int(compress_level), ISAL_LEVEL), 3)
        data = _deflate.compress(raw, level)
    else:
        data = zlib.compress(raw, PNG_COMPRESS_LEVEL if compress_level is None else int(compress_level))
    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)  # 8 bit, truecolour, no interlace
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", data) + _chunk(b"IEND", b"")


def save_png(image: np.ndarray, path: str | os.PathLike, compress_level: int | None = None) -> Path:
    """Write an RGB image to ``path`` atomically (temporary file in the same folder + ``os.replace``).

    Returns
    -------
    Path
        The written path.
    """
    data = encode_png(image, compress_level)
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    return path
