"""On-disk dataset format shared by the generator (``misi-gen``) and the scorer (``misi-eval``).

Layout (binding contract)::

    OUT/README.md                                   dataset card (written by the generator)
    OUT/data/<task>/<split>-<i:05d>-of-<n:05d>.parquet

``<task>`` is a registry name from :mod:`misi_tasks.spec.names`, ``<split>`` is ``train`` or
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

The Parquet schema metadata key ``huggingface`` carries the Hugging Face features, so that
``datasets.load_dataset("parquet", data_files=...)`` and ``datasets.load_dataset(OUT)`` decode
``images`` to PIL images. The list features are written as
``{"feature": ..., "length": -1, "_type": "Sequence"}``: ``datasets`` >= 4 (checked with 5.2) reads
that as ``List`` and older versions as ``Sequence``, with the same Arrow type, so both decode the
images (a ``"List"`` type would be unknown to datasets < 4). Shards are written atomically and byte-deterministically.
"""

from __future__ import annotations

import io
import json
import os
import re
import tempfile
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from misi_tasks.spec.names import SPLITS, TASK_CODES, TASK_NAMES, resolve_task
from misi_tasks.spec.registry import task_spec

__all__ = [
    "ARROW_SCHEMA",
    "COLUMNS",
    "DatasetError",
    "HF_FEATURES",
    "dataset_card_configs_yaml",
    "list_splits",
    "read_items",
    "shard_paths",
    "write_shard",
]

_IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
_VALUE = {"dtype": "string", "_type": "Value"}
# "length": -1 is spelled out because some older datasets versions read obj["length"] unconditionally
_IMAGE_LIST = {"feature": {"_type": "Image"}, "length": -1, "_type": "Sequence"}
_VALUE_LIST = {"feature": _VALUE, "length": -1, "_type": "Sequence"}
#: (column, Arrow type, Hugging Face feature) in on-disk order: the one place the schema is defined.
_COLUMN_TYPES: tuple[tuple[str, pa.DataType, dict[str, Any]], ...] = (
    ("id", pa.string(), _VALUE),
    ("task", pa.string(), _VALUE),
    ("task_code", pa.string(), _VALUE),
    ("split", pa.string(), _VALUE),
    ("complex_id", pa.string(), _VALUE),
    ("question", pa.string(), _VALUE),
    ("images", pa.list_(_IMAGE_TYPE), _IMAGE_LIST),
    ("image_roles", pa.list_(pa.string()), _VALUE_LIST),
    ("options", pa.list_(pa.string()), _VALUE_LIST),
    ("answer", pa.string(), _VALUE),
    ("metadata", pa.string(), _VALUE),
)
#: Column names in on-disk order.
COLUMNS: tuple[str, ...] = tuple(name for name, _, _ in _COLUMN_TYPES)
_STR_COLUMNS = tuple(name for name, typ, _ in _COLUMN_TYPES if typ == pa.string())
#: Hugging Face ``datasets`` features of one row (JSON form, stored in the Parquet metadata).
HF_FEATURES: dict[str, Any] = {name: feature for name, _, feature in _COLUMN_TYPES}
#: Arrow schema of a shard, with the Hugging Face features in its metadata.
ARROW_SCHEMA: pa.Schema = pa.schema(
    [(name, typ) for name, typ, _ in _COLUMN_TYPES],
    metadata={b"huggingface": json.dumps({"info": {"features": HF_FEATURES}}).encode()},
)

