"""The predictions file of ``misi-run``: append-only JSON lines, one whole line per answer.

Each answer is one line ``{"id", "reply", "model", "latency_s", "usage"}`` written with a single
``write`` on a file opened in append mode and flushed to disk, so a crash or Ctrl-C leaves only whole
lines (at worst one torn last line from a power cut, which :meth:`PredictionStore.open` cuts off).
A rerun reads the ids already answered and skips them. ``misi-eval --predictions`` reads the file
as it is.

Items the server rejected for good (HTTP 400: a context-length or image-count limit) are recorded
beside it in ``<out>.failed``, one line ``{"id", "model", "status", "error"}`` each (the server's
reason); a rerun skips them too unless asked to retry them, and a later answer supersedes the record.
The suffix keeps the file out of a ``*.jsonl`` glob given to ``misi-eval``.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = ["PredictionStore", "StoreError", "failures_path"]


def failures_path(path: str | os.PathLike) -> Path:
    """Where the items the server rejected for good are recorded: ``<predictions file>.failed``."""
    path = Path(path)
    return path.with_name(path.name + ".failed")


class StoreError(ValueError):
    """The predictions file cannot be resumed (the message names the file and line)."""


@dataclass
class PredictionStore:
    """An open predictions file. Create it with :meth:`open`."""

    path: Path
    answered: set[str] = field(default_factory=set)
    failed: dict[str, str] = field(default_factory=dict)
    _fd: int = -1
    _model: str = ""

    @classmethod
    def open(cls, path: str | os.PathLike, *, model: str, known_ids: set[str] | None = None) -> "PredictionStore":
        """Open (or create) ``path`` for appending and read the ids it already answers.

        Raises
        ------
        StoreError
            If a line is not a prediction, an id repeats, an id is not in the dataset
            (``known_ids``) or a line was written for another model: a file is never mixed.
        """
        path = Path(path)
        if path.is_dir():
            raise StoreError(f"{path}: is a directory, not a predictions file")
        store = cls(path, _model=model)
        if path.exists():
            store._read(model, known_ids)
        store._read_failures(model)
        path.parent.mkdir(parents=True, exist_ok=True)
        store._fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        return store

    def _read(self, model: str, known_ids: set[str] | None) -> None:
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a torn last line (the process died mid-write): drop it
            with open(self.path, "r+b") as fh:
                fh.truncate(end)
            data = data[:end]
        for lineno, line in enumerate(data.decode("utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            where = f"{self.path}:{lineno}"
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                raise StoreError(f"{where}: not a JSON line; not a misi-run predictions file") from None
            item_id = obj.get("id") if isinstance(obj, dict) else None
            if not isinstance(item_id, str):
                raise StoreError(f"{where}: no 'id'; not a misi-run predictions file")
            if obj.get("model", model) != model:
                raise StoreError(f"{where}: answered by model {obj.get('model')!r}, not {model!r}; "
                                 "use another --out to keep models apart")
            if known_ids is not None and item_id not in known_ids:
                raise StoreError(f"{where}: item {item_id!r} is not in this dataset; use another --out")
            if item_id in self.answered:
                raise StoreError(f"{where}: duplicate id {item_id!r}")
            self.answered.add(item_id)

    def _read_failures(self, model: str) -> None:
        path = failures_path(self.path)
        if not path.exists():
            return
        lines = path.read_text(encoding="utf-8").splitlines()
        for lineno, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                if lineno == len(lines):
                    break  # a torn last line: the record is rewritten if the item fails again
                raise StoreError(f"{path}:{lineno}: not a JSON line; not a misi-run failures file") from None
            if not isinstance(obj, dict) or not isinstance(obj.get("id"), str):
                raise StoreError(f"{path}:{lineno}: no 'id'; not a misi-run failures file")
            if obj.get("model", model) != model:
                raise StoreError(f"{path}:{lineno}: recorded for model {obj.get('model')!r}, not {model!r}; "
                                 "use another --out to keep models apart")
            if obj["id"] not in self.answered:
                self.failed[obj["id"]] = str(obj.get("error", ""))

    def record_failure(self, item_id: str, error: str, status: int | None = None) -> None:
        """Record that the server rejected ``item_id`` for good (appended to ``<out>.failed``)."""
        line = json.dumps({"id": item_id, "model": self._model, "status": status, "error": error},
                          ensure_ascii=False, separators=(",", ":")) + "\n"
        with open(failures_path(self.path), "a", encoding="utf-8") as fh:
            fh.write(line)
            fh.flush()
            os.fsync(fh.fileno())
        self.failed[item_id] = error

    def append(self, record: dict[str, Any]) -> None:
        """Write one answer as one line (a single ``write`` in append mode, then ``fsync``)."""
        line = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        view = memoryview(line)
        while view:  # os.write on a regular file writes everything; loop for safety
            n = os.write(self._fd, view)
            view = view[n:]
        os.fsync(self._fd)
        self.answered.add(record["id"])
        self.failed.pop(record["id"], None)

    def close(self) -> None:
        """Close the file."""
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    def __enter__(self) -> "PredictionStore":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
