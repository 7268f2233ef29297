"""misi_tasks: the nine MiSI-Bench tasks, the engine that generates them, and the scorer.

Data flows from a folder of complexes to a scored reply through these sub-packages::

    inputs/   find complexes (PDBbind folders, manifests, PDB/mmCIF entries) and assign splits
    engine/   misi-gen: load every complex, run the task generators per complex on a backend
              (local processes or Ray), write Parquet shards and the dataset card
    tasks/    one generator per task (generator base, scene, prompts, decoys, motion commands)
    dataset/  the dataset on disk: Parquet shards, their layout, the card's configs
    definitions/  what a task *is*, independent of how it is made: the task specs and their
              registry, answer vocabulary, metrics, item record, dataset row schema (pure Python)
    eval/     misi-eval: parse replies, score them, baselines, reports, charts
    run/      misi-run: send items to an OpenAI-compatible server, collect replies
    export/   misi-export: write the dataset in harness formats (VLMEvalKit, lmms-eval, ...)
    view/     misi-view: a static gallery of a dataset

``eval`` (and ``run``, ``export``, ``view``) import only ``definitions``, ``dataset`` and the standard helpers here, never
the engine, the renderer or the geometry, so scoring needs neither numba nor RDKit.
Import what you need from its sub-package, e.g. ``from misi_tasks.engine import generate_dataset``
or ``from misi_tasks.eval import score_item``.
"""

from __future__ import annotations

__all__: list[str] = []
