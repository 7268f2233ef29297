"""Prediction files ``misi-eval`` reads, whatever harness wrote them; the format is detected.

==================  ==========================================================================
format              recognised by
==================  ==========================================================================
``misi``            JSON lines with ``id`` and ``reply`` (or ``prediction``/``response``):
                    ``misi-run`` output, ``--write-predictions``, hand-written files
``vlmevalkit``      ``.xlsx``, ``.tsv`` or ``.csv`` with a ``prediction`` column and the
                    ``misi_id`` column of a ``misi-export --to vlmevalkit`` TSV
                    (VLMEvalKit keeps the dataset's columns in its result file), or the
                    ``.json`` list of those rows it writes with ``PRED_FORMAT=json``
``lmms-eval``       JSON lines with ``doc_id`` and ``resps``/``filtered_resps`` (the sample
                    logs of ``lmms-eval --log_samples``; older versions' ``<task>.json`` with a
                    ``logs`` list too); the item id comes from the ``doc`` or from the
                    ``misi_score`` record of the exported task's ``process_results``
``openai-batch``    JSON lines with ``custom_id`` and ``response`` (OpenAI Batch output; the
                    ``custom_id`` is the item id, as ``misi-export --to openai-batch`` writes it)
==================  ==========================================================================

Several files may be given (one per task, as VLMEvalKit and lmms-eval write them); an id in two
files is an error, as is an id not in the dataset.
"""

from __future__ import annotations

import csv
import json
import os
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any


__all__ = ["FORMATS", "PredictionsError", "REPLY_FIELDS", "detect_format", "first_object", "load_predictions",
           "read_predictions"]

#: Field names accepted for the reply, in priority order.
REPLY_FIELDS: tuple[str, ...] = ("reply", "prediction", "response")


class PredictionsError(ValueError):
    """A predictions file is malformed (the message names the file and line)."""


