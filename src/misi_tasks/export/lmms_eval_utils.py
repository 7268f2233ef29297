"""The functions an exported lmms-eval task calls (its ``utils.py`` imports them from here).

lmms-eval loads each task YAML, resolves ``!function utils.<name>`` against the ``utils.py`` beside
it, loads the Parquet shards with ``datasets.load_dataset`` (``dataset_path: parquet`` plus
``dataset_kwargs.data_files``) and calls, per document: ``doc_to_visual(doc)`` (the item's images,
as PIL images in order), ``doc_to_text(doc)`` (misi's prompt text) and, on the model's reply,
``process_results(doc, [reply])``, which scores with misi's own scorer. The per-item record also
carries the item id, so lmms-eval's ``--log_samples`` files can be fed to ``misi-eval`` for the
paper's table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from misi_tasks.export.prompt import prompt_text
from misi_tasks.eval.score import score_item

__all__ = [
    "misi_aggregate_exact",
    "misi_aggregate_score",
    "misi_doc_to_text",
    "misi_doc_to_visual",
    "misi_process_results",
]


def misi_doc_to_visual(doc: Mapping[str, Any]) -> list[Any]:
    """The item's images in order, as RGB PIL images."""
    import io

    from PIL import Image

    out = []
    for im in doc["images"]:
        if isinstance(im, Mapping):  # undecoded {"bytes", "path"} struct
            im = Image.open(io.BytesIO(im["bytes"]))
        out.append(im.convert("RGB"))
    return out


def misi_doc_to_text(doc: Mapping[str, Any], lmms_eval_specific_kwargs: Mapping[str, Any] | None = None) -> str:
    """misi's prompt text (the same as ``misi-run`` and every exporter send)."""
    return prompt_text(doc)


def misi_process_results(doc: Mapping[str, Any], results: Sequence[str]) -> dict[str, dict[str, Any]]:
    """Score the reply with misi's scorer; one record per metric, each naming the item."""
    reply = results[0] if results else None
    s = score_item(doc, reply)
    record = {"id": s.id, "task": s.task, "column": s.column, "status": s.status}
    return {"misi_score": dict(record, score=s.score), "misi_exact": dict(record, score=float(s.exact))}


def _mean_pct(records: Sequence[Mapping[str, Any]]) -> float:
    return 100.0 * sum(r["score"] for r in records) / len(records) if records else 0.0


def misi_aggregate_score(records: Sequence[Mapping[str, Any]]) -> float:
    """Mean misi score of a task, in percent."""
    return _mean_pct(records)


def misi_aggregate_exact(records: Sequence[Mapping[str, Any]]) -> float:
    """Share of exactly right answers, in percent."""
    return _mean_pct(records)
