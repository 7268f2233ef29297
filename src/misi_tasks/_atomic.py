"""Atomic file writes, shared by every writer of the project (shards, gallery, exports, charts).

One way to write a file: :func:`atomic_path` hands out a temporary file in the destination folder,
and on success flushes it to the disk, makes it world-readable and moves it into place with
``os.replace``; on any error it is removed.  A reader never sees a partial file.

Pure standard library, so the scorer side can use it without importing the generation engine.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["atomic_path", "atomic_write_bytes", "remove_temp_files"]

#: Names of the temporary files of :func:`atomic_path` (``mkstemp``).
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


@contextmanager
def atomic_path(path: Path, *, fsync: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without error, move it to ``path``.

    The caller writes the temporary file by name (any library that takes a path).  ``fsync=False``
    skips flushing to the disk, for files that can be rebuilt (a gallery, exported images whose
    index file is written last).
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        if fsync:
            with open(tmp, "rb+") as fh:  # what other descriptors wrote is flushed too
                os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; outputs are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path, fsync=fsync) as tmp:
        tmp.write_bytes(data)


def remove_temp_files(folder: Path) -> list[Path]:
    """Delete the temporary files an interrupted (``kill -9``) write left under ``folder``."""
    removed = []
    for path in folder.rglob(".*.tmp") if folder.is_dir() else ():
        if _TEMP_RE.match(path.name) and path.is_file():
            path.unlink()
            removed.append(path)
    return removed
