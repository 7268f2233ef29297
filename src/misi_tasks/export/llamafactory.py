"""LLaMA-Factory: a sharegpt-style multimodal dataset for supervised fine-tuning.

Writes ``misi_<split>.json`` (a JSON list; per item ``messages`` = user turn with one ``<image>``
token per image, in order, then misi's prompt text, and the exact answer as the assistant turn;
``images`` = paths relative to the folder), the PNGs under ``misi_images/`` and the entry
``misi_<split>`` of ``dataset_info.json`` (merged into an existing file, so ``--out`` may be
LLaMA-Factory's own ``data/`` folder). Schema followed: LLaMA-Factory's ``data/README.md``
(sharegpt format, ``formatting: sharegpt``, ``columns.messages``/``columns.images``, ``tags``
with ``role``/``content``/``user``/``assistant``); relative image paths are resolved against the
dataset folder (``media_dir``, which defaults to ``dataset_dir``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

from misi_tasks.export.files import ExportDir, ExportError, image_name
from misi_tasks.export.prompt import image_bytes, scale_png, sharegpt_user_text

__all__ = ["IMAGES_DIR", "dataset_entry", "export_llamafactory", "planned_names"]

IMAGES_DIR = "misi_images"


def planned_names(splits: Iterable[str]) -> list[str]:
    """Top-level names the export writes (``dataset_info.json`` is merged, not replaced)."""
    return [IMAGES_DIR, *(f"misi_{s}.json" for s in splits)]


def dataset_entry(split: str, *, system: bool = False) -> dict[str, Any]:
    """The ``dataset_info.json`` entry of one exported split."""
    columns = {"messages": "messages", "images": "images"}
    if system:
        columns["system"] = "system"
    return {
        "file_name": f"misi_{split}.json",
        "formatting": "sharegpt",
        "columns": columns,
        "tags": {"role_tag": "role", "content_tag": "content", "user_tag": "user", "assistant_tag": "assistant"},
    }


def export_llamafactory(items: Iterable[Mapping[str, Any]], out: ExportDir, *, max_image_px: int | None = None,
                        system: str | None = None) -> list[str]:
    """Write the sharegpt files, images and ``dataset_info.json`` entries; return the file names."""
    info_path = out.root / "dataset_info.json"
    info: dict[str, Any] = {}
    if info_path.exists():
        try:
            info = json.loads(info_path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            raise ExportError(f"{info_path}: existing file is not JSON ({exc}); fix or remove it") from None
        if not isinstance(info, dict):
            raise ExportError(f"{info_path}: existing file is not a JSON object")
    records: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        paths = []
        for k, im in enumerate(item["images"]):
            rel = f"{IMAGES_DIR}/{image_name(item['id'], k)}"
            out.write_image(rel, scale_png(image_bytes(im), max_image_px))
            paths.append(rel)
        record: dict[str, Any] = {
            "messages": [{"role": "user", "content": sharegpt_user_text(item)},
                         {"role": "assistant", "content": item["answer"]}],
            "images": paths,
        }
        if system:
            record["system"] = system
        records.setdefault(item["split"], []).append(record)
    names = []
    for split, recs in records.items():
        out.write_text(f"misi_{split}.json", json.dumps(recs, ensure_ascii=False, indent=1) + "\n")
        info[f"misi_{split}"] = dataset_entry(split, system=bool(system))
        names.append(f"misi_{split}.json")
    out.write_text("dataset_info.json", json.dumps(info, ensure_ascii=False, indent=2) + "\n")
    return [*names, "dataset_info.json", IMAGES_DIR + "/"]
