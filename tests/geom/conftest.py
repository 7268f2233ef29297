"""Fixtures for the misi_geom tests: the bundled sample complexes, loaded once per session."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from misi_geom import Complex, load_complex
from misi_geom.samples import SAMPLE_IDS, sample_dirs


@pytest.fixture(scope="session")
def sample_paths() -> dict[str, Path]:
    """PDB id -> bundled complex folder."""
    return {d.name: d for d in sample_dirs()}


@pytest.fixture(scope="session")
def samples(sample_paths) -> dict[str, Complex]:
    """PDB id -> loaded bundled complex."""
    return {i: load_complex(sample_paths[i]) for i in SAMPLE_IDS}


@pytest.fixture
def sample_copy(sample_paths, tmp_path):
    """Factory: copy a bundled complex folder into ``tmp_path`` (optionally only some files)."""

    def copy(pdb_id: str, files: list[str] | None = None, root: Path | None = None) -> Path:
        src = sample_paths[pdb_id]
        dst = (root or tmp_path) / pdb_id
        dst.mkdir(parents=True)
        for f in src.iterdir():
            if files is None or f.name in files:
                shutil.copy(f, dst / f.name)
        return dst

    return copy
