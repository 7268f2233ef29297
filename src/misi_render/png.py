"""PNG encoding and atomic saving.

Compression choice (measured with ``benchmarks/bench_render.py`` on 1024 px renders of the sample
pockets, mostly black background): Pillow's default level 6 costs several times the raster kernel,
while level 1 is the fastest zlib setting and its files are only slightly larger, because the black
background compresses well at any level.  ``optimize`` is off (it retries every filter and is
much slower).  :data:`PNG_COMPRESS_LEVEL` is therefore 1.

>>> import numpy as np
>>> data = encode_png(np.zeros((8, 8, 3), dtype=np.uint8))
>>> data[:8] == b"\\x89PNG\\r\\n\\x1a\\n"
True
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path

import numpy as np
from PIL import Image

__all__ = ["PNG_COMPRESS_LEVEL", "encode_png", "save_png"]

#: zlib level used for every PNG (see the module docstring for the measurement behind it).
PNG_COMPRESS_LEVEL = 1


def _check_image(image: np.ndarray) -> np.ndarray:
    a = np.asarray(image)
    if a.dtype != np.uint8 or a.ndim != 3 or a.shape[2] != 3:
        raise ValueError(f"expected a uint8 (H, W, 3) image, got dtype {a.dtype} and shape {a.shape}")
    return np.ascontiguousarray(a)


def encode_png(image: np.ndarray, compress_level: int = PNG_COMPRESS_LEVEL) -> bytes:
    """Encode an RGB image as PNG bytes.

    Parameters
    ----------
    image : ndarray, dtype=uint8, shape=(H, W, 3)
    compress_level : int
        zlib level 0-9 (default :data:`PNG_COMPRESS_LEVEL`).

    Returns
    -------
    bytes
        A complete PNG file; the same image always gives the same bytes.
    """
    buf = io.BytesIO()
    Image.fromarray(_check_image(image)).save(
        buf, format="PNG", compress_level=int(compress_level), optimize=False
    )
    return buf.getvalue()


def save_png(image: np.ndarray, path: str | os.PathLike, compress_level: int = PNG_COMPRESS_LEVEL) -> Path:
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
