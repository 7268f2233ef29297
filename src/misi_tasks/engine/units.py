"""Per-complex work units of a generation run: how an interrupted run resumes, and whose folder
an output folder is.

The work folder sits *beside* the output folder, never in it: ``OUT`` is published as it is
(``hf upload OUT``), so for ``path/to/OUT`` the work folder is ``path/to/.OUT.misi-gen/``.
Each complex's items for one task are pickled to ``units/<complex>/<task>.pkl`` (atomically) as
soon as they exist, followed by a small ``<task>.json`` index (item and image counts, and the
pickle's length and CRC-32) that lets shards be assembled one at a time without holding a whole
task in memory; a rerun with the same fingerprint skips complexes whose units are complete.
Units are not flushed to the disk (no ``fsync``, which made a worker wait a few ms per file, two
files per task): a killed process loses nothing written, and after a machine crash a
unit whose bytes did not reach the disk fails its length/CRC-32 check
(:meth:`WorkDir.has_intact_unit`, asked by the worker before it would generate the unit) and is
generated again.  The units (the bulk: ~200 MB on a small
run) are deleted when a run completes.  ``state.json`` holds the run fingerprint, the finished
shards and, once complete, the run's summary; it is also what marks ``OUT`` as written by misi.
``lock`` is held (``flock``) for the whole run, so two runs never write one folder; the work folder
is named after the output folder's real path (symlinks resolved), and the output folder itself is
locked too, so two paths naming one folder (a symlink, a bind mount) share one lock.
"""

from __future__ import annotations

import json
import os
import pickle
import shutil
from pathlib import Path
from typing import Any

from zlib_ng.zlib_ng import crc32  # the standard CRC-32, ~6x faster than zlib's (zlib-ng is a dependency)

from misi_tasks._atomic import atomic_write_bytes, remove_temp_files

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
        """State for ``fingerprint``; a different earlier run's units are discarded."""
        state = self.load_state()
        if state.get("fingerprint") != fingerprint:
            self.clear_units()
            state = {"fingerprint": fingerprint, "shards_done": {}}
            self.save_state(state)
        return state

    # --- units ------------------------------------------------------------------------------------
    def unit_path(self, complex_id: str, task: str) -> Path:
        return self.root / "units" / complex_id / f"{task}.pkl"

    def index_path(self, complex_id: str, task: str) -> Path:
        return self.unit_path(complex_id, task).with_suffix(".json")

    def has_unit(self, complex_id: str, task: str) -> bool:
        """A unit is complete once its small JSON index exists (it is written last)."""
        return self.index_path(complex_id, task).is_file() and self.unit_path(complex_id, task).is_file()

    def has_intact_unit(self, complex_id: str, task: str) -> bool:
        """:meth:`has_unit`, and its index parses and its pickle has the length and CRC-32 the index
        records (a machine crash may leave either file empty or partly written, see the module docs)."""
        try:
            self._checked_bytes(complex_id, task)
        except (OSError, ValueError, KeyError, TypeError):
            return False
        return True

    def write_unit(self, complex_id: str, task: str, items: list, skip: str | None) -> None:
        """Pickle the items, then write the index: per-item image counts and PNG bytes, why a task
        made no items, and the pickle's length and CRC-32
        (``{"images": [...], "bytes": [...], "skip": why, "pickle": [length, crc32]}``)."""
        data = pickle.dumps(items, protocol=5)
        atomic_write_bytes(self.unit_path(complex_id, task), data, fsync=False)
        index = {
            "images": [len(i.images) + len(i.option_images) for i in items],
            "bytes": [sum(map(len, i.images)) + sum(map(len, i.option_images)) for i in items],
            "skip": skip,
            "pickle": [len(data), crc32(data)],
        }
        atomic_write_bytes(self.index_path(complex_id, task), json.dumps(index).encode(), fsync=False)

    def read_index(self, complex_id: str, task: str) -> dict[str, Any]:
        return json.loads(self.index_path(complex_id, task).read_text())

    def _checked_bytes(self, complex_id: str, task: str) -> bytes:
        """The unit's pickle; ValueError if its length or CRC-32 differs from its index's."""
        length, crc = self.read_index(complex_id, task)["pickle"]
        data = self.unit_path(complex_id, task).read_bytes()
        if len(data) != length or crc32(data) != crc:
            raise ValueError(f"{self.unit_path(complex_id, task)}: damaged work unit ({len(data)} bytes, "
                             f"{length} expected, or another CRC-32); rerun misi-gen to generate it again")
        return data

    def read_unit(self, complex_id: str, task: str) -> list:
        return pickle.loads(self._checked_bytes(complex_id, task))

    def clear_units(self) -> None:
        shutil.rmtree(self.root / "units", ignore_errors=True)
