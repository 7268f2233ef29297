"""The output folder's policy: a run writes only into an empty folder, a folder an earlier misi-gen
run with the same arguments wrote (it resumes), or -- with ``overwrite`` -- replaces ``README.md``,
``failures.txt``, ``figures/`` and ``data/`` of any folder (other files are left alone).  A folder
misi did not write, or wrote with other arguments, is refused with :class:`OutputFolderError`
before anything is created; a lock on the real folder (:meth:`misi_tasks.engine.units.WorkDir.lock`)
stops two runs writing one folder, whatever paths (symlinks, bind mounts) name it.  See
:mod:`misi_tasks.engine.units` for the work folder beside it.
"""

from __future__ import annotations

import json
import os
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
    """(files a misi-gen run writes, other entries) under ``out``.

    Only the places misi-gen writes are walked (``data/<task>/``, ``figures/``, the old ``.misi-gen/``);
    any other entry of ``out`` is listed as it is, never descended into, so ``--out $HOME`` is
    refused after one look at the folder, not a walk of the whole tree."""
    ours: list[Path] = []
    other: list[Path] = []
    if not out.is_dir():
        return ours, other
    tasks = task_names()
    for top in sorted(out.iterdir()):
        name, real_dir = top.name, top.is_dir() and not top.is_symlink()
        if name in ("README.md", FAILURES_FILE) and not real_dir:
            ours.append(top)
        elif name == ".misi-gen" and real_dir:
            ours += sorted(p for p in top.rglob("*") if _not_a_folder(p))
        elif name == FIGURES_DIR and real_dir:
            for path in sorted(top.iterdir()):  # the card's figures
                (ours if path.suffix == ".png" and _not_a_folder(path) else other).append(path)
        elif name == "data" and real_dir:
            for task in sorted(top.iterdir()):
                if task.name not in tasks or not task.is_dir() or task.is_symlink():
                    other.append(task)
                    continue
                for path in sorted(task.iterdir()):
                    shard = _SHARD_NAME_RE.match(path.name) and _not_a_folder(path)
                    (ours if shard else other).append(path)
        else:
            other.append(top)
    return ours, other


def _not_a_folder(path: Path) -> bool:
    return path.is_symlink() or not path.is_dir()


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys[:3]) or "other input complexes"


def _check_output(cfg: GenerateConfig, state: dict[str, Any], fingerprint: str, n_complexes: int) -> list[Path]:
    """Raise :class:`OutputFolderError` if ``cfg.out_dir`` may not be written (module docs); else return
    the files of an earlier run in it.  Reads only: it runs before anything is created."""
    out = cfg.out_dir
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{out}: is a file, not a folder; --out must be a folder")
    if not Path(os.path.realpath(out)).name:
        raise OutputFolderError(f"{out}: is the root folder; --out must be a folder of its own")
    ours, other = output_files(out)
    written_by_misi = bool(state.get("fingerprint")) or (out / ".misi-gen").is_dir()
    described = {**cfg.describe(), "complexes": n_complexes}
    if (ours or other) and not written_by_misi and not cfg.overwrite:
        shown = ", ".join(str(p.relative_to(out)) for p in (ours + other)[:3]) + (", ..." if len(ours + other) > 3 else "")
        raise OutputFolderError(f"{out}: folder is not empty and misi-gen did not write it (it holds {shown}); "
                                "choose a new or empty --out, or pass --overwrite to replace its README.md and data/")
    if written_by_misi and state.get("fingerprint") != fingerprint and ours and not cfg.overwrite:
        raise OutputFolderError(f"{out}: holds a dataset generated with other arguments "
                                f"({_differences(state.get('config', {}), described)}); choose another --out, "
                                "or pass --overwrite to replace it")
    return ours


def _load_state(work: WorkDir, out: Path) -> dict[str, Any]:
    state = work.load_state()
    legacy = out / ".misi-gen"  # where earlier versions kept the work folder: migrated, then removed
    if not state and (legacy / "state.json").is_file():
        try:
            state = json.loads((legacy / "state.json").read_text())
        except (OSError, ValueError):
            state = {}
    return state


def prepare_output(cfg: GenerateConfig, work: WorkDir, fingerprint: str, n_complexes: int) -> dict[str, Any]:
    """Check the output folder may be written (module docs), creating nothing until it may; then
    create it, lock it (one run per real folder, whatever path names it) and return the run state."""
    out = cfg.out_dir
    _check_output(cfg, _load_state(work, out), fingerprint, n_complexes)
    out.mkdir(parents=True, exist_ok=True)
    if not work.lock():
        raise OutputFolderError(f"{out}: another misi-gen run is writing this folder (lock {work.root / 'lock'})")
    state = _load_state(work, out)  # again, under the lock: a run that finished meanwhile
    ours = _check_output(cfg, state, fingerprint, n_complexes)
    if cfg.overwrite or state.get("fingerprint") != fingerprint:
        for path in ours:
            if path.is_file() or path.is_symlink():
                path.unlink()
        work.clear_work_files()
        state = {"fingerprint": fingerprint, "config": {**cfg.describe(), "complexes": n_complexes},
                 "groups_done": {}}
    work.save_state(state)
    shutil.rmtree(out / ".misi-gen", ignore_errors=True)  # its units are not reused; the state now lives beside OUT
    remove_temp_files(out, recursive=False)  # left by a run killed while writing (not in the user's folders)
    for folder in (out / "data", out / FIGURES_DIR, work.root):
        remove_temp_files(folder)
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
