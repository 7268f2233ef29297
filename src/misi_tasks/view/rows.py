"""Choosing the items a gallery shows and reading only their images from the Parquet shards.

A dataset of thousands of items holds gigabytes of PNGs; the gallery shows a few per task. The text
columns of every item are read once (fast, no images); items are drawn from a few random row groups
(64 rows each) of each task, and the ``images`` column is read only from the row groups that hold a
chosen item, streamed up to the last chosen row.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from misi_tasks.definitions.registry import task_names

__all__ = ["POOL_FACTOR", "choose_items", "iter_images", "read_images", "row_groups"]

_BATCH = 4  # rows per streamed batch
#: A draw by row groups takes groups until they hold this many times the items wanted.
POOL_FACTOR = 4


def row_groups(shards: Iterable[Path]) -> dict[str, tuple[str, int]]:
    """``{item id: (shard path, row group)}`` of every item in ``shards`` (reads only the ``id`` column)."""
    where: dict[str, tuple[str, int]] = {}
    for path in shards:
        pf = pq.ParquetFile(path)
        ids = pf.read(columns=["id"]).column("id").to_pylist()
        start = 0
        for g in range(pf.metadata.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            for item_id in ids[start:start + n]:
                where[item_id] = (str(path), g)
            start += n
    return where


def choose_items(
    items: Sequence[Mapping[str, Any]],
    per_task: int,
    seed: int = 0,
    group_of: Mapping[str, Any] | None = None,
) -> dict[str, list[str]]:
    """Pick up to ``per_task`` item ids of every task, reproducibly.

    The draw depends only on the seed, the task and the set of ids (not on the reading order),
    and the picks are returned in id order, so the same dataset and seed give the same gallery.
    With ``group_of`` (item id -> row group, see :func:`row_groups`) the draw first takes row groups
    at random until they hold :data:`POOL_FACTOR` x ``per_task`` items and then samples those, so a
    large dataset is read only in part: 20 items drawn from 80+ rows of a task whose rows run in
    complex order still come from about as many complexes as a draw from all rows would give.

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
    for task in sorted(by_task, key=lambda t: (task_names().index(t) if t in task_names() else 99, t)):
        ids = sorted(by_task[task])
        rng = random.Random(f"{seed}:{task}")
        if group_of is not None and len(ids) > POOL_FACTOR * per_task:
            groups: dict[Any, list[str]] = {}
            for i in ids:
                groups.setdefault(group_of[i], []).append(i)
            order = sorted(groups)
            rng.shuffle(order)
            pool: list[str] = []
            for key in order:
                if len(pool) >= POOL_FACTOR * per_task:
                    break
                pool += groups[key]
            ids = sorted(pool)
        if len(ids) > per_task:
            ids = sorted(rng.sample(ids, per_task))
        out[task] = ids
    return out


def read_images(shards: Iterable[Path], wanted: set[str]) -> dict[str, list[bytes]]:
    """Return ``{id: [png bytes, ...]}`` for the ``wanted`` ids found in ``shards``
    (see :func:`iter_images`)."""
    return dict(iter_images(shards, wanted))


def iter_images(shards: Iterable[Path], wanted: set[str]) -> Iterator[tuple[str, list[bytes]]]:
    """Yield ``(id, [png bytes, ...])`` for the ``wanted`` ids found in ``shards``, as they are read.

    Only the row groups that hold a wanted id are read, of them only ``id`` and ``images``, and each
    is streamed in small batches up to its last wanted row (a 64-row group of 1024 px images is
    about 150 MB; the first item of a group costs a few MB).
    """
    for path in shards:
        pf = pq.ParquetFile(path)
        ids = pf.read(columns=["id"]).column("id").to_pylist()
        start = 0
        for g in range(pf.metadata.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            hits = [k for k in range(n) if ids[start + k] in wanted]
            start += n
            if not hits:
                continue
            row = 0
            for batch in pf.iter_batches(batch_size=_BATCH, row_groups=[g], columns=["id", "images"]):
                batch_ids = batch.column(0).to_pylist()
                images = batch.column(1)
                for k, item_id in enumerate(batch_ids):
                    if item_id in wanted:
                        yield item_id, [im["bytes"] for im in images[k].as_py()]
                row += batch.num_rows
                if row > hits[-1]:
                    break
