"""Which items a harness gets (``misi-run``, ``misi-export``), and reading their images lazily.

Ids and fields come from a fast pass without images; images are then read shard by shard, in small
batches, only for the items still to answer, so a large dataset never sits in memory at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from misi_tasks.dataset import COLUMNS, DatasetError, list_splits, read_items
from misi_tasks.definitions.registry import SPLITS, resolve_task, task_codes

__all__ = ["iter_items_with_images", "parse_tasks", "select_items"]


def parse_tasks(values: Sequence[str] | None) -> list[str] | None:
    """Task names from repeatable, comma-separated ``--task`` values (None: all tasks)."""
    if not values:
        return None
    names = [resolve_task(t) for v in values for t in v.split(",") if t.strip()]
    if not names:
        raise ValueError(f"--task {','.join(values)!r} names no task")
    return names


def select_items(
    dataset: str | os.PathLike, tasks: Iterable[str] | None, split: str | None, limit: int | None = None,
) -> tuple[list[dict[str, Any]], set[str], str]:
    """Return ``(items, all_ids, split)``: the selected items without images, every id of the dataset,
    and the split used (default: ``test`` when the dataset has one, else ``all``, as ``misi-eval``).

    ``limit`` keeps the first N items of each task (in dataset order).
    """
    all_items = read_items(dataset, images=False)
    if split is None:
        split = "test" if any(it["split"] == "test" for it in all_items) else "all"
    task_set = None if tasks is None else set(tasks)
    items = [it for it in all_items if (task_set is None or it["task"] in task_set)
             and (split == "all" or it["split"] == split)]
    if limit is not None:
        seen: dict[str, int] = {}
        kept = []
        for it in items:
            seen[it["task"]] = seen.get(it["task"], 0) + 1
            if seen[it["task"]] <= limit:
                kept.append(it)
        items = kept
    if not items:
        present = ", ".join(f"{task_codes()[t]} {t} ({'/'.join(s)})" for t, s in list_splits(dataset).items())
        raise DatasetError(f"{dataset}: no items match --task/--split; dataset has: {present or 'nothing'}")
    return items, {it["id"] for it in all_items}, split


def iter_items_with_images(dataset: str | os.PathLike, ids: set[str], batch_rows: int = 8) -> Iterator[dict[str, Any]]:
    """Yield the full rows (with image bytes) of the items in ``ids``, in dataset order."""
    wanted = set(ids)
    tasks = {i.split("/", 1)[0] for i in wanted}
    for task, splits in list_splits(dataset).items():
        if task not in tasks:
            continue
        for split in (s for s in SPLITS if s in splits):
            for path in sorted((Path(dataset) / "data" / task).glob(f"{split}-*-of-*.parquet")):
                pf = pq.ParquetFile(path)
                for batch in pf.iter_batches(batch_size=batch_rows, columns=list(COLUMNS)):
                    for row in batch.to_pylist():
                        if row["id"] in wanted:
                            wanted.discard(row["id"])
                            yield row
                if not wanted:
                    return
    if wanted:
        raise DatasetError(f"{dataset}: {len(wanted)} selected item(s) vanished while reading images")
