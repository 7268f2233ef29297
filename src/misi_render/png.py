"""PNG encoding and atomic saving.

PNG output is on the hot path (one encode per distinct rendered view), so the encoder is chosen for
speed at a compression no worse than before: fpng (Rich Geldreich's fast 24/32-bit PNG writer,
through the ``fpng`` package, a required dependency).  It writes standard PNGs -- 8-bit RGB, the
"Up" filter on every row after the first, one IDAT chunk of a deflate stream with its own
image-aware parser and Huffman tables, plus fpng's private ancillary ``fdEC`` chunk, which decoders
skip -- that every PNG reader decodes to exactly the pixels given.  On misi's 1024 px views it
encodes in about half the CPU time of the encoder used before (the Up filter with zlib-ng at level
1) and writes ~5 % fewer bytes (``docs/performance.md``, "Encoding options measured").

Determinism.  The bytes must be a pure function of the pixels.  fpng's compressor is plain C++ with
no state kept between images; its only CPU-dependent code (SSE 4.1 / PCLMUL on x86) computes the
CRC-32 and Adler-32 checksums, whose values do not depend on how they are computed.  There is no
fallback encoder: another encoder would give other bytes, and output must not depend on what
happens to be installed (ISA-L, tried earlier, was found to give different streams for the same
image in some processes).  ``tests/render/test_png_determinism.py`` encodes real renders many
times, in this process and in fresh processes with different heaps, and compares the bytes.

>>> import numpy as np
>>> data = encode_png(np.zeros((8, 8, 3), dtype=np.uint8))
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np
from fpng import fpng_ext

__all__ = ["decode_png", "encode_png", "save_png"]


def _check_image(image: np.ndarray) -> np.ndarray:
    a = np.asarray(image)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"expected a uint8 (H, W, 3) image, got dtype {a.dtype} and shape {a.shape}")
    if a.shape[0] < 1 or a.shape[1] < 1:
        raise ValueError(f"expected an image of at least 1 x 1 pixels, got shape {a.shape}")
    return np.ascontiguousarray(a)


def encode_png(image: np.ndarray) -> bytes:
    """Encode an RGB image as PNG bytes (8-bit RGB, one IDAT chunk; see the module docstring).

    Parameters
    ----------
    image : ndarray, dtype=uint8, shape=(H, W, 3)

    Returns
    -------
    bytes
        A complete PNG file; the same image always gives the same bytes (same package versions).
    """
    return fpng_ext.encode_ndarray(_check_image(image))


def decode_png(data: bytes) -> np.ndarray:
    """The pixels of PNG bytes as a uint8 (H, W, 3) array (PNG is lossless: for bytes from
    :func:`encode_png`, exactly the image encoded)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(data)) as im:
        return np.array(im.convert("RGB"), dtype=np.uint8)


def save_png(image: np.ndarray, path: str | os.PathLike) -> Path:
    """Write an RGB image to ``path`` atomically (temporary file in the same folder + ``os.replace``).

    Returns
    -------
    Path
        The written path.
    """
    data = encode_png(image)
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
