"""The dataset row: its columns, their types, and the check every written row passes.

Layout (binding contract)::

    OUT/README.md                                   dataset card (written by the generator)
    OUT/data/<task>/<split>-<i:05d>-of-<n:05d>.parquet

``<task>`` is a registry name (:mod:`misi_tasks.definitions.registry`), ``<split>`` is ``train`` or
``test``. One row per item, columns in this order:

==============  ===========================  ===============================================
column          Arrow type                   content
==============  ===========================  ===============================================
``id``          string                       unique item id, e.g. ``translation/test/2pyy/003``
``task``        string                       registry name, e.g. ``translation``
``task_code``   string                       ``T1`` ... ``T9``
``split``       string                       ``train`` or ``test``
``complex_id``  string                       PDB id of the complex, e.g. ``2pyy``
``question``    string                       the prompt
``images``      list<struct<bytes, path>>    Hugging Face ``Image`` structs with PNG bytes
``image_roles`` list<string>                 one per image, e.g. ``c1 front``, ``option A``
``options``     list<string>                 4 options (A-D) for MC tasks, else empty
``answer``      string                       exact answer string (spec section 3)
``metadata``    string                       JSON object; T4 rows hold ``"label"``
==============  ===========================  ===============================================

The Parquet schema metadata key ``huggingface`` carries the Hugging Face features
(:data:`HF_FEATURES`), so that ``datasets.load_dataset("parquet", data_files=...)`` and
``datasets.load_dataset(OUT)`` decode ``images`` to PIL images. The list features are written as
``{"feature": ..., "length": -1, "_type": "Sequence"}``: ``datasets`` >= 4 (checked with 5.2) reads
that as ``List`` and older versions as ``Sequence``, with the same Arrow type, so both decode the
images (a ``"List"`` type would be unknown to datasets < 4).

Pure Python: the Arrow form of this schema and the Parquet files are :mod:`misi_tasks.dataset`.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping
from typing import Any, Literal

from misi_tasks.definitions.registry import SPLITS, task_codes, task_names, task_spec

__all__ = ["COLUMNS", "COLUMN_KINDS", "DatasetError", "HF_FEATURES", "check_row"]

ColumnKind = Literal["string", "strings", "images"]

_VALUE = {"dtype": "string", "_type": "Value"}
# "length": -1 is spelled out because some older datasets versions read obj["length"] unconditionally
_IMAGE_LIST = {"feature": {"_type": "Image"}, "length": -1, "_type": "Sequence"}
_VALUE_LIST = {"feature": _VALUE, "length": -1, "_type": "Sequence"}
_FEATURE: dict[str, dict[str, Any]] = {"string": _VALUE, "strings": _VALUE_LIST, "images": _IMAGE_LIST}

#: (column, kind) in on-disk order: the one place the columns are defined.  A kind is ``string``,
#: ``strings`` (a list of strings) or ``images`` (a list of ``{bytes, path}`` PNG structs).
COLUMN_KINDS: tuple[tuple[str, ColumnKind], ...] = (
    ("id", "string"),
    ("task", "string"),
    ("task_code", "string"),
    ("split", "string"),
    ("complex_id", "string"),
    ("question", "string"),
    ("images", "images"),
    ("image_roles", "strings"),
    ("options", "strings"),
    ("answer", "string"),
    ("metadata", "string"),
)
#: Column names in on-disk order.
COLUMNS: tuple[str, ...] = tuple(name for name, _ in COLUMN_KINDS)
_STR_COLUMNS = tuple(name for name, kind in COLUMN_KINDS if kind == "string")
#: Hugging Face ``datasets`` features of one row (JSON form, stored in the Parquet metadata).
HF_FEATURES: dict[str, Any] = {name: _FEATURE[kind] for name, kind in COLUMN_KINDS}

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class DatasetError(ValueError):
    """A row or a dataset directory does not follow the misi dataset format."""


def _image_struct(image: Any, default_path: str, where: str) -> dict[str, Any]:
    """Convert PNG bytes, a ``{bytes, path}`` dict or a PIL image to an ``Image`` struct."""
    path: str | None = default_path
    if isinstance(image, Mapping):
        data, path = image.get("bytes"), image.get("path", default_path)
    elif hasattr(image, "save") and hasattr(image, "mode"):  # PIL image
        buf = io.BytesIO()
        image.save(buf, format="PNG")
        data = buf.getvalue()
    else:
        data = image
    if isinstance(data, (bytearray, memoryview)):
        data = bytes(data)
    if not isinstance(data, bytes) or not data.startswith(_PNG_SIGNATURE):
        raise DatasetError(f"{where}: image is not PNG bytes")
    return {"bytes": data, "path": path}


def check_row(row: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate one row and return it normalised (all columns, in order).

    ``task_code`` may be left out (derived from ``task``), ``metadata`` may be a dict (serialised
    with sorted keys), ``images`` entries may be PNG bytes, ``{bytes, path}`` dicts or PIL images.

    Raises
    ------
    DatasetError
        Naming ``where`` and the problem.
    """
    out: dict[str, Any] = dict(row)
    task = out.get("task")
    codes = task_codes()
    if task not in codes:
        raise DatasetError(f"{where}: unknown task {task!r}; valid names: {', '.join(task_names())}")
    out.setdefault("task_code", codes[task])
    if isinstance(out.get("metadata"), Mapping):
        out["metadata"] = json.dumps(out["metadata"], sort_keys=True)
    out.setdefault("metadata", "{}")
    out.setdefault("options", [])
    missing = [c for c in COLUMNS if c not in out]
    if missing:
        raise DatasetError(f"{where}: missing columns {missing}")
    extra = sorted(set(out) - set(COLUMNS))
    if extra:
        raise DatasetError(f"{where}: unknown columns {extra}")
    for col in _STR_COLUMNS:
        if not isinstance(out[col], str) or (col != "question" and not out[col]):
            raise DatasetError(f"{where}: column {col!r} must be a non-empty string")
    if out["task_code"] != codes[task]:
        raise DatasetError(f"{where}: task_code {out['task_code']!r} does not match task {task!r}")
    if out["split"] not in SPLITS:
        raise DatasetError(f"{where}: unknown split {out['split']!r}")
    for col in ("image_roles", "options"):
        if isinstance(out[col], str) or not all(isinstance(v, str) for v in out[col]):
            raise DatasetError(f"{where}: column {col!r} must be a list of strings")
        out[col] = list(out[col])
    n_options = len(out["options"])
    spec = task_spec(task)
    if n_options != spec.n_options:
        raise DatasetError(f"{where}: task {task} needs {spec.n_options} options, got {n_options}")
    images = list(out["images"])
    if len(images) != len(out["image_roles"]):
        raise DatasetError(f"{where}: {len(images)} images but {len(out['image_roles'])} image_roles")
    stem = out["id"].replace("/", "_")
    out["images"] = [_image_struct(im, f"{stem}_{k:02d}.png", where) for k, im in enumerate(images)]
    try:
        meta = json.loads(out["metadata"])
    except json.JSONDecodeError as exc:
        raise DatasetError(f"{where}: metadata is not JSON ({exc.msg})") from None
    if not isinstance(meta, dict):
        raise DatasetError(f"{where}: metadata must be a JSON object")
    problem = spec.check_row(meta, out["answer"])
    if problem:
        raise DatasetError(f"{where}: {problem}")
    return {c: out[c] for c in COLUMNS}
