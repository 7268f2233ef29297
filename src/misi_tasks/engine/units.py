"""The work folder of a generation run: how an interrupted run resumes, and whose folder an output
folder is.

The work folder sits *beside* the output folder, never in it: ``OUT`` is published as it is
(``hf upload OUT``), so for ``path/to/OUT`` the work folder is ``path/to/.OUT.misi-gen/``.
It holds no images: workers write each group of complexes straight into its shards
(:mod:`misi_tasks.engine.shards`).  ``state.json`` holds the run fingerprint, the report of every
finished group (its shards, items, images, skips and failed complexes) and, once complete, the
run's summary; it is also what marks ``OUT`` as written by misi.  A rerun with the same
fingerprint skips the groups whose report and shards are there and writes the others again.
``units/<complex>/source.json`` keeps the provenance of explicit-file inputs
(:mod:`misi_tasks.engine.provenance`) and ``full/`` the full test split of a ``--tiny`` run; both
are removed when a run completes.
``lock`` is held (``flock``) for the whole run, so two runs never write one folder; the work folder
is named after the output folder's real path (symlinks resolved), and the output folder itself is
locked too, so two paths naming one folder (a symlink, a bind mount) share one lock.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

from misi_tasks._atomic import atomic_write_bytes

__all__ = ["WorkDir", "work_dir_for"]

def work_dir_for(out_dir: Path) -> Path:
    """The work folder of output folder ``out_dir``: ``.<name>.misi-gen`` beside its real path."""
    out = Path(os.path.realpath(out_dir))
    return out.parent / f".{out.name}.misi-gen"


class WorkDir:
    """The working folder of one output directory (beside it, see the module docs)."""

    def __init__(self, out_dir: Path) -> None:
        self.out = Path(out_dir)
        self.root = work_dir_for(out_dir)
        self.state_path = self.root / "state.json"
        self._lock_fd: int | None = None
        self._out_fd: int | None = None

    # --- lock ---------------------------------------------------------------------------------------
    def lock(self) -> bool:
        """Take the run lock; False if another live process holds it.  Released on exit or kill.

        Two locks (``flock``): ``lock`` in the work folder, and the output folder itself when it
        exists (a lock on its inode, so a bind mount naming it under another path shares it; no file
        is created in it).  A filesystem that cannot lock a folder leaves the first lock alone."""
        try:
            import fcntl
        except ImportError:  # pragma: no cover - not POSIX: no lock
            self.root.mkdir(parents=True, exist_ok=True)
            self._lock_fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o644)
            return True
        out_fd = None
        if self.out.is_dir():
            try:
                out_fd = os.open(self.out, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
                fcntl.flock(out_fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(out_fd)
                return False
            except OSError:  # e.g. a filesystem without folder locks
                if out_fd is not None:
                    os.close(out_fd)
                out_fd = None
        self.root.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.root / "lock", os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            os.close(fd)
            if out_fd is not None:
                os.close(out_fd)
            return False
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._lock_fd, self._out_fd = fd, out_fd
        return True

    @property
    def locked(self) -> bool:
        """True while this object holds the run lock."""
        return self._lock_fd is not None

    def unlock(self) -> None:
        for fd in (self._lock_fd, self._out_fd):
            if fd is not None:
                os.close(fd)  # closing releases the flock
        self._lock_fd = self._out_fd = None

    # --- run state ------------------------------------------------------------------------------
    def load_state(self) -> dict[str, Any]:
        try:
            return json.loads(self.state_path.read_text())
        except (OSError, ValueError):
            return {}

    def save_state(self, state: dict[str, Any]) -> None:
        atomic_write_bytes(self.state_path, json.dumps(state, indent=1, sort_keys=True).encode())

    def start(self, fingerprint: str) -> dict[str, Any]:
        """State for ``fingerprint``; a different earlier run's work files are discarded."""
        state = self.load_state()
        if state.get("fingerprint") != fingerprint:
            self.clear_work_files()
            state = {"fingerprint": fingerprint, "groups_done": {}}
            self.save_state(state)
        return state

    # --- work files ---------------------------------------------------------------------------------
    @property
    def full_dir(self) -> Path:
        """Where a ``--tiny`` run writes the full test split's shards, before copying its Tiny subset."""
        return self.root / "full"

    def clear_work_files(self) -> None:
        """Remove the run's work files (per-complex records, ``--tiny``'s full shards); the state stays."""
        shutil.rmtree(self.root / "units", ignore_errors=True)
        shutil.rmtree(self.full_dir, ignore_errors=True)
