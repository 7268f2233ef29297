"""What a task is, independent of how it is generated: task names and codes, the item record and the
dataset schema (Parquet shards).  Pure: no numba, no rendering, no geometry."""

from __future__ import annotations

from misi_tasks.spec.dataset import DatasetError, list_splits, read_items, shard_paths, write_shard
from misi_tasks.spec.items import Item, item_id
from misi_tasks.spec.names import MC_TASKS, SPLITS, TASK_CODES, TASK_NAMES, resolve_task, task_code

__all__ = [
    "DatasetError", "Item", "MC_TASKS", "SPLITS", "TASK_CODES", "TASK_NAMES", "item_id", "list_splits",
    "read_items", "resolve_task", "shard_paths", "task_code", "write_shard",
]
