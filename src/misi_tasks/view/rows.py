"""Choosing the items a gallery shows and reading only their images from the Parquet shards.

A dataset of thousands of items holds gigabytes of PNGs; the gallery shows a few per task. The text
columns of every item are read once (fast, no images); the ``images`` column is then read only from
the row groups (64 rows each) that hold a chosen item.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq

from misi_tasks.names import TASK_NAMES

__all__ = ["choose_items", "iter_images", "read_images"]

_BATCH = 4  # rows per streamed batch


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
