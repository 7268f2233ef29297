"""Fixtures for the backend tests: one small generation run and a digest of its output files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_geom.samples import sample_root

#: A few tasks, one of them (T5) reading a second complex, at a small size to stay fast.
TASKS = ("translation", "residue-ligand", "translation-rotation")


def small_config(out: Path, **kw) -> GenerateConfig:
    """The run every backend test compares: all five bundled samples, three tasks, 96 px."""
    return GenerateConfig(input_dir=sample_root(), out_dir=out, tasks=TASKS, split="test", seed=3, size=96, **kw)


def digest(out: Path) -> dict[str, str]:
    """sha256 of every output file (the work folder lives beside ``out``, not in it)."""
    files = sorted(p for p in out.rglob("*") if p.is_file())
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="session")
def local_reference(tmp_path_factory) -> dict[str, str]:
    """Digest of the small run on the local backend, in this process."""
    out = tmp_path_factory.mktemp("local-ref")
    generate_dataset(small_config(out), progress=False)
    files = digest(out)
    assert any(name.endswith(".parquet") for name in files)
    return files


def descendants(root: int) -> dict[int, str]:
    """pid -> command line of every process below ``root`` (Linux /proc)."""
    parent, cmd = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = {}, [root]
    while frontier:
        p = frontier.pop()
        for child, pp in parent.items():
            if pp == p and child not in found:
                found[child] = cmd[child]
                frontier.append(child)
    return found
