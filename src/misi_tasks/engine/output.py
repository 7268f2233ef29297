"""The output folder's policy: a run writes only into an empty folder, a folder an earlier misi-gen
run with the same arguments wrote (it resumes), or -- with ``overwrite`` -- replaces ``README.md``,
``failures.txt``, ``figures/`` and ``data/`` of any folder (other files are left alone).  A folder
misi did not write, or wrote with other arguments, is refused with :class:`OutputFolderError`; a
lock stops two runs writing one folder.  See :mod:`misi_tasks.engine.units` for the work folder
beside it.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any

from misi_tasks._atomic import atomic_write_bytes, remove_temp_files
from misi_tasks.definitions.registry import task_names
from misi_tasks.engine.card_figures import FIGURES_DIR
from misi_tasks.engine.config import FAILURES_FILE, GenerateConfig, GenerateSummary
from misi_tasks.engine.units import WorkDir

__all__ = ["OutputFolderError", "finished_summary", "output_files", "prepare_output", "write_failures"]

_SHARD_NAME_RE = re.compile(r"^(train|test)-\d{5}-of-\d{5}\.parquet$")


class OutputFolderError(ValueError):
    """The output folder cannot be used: written by someone else or with other arguments, or in use."""


def output_files(out: Path) -> tuple[list[Path], list[Path]]:
    """(files a misi-gen run writes, other files) under ``out``."""
    ours, other = [], []
    for path in sorted(out.rglob("*")) if out.is_dir() else ():
        if path.is_dir() and not path.is_symlink():
            continue
        rel = path.relative_to(out).parts
        shard = len(rel) == 3 and rel[0] == "data" and rel[1] in task_names() and _SHARD_NAME_RE.match(rel[2])
        figure = len(rel) == 2 and rel[0] == FIGURES_DIR and rel[1].endswith(".png")  # the card's figures
        if shard or figure or rel in (("README.md",), (FAILURES_FILE,)) or rel[0] == ".misi-gen":
            ours.append(path)
        else:
            other.append(path)
    return ours, other


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys[:3]) or "other input complexes"


def prepare_output(cfg: GenerateConfig, work: WorkDir, fingerprint: str, n_complexes: int) -> dict[str, Any]:
    """Lock the output folder, check it may be written (module docs) and return the run state."""
    out = cfg.out_dir
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{out}: is a file, not a folder; --out must be a folder")
    if not work.lock():
        raise OutputFolderError(f"{out}: another misi-gen run is writing this folder (lock {work.root / 'lock'})")
    state = work.load_state()
    legacy = out / ".misi-gen"  # where earlier versions kept the work folder: migrated, then removed
    if not state and (legacy / "state.json").is_file():
        try:
            state = json.loads((legacy / "state.json").read_text())
        except (OSError, ValueError):
            state = {}
    ours, other = output_files(out)
    written_by_misi = bool(state.get("fingerprint")) or legacy.is_dir()
    described = {**cfg.describe(), "complexes": n_complexes}
    if (ours or other) and not written_by_misi and not cfg.overwrite:
        shown = ", ".join(str(p.relative_to(out)) for p in (ours + other)[:3]) + (", ..." if len(ours + other) > 3 else "")
        raise OutputFolderError(f"{out}: folder is not empty and misi-gen did not write it (it holds {shown}); "
                                "choose a new or empty --out, or pass --overwrite to replace its README.md and data/")
    if written_by_misi and state.get("fingerprint") != fingerprint and ours and not cfg.overwrite:
        raise OutputFolderError(f"{out}: holds a dataset generated with other arguments "
                                f"({_differences(state.get('config', {}), described)}); choose another --out, "
                                "or pass --overwrite to replace it")
    if cfg.overwrite or state.get("fingerprint") != fingerprint:
        for path in ours:
            if path.is_file() or path.is_symlink():
                path.unlink()
        work.clear_units()
        state = {"fingerprint": fingerprint, "config": described, "shards_done": {}}
    work.save_state(state)
    shutil.rmtree(legacy, ignore_errors=True)  # its units are not reused; the state now lives beside OUT
    remove_temp_files(out)  # left by a run killed while writing
    remove_temp_files(work.root)
    out.mkdir(parents=True, exist_ok=True)
    return state


def finished_summary(cfg: GenerateConfig, state: dict[str, Any]) -> GenerateSummary | None:
    """The summary of a completed run whose files are all still there, else None."""
    if not state.get("complete") or cfg.overwrite:
        return None
    if not all((cfg.out_dir / rel).is_file() for rel in state.get("files", [])):
        return None
    summary = GenerateSummary.from_json(state["summary"])
    summary.shards_skipped = len(state["summary"]["shards"])
    return summary


def write_failures(cfg: GenerateConfig, summary: GenerateSummary) -> None:
    path = cfg.out_dir / FAILURES_FILE
    if summary.failed_complexes:
        text = "".join(f"{cid}\t{why}\n" for cid, why in sorted(summary.failed_complexes.items()))
        atomic_write_bytes(path, text.encode())
    elif path.is_file():
        path.unlink()
