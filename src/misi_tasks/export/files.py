"""Writing an export folder: atomic files, image files named after item ids, no silent overwrite."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable
from pathlib import Path

from misi_tasks._atomic import AtomicFile, atomic_write_bytes

__all__ = ["ExportDir", "ExportError", "TextStream", "image_name"]


class ExportError(ValueError):
    """An export cannot be written (the message names the path and the problem)."""


class ExportDir:
    """The output folder of one export.

    ``names`` are the top-level files and folders the exporter writes; if any exists already the
    export is refused unless ``overwrite``, in which case those (and only those) are removed first,
    so an export is never mixed with an older one and nothing else in the folder is touched.
    """

    def __init__(self, root: str | os.PathLike, names: Iterable[str], *, overwrite: bool = False) -> None:
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise ExportError(f"{self.root}: exists and is not a folder")
        clash = sorted(n for n in set(names) if (self.root / n).exists())
        if clash and not overwrite:
            shown = ", ".join(clash[:4]) + (", ..." if len(clash) > 4 else "")
            raise ExportError(f"{self.root}: already holds {shown}; pass --overwrite to replace them")
        for name in clash:
            path = self.root / name
            shutil.rmtree(path) if path.is_dir() and not path.is_symlink() else path.unlink()
        self.root.mkdir(parents=True, exist_ok=True)

    def write_image(self, rel: str, png: bytes) -> None:
        """Write one image (temporary file then rename; no fsync, the index file is written last)."""
        atomic_write_bytes(self.root / rel, png, fsync=False)

    def open_text(self, rel: str) -> "TextStream":
        """A text file written incrementally and moved into place by :meth:`TextStream.commit`."""
        return TextStream(self.root / rel)

    def write_text(self, rel: str, text: str) -> Path:
        """Write a text file atomically (fsync, rename); return its path."""
        path = self.root / rel
        atomic_write_bytes(path, text.encode("utf-8"))
        return path


class TextStream:
    """A text file written through a temporary file in its folder (:class:`misi_tasks._atomic.AtomicFile`);
    ``commit`` fsyncs and renames it, ``discard`` removes it (a failed export leaves no half-written
    index file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._file = AtomicFile(path)
        self.fh = open(self._file.tmp, "w", encoding="utf-8", newline="")

    def write(self, text: str) -> None:
        self.fh.write(text)

    def commit(self) -> Path:
        self.fh.close()
        return self._file.commit()

    def discard(self) -> None:
        if not self.fh.closed:
            self.fh.close()
        self._file.discard()


def image_name(item_id: str, k: int) -> str:
    """``"<task>/<split>/<complex>/<index>_<k:02d>.png"``: unique per item and image, stable."""
    return f"{item_id}_{k:02d}.png"

