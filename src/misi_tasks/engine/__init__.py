"""``misi-gen``: the generation engine.  It loads every complex, runs the task generators of
:mod:`misi_tasks.tasks` on fixed groups of complexes, resumable by group, on a backend (local process pool or Ray),
and writes the Parquet shards and the dataset card."""

from __future__ import annotations

from misi_tasks.engine._malloc import arrow_uses_malloc

arrow_uses_malloc()  # before pyarrow is imported: Arrow reads its pool once (engine/_malloc.py)

from misi_tasks.engine.generate import GenerateConfig, generate_dataset  # noqa: E402

__all__ = ["GenerateConfig", "generate_dataset"]
