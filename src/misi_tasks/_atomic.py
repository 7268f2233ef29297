"""Atomic file writes, shared by every writer of the project (generation, gallery, exports, charts).

Pure standard library, so the scorer side can use it without importing the generation engine.
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path

__all__ = ["atomic_write_bytes", "remove_temp_files"]

#: Names of the temporary files of :func:`atomic_write_bytes` and ``write_shard`` (``mkstemp``).
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``.

    A reader never sees a partial file.  ``fsync=False`` skips flushing to the disk, for files that
    can be rebuilt (a gallery, exported images whose index file is written last).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            if fsync:
                fh.flush()
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException as exc:
        if os.path.exists(tmp):
            os.unlink(tmp)
        if isinstance(exc, OSError) and exc.filename is None:  # a failed write (disk full) names no file
            raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None
        raise


def remove_temp_files(folder: Path, recursive: bool = True) -> list[Path]:
    """Delete the temporary files an interrupted (``kill -9``) write left under ``folder`` (in it
    only, when not ``recursive``)."""
    removed = []
    for path in (folder.rglob if recursive else folder.glob)(".*.tmp") if folder.is_dir() else ():
        if _TEMP_RE.match(path.name) and path.is_file():
            path.unlink()
            removed.append(path)
    return removed
