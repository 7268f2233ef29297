"""``misi-gen``: the generation engine.  It loads every complex, runs the task generators of
:mod:`misi_tasks.tasks` on fixed groups of complexes, resumable by group, on a backend (local process pool or Ray),
and writes the Parquet shards and the dataset card.

``GenerateConfig`` and ``generate_dataset`` are imported on first use, so that importing the
package (or its command line, :mod:`misi_tasks.engine.cli`) loads neither pyarrow nor the
generators: ``misi-gen`` chooses Arrow's memory pool before pyarrow loads (``engine/_malloc.py``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["GenerateConfig", "generate_dataset"]

if TYPE_CHECKING:
    from misi_tasks.engine.generate import GenerateConfig, generate_dataset


def __getattr__(name: str) -> Any:
    if name in __all__:
        from misi_tasks.engine import generate

        return getattr(generate, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