#: Most rows in a Parquet row group.  A row group holds consecutive rows of one complex (the
#: images they share are stored once in its dictionary, below), so its dictionary page holds one
#: complex's distinct images of one task: a few to ~40 MB at 1024 px, where 64-row groups made
#: pages of ~130 MB and raised a worker's peak memory by ~100 MB.  A shard is built and written
#: one row group at a time.
_ROW_GROUP_SIZE = 16
#: Parquet writer settings, fixed so that output bytes never depend on library defaults.  Pages
#: hold at most 8 values past 1 MiB (``write_batch_size``): with pyarrow's default of 1,024 a row
#: group's images column was one ~130 MB page, which the writer held several copies of and a
#: reader decoding it had to decompress in one piece (page buffers 370 -> 19 MB, a worker's peak
#: RSS 1.0 -> 0.67 GB, the run's system time about halved; the file size is the same).
#: The PNG bytes are compressed already: zstd's fast level -1 still takes 4 % off them (repeated
#: views within a row group, deflate's fixed Huffman codes) in half the time of level 1, which
#: took 6.5 % (write_shard 0.82 -> 0.46 ms per image, 0.41 without compression).  Text columns
#: keep level 1.
#:
#: The PNG bytes are dictionary-encoded (issue 27): items of one complex share its canonical views
#: (T1-T3, T5, T6 show the same reference image in several items), and a dictionary stores each
#: distinct image of a row group once, the rows referring to it by index -- about 25-30 % of the
#: image bytes on the dev complexes (``benchmarks/bench_generate.py --against``, docs/performance.md).
#: Readers (pyarrow, ``datasets``) decode it back to the same binary column.  Past
#: :data:`_DICTIONARY_BYTES` of distinct images in one row group the writer falls back to plain
#: encoding for the rest of it (bounded memory; still deterministic).
_IMAGE_BYTES_COLUMN = "images.list.element.bytes"
_DICTIONARY_BYTES = 256 * 2**20


def _parquet_paths(name: str, typ: pa.DataType) -> list[str]:
    """The Parquet column paths of an Arrow field (lists written the compliant way, ``.list.element``)."""
    if pa.types.is_list(typ):
        return _parquet_paths(f"{name}.list.element", typ.value_type)
    if pa.types.is_struct(typ):
        return [p for f in typ for p in _parquet_paths(f"{name}.{f.name}", f.type)]
    return [name]


_PARQUET_COLUMNS = tuple(p for f in ARROW_SCHEMA for p in _parquet_paths(f.name, f.type))
_WRITE_OPTIONS: dict[str, Any] = dict(compression="zstd", use_dictionary=[_IMAGE_BYTES_COLUMN],
                                      dictionary_pagesize_limit=_DICTIONARY_BYTES, write_statistics=False,
                                      data_page_size=1 << 20, write_batch_size=8,
                                      compression_level={c: -1 if c == _IMAGE_BYTES_COLUMN else 1
                                                         for c in _PARQUET_COLUMNS})
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_SHARD_RE = re.compile(r"^(?P<split>[a-z]+)-(?P<i>\d{5})-of-(?P<n>\d{5})\.parquet$")


class DatasetError(ValueError):
    """A row or a dataset directory does not follow the misi dataset format."""


def shard_paths(out_dir: str | os.PathLike, task: str, split: str, n_shards: int) -> list[Path]:
    """Return the ``n_shards`` shard paths of one task and split, in shard order.

    Examples
    --------
    >>> [p.as_posix() for p in shard_paths("OUT", "docking", "test", 2)]
    ['OUT/data/docking/test-00000-of-00002.parquet', 'OUT/data/docking/test-00001-of-00002.parquet']
    """
    task = resolve_task(task)
    if split not in SPLITS:
        raise DatasetError(f"unknown split {split!r}; valid splits: {', '.join(SPLITS)}")
    if n_shards < 1:
        raise DatasetError(f"n_shards must be >= 1, got {n_shards}")
    base = Path(out_dir) / "data" / task
    return [base / f"{split}-{i:05d}-of-{n_shards:05d}.parquet" for i in range(n_shards)]


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


