"""Atomic file writes, shared by every writer of the project (shards, gallery, exports, charts).

One way to write a file: :class:`AtomicFile` (or the block :func:`atomic_path`) hands out a
temporary file in the destination folder, and on success flushes it to the disk, makes it
world-readable and moves it into place with ``os.replace``; on any error it is removed.  A reader
never sees a partial file.

Pure standard library, so the scorer side can use it without importing the generation engine.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

__all__ = ["AtomicFile", "atomic_path", "atomic_write_bytes", "remove_temp_files"]

#: Names of the temporary files of :class:`AtomicFile` (``mkstemp``).
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp$")


class AtomicFile:
    """A temporary file beside ``path`` that :meth:`commit` moves into place and :meth:`discard`
    removes: for a file written over a long stretch (an export's index) whose writer decides at the
    end.  :func:`atomic_path` is the same as a ``with`` block."""

    def __init__(self, path: Path) -> None:
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        os.close(fd)
        self.tmp = Path(tmp)

    def commit(self, *, fsync: bool = True) -> Path:
        """Flush the temporary file to the disk (unless ``fsync=False``), make it world-readable
        and move it to :attr:`path`; return that path."""
        try:
            if fsync:
                with open(self.tmp, "rb+") as fh:  # what other descriptors wrote is flushed too
                    os.fsync(fh.fileno())
            os.chmod(self.tmp, 0o644)  # mkstemp creates 0600; outputs are meant to be shared
            os.replace(self.tmp, self.path)
        except BaseException:
            self.discard()
            raise
        return self.path

    def discard(self) -> None:
        """Remove the temporary file (nothing happens to :attr:`path`)."""
        if os.path.exists(self.tmp):
            os.unlink(self.tmp)


@contextmanager
def atomic_path(path: Path, *, fsync: bool = True) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; when the block ends without error, move it to ``path``.

    The caller writes the temporary file by name (any library that takes a path).  ``fsync=False``
    skips flushing to the disk, for files that can be rebuilt (a gallery, exported images whose
    index file is written last).
    """
    target = AtomicFile(path)
    try:
        yield target.tmp
    except BaseException as exc:
        target.discard()
        _name_the_file(exc, path)
        raise
    try:
        target.commit(fsync=fsync)
    except OSError as exc:
        _name_the_file(exc, path)
        raise


def _name_the_file(exc: BaseException, path: Path) -> None:
    """Raise a failed write's ``OSError`` again with ``path`` as its file name when it has none
    (a full disk raises ``ENOSPC`` from ``write`` without a name); return for anything else."""
    if isinstance(exc, OSError) and exc.filename is None:
        raise OSError(exc.errno, exc.strerror or str(exc), str(path)) from None


def atomic_write_bytes(path: Path, data: bytes, *, fsync: bool = True) -> None:
    """Write ``data`` to ``path`` atomically (:func:`atomic_path`)."""
    with atomic_path(path, fsync=fsync) as tmp:
        tmp.write_bytes(data)


def remove_temp_files(folder: Path, recursive: bool = True) -> list[Path]:
    """Delete the temporary files an interrupted (``kill -9``) write left under ``folder`` (in it
    only, when not ``recursive``)."""
    removed = []
    for path in (folder.rglob if recursive else folder.glob)(".*.tmp") if folder.is_dir() else ():
        if _TEMP_RE.match(path.name) and path.is_file():
            path.unlink()
            removed.append(path)
    return removed
