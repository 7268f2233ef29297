"""What a task is, independent of how it is generated: the task declarations (:class:`TaskSpec`,
one per task), the answer vocabulary, the metrics, task names and codes, the item record and the
dataset schema (Parquet shards).  Pure: no numba, no rendering, no geometry."""

from __future__ import annotations

from misi_tasks.spec.answers import BondList, Choice, Docking, Move, ParsedAnswer, Roll, residue_label
from misi_tasks.spec.dataset import DatasetError, list_splits, read_items, shard_paths, write_shard
from misi_tasks.spec.items import Item, item_id
from misi_tasks.spec.names import MC_TASKS, SPLITS, TASK_CODES, TASK_NAMES, resolve_task, task_code
from misi_tasks.spec.registry import DEFAULT_SPECS, SPECS, spec_of_item, task_spec
from misi_tasks.spec.taskspec import TaskSpec

__all__ = [
    "BondList", "Choice", "DEFAULT_SPECS", "DatasetError", "Docking", "Item", "MC_TASKS", "Move", "ParsedAnswer",
    "Roll", "SPECS", "SPLITS", "TASK_CODES", "TASK_NAMES", "TaskSpec", "item_id", "list_splits", "read_items",
    "residue_label", "resolve_task", "shard_paths", "spec_of_item", "task_code", "task_spec", "write_shard",
]
