"""misi_tasks: the nine MiSI-Bench task generators, dataset writers, scoring and the CLIs.

Light names (task table, dataset format, parsing, scoring) are imported eagerly; the generator,
which needs the renderer, is imported on first use, so ``misi-eval`` never loads numba.
"""

from __future__ import annotations

from typing import Any

from misi_tasks.dataset import read_items, shard_paths, write_shard
from misi_tasks.names import TASK_CODES, TASK_NAMES, resolve_task
from misi_tasks.parsing import parse_answer
from misi_tasks.report import summarize
from misi_tasks.scoring import score_item

__all__ = [
    "GenerateConfig",
    "TASK_CODES",
    "TASK_NAMES",
    "generate_dataset",
    "get_task",
    "parse_answer",
    "read_items",
    "resolve_task",
    "score_item",
    "shard_paths",
    "summarize",
    "write_shard",
]

_LAZY = {
    "GenerateConfig": "misi_tasks.generate",
    "generate_dataset": "misi_tasks.generate",
    "get_task": "misi_tasks.registry",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'misi_tasks' has no attribute {name!r}")
