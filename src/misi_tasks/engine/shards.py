"""A run's shards: one per (task, group of complexes), written once, by the worker that makes the group.

The layout is fixed before anything is generated and depends only on the run's complexes and
``--group-size``, never on the workers, the nodes or the backend: the complexes of a split, in
sorted order, are cut into groups of ``group_size`` consecutive complexes (:func:`plan_groups`),
and group ``i`` of ``n`` of a split holds the rows of its complexes for each task in
``data/<task>/<split>-<i>-of-<n>.parquet``.  A group is one job: a worker generates its complexes
one after another and appends each complex's rows of every task to that task's open shard
(:class:`~misi_tasks.dataset.ShardWriter`, row groups of at most 16 rows of one complex), then
moves the group's shards into place; every image is written once, straight into its shard.

Everything a row needs is known inside its complex:

- the correct letter of a multiple-choice item is balanced per complex (:func:`complex_letters`);
- the Tiny subset (``--tiny``) is a small copy: the full test split is written to shards in the work
  folder, then 50 rows per task are drawn from them (balanced over the answer letters for a
  multiple-choice task, :func:`tiny_pick`) and copied into ``OUT`` (:func:`write_tiny_shard`).

A group whose complexes give no item for a task still writes that task's shard (with no rows), so
the shard names stay complete.  See :mod:`misi_tasks.engine.generate` for the run around it and
:mod:`misi_tasks.engine.units` for the work folder.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from misi_tasks.dataset import ShardWriter
from misi_tasks.definitions.items import LETTERS
from misi_tasks.tasks.seeding import rng_for

__all__ = ["TINY_PER_TASK", "Group", "complex_letters", "plan_groups", "tiny_pick", "tiny_shard",
           "write_tiny_shard"]

#: Items per task in a ``--tiny`` run (the paper's Tiny subset).
TINY_PER_TASK = 50


def complex_letters(n: int, seed: int, task: str, split: str, complex_id: str) -> list[int]:
    """Correct-letter indices (0-3 for A-D) of one complex's ``n`` items of a multiple-choice task.

    A-D are cycled over the ``n`` items and shuffled with ``rng_for(seed, "letters", task, split,
    complex_id)``; the ``n mod 4`` letters that get one item more start at a seeded offset, so a
    complex's letters differ by at most one and over a dataset the letters are balanced to within a
    few items, whatever the other complexes are.

    >>> sorted(complex_letters(8, 0, "rotation", "test", "1abc"))
    [0, 0, 1, 1, 2, 2, 3, 3]
    """
    rng = rng_for(seed, "letters", task, split, complex_id)
    perm = rng.permutation(n)
    offset = int(rng.integers(4))
    return [(int(p) + offset) % 4 for p in perm]


@dataclass(frozen=True)
class Group:
    """Group ``index`` of ``count`` of one split: consecutive complexes (sorted by id) whose rows of
    each task make one shard."""

    split: str
    index: int
    count: int
    complexes: tuple[str, ...]

    @property
    def key(self) -> str:
        """The group's name, also its shards' file name without ``.parquet``."""
        return f"{self.split}-{self.index:05d}-of-{self.count:05d}"

    def shard(self, base: Path, task: str) -> Path:
        """The group's shard of ``task`` under ``base`` (``OUT`` or the work folder)."""
        return Path(base) / "data" / task / f"{self.key}.parquet"


def plan_groups(splits: Mapping[str, str], group_size: int) -> list[Group]:
    """The run's groups: per split (sorted), its complexes in sorted order, ``group_size`` at a time.

    >>> [(g.key, g.complexes) for g in plan_groups({"a": "test", "b": "test", "c": "test"}, 2)]
    [('test-00000-of-00002', ('a', 'b')), ('test-00001-of-00002', ('c',))]
    """
    if group_size < 1:
        raise ValueError(f"group size must be at least 1, got {group_size}")
    groups = []
    for split in sorted(set(splits.values())):
        cids = sorted(c for c, s in splits.items() if s == split)
        count = -(-len(cids) // group_size)
        groups += [Group(split, i, count, tuple(cids[i * group_size:(i + 1) * group_size])) for i in range(count)]
    return groups


def tiny_pick(answers: list[str], seed: int, task: str, mc: bool) -> list[int]:
    """Indices (sorted) of the :data:`TINY_PER_TASK` rows of a task's Tiny subset, among rows whose
    answers are ``answers`` (in dataset order).

    All rows when there are no more.  A multiple-choice task takes 12 or 13 rows of each correct
    letter (which letters get 13 is seeded), topped up from the other rows if a letter has too
    few; any other task draws its rows uniformly.  Seeded by ``(seed, "tiny", task)``.
    """
    n = len(answers)
    if n <= TINY_PER_TASK:
        return list(range(n))
    rng = rng_for(seed, "tiny", task)
    if not mc:
        return sorted(int(k) for k in rng.choice(n, TINY_PER_TASK, replace=False))
    extra = {int(j) for j in rng.permutation(4)[:TINY_PER_TASK % 4]}
    picked: list[int] = []
    for j, letter in enumerate(LETTERS):
        pool = [k for k, a in enumerate(answers) if a == letter]
        take = min(TINY_PER_TASK // 4 + (j in extra), len(pool))
        picked += [pool[int(i)] for i in rng.choice(len(pool), take, replace=False)] if take else []
    if len(picked) < TINY_PER_TASK:
        rest = sorted(set(range(n)) - set(picked))
        picked += [rest[int(i)] for i in rng.choice(len(rest), TINY_PER_TASK - len(picked), replace=False)]
    return sorted(picked)


def tiny_shard(out_dir: Path, task: str) -> Path:
    """The one shard of ``task`` in a ``--tiny`` run."""
    return Path(out_dir) / "data" / task / "test-00000-of-00001.parquet"


def write_tiny_shard(args: tuple[Any, str, tuple[Path, ...], bool]) -> dict[str, Any]:
    """Copy one task's Tiny subset from the full run's shards into ``OUT`` (a job for any worker).

    ``args`` is ``(cfg, task, full shards in order, multiple-choice)``; returns the shard's path
    under ``OUT`` and its item and image counts.  Only the chosen rows' images are read.
    """
    import pyarrow.parquet as pq

    cfg, task, shards, mc = args
    answers: list[str] = []
    for path in shards:
        answers += pq.read_table(path, columns=["answer"]).column("answer").to_pylist()
    chosen = tiny_pick(answers, cfg.seed, task, mc)
    path = tiny_shard(cfg.out_dir, task)
    writer = ShardWriter(path)
    n_images = start = 0
    try:
        wanted = set(chosen)
        for shard in shards:
            pf = pq.ParquetFile(shard)
            for g in range(pf.metadata.num_row_groups):  # a row group holds rows of one complex
                size = pf.metadata.row_group(g).num_rows
                keep = [k for k in range(size) if start + k in wanted]
                if keep:
                    rows = pf.read_row_group(g).take(keep).to_pylist()
                    n_images += sum(len(r["images"]) for r in rows)
                    writer.write(rows)  # as read: the same images, paths and metadata
                start += size
        writer.close()
    except BaseException:
        writer.discard()
        raise
    return {"task": task, "shard": str(path.relative_to(cfg.out_dir)), "items": len(chosen), "images": n_images}

