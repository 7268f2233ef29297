"""Parquet shards: write a dataset's rows (atomically, byte-deterministically) and read them back.

The columns and the row check are :mod:`misi_tasks.definitions.schema`; this module gives them
their Arrow types and holds the fixed writer settings.
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import accumulate
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from misi_tasks._atomic import AtomicFile, _name_the_file
from misi_tasks.dataset.layout import find_shards
from misi_tasks.definitions.registry import SPLITS, resolve_task, task_names
from misi_tasks.definitions.schema import COLUMN_KINDS, COLUMNS, DatasetError, HF_FEATURES, check_row

__all__ = ["ARROW_SCHEMA", "ShardWriter", "read_items", "write_shard"]

_IMAGE_TYPE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
#: The Arrow type of each column kind of the schema.
_ARROW_TYPE = {"string": pa.string(), "strings": pa.list_(pa.string()), "images": pa.list_(_IMAGE_TYPE)}
#: Arrow schema of a shard, with the Hugging Face features in its metadata.
ARROW_SCHEMA: pa.Schema = pa.schema(
    [(name, _ARROW_TYPE[kind]) for name, kind in COLUMN_KINDS],
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
#: The PNG bytes are dictionary-encoded: items of one complex share its canonical views
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
    for name, kind in COLUMN_KINDS:
        values = [row[name] for row in rows]
        if kind == "images":
            columns.append(_image_lists(values))
        elif kind == "string":
            columns.append(_string_array(values))
        else:
            columns.append(_string_lists(values))
    return pa.Table.from_arrays(columns, schema=ARROW_SCHEMA)


def _checked_groups(rows: Iterable[Mapping[str, Any]], name: str, seen: set[str],
                    start: int = 0) -> Iterator[list[dict[str, Any]]]:
    """Validate rows as they come and yield them as row groups: consecutive rows of one complex,
    at most :data:`_ROW_GROUP_SIZE` of them (a complex's items share its images, see
    :data:`_DICTIONARY_BYTES`).  ``seen`` holds the ids of the shard's earlier rows (and gets these),
    ``start`` is the number of those rows (for messages)."""
    group: list[dict[str, Any]] = []
    for k, row in enumerate(rows, start):
        item = check_row(row, f"{name}: row {k} (id {row.get('id')!r})")
        if item["id"] in seen:
            raise DatasetError(f"{name}: row {k}: duplicate id {item['id']!r}")
        seen.add(item["id"])
        if group and (len(group) == _ROW_GROUP_SIZE or item["complex_id"] != group[-1]["complex_id"]):
            yield group
            group = []
        group.append(item)
    if group:
        yield group


class ShardWriter:
    """One Parquet shard written a batch of rows at a time, atomically: :meth:`write` takes the
    rows of one complex (row groups never span two calls), :meth:`close` moves the finished file
    into place, :meth:`discard` drops it.  A writer that is never closed leaves no shard, only a
    temporary file that :func:`misi_tasks._atomic.remove_temp_files` recognises.

    The same rows in the same calls give the same bytes as :func:`write_shard` (which uses this
    class): a run's worker keeps one writer per task open while it generates a group of complexes.
    """

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)
        self._target = AtomicFile(self.path)
        try:
            # Arrow's own file stream: a Python file object would copy every page into a bytes object
            self._sink = pa.OSFile(str(self._target.tmp), "wb")
            self._writer = pq.ParquetWriter(self._sink, ARROW_SCHEMA, **_WRITE_OPTIONS)
        except BaseException:
            self._target.discard()
            raise
        self._seen: set[str] = set()
        self._rows = 0

    def write(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Check and append rows (one complex's, or any rows that may share row groups)."""
        for group in _checked_groups(rows, self.path.name, self._seen, self._rows):
            if not group:
                continue
            self._rows += len(group)
            table = _row_group(group)
            del group  # the rows' images now live in the table's buffer only
            self._writer.write_table(table, row_group_size=_ROW_GROUP_SIZE)
            del table

    def close(self, *, fsync: bool = True) -> Path:
        """Finish the file and move it into place; returns its path."""
        try:
            # an empty shard has the schema and no row group: `datasets` cannot read an empty row group
            self._writer.close()
            self._sink.close()
            return self._target.commit(fsync=fsync)
        except BaseException as exc:
            self.discard()
            _name_the_file(exc, self.path)
            raise

    def discard(self) -> None:
        """Drop the unfinished file (nothing happens to :attr:`path`)."""
        try:
            self._writer.close()
            self._sink.close()
        except Exception:  # noqa: BLE001 - the file is removed anyway
            pass
        self._target.discard()


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
    writer options, no timestamps). See :class:`ShardWriter` for a shard written in batches.
    """
    writer = ShardWriter(path)
    try:
        writer.write(rows)
    except BaseException as exc:
        writer.discard()
        _name_the_file(exc, Path(path))
        raise
    writer.close()


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
    shards = find_shards(Path(dataset_dir))
    items: list[dict[str, Any]] = []
    for task in task_names():
        for split in SPLITS:
            if (task, split) not in shards or (task_set is not None and task not in task_set) \
                    or (split_set is not None and split not in split_set):
                continue
            for path in shards[(task, split)]:
                for row in pq.read_table(path, columns=columns).to_pylist():
                    row.setdefault("images", [])
                    items.append({c: row[c] for c in COLUMNS})
    return items