def read_predictions(path: str | Path, known_ids: set[str] | None = None) -> dict[str, str]:
    """Read a JSONL predictions file into ``{id: reply}``.

    Raises
    ------
    PredictionsError
        On a malformed line, a duplicate id, or (with ``known_ids``) an id not in the dataset.
    """
    preds: dict[str, str] = {}
    first_line: dict[str, int] = {}
    try:
        text = Path(path).read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PredictionsError(f"{path}: cannot read predictions ({exc})") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{lineno}"
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PredictionsError(f"{where}: malformed line, not JSON ({exc.msg})") from None
        except RecursionError:  # e.g. [[[[...]]]] nested deeper than the interpreter's stack
            raise PredictionsError(f"{where}: malformed line, JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise PredictionsError(f"{where}: malformed line, expected a JSON object")
        item_id = obj.get("id")
        if not isinstance(item_id, str) or not item_id:
            raise PredictionsError(f"{where}: malformed line, missing string field 'id'")
        field = next((f for f in REPLY_FIELDS if f in obj), None)
        if field is None:
            raise PredictionsError(f"{where}: malformed line, no reply field ({'/'.join(REPLY_FIELDS)})")
        reply = obj[field]
        if reply is not None and not isinstance(reply, str):
            raise PredictionsError(f"{where}: malformed line, field {field!r} must be a string or null")
        if item_id in preds:
            raise PredictionsError(f"{where}: duplicate id {item_id!r} (first on line {first_line[item_id]})")
        if known_ids is not None and item_id not in known_ids:
            raise PredictionsError(f"{where}: unknown item id {item_id!r} (not in the dataset)")
        preds[item_id] = reply or ""
        first_line[item_id] = lineno
    return preds

FORMATS: tuple[str, ...] = ("misi", "vlmevalkit", "lmms-eval", "openai-batch")
_TABLE_SUFFIXES = (".xlsx", ".tsv", ".csv")
_ID_COLUMNS = ("misi_id", "id")


def first_object(path: Path) -> dict[str, Any] | None:
    """The first JSON object of a JSON-lines file, or None when the first line is not one."""
    try:
        with open(path, encoding="utf-8-sig") as fh:
            for line in fh:
                if line.strip():
                    obj = json.loads(line)
                    return obj if isinstance(obj, dict) else None
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        return None  # the format's reader names the problem
    except OSError as exc:
        raise PredictionsError(f"{path}: cannot read predictions ({exc})") from None
    return None


def detect_format(path: str | os.PathLike) -> str:
    """Return the format of a predictions file (one of :data:`FORMATS`).

    Tables are VLMEvalKit's; JSON lines are told apart by the fields of their first object. A file
    that matches nothing is taken as misi's own format, whose reader names the bad line.
    """
    path = Path(path)
    if path.suffix.lower() in _TABLE_SUFFIXES:
        return "vlmevalkit"
    if path.suffix.lower() == ".json":
        if _lmms_eval_json(path) is not None:
            return "lmms-eval"
        if _vlmevalkit_json(path) is not None:
            return "vlmevalkit"
    obj = first_object(path) or {}
    if "custom_id" in obj and ("response" in obj or "error" in obj):
        return "openai-batch"
    if "custom_id" in obj and "body" in obj:
        raise PredictionsError(f"{path}: an OpenAI Batch input (requests) file; pass the batch's output file")
    if "doc_id" in obj and ("resps" in obj or "filtered_resps" in obj):
        return "lmms-eval"
    return "misi"


# ------------------------------------------------------------------ VLMEvalKit tables
def _vlmevalkit_json(path: Path) -> list[dict[str, Any]] | None:
    """The rows of a VLMEvalKit ``PRED_FORMAT=json`` result (a list of row objects), else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None
    if isinstance(data, list) and data and all(isinstance(r, dict) and "prediction" in r for r in data):
        return data
    return None


def _table_rows(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    if path.suffix.lower() == ".json":
        for k, row in enumerate(_vlmevalkit_json(path) or [], start=1):
            yield k, row
        return
    if path.suffix.lower() == ".xlsx":
        from openpyxl import load_workbook

        try:
            wb = load_workbook(path, read_only=True, data_only=True)
        except Exception as exc:  # openpyxl raises several types for a broken file
            raise PredictionsError(f"{path}: cannot read the workbook ({exc})") from None
        try:
            rows = wb.worksheets[0].iter_rows(values_only=True)
            header = [str(h) if h is not None else "" for h in next(rows, ())]
            for k, values in enumerate(rows, start=2):
                yield k, dict(zip(header, values))
        finally:
            wb.close()
        return
    csv.field_size_limit(sys.maxsize)
    delimiter = "\t" if path.suffix.lower() == ".tsv" else ","
    try:
        with open(path, encoding="utf-8-sig", newline="") as fh:
            for k, row in enumerate(csv.DictReader(fh, delimiter=delimiter), start=2):
                yield k, row
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise PredictionsError(f"{path}: cannot read the table ({exc})") from None


def _read_vlmevalkit(path: Path) -> Iterator[tuple[str, str, str | None]]:
    header_checked = False
    for k, row in _table_rows(path):
        if not header_checked:
            if "prediction" not in row:
                raise PredictionsError(f"{path}: no 'prediction' column (columns: {', '.join(map(str, row))})")
            if not any(c in row for c in _ID_COLUMNS):
                raise PredictionsError(f"{path}: no 'misi_id' column; predict on a TSV written by "
                                       "'misi-export --to vlmevalkit'")
            header_checked = True
        item_id = next((row[c] for c in _ID_COLUMNS if row.get(c)), None)
        if item_id is None:
            if all(v in (None, "") for v in row.values()):
                continue
            raise PredictionsError(f"{path}:{k}: row without a misi_id")
        reply = row["prediction"]
        yield f"{path}:{k}", str(item_id), None if reply is None else str(reply)


# ------------------------------------------------------------------ JSON-lines formats
def _json_lines(path: Path) -> Iterator[tuple[str, dict[str, Any]]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise PredictionsError(f"{path}: cannot read predictions ({exc})") from None
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            raise PredictionsError(f"{path}:{lineno}: malformed line, not JSON ({exc.msg})") from None
        except RecursionError:
            raise PredictionsError(f"{path}:{lineno}: malformed line, JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise PredictionsError(f"{path}:{lineno}: malformed line, expected a JSON object")
        yield f"{path}:{lineno}", obj


def _first_text(value: Any) -> str | None:
    """The first string in a (nested) list of responses."""
    while isinstance(value, list):
        if not value:
            return None
        value = value[0]
    return None if value is None else str(value)


def _lmms_eval_json(path: Path) -> list[Any] | None:
    """The ``logs`` of an older lmms-eval sample file (one JSON document per task), else None."""
    try:
        data = json.loads(path.read_text(encoding="utf-8-sig"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None  # not lmms-eval's document: the JSON-lines readers name the problem
    logs = data.get("logs") if isinstance(data, dict) else None
    if isinstance(logs, list) and all(isinstance(x, dict) and "doc_id" in x for x in logs):
        return logs
    return None


def _read_lmms_eval(path: Path) -> Iterator[tuple[str, str, str | None]]:
    logs = _lmms_eval_json(path) if path.suffix.lower() == ".json" else None
    records = _json_lines(path) if logs is None else ((f"{path}: logs[{k}]", obj) for k, obj in enumerate(logs))
    for where, obj in records:
        doc = obj.get("doc") if isinstance(obj.get("doc"), dict) else {}
        item_id = doc.get("id")
        if not isinstance(item_id, str):  # docs are often logged without fields: use our metric record
            item_id = next((v["id"] for v in obj.values() if isinstance(v, dict) and isinstance(v.get("id"), str)
                            and "score" in v), None)
        if item_id is None:
            raise PredictionsError(f"{where}: no item id (neither doc.id nor a misi_score record); was the task "
                                   "exported with 'misi-export --to lmms-eval'?")
        reply = _first_text(obj["filtered_resps"]) if "filtered_resps" in obj else _first_text(obj.get("resps"))
        yield where, item_id, reply


def _read_openai_batch(path: Path) -> Iterator[tuple[str, str, str | None]]:
    for where, obj in _json_lines(path):
        item_id = obj.get("custom_id")
        if not isinstance(item_id, str):
            raise PredictionsError(f"{where}: malformed line, missing string field 'custom_id'")
        response = obj.get("response") or {}
        body = response.get("body") or {}
        if obj.get("error") or response.get("status_code") != 200 or not body.get("choices"):
            continue  # a failed request: the item counts as missing
        content = body["choices"][0].get("message", {}).get("content")
        if isinstance(content, list):
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        yield where, item_id, content


_READERS = {"vlmevalkit": _read_vlmevalkit, "lmms-eval": _read_lmms_eval, "openai-batch": _read_openai_batch}


def load_predictions(
    paths: str | os.PathLike | Sequence[str | os.PathLike], known_ids: set[str] | None = None,
) -> dict[str, str]:
    """Read one or more prediction files of any known format into ``{id: reply}``.

    Raises
    ------
    PredictionsError
        On an unreadable or malformed file, an unknown format, an id given twice (in one file or
        across files) or, with ``known_ids``, an id not in the dataset. The message names the file
        and line.
    """
    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    preds: dict[str, str] = {}
    origin: dict[str, str] = {}
    for path in map(Path, paths):
        fmt = detect_format(path)
        if fmt == "misi":
            entries = [(f"{path}", k, v) for k, v in read_predictions(path, known_ids).items()]
        else:
            entries = list(_READERS[fmt](path))
        for where, item_id, reply in entries:
            if item_id in preds:
                raise PredictionsError(f"{where}: duplicate id {item_id!r} (first in {origin[item_id]})")
            if known_ids is not None and item_id not in known_ids:
                raise PredictionsError(f"{where}: unknown item id {item_id!r} (not in the dataset)")
            preds[item_id] = reply or ""
            origin[item_id] = where
    return preds

