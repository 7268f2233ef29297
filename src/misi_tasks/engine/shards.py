"""Assembling a run's shards from its units: letters, the Tiny subset, shard bounds, shard jobs.

The driver counts the items of each (task, split) from the units' small indexes, draws the
balanced correct letters, cuts the items into shards (:func:`plan_shards`) and hands out one job
per shard; a worker writes a shard from the units, one row group in memory at a time
(:func:`write_shard_job`).  See :mod:`misi_tasks.engine.generate` for the run around it and
:mod:`misi_tasks.engine.units` for the work folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from misi_tasks.engine.units import WorkDir
from misi_tasks.dataset import shard_paths, write_shard
from misi_tasks.definitions.items import LETTERS, Item
from misi_tasks.definitions.registry import mc_tasks
from misi_tasks.tasks.seeding import rng_for

__all__ = ["ROWS_PER_SHARD", "SHARD_BYTES", "TINY_PER_TASK", "plan_shards", "unit_images", "write_shard_job"]

#: Items per task in a ``--tiny`` run (the paper's Tiny subset).
TINY_PER_TASK = 50
#: A shard closes once its images reach this many bytes (the writer holds about 3x in memory) ...
SHARD_BYTES = 128 * 2**20
#: ... or this many rows.
ROWS_PER_SHARD = 1000


def _letters(n: int, seed: int, task: str, split: str) -> list[int]:
    """Balanced correct-letter indices for ``n`` items: A-D cycled, then shuffled with the seed."""
    perm = rng_for(seed, "letters", task, split).permutation(n)
    return [int(p) % 4 for p in perm]


def _tiny_indices(n: int, seed: int, task: str) -> list[int]:
    if n <= TINY_PER_TASK:
        return list(range(n))
    return sorted(int(k) for k in rng_for(seed, "tiny", task).choice(n, TINY_PER_TASK, replace=False))


def _shard_bounds(item_bytes: list[int]) -> list[tuple[int, int]]:
    """Consecutive [lo, hi) item ranges, each closed at :data:`SHARD_BYTES` or :data:`ROWS_PER_SHARD`."""
    bounds, lo, size = [], 0, 0
    for k, b in enumerate(item_bytes):
        if k > lo and (size + b > SHARD_BYTES or k - lo >= ROWS_PER_SHARD):
            bounds.append((lo, k))
            lo, size = k, 0
        size += b
    bounds.append((lo, len(item_bytes)))
    return bounds


class _UnitReader:
    """Loads items by (complex, position), keeping only the current unit in memory."""

    def __init__(self, work: WorkDir, task: str) -> None:
        self.work, self.task, self.cid, self.items = work, task, None, []

    def get(self, cid: str, k: int) -> Item:
        if cid != self.cid:
            self.cid, self.items = cid, self.work.read_unit(cid, self.task)
        return self.items[k]


def unit_images(work: WorkDir) -> Any:
    """The card's image source (:data:`~misi_tasks.engine.card_figures.ImageSource`): rows' images
    from the units, as the shards hold them (an MC item's letter is its row's answer)."""
    def images(rows) -> dict[str, list[bytes]]:
        out = {}
        for row in rows:
            if not work.has_unit(row["complex_id"], row["task"]):
                continue  # the card reads this one from the shards
            item = next((i for i in work.read_unit(row["complex_id"], row["task"]) if i.id == row["id"]), None)
            if item is not None:
                mc = row["task"] in mc_tasks()
                out[row["id"]] = (item.assign_letter(LETTERS.index(row["answer"])) if mc else item).to_row()["images"]
        return out

    return images


@dataclass(frozen=True)
class _ShardJob:
    """One shard to write: its items as (complex, position in its unit, letter or None)."""

    out_dir: Path
    task: str
    path: Path
    refs: tuple[tuple[str, int, int | None], ...]
    nbytes: int = 0  # PNG bytes in the shard: big shards are handed out first


def write_shard_job(job: _ShardJob) -> str:
    """Write one shard from the work folder's units (in a worker); returns its path under OUT.

    Rows are made as the writer asks for them: one row group and one unit in memory, not the shard.
    """
    reader = _UnitReader(WorkDir(job.out_dir), job.task)
    rows = ((item.assign_letter(letter) if letter is not None else item).to_row()
            for item, letter in ((reader.get(cid, k), letter) for cid, k, letter in job.refs))
    write_shard(rows, job.path)
    return str(job.path.relative_to(job.out_dir))


def plan_shards(cfg: Any, work: WorkDir, state: dict, task: str, split: str, cids: list[str],
                summary: Any) -> list[_ShardJob]:
    """Count the items of one (task, split) into ``summary`` and return its shards still to write.

    ``cfg`` and ``summary`` are the run's ``GenerateConfig`` and ``GenerateSummary``
    (:mod:`misi_tasks.engine.generate`, which imports this module).

    Shards already written by an interrupted run are counted as skipped; the others are jobs that
    any worker may write (one shard in memory per worker), see :func:`write_shard_job`.
    """
    refs: list[tuple[str, int, int, int]] = []  # (complex, position in its unit, images, bytes)
    for cid in cids:
        if not work.has_unit(cid, task):
            continue
        index = work.read_index(cid, task)
        refs += [(cid, k, n, b) for k, (n, b) in enumerate(zip(index["images"], index["bytes"]))]
        if index["skip"]:
            summary.task_skips[task].append(f"{cid}: {index['skip']}")
    if cfg.tiny:
        refs = [refs[k] for k in _tiny_indices(len(refs), cfg.seed, task)]
    letters = _letters(len(refs), cfg.seed, task, split) if task in mc_tasks() else None
    summary.items[(task, split)] = len(refs)
    summary.images[(task, split)] = sum(r[2] for r in refs)
    bounds = _shard_bounds([r[3] for r in refs]) if refs else []
    paths = shard_paths(cfg.out_dir, task, split, len(bounds)) if bounds else []
    for stale in set((cfg.out_dir / "data" / task).glob(f"{split}-*.parquet")) - set(paths):
        stale.unlink()  # left by an earlier run with other arguments
    jobs = []
    for (lo, hi), path in zip(bounds, paths):
        rel = str(path.relative_to(cfg.out_dir))
        if state["shards_done"].get(rel) and path.is_file():
            summary.shards_skipped += 1
            continue
        jobs.append(_ShardJob(cfg.out_dir, task, path,
                              tuple((refs[k][0], refs[k][1], letters[k] if letters else None) for k in range(lo, hi)),
                              sum(r[3] for r in refs[lo:hi])))
    return jobs
