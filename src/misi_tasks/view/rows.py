"""Choosing the items a gallery shows and reading only their images from the Parquet shards.

A dataset of thousands of items holds gigabytes of PNGs; the gallery shows a few per task. The text
columns of every item are read once (fast, no images); the ``images`` column is then read only from
the row groups (64 rows each) that hold a chosen item.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from misi_tasks.names import TASK_NAMES

__all__ = ["choose_items", "read_images"]


def choose_items(items: Sequence[Mapping[str, Any]], per_task: int, seed: int = 0) -> dict[str, list[str]]:
    """Pick up to ``per_task`` item ids of every task, reproducibly.

    The draw depends only on the seed, the task and the set of ids (not on the reading order),
    and the picks are returned in id order, so the same dataset and seed give the same gallery.

    Examples
    --------
    >>> rows = [{"id": f"rotation/test/c{k}/000", "task": "rotation"} for k in range(5)]
    >>> picks = choose_items(rows, 2, seed=1)
    >>> len(picks["rotation"]), picks == choose_items(rows[::-1], 2, seed=1)
    (2, True)
    """
    if per_task < 1:
        raise ValueError(f"per_task must be at least 1, got {per_task}")
    by_task: dict[str, list[str]] = {}
    for it in items:
        by_task.setdefault(it["task"], []).append(it["id"])
    out: dict[str, list[str]] = {}
    for task in sorted(by_task, key=lambda t: (TASK_NAMES.index(t) if t in TASK_NAMES else 99, t)):
        ids = sorted(by_task[task])
        if len(ids) > per_task:
            ids = sorted(random.Random(f"{seed}:{task}").sample(ids, per_task))
        out[task] = ids
    return out


def read_images(shards: Iterable[Path], wanted: set[str]) -> dict[str, list[bytes]]:
    """Return ``{id: [png bytes, ...]}`` for the ``wanted`` ids found in ``shards``.

    Only the row groups that hold a wanted id are read, and of them only ``id`` and ``images``.
    """
    found: dict[str, list[bytes]] = {}
    for path in shards:
        pf = pq.ParquetFile(path)
        ids = pf.read(columns=["id"]).column("id").to_pylist()
        groups, start = [], 0
        for g in range(pf.metadata.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            if any(i in wanted for i in ids[start:start + n]):
                groups.append(g)
            start += n
        if not groups:
            continue
        table = pf.read_row_groups(groups, columns=["id", "images"])
        images = table.column("images")
        for k, item_id in enumerate(table.column("id").to_pylist()):
            if item_id in wanted:
                found[item_id] = [im["bytes"] for im in images[k].as_py()]
    return found
