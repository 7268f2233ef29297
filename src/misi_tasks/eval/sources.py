"""Which models' predictions ``misi-eval`` was given: files and harness results folders, named by what they record.

``--predictions`` takes files or folders. A folder is searched (recursively) for the result files
the harnesses write:

==================  ==========================================================================
harness             files taken from a folder, and the model name they record
==================  ==========================================================================
lmms-eval           ``<date>_samples_<task>.jsonl`` (the newest run per task and folder; API and
                    dummy models write no model sub-folder); the model is the ``model_name`` of
                    the ``<date>_results.json`` beside it, else its ``config.model``
VLMEvalKit          ``<model>_MiSI_<code>_<split>.xlsx|.tsv|.csv|.json`` (``PRED_FORMAT``; one
                    file per name, the one nearest the folder: VLMEvalKit links the newest
                    run's files there); the model is the file name's ``<model>`` part
misi-run            ``*.jsonl`` with ``id`` and ``reply``; the model is the lines' ``model``
OpenAI Batch        output lines with ``custom_id``; the model is the responses' ``model``
==================  ==========================================================================

Each ``--predictions`` group is one model unless its files record different models; ``--name``
(one per group) overrides the recorded name. A file that records no model (hand-written
predictions) takes its group's name: ``--name``, else the first path's stem.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from misi_tasks.eval.prediction_formats import PredictionsError, first_object, detect_format, load_predictions

__all__ = ["ModelPredictions", "PredictionFile", "find_prediction_files", "load_models", "recorded_model"]

_LMMS_SAMPLES = re.compile(r"(?P<date>.+)_samples_(?P<task>.+)\.jsonl")
#: any task code (T1 ... T9, X1, a toy task's Y1): misi-export writes one file per task of the dataset
_VLMEVALKIT = re.compile(r"(?P<model>.+)_MiSI_[A-Z]+\d+_(?:train|test)\.(?:xlsx|tsv|csv|json)", re.IGNORECASE)


@dataclass(frozen=True)
class PredictionFile:
    """One result file, its detected format and the model it records (None if it records none)."""

    path: Path
    format: str
    model: str | None


@dataclass
class ModelPredictions:
    """One model's replies, gathered from its files."""

    name: str
    files: list[Path] = field(default_factory=list)
    replies: dict[str, str] = field(default_factory=dict)


def _lmms_model(samples: Path) -> str | None:
    m = _LMMS_SAMPLES.fullmatch(samples.name)
    results = samples.with_name(f"{m.group('date')}_results.json") if m else None
    if results is None or not results.is_file():
        return None
    try:
        data = json.loads(results.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(data, dict):
        return None
    config = data.get("config") if isinstance(data.get("config"), dict) else {}
    name = data.get("model_name") or config.get("model")
    return str(name) if name else None


def recorded_model(path: str | os.PathLike, fmt: str | None = None) -> str | None:
    """The model a result file records, or None (see the module's table)."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt == "lmms-eval":
        return _lmms_model(path)
    if fmt == "vlmevalkit":
        m = _VLMEVALKIT.fullmatch(path.name)
        return m.group("model") if m else None
    obj = first_object(path) or {}
    if fmt == "openai-batch":
        body = (obj.get("response") or {}).get("body") or {}
        return str(body["model"]) if isinstance(body, dict) and body.get("model") else None
    return str(obj["model"]) if isinstance(obj.get("model"), str) and obj["model"] else None


def _folder_files(folder: Path) -> list[Path]:
    """The result files in ``folder`` (recursively): newest lmms-eval run per task and folder, one
    VLMEvalKit file per name (nearest the folder), misi and OpenAI Batch JSON lines."""
    lmms: dict[tuple[Path, str], Path] = {}
    vlm: dict[str, Path] = {}
    other: list[Path] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or any(part.startswith(".") for part in path.relative_to(folder).parts):
            continue
        m = _LMMS_SAMPLES.fullmatch(path.name)
        if m:
            key = (path.parent, m.group("task"))
            if key not in lmms or lmms[key].name < path.name:   # dates sort as text
                lmms[key] = path
        elif _VLMEVALKIT.fullmatch(path.name):
            best = vlm.get(path.name)
            if best is None or len(path.relative_to(folder).parts) < len(best.relative_to(folder).parts):
                vlm[path.name] = path
        elif path.suffix == ".jsonl":
            first = first_object(path) or {}
            if "custom_id" in first and "body" in first:
                continue  # a Batch input file, not its output
            if "id" in first or "custom_id" in first:
                other.append(path)
    return sorted({*lmms.values(), *vlm.values(), *other})


def find_prediction_files(path: str | os.PathLike) -> list[PredictionFile]:
    """The result files of ``path`` (itself if a file), each with its format and recorded model.

    Raises
    ------
    PredictionsError
        When ``path`` does not exist or a folder holds no result file.
    """
    path = Path(path)
    if path.is_dir():
        files = _folder_files(path)
        if not files:
            raise PredictionsError(f"{path}: no result files found (looked for lmms-eval *_samples_*.jsonl, "
                                   "VLMEvalKit *_MiSI_<code>_<split>.xlsx/.tsv/.csv/.json and misi or OpenAI Batch .jsonl)")
    elif path.exists():
        files = [path]
    else:
        raise PredictionsError(f"{path}: no such file or folder")
    out = []
    for f in files:
        fmt = detect_format(f)
        out.append(PredictionFile(f, fmt, recorded_model(f, fmt)))
    return out


def load_models(groups: Sequence[Sequence[str | os.PathLike]], names: Sequence[str] = (),
                known_ids: set[str] | None = None) -> list[ModelPredictions]:
    """Read every group's files and gather them by model, in the order first seen.

    ``names[i]`` (if given) names every file of ``groups[i]``; otherwise a file's recorded model
    names it, and files recording none take the group's first path's stem.

    Raises
    ------
    PredictionsError
        On more names than groups, unreadable or malformed files, or one item answered twice by
        one model (the message suggests ``--name`` when two runs carry the same model name).
    """
    if len(names) > len(groups):
        raise PredictionsError(f"--name given {len(names)} times for {len(groups)} --predictions groups")
    models: dict[str, ModelPredictions] = {}
    origin: dict[tuple[str, str], Path] = {}
    for k, group in enumerate(groups):
        fallback = Path(group[0]).stem if Path(group[0]).is_file() else Path(group[0]).resolve().name
        for pf in (f for path in group for f in find_prediction_files(path)):
            name = names[k] if k < len(names) else (pf.model or fallback)
            model = models.setdefault(name, ModelPredictions(name))
            model.files.append(pf.path)
            for item_id, reply in load_predictions(pf.path, known_ids).items():
                if (name, item_id) in origin:
                    raise PredictionsError(
                        f"{pf.path}: item {item_id!r} is answered twice for model {name!r} (also in "
                        f"{origin[name, item_id]}); two runs of one model? name them apart with --name")
                origin[name, item_id] = pf.path
                model.replies[item_id] = reply
    return list(models.values())
