"""Per-complex work units of a generation run: how an interrupted run resumes.

Each complex's items for one task are pickled to ``OUT/.misi-gen/units/<complex>/<task>.pkl``
(atomically) as soon as they exist, followed by a small ``<task>.json`` index (item and image
counts) that lets shards be assembled one at a time without holding a whole task in memory; a rerun with the same fingerprint skips complexes whose units
are complete.  ``OUT/.misi-gen/state.json`` holds the run fingerprint and the finished shards.
"""

from __future__ import annotations

import json
import os
import pickle
import tempfile
from pathlib import Path
from typing import Any

__all__ = ["WorkDir", "atomic_write_bytes"]


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file in the same folder and ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


class WorkDir:
    """The hidden working folder of one output directory."""

    def __init__(self, out_dir: Path) -> None:
        self.root = Path(out_dir) / ".misi-gen"
        self.state_path = self.root / "state.json"

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

    def write_unit(self, complex_id: str, task: str, items: list, skip: str | None) -> None:
        """Pickle the items, then write the index: per-item image counts and PNG bytes, and why a
        task made no items (``{"images": [...], "bytes": [...], "skip": why}``)."""
        atomic_write_bytes(self.unit_path(complex_id, task), pickle.dumps(items, protocol=5))
        index = {
            "images": [len(i.images) + len(i.option_images) for i in items],
            "bytes": [sum(map(len, i.images)) + sum(map(len, i.option_images)) for i in items],
            "skip": skip,
        }
        atomic_write_bytes(self.index_path(complex_id, task), json.dumps(index).encode())

    def read_index(self, complex_id: str, task: str) -> dict[str, Any]:
        return json.loads(self.index_path(complex_id, task).read_text())

    def read_unit(self, complex_id: str, task: str) -> list:
        with open(self.unit_path(complex_id, task), "rb") as fh:
            return pickle.load(fh)

    def clear_units(self) -> None:
        import shutil

        shutil.rmtree(self.root / "units", ignore_errors=True)
