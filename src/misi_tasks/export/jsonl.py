"""Plain JSON lines + PNG files, for any other tool.

``items.jsonl``: one object per item with ``id``, ``task``, ``task_code``, ``split``,
``complex_id``, ``prompt`` (misi's prompt text), ``images`` (paths relative to the folder, in
order), ``image_roles``, ``options``, ``answer`` and ``metadata`` (a JSON object); the PNGs live
under ``images/``. A system prompt, if given, is stored as ``system``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from misi_tasks.export.files import ExportDir, image_name
from misi_tasks.export.prompt import image_bytes, prompt_text, scale_png

__all__ = ["export_jsonl", "planned_names"]


def planned_names() -> list[str]:
    """Top-level names the export writes."""
    return ["items.jsonl", "images"]


def export_jsonl(items: Iterable[Mapping[str, Any]], out: ExportDir, *, max_image_px: int | None = None,
                 system: str | None = None) -> list[str]:
    """Write ``items.jsonl`` and ``images/``; return the file names."""
    stream = out.open_text("items.jsonl")
    try:
        for item in items:
            paths = []
            for k, im in enumerate(item["images"]):
                rel = f"images/{image_name(item['id'], k)}"
                out.write_image(rel, scale_png(image_bytes(im), max_image_px))
                paths.append(rel)
            meta = item.get("metadata") or "{}"
            record = {
                "id": item["id"], "task": item["task"], "task_code": item["task_code"], "split": item["split"],
                "complex_id": item["complex_id"], "prompt": prompt_text(item), "images": paths,
                "image_roles": list(item["image_roles"]), "options": list(item["options"]),
                "answer": item["answer"], "metadata": json.loads(meta) if isinstance(meta, str) else meta,
            }
            if system:
                record["system"] = system
            stream.write(json.dumps(record, ensure_ascii=False) + "\n")
        stream.commit()
    finally:
        stream.discard()
    return ["items.jsonl", "images/"]