def _check_row(row: Mapping[str, Any], where: str) -> dict[str, Any]:
    """Validate one row and return it normalised (all columns, in order)."""
    out: dict[str, Any] = dict(row)
    task = out.get("task")
    if task not in TASK_CODES:
        raise DatasetError(f"{where}: unknown task {task!r}; valid names: {', '.join(TASK_NAMES)}")
    out.setdefault("task_code", TASK_CODES[task])
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
    if out["task_code"] != TASK_CODES[task]:
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


#: Bytes an Arrow binary array holds with int32 offsets; a bigger row group is built by pyarrow.
_MAX_BINARY = 2**31 - 1


def _offsets(lengths: Iterable[int]) -> pa.Buffer:
    """The int32 offsets buffer of a list or binary array whose entries have these lengths."""
    return pa.py_buffer(array("i", accumulate(lengths, initial=0)))


def _string_array(values: Sequence[str | None]) -> pa.Array:
    """A string array built from its buffers: ``pa.array`` on a list imports pandas (to ask whether
    the list is a pandas object), about 1.4 s of CPU in each worker process that writes shards."""
    if any(v is None for v in values):
        return pa.array(values, pa.string())
    data = [v.encode() for v in values]
    return pa.Array.from_buffers(pa.string(), len(data), [None, _offsets(map(len, data)), pa.py_buffer(b"".join(data))])


def _string_lists(lists: Sequence[Sequence[str]]) -> pa.Array:
    flat = _string_array([v for values in lists for v in values])
    return pa.Array.from_buffers(pa.list_(pa.string()), len(lists), [None, _offsets(map(len, lists))],
                                 children=[flat])


def _concatenated(blobs: Sequence[bytes]) -> pa.Buffer:
    """One Arrow buffer (from the default memory pool) holding ``blobs`` end to end."""
    buf = pa.allocate_buffer(sum(map(len, blobs)))
    with memoryview(buf).cast("B") as out:
        at = 0
        for blob in blobs:
            out[at:at + len(blob)] = blob
            at += len(blob)
    return buf


def _image_lists(lists: Sequence[Sequence[Mapping[str, Any]]]) -> pa.Array:
    """The ``images`` column: its PNG bytes copied once, into one exactly sized buffer.

    The buffer comes from Arrow's memory pool, which hands the previous row group's freed block
    back: a ``bytes`` join of the same ~230 MB is a fresh ``mmap`` whose every page faults and is
    zeroed first (125 against 14 ms a row group of 704 images).
    """
    structs = [im for images in lists for im in images]
    blobs = [im["bytes"] for im in structs]
    data = pa.Array.from_buffers(pa.binary(), len(blobs), [None, _offsets(map(len, blobs)), _concatenated(blobs)])
    paths = _string_array([im["path"] for im in structs])
    images = pa.StructArray.from_arrays([data, paths], fields=list(_IMAGE_TYPE))
    return pa.Array.from_buffers(pa.list_(_IMAGE_TYPE), len(lists), [None, _offsets(map(len, lists))],
                                 children=[images])


def _row_group(rows: Sequence[Mapping[str, Any]]) -> pa.Table:
    """Checked rows as an Arrow table of :data:`ARROW_SCHEMA`, built column by column: the same
    values as ``pa.Table.from_pylist``, without its growing buffers and per-row conversions."""
    if sum(len(im["bytes"]) for row in rows for im in row["images"]) > _MAX_BINARY:
        return pa.Table.from_pylist(rows, schema=ARROW_SCHEMA)  # pyarrow splits it into chunks
    columns = []
    for name, typ, _ in _COLUMN_TYPES:
        values = [row[name] for row in rows]
        if name == "images":
            columns.append(_image_lists(values))
        elif typ == pa.string():
            columns.append(_string_array(values))
        else:
            columns.append(_string_lists(values))
    return pa.Table.from_arrays(columns, schema=ARROW_SCHEMA)


