"""lmms-eval: a task folder for ``lmms-eval --include_path DIR --tasks misi``.

One YAML per task (``misi_t1_translation.yaml``, ...), a group YAML (``_misi.yaml``, group
``misi``), a ``utils.py`` with the hooks and ``misi_lmms_scorer/``, a copy of misi's prompt builder
and scorer (:mod:`misi_tasks.export.standalone`): the folder runs where only lmms-eval's own
dependencies are installed, misi absent, and scores every reply as ``misi-eval`` does. The tasks
read the dataset's own Parquet shards in place (absolute paths): re-export after moving the dataset.
Schema followed: lmms-eval's ``TaskConfig`` (``dataset_path``, ``dataset_kwargs``, ``test_split``,
``output_type``, ``doc_to_visual``/``doc_to_text``/``doc_to_target``, ``process_results``,
``metric_list``) and group configs (``group``, ``task``, ``aggregate_metric_list``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from misi_tasks.export.files import ExportDir
from misi_tasks.export.standalone import PACKAGE, ROOT_MODULE, vendored_sources
from misi_tasks.definitions.registry import task_codes

__all__ = ["GROUP", "export_lmms_eval", "planned_names", "task_name"]

#: Name of the lmms-eval group holding every exported task.
GROUP = "misi"

_UTILS = f'''"""lmms-eval hooks of the misi tasks (written by misi-export).

They come from {PACKAGE}/ beside this file, a copy of misi's prompt builder and scorer: misi need
not be installed where lmms-eval runs (the standard library and Pillow suffice).
"""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

from {PACKAGE}.{ROOT_MODULE.split(".", 1)[1]} import (  # noqa: E402,F401
    misi_aggregate_exact,
    misi_aggregate_score,
    misi_doc_to_text,
    misi_doc_to_visual,
    misi_process_results,
)
'''


def task_name(task: str) -> str:
    """lmms-eval task name, e.g. ``misi_t1_translation``."""
    return f"misi_{task_codes()[task].lower()}_{task.replace('-', '_')}"


def planned_names(tasks: Iterable[str]) -> list[str]:
    """Top-level names the export writes."""
    return ["_misi.yaml", "utils.py", PACKAGE, *(f"{task_name(t)}.yaml" for t in tasks)]


def _q(text: str) -> str:
    """A YAML scalar (JSON strings are valid YAML)."""
    return json.dumps(text)


def _task_yaml(task: str, split: str, dataset: Path, version: str, max_new_tokens: int) -> str:
    files = (dataset / "data" / task).resolve() / f"{split}-*.parquet"
    return "\n".join([
        f"# misi task {task_codes()[task]} ({task}), written by misi-export (misi {version}) from {dataset.resolve()}",
        f"task: {task_name(task)}",
        f"task_alias: {_q(f'{task_codes()[task]} {task}')}",
        "dataset_path: parquet",
        "dataset_kwargs:",
        "  data_files:",
        f"    {split}: {_q(str(files))}",
        f"test_split: {split}",
        "output_type: generate_until",
        "doc_to_visual: !function utils.misi_doc_to_visual",
        "doc_to_text: !function utils.misi_doc_to_text",
        "doc_to_target: answer",
        "generation_kwargs:",
        f"  max_new_tokens: {max_new_tokens}",
        "  temperature: 0",
        "  do_sample: false",
        "process_results: !function utils.misi_process_results",
        "metric_list:",
        "  - metric: misi_score",
        "    aggregation: !function utils.misi_aggregate_score",
        "    higher_is_better: true",
        "  - metric: misi_exact",
        "    aggregation: !function utils.misi_aggregate_exact",
        "    higher_is_better: true",
        "metadata:",
        f"  version: {_q(version)}",
        "",
    ])


def export_lmms_eval(tasks_splits: Iterable[tuple[str, str]], out: ExportDir, *, dataset: Path, version: str,
                     max_new_tokens: int = 512) -> list[str]:
    """Write the task folder for these (task, split) pairs (one split per task); return the file names."""
    pairs = list(tasks_splits)
    names = []
    for task, split in pairs:
        out.write_text(f"{task_name(task)}.yaml", _task_yaml(task, split, dataset, version, max_new_tokens))
        names.append(f"{task_name(task)}.yaml")
    group = "\n".join([
        f"# misi benchmark group, written by misi-export (misi {version})",
        f"group: {GROUP}",
        "task:",
        *(f"  - {task_name(t)}" for t, _ in pairs),
        "aggregate_metric_list:",
        "  - metric: misi_score",
        "    aggregation: mean",
        "    weight_by_size: false",
        "  - metric: misi_exact",
        "    aggregation: mean",
        "    weight_by_size: false",
        "metadata:",
        f"  version: {_q(version)}",
        "",
    ])
    for rel, text in vendored_sources(version).items():
        out.write_text(rel, text)
    out.write_text("_misi.yaml", group)
    out.write_text("utils.py", _UTILS)
    return [*names, "_misi.yaml", "utils.py", f"{PACKAGE}/"]
