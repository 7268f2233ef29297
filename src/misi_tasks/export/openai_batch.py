"""OpenAI Batch input: one chat-completions request per item, ``custom_id`` = the item id.

The requests are split into parts ``requests-00001.jsonl``, ``requests-00002.jsonl``, ... each
under the Batch API's caps on one input file (200 MB and 50,000 requests at the time of writing;
misi keeps a margin: 190 MB by default, ``--batch-max-mb`` and ``--batch-max-requests`` change it).
Upload each part as one batch; every batch's output file goes straight to ``misi-eval
--predictions`` (the format is detected; give all the output files at once). The request bodies
are the ones ``misi-run`` sends. A single request larger than a part is refused with its item id:
``--max-image-px`` shrinks it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from misi_tasks.export.files import ExportDir, ExportError, TextStream
from misi_tasks.export.prompt import build_prompt, chat_messages

__all__ = ["MAX_PART_BYTES", "MAX_PART_REQUESTS", "export_openai_batch", "part_name", "planned_names"]

#: Default cap on one part's size: the Batch API takes 200 MB per file; 10 MB of margin.
MAX_PART_BYTES = 190_000_000
#: Default cap on one part's request count (the Batch API's limit per batch).
MAX_PART_REQUESTS = 50_000
_PART = re.compile(r"requests(-\d{5})?\.jsonl")


def part_name(k: int) -> str:
    """The file name of part ``k`` (1-based): ``requests-00001.jsonl``."""
    return f"requests-{k:05d}.jsonl"


def planned_names(root: str | Path | None = None) -> list[str]:
    """Top-level names the export writes or replaces: the first part, and every part (and the
    single ``requests.jsonl`` of older versions) already in ``root``."""
    names = {part_name(1)}
    if root is not None and Path(root).is_dir():
        names.update(p.name for p in Path(root).iterdir() if _PART.fullmatch(p.name))
    return sorted(names)


def export_openai_batch(items: Iterable[Mapping[str, Any]], out: ExportDir, *, max_image_px: int | None = None,
                        system: str | None = None, model: str = "gpt-4o", max_tokens: int | None = None,
                        max_part_bytes: int = MAX_PART_BYTES,
                        max_part_requests: int = MAX_PART_REQUESTS) -> list[str]:
    """Write the requests in parts under ``max_part_bytes`` and ``max_part_requests``; return the part names.

    Raises
    ------
    ExportError
        When one request alone exceeds ``max_part_bytes`` (the message names the item).
    """
    names: list[str] = []
    stream: TextStream | None = None
    size = count = 0
    try:
        for item in items:
            body: dict[str, Any] = {"model": model, "temperature": 0,
                                    "messages": chat_messages(build_prompt(item, max_image_px=max_image_px,
                                                                           system=system))}
            if max_tokens:
                body["max_tokens"] = max_tokens
            line = json.dumps({"custom_id": item["id"], "method": "POST", "url": "/v1/chat/completions",
                               "body": body}) + "\n"
            n = len(line.encode("utf-8"))
            if n > max_part_bytes:
                raise ExportError(f"{item['id']}: its request alone is {n / 1e6:.3g} MB, over the "
                                  f"{max_part_bytes / 1e6:.3g} MB part limit; pass a smaller --max-image-px")
            if stream is not None and (size + n > max_part_bytes or count >= max_part_requests):
                stream.commit()
                stream = None
            if stream is None:
                names.append(part_name(len(names) + 1))
                stream, size, count = out.open_text(names[-1]), 0, 0
            stream.write(line)
            size += n
            count += 1
        if stream is None:  # no item: one empty part, so the export says what it wrote
            names.append(part_name(1))
            stream = out.open_text(names[-1])
        stream.commit()
    finally:
        if stream is not None:
            stream.discard()
    return names
