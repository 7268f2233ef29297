"""What to change when a server rejects items for good: the flags that fix the common cases.

A vision-language server rejects a request it can never answer with HTTP 400 (413 for a body too
large). The reason it gives tells which limit was hit; :func:`fix_hints` turns the reasons of a run
into one line per kind of limit, naming misi's and vLLM's flags.

Examples
--------
>>> fix_hints(["HTTP 400 (At most 1 image(s) may be provided in one request.)"])[0][:40]
'too many images per prompt: serve with v'
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["HINTS", "fix_hints", "limit_kind"]

#: One hint per kind of limit; the key is what :func:`limit_kind` returns.
HINTS: dict[str, str] = {
    "images": "too many images per prompt: serve with vLLM's --limit-mm-per-prompt '{\"image\": 13}' "
              "(misi items have up to 11 images)",
    "context": "prompt longer than the model's context: serve with a larger vLLM --max-model-len (32768 holds "
               "13 images of 1024 px for Qwen2.5-VL), send smaller images with misi-run --max-image-px 512, or cap "
               "the tokens per image with vLLM's --mm-processor-kwargs '{\"max_pixels\": 802816}'",
    "body": "request body too large for the server or a proxy in front of it: misi-run --max-image-px 768, "
            "or raise the proxy's limit (nginx: client_max_body_size)",
    "other": "the server rejected the request as it is (its reason is above)",
}

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("images", re.compile(r"image\(s\)|limit.mm.per.prompt|multimodal items|image items|too many images",
                          re.IGNORECASE)),
    ("context", re.compile(r"context length|max.model.len|maximum model length|context window|too many tokens"
                           r"|prompt is too long|longer than the maximum", re.IGNORECASE)),
    ("body", re.compile(r"HTTP 413|too large|entity", re.IGNORECASE)),
)


def limit_kind(reason: str) -> str:
    """The kind of limit a rejection reason names: ``images``, ``context``, ``body`` or ``other``.

    >>> limit_kind("HTTP 400 (This model's maximum context length is 8192 tokens. However, ...)")
    'context'
    """
    return next((kind for kind, pattern in _PATTERNS if pattern.search(reason)), "other")


def fix_hints(reasons: Iterable[str]) -> list[str]:
    """One line per kind of limit among ``reasons`` (with its count), most frequent first."""
    counts: dict[str, int] = {}
    for reason in reasons:
        kind = limit_kind(reason)
        counts[kind] = counts.get(kind, 0) + 1
    return [f"{HINTS[kind]} ({n} item{'s' if n != 1 else ''})"
            for kind, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
