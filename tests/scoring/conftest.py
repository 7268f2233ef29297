"""Fixtures for the scoring tests: a small synthetic dataset written with ``write_shard``."""

from __future__ import annotations

import io
import json
import random
from pathlib import Path

import pytest
from PIL import Image

from misi_tasks.dataset import dataset_card_configs_yaml, list_splits, shard_paths, write_shard
from misi_tasks.definitions.registry import MC_TASKS, TASK_NAMES


def tiny_png(seed: int) -> bytes:
    """A 4x4 PNG whose colour depends on ``seed``."""
    buf = io.BytesIO()
    Image.new("RGB", (4, 4), (seed % 256, (seed * 7) % 256, (seed * 13) % 256)).save(buf, format="PNG")
    return buf.getvalue()


def synthetic_answer(task: str, k: int, rng: random.Random) -> tuple[str, list[str], dict]:
    """Return (answer, options, metadata) of the k-th synthetic item of ``task``."""
    if task in MC_TASKS:
        options = [f"move x {rng.randint(-9, 9)}, move y {i}" for i in range(4)] \
            if task == "interaction-location" else ["", "", "", ""]
        return "ABCD"[k % 4], options, {}
    if task == "translation":
        return f"move {'xy'[k % 2]} {rng.choice([-4, -3, -2, -1, 1, 2, 3, 4])}", [], {}
    if task == "rotation":
        return f"roll {'xyz'[k % 3]} {rng.choice([-90, -45, -15, 15, 30, 60, 90])}", [], {}
    if task == "zooming":
        return f"move z {rng.randint(40, 60)}", [], {}
    if task == "docking":
        return f"roll {'xyz'[k % 3]} {rng.choice([-75, -30, 15, 45, 90])}, move x {rng.choice([-14, -20, 12, 25])}", [], {}
    if task == "residue-ligand":
        if k % 2:
            return "No", [], {"label": "negative"}
        return "Yes: ARG NH2, O1B; ARG NE, O2G" if k % 4 == 0 else "Yes: SER OG, O3'", [], {"label": "positive"}
    if task == "interaction-list":  # a salt bridge, or a type the complex does not make
        if k % 3 == 2:
            return "No", [], {"interaction_type": "metal", "interactions": []}
        rec = {"type": "salt_bridge", "residue": "ARG 45 A", "pocket_atoms": ["NE", "NH1", "NH2"],
               "ligand_atoms": ["O1", "O2"]}
        return "ARG 45 NE-NH1-NH2 A, O1-O2", [], {"interaction_type": "salt_bridge", "interactions": [rec]}
    # pocket-ligand: insertion codes and a blank chain ('?') included
    return ("ASN 460 ND2 A, O2; GLU 537 OE1 A, O2" if k % 2 == 0
            else "GLY 184A N ?, O1; HIS 57 NE2 B, N3"), [], {}


def synthetic_rows(task: str, split: str, n: int, seed: int = 0) -> list[dict]:
    """``n`` synthetic rows of one task and split, with two tiny images each."""
    rng = random.Random(f"{seed}:{task}:{split}")
    rows = []
    for k in range(n):
        answer, options, meta = synthetic_answer(task, k, rng)
        rows.append(dict(
            id=f"{task}/{split}/c{k % 5:03d}/{k:03d}", task=task, split=split, complex_id=f"c{k % 5:03d}",
            question=f"Synthetic {task} question {k}.", images=[tiny_png(k), tiny_png(k + 1)],
            image_roles=["front", "option A" if options else "front after"], options=options,
            answer=answer, metadata=json.dumps(meta | {"k": k}),
        ))
    return rows


def build_dataset(out: Path, n_test: int, n_train: int = 0, n_shards: int = 1) -> Path:
    """Write a synthetic dataset (every task) under ``out`` and its card; return ``out``."""
    for task in TASK_NAMES:
        for split, n in (("test", n_test), ("train", n_train)):
            if not n:
                continue
            rows = synthetic_rows(task, split, n)
            paths = shard_paths(out, task, split, n_shards)
            for i, path in enumerate(paths):
                write_shard(rows[i::n_shards], path)
    (out / "README.md").write_text(dataset_card_configs_yaml(list_splits(out), front_matter=True)
                                   + "\n# Synthetic misi test dataset\n")
    return out


@pytest.fixture(scope="session")
def small_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Eight test items per task plus three train items per task, two shards each."""
    return build_dataset(tmp_path_factory.mktemp("small"), n_test=8, n_train=3, n_shards=2)


@pytest.fixture(scope="session")
def chance_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """400 test items per task, for the random baseline's chance levels."""
    return build_dataset(tmp_path_factory.mktemp("chance"), n_test=400)


@pytest.fixture
def rows_factory():
    """Give tests the synthetic row builder."""
    return synthetic_rows


@pytest.fixture
def png_factory():
    """Give tests the tiny PNG builder."""
    return tiny_png
