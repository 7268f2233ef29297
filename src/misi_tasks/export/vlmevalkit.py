"""VLMEvalKit: one TSV per task and split that ``run.py --data MiSI_T1_train`` loads as a custom dataset.

VLMEvalKit (``vlmeval/dataset/__init__.py``, ``build_dataset``) treats an unknown dataset name as
``$LMUData/<name>.tsv``: with columns ``A`` and ``B`` and an image column it is a ``CustomMCQDataset``,
otherwise a ``CustomVQADataset``. ``ImageBaseDataset.__init__`` reads ``index``, parses ``image``
(base64, a Python-list string for several images, decoded by ``toliststr``) and ``image_path`` (the
file names ``dump_image`` writes the decoded images to, required for multi-image rows). The VQA
prompt is the images then ``question``, as :mod:`misi_tasks.export.prompt` builds it; the MCQ
prompt is VLMEvalKit's own (``Question: <stem>`` plus ``Options: A. ...``), so MC rows carry the
question stem and one non-empty text per option (image options name their image).

Extra columns are kept in VLMEvalKit's result file; ``misi_id`` lets ``misi-eval --predictions
<result .xlsx/.tsv>`` score the free-form tasks, which VLMEvalKit cannot.
"""

from __future__ import annotations

import base64
import hashlib
import csv
from collections.abc import Iterable, Mapping
from typing import Any

from misi_tasks.export.prompt import image_bytes, prompt_text, scale_png, split_options
from misi_tasks.export.files import ExportDir, TextStream, image_name
from misi_tasks.definitions.items import LETTERS
from misi_tasks.definitions.registry import mc_tasks, task_codes

__all__ = ["dataset_name", "export_vlmevalkit"]


def dataset_name(task: str, split: str) -> str:
    """The VLMEvalKit dataset name (and TSV stem) of one task and split, e.g. ``MiSI_T1_train`` (``MiSI_T1_test`` for a test split)."""
    return f"MiSI_{task_codes()[task]}_{split}"


def _columns(task: str) -> list[str]:
    mc = list(LETTERS) if task in mc_tasks() else []
    return ["index", "misi_id", "image", "image_path", "question", *mc, "answer", "category", "task_code", "split"]


def _cache_name(item_id: str, k: int, png: bytes) -> str:
    """File name VLMEvalKit decodes an image to (``$LMUData/images/<dataset>/<name>``).

    VLMEvalKit reuses a file that already exists there, so the name carries a hash of the image:
    re-exporting changed images under the same item ids can never pick up stale files.
    """
    return image_name(item_id, k).replace("/", "_").removesuffix(".png") + f"_{hashlib.sha256(png).hexdigest()[:12]}.png"


def _row(index: int, item: Mapping[str, Any], max_image_px: int | None) -> dict[str, Any]:
    pngs = [scale_png(image_bytes(im), max_image_px) for im in item["images"]]
    stem, options = split_options(item)
    row = {
        "index": index, "misi_id": item["id"],
        "image": repr([base64.b64encode(p).decode("ascii") for p in pngs]),
        "image_path": repr([_cache_name(item["id"], k, png) for k, png in enumerate(pngs)]),
        "question": stem if options else prompt_text(item),
        "answer": item["answer"], "category": item["task"], "task_code": task_codes()[item["task"]],
        "split": item["split"],
    }
    row.update(zip(LETTERS, options))
    return row


def planned_names(keys: Iterable[tuple[str, str]]) -> list[str]:
    """Top-level names the export writes for these (task, split) pairs."""
    return [f"{dataset_name(t, s)}.tsv" for t, s in keys]


def export_vlmevalkit(items: Iterable[Mapping[str, Any]], out: ExportDir, *, max_image_px: int | None = None,
                      system: str | None = None) -> list[str]:
    """Write one TSV per (task, split) of ``items`` (full rows with images); return the file names.

    ``system`` is not part of the TSV format (VLMEvalKit sets system prompts per model) and is ignored.
    """
    streams: dict[str, tuple[TextStream, csv.DictWriter]] = {}
    try:
        for index, item in enumerate(items, start=1):
            name = dataset_name(item["task"], item["split"])
            if name not in streams:
                stream = out.open_text(f"{name}.tsv")
                writer = csv.DictWriter(stream, fieldnames=_columns(item["task"]), delimiter="\t",
                                        lineterminator="\n")
                writer.writeheader()
                streams[name] = (stream, writer)
            streams[name][1].writerow(_row(index, item, max_image_px))
        for stream, _ in streams.values():
            stream.commit()
    finally:
        for stream, _ in streams.values():
            stream.discard()
    return [f"{name}.tsv" for name in streams]
