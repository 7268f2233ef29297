"""OpenAI Batch input: one chat-completions request per item, ``custom_id`` = the item id.

Upload ``requests.jsonl`` with the Batch API; its output file goes straight to ``misi-eval
--predictions`` (the format is detected). The request bodies are the ones ``misi-run`` sends.
The Batch API caps an input file (200 MB at the time of writing): use ``--max-image-px`` and
``--task`` to keep under it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from misi_tasks.export.files import ExportDir
from misi_tasks.export.prompt import build_prompt, chat_messages

__all__ = ["export_openai_batch", "planned_names"]


def planned_names() -> list[str]:
    """Top-level names the export writes."""
    return ["requests.jsonl"]


def export_openai_batch(items: Iterable[Mapping[str, Any]], out: ExportDir, *, max_image_px: int | None = None,
                        system: str | None = None, model: str = "gpt-4o", max_tokens: int | None = None) -> list[str]:
    """Write ``requests.jsonl``; return the file names."""
    stream = out.open_text("requests.jsonl")
    try:
        for item in items:
            body: dict[str, Any] = {"model": model, "temperature": 0,
                                    "messages": chat_messages(build_prompt(item, max_image_px=max_image_px,
                                                                           system=system))}
            if max_tokens:
                body["max_tokens"] = max_tokens
            stream.write(json.dumps({"custom_id": item["id"], "method": "POST", "url": "/v1/chat/completions",
                                     "body": body}) + "\n")
        stream.commit()
    finally:
        stream.discard()
    return ["requests.jsonl"]