def _checked_groups(rows: Iterable[Mapping[str, Any]], name: str) -> Iterator[list[dict[str, Any]]]:
    """Validate rows as they come and yield them as row groups: consecutive rows of one complex,
    at most :data:`_ROW_GROUP_SIZE` of them (a complex's items share its images, see
    :data:`_DICTIONARY_BYTES`)."""
    group: list[dict[str, Any]] = []
    seen: set[str] = set()
    for k, row in enumerate(rows):
        item = _check_row(row, f"{name}: row {k} (id {row.get('id')!r})")
        if item["id"] in seen:
            raise DatasetError(f"{name}: row {k}: duplicate id {item['id']!r}")
        seen.add(item["id"])
        if group and (len(group) == _ROW_GROUP_SIZE or item["complex_id"] != group[-1]["complex_id"]):
            yield group
            group = []
        group.append(item)
    if group or not seen:
        yield group


def write_shard(rows: Iterable[Mapping[str, Any]], path: str | os.PathLike) -> None:
    """Validate ``rows`` and write them as one Parquet shard, atomically and deterministically.

    Parameters
    ----------
    rows : iterable of mapping
        One mapping per item with the columns of :data:`COLUMNS`. ``task_code`` may be left out
        (derived from ``task``); ``metadata`` may be a dict (serialised with sorted keys);
        ``images`` entries may be PNG bytes, ``{"bytes": ..., "path": ...}`` dicts or PIL images.
        An iterator is read one row group (at most 16 rows) at a time, so a caller that makes rows as
        they are asked for holds one row group in memory, not the shard.
    path : path-like
        Destination, normally one of :func:`shard_paths`. Parent directories are created.

    Raises
    ------
    DatasetError
        If a row breaks the format (the message names the row and the problem) or ids repeat.

    Notes
    -----
    The shard is written to a temporary file in the destination directory, one row group at a
    time, flushed and moved into place with :func:`os.replace`, so readers never see a partial
    shard (a bad row found late leaves no file). The same rows always give the same bytes (fixed
    writer options, no timestamps).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        try:
            # Arrow's own file stream: a Python file object would copy every page into a bytes object
            with pa.OSFile(tmp, "wb") as sink, pq.ParquetWriter(sink, ARROW_SCHEMA, **_WRITE_OPTIONS) as writer:
                for group in _checked_groups(rows, path.name):
                    table = _row_group(group)
                    del group  # the rows' images now live in the table's buffer only
                    writer.write_table(table, row_group_size=_ROW_GROUP_SIZE)
                    del table
            os.fsync(fd)  # the file Arrow wrote through its own descriptor
        finally:
            os.close(fd)
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; shards are meant to be shared
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _find_shards(dataset_dir: Path) -> dict[tuple[str, str], list[Path]]:
    """Map (task, split) to its complete, ordered shard list; raise on gaps or stray names."""
    data = dataset_dir / "data"
    if not data.is_dir():
        raise DatasetError(f"{dataset_dir}: no data/ directory (not a misi dataset)")
    found: dict[tuple[str, str], dict[int, tuple[int, Path]]] = {}
    for task in TASK_NAMES:
        for path in sorted((data / task).glob("*.parquet")):
            m = _SHARD_RE.match(path.name)
            if m is None or m["split"] not in SPLITS:
                raise DatasetError(f"{path}: shard name is not <split>-<i:05d>-of-<n:05d>.parquet")
            found.setdefault((task, m["split"]), {})[int(m["i"])] = (int(m["n"]), path)
    out: dict[tuple[str, str], list[Path]] = {}
    for key, shards in found.items():
        counts = {n for n, _ in shards.values()}
        n = counts.pop()
        if counts or sorted(shards) != list(range(n)):
            raise DatasetError(f"{data / key[0]}: {key[1]} shards are incomplete or inconsistent "
                               f"(found indices {sorted(shards)}, expected 0..{n - 1})")
        out[key] = [shards[i][1] for i in range(n)]
    return out


def list_splits(dataset_dir: str | os.PathLike) -> dict[str, list[str]]:
    """Return ``{task: [split, ...]}`` for the shards present, tasks in code order."""
    shards = _find_shards(Path(dataset_dir))
    return {t: [s for s in SPLITS if (t, s) in shards] for t in TASK_NAMES
            if any((t, s) in shards for s in SPLITS)}


def read_items(
    dataset_dir: str | os.PathLike,
    tasks: Iterable[str] | None = None,
    splits: Iterable[str] | None = None,
    *,
    images: bool = True,
) -> list[dict[str, Any]]:
    """Read the items of a dataset directory with pyarrow.

    Parameters
    ----------
    dataset_dir : path-like
        The ``OUT`` directory (holding ``data/``).
    tasks : iterable of str, optional
        Registry names or codes to read (default: all present).
    splits : iterable of str, optional
        Splits to read (default: all present).
    images : bool, default True
        If False the ``images`` column is not read (much faster) and each item gets
        ``images = []``.

    Returns
    -------
    items : list of dict
        One dict per row with the columns of :data:`COLUMNS` (``images`` as
        ``{"bytes", "path"}`` dicts, ``metadata`` as the JSON string), ordered by task code,
        split (train, test) and shard, then row.
    """
    task_set = None if tasks is None else {resolve_task(t) for t in tasks}
    split_set = None if splits is None else set(splits)
    if split_set is not None and not split_set <= set(SPLITS):
        raise DatasetError(f"unknown split(s) {sorted(split_set - set(SPLITS))}; valid: {', '.join(SPLITS)}")
    columns = list(COLUMNS) if images else [c for c in COLUMNS if c != "images"]
    shards = _find_shards(Path(dataset_dir))
    items: list[dict[str, Any]] = []
    for task in TASK_NAMES:
        for split in SPLITS:
            if (task, split) not in shards or (task_set is not None and task not in task_set) \
                    or (split_set is not None and split not in split_set):
                continue
            for path in shards[(task, split)]:
                for row in pq.read_table(path, columns=columns).to_pylist():
                    row.setdefault("images", [])
                    items.append({c: row[c] for c in COLUMNS})
    return items


def dataset_card_configs_yaml(
    splits_by_task: Mapping[str, Iterable[str]],
    *,
    all_config: str | None = "all",
    front_matter: bool = False,
) -> str:
    """Render the ``configs:`` YAML block of the dataset card (one config per task).

    Parameters
    ----------
    splits_by_task : mapping
        ``{task: splits}``, e.g. from :func:`list_splits`; names or codes, any order.
    all_config : str or None, default "all"
        Name of an extra config holding every task, marked ``default: true`` so that
        ``datasets.load_dataset(OUT)`` works without a config name. None leaves it out.
    front_matter : bool, default False
        Wrap the block in ``---`` lines, ready to start ``README.md``.

    Examples
    --------
    >>> print(dataset_card_configs_yaml({"T1": ["test"]}, all_config=None), end="")
    configs:
    - config_name: translation
      data_files:
      - split: test
        path: data/translation/test-*.parquet
    """
    by_task = {resolve_task(t): set(s) for t, s in splits_by_task.items()}
    for task, splits in by_task.items():
        if not splits <= set(SPLITS) or not splits:
            raise DatasetError(f"task {task}: splits must be a non-empty subset of {SPLITS}")
    lines = ["configs:"]

    def add(name: str, pattern: str, splits: set[str], default: bool = False) -> None:
        lines.append(f"- config_name: {name}")
        if default:
            lines.append("  default: true")
        lines.append("  data_files:")
        for split in (s for s in SPLITS if s in splits):
            lines.extend([f"  - split: {split}", f"    path: data/{pattern}/{split}-*.parquet"])

    if all_config is not None and by_task:
        add(all_config, "*", set().union(*by_task.values()), default=True)
    for task in (t for t in TASK_NAMES if t in by_task):
        add(task, task, by_task[task])
    text = "\n".join(lines) + "\n"
    return f"---\n{text}---\n" if front_matter else text
