"""Where a dataset's files are: shard paths and names, the shards present, the card's configs.

See :mod:`misi_tasks.definitions.schema` for the layout and the columns of a row.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path

from misi_tasks.definitions.registry import SPLITS, resolve_task, task_names
from misi_tasks.definitions.schema import DatasetError

__all__ = ["dataset_card_configs_yaml", "find_shards", "list_splits", "shard_paths"]

_SHARD_RE = re.compile(r"^(?P<split>[a-z]+)-(?P<i>\d{5})-of-(?P<n>\d{5})\.parquet$")


def shard_paths(out_dir: str | os.PathLike, task: str, split: str, n_shards: int) -> list[Path]:
    """Return the ``n_shards`` shard paths of one task and split, in shard order.

    Examples
    --------
    >>> [p.as_posix() for p in shard_paths("OUT", "docking", "test", 2)]
    ['OUT/data/docking/test-00000-of-00002.parquet', 'OUT/data/docking/test-00001-of-00002.parquet']
    """
    task = resolve_task(task)
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    if n_shards < 1:
        raise DatasetError(f"n_shards must be >= 1, got {n_shards}")
    base = Path(out_dir) / "data" / task
    return [base / f"{split}-{i:05d}-of-{n_shards:05d}.parquet" for i in range(n_shards)]


def find_shards(dataset_dir: Path) -> dict[tuple[str, str], list[Path]]:
    """Map (task, split) to its complete, ordered shard list; raise on gaps or stray names."""
    data = dataset_dir / "data"
    if not data.is_dir():
        raise DatasetError(f"{dataset_dir}: no data/ directory (not a misi dataset)")
    found: dict[tuple[str, str], dict[int, tuple[int, Path]]] = {}
    for task in task_names():
        for path in sorted((data / task).glob("*.parquet")):
            m = _SHARD_RE.match(path.name)
            if m is None or m["split"] not in SPLITS:
                raise DatasetError(f"{path}: shard name is not <split>-<i:05d>-of-<n:05d>.parquet")
            found.setdefault((task, m["split"]), {})[int(m["i"])] = (int(m["n"]), path)
    out: dict[tuple[str, str], list[Path]] = {}
    for key, shards in found.items():
        counts = {n for n, _ in shards.values()}
        n = counts.pop()
        if counts or sorted(shards) != list(range(n)):
            raise DatasetError(f"{data / key[0]}: {key[1]} shards are incomplete or inconsistent "
                               f"(found indices {sorted(shards)}, expected 0..{n - 1})")
        out[key] = [shards[i][1] for i in range(n)]
    return out


def list_splits(dataset_dir: str | os.PathLike) -> dict[str, list[str]]:
    """Return ``{task: [split, ...]}`` for the shards present, tasks in code order."""
    shards = find_shards(Path(dataset_dir))
    return {t: [s for s in SPLITS if (t, s) in shards] for t in task_names()
            if any((t, s) in shards for s in SPLITS)}


def dataset_card_configs_yaml(
    splits_by_task: Mapping[str, Iterable[str]],
    *,
    all_config: str | None = "all",
    front_matter: bool = False,
) -> str:
    """Render the ``configs:`` YAML block of the dataset card (one config per task).

    Parameters
    ----------
    splits_by_task : mapping
        ``{task: splits}``, e.g. from :func:`list_splits`; names or codes, any order.
    all_config : str or None, default "all"
        Name of an extra config holding every task, marked ``default: true`` so that
        ``datasets.load_dataset(OUT)`` works without a config name. None leaves it out.
    front_matter : bool, default False
        Wrap the block in ``---`` lines, ready to start ``README.md``.

    Examples
    --------
    >>> print(dataset_card_configs_yaml({"T1": ["test"]}, all_config=None), end="")
    configs:
    - config_name: translation
      data_files:
      - split: test
        path: data/translation/test-*.parquet
    """
    by_task = {resolve_task(t): set(s) for t, s in splits_by_task.items()}
    for task, splits in by_task.items():
        if not splits <= set(SPLITS) or not splits:
            raise DatasetError(f"task {task}: splits must be a non-empty subset of {SPLITS}")
    lines = ["configs:"]

    def add(name: str, pattern: str, splits: set[str], default: bool = False) -> None:
        lines.append(f"- config_name: {name}")
        if default:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in (s for s in SPLITS if s in splits):
            lines.extend([f"  - split: {split}", f"    path: data/{pattern}/{split}-*.parquet"])

    if all_config is not None and by_task:
        add(all_config, "*", set().union(*by_task.values()), default=True)
    for task in (t for t in task_names() if t in by_task):
        add(task, task, by_task[task])
    text = "\n".join(lines) + "\n"
    return f"---\n{text}---\n" if front_matter else text
