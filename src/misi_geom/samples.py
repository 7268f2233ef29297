"""The bundled sample complexes (see ``sample_data/PROVENANCE.md``), read via importlib.resources."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["SAMPLE_IDS", "sample_root", "sample_dirs"]

#: PDB ids of the bundled sample complexes.
SAMPLE_IDS: tuple[str, ...] = ("1h1d", "2pyy", "2w9r", "3pvu", "4cjq")


def sample_root() -> Path:
    """Folder holding one sub-folder per bundled complex."""
    return Path(str(resources.files("misi_geom") / "sample_data"))


def sample_dirs() -> list[Path]:
    """The bundled complex folders, sorted by PDB id.

    >>> [d.name for d in sample_dirs()] == list(SAMPLE_IDS)
    True
    """
    return [sample_root() / i for i in SAMPLE_IDS]
