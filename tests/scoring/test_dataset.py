"""The dataset format module: round trip, determinism, atomic writes, validation, HF loading."""

from __future__ import annotations

import hashlib
import importlib.util
import io
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_tasks.dataset import (
    ARROW_SCHEMA,
    COLUMNS,
    DatasetError,
    dataset_card_configs_yaml,
    list_splits,
    read_items,
    shard_paths,
    write_shard,
)
from misi_tasks.dataset.parquet import _ROW_GROUP_SIZE
from misi_tasks.definitions.registry import TASK_NAMES

from .conftest import synthetic_rows, tiny_png

HAS_DATASETS = importlib.util.find_spec("datasets") is not None


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_shard_paths_layout(tmp_path: Path) -> None:
    paths = shard_paths(tmp_path, "T8", "train", 3)
    assert [p.relative_to(tmp_path).as_posix() for p in paths] == [
        f"data/interaction-location/train-{i:05d}-of-00003.parquet" for i in range(3)]


@pytest.mark.parametrize("args", [("nope", "test", 1), ("docking", "val", 1), ("docking", "test", 0)])
def test_shard_paths_rejects(tmp_path: Path, args: tuple) -> None:
    with pytest.raises(ValueError):
        shard_paths(tmp_path, *args)


def test_round_trip(tmp_path: Path, rows_factory) -> None:
    rows = rows_factory("residue-ligand", "test", 6)
    path = shard_paths(tmp_path, "residue-ligand", "test", 1)[0]
    write_shard(rows, path)
    items = read_items(tmp_path)
    assert [it["id"] for it in items] == [r["id"] for r in rows]
    for row, item in zip(rows, items):
        assert list(item) == list(COLUMNS)
        assert item["task_code"] == "T4"
        assert [im["bytes"] for im in item["images"]] == row["images"]
        assert item["images"][0]["path"].endswith("_00.png")
        assert json.loads(item["metadata"]) == json.loads(row["metadata"])
        for col in ("id", "task", "split", "complex_id", "question", "image_roles", "options", "answer"):
            assert item[col] == row[col]
    assert all(it["images"] == [] for it in read_items(tmp_path, images=False))


def test_rewrite_is_byte_identical_and_atomic(tmp_path: Path, rows_factory) -> None:
    rows = rows_factory("docking", "train", 5)
    path = shard_paths(tmp_path, "docking", "train", 1)[0]
    write_shard(rows, path)
    first = _sha(path)
    write_shard(read_items(tmp_path), path)          # rewrite what was read back
    assert _sha(path) == first
    write_shard(rows, tmp_path / "again.parquet")    # another file name, same bytes
    assert _sha(tmp_path / "again.parquet") == first
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name]   # no temp files left


def test_failed_write_leaves_old_shard_and_no_temp(tmp_path: Path, rows_factory) -> None:
    rows = rows_factory("zooming", "test", 3)
    path = shard_paths(tmp_path, "zooming", "test", 1)[0]
    write_shard(rows, path)
    before = _sha(path)
    with pytest.raises(DatasetError):
        write_shard(rows + [dict(rows[0], id="zooming/test/x/999", images=[b"not a png"])], path)
    assert _sha(path) == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def test_crash_during_write_keeps_old_shard(tmp_path: Path, rows_factory, monkeypatch) -> None:
    import misi_tasks.dataset.parquet as dataset_module

    rows = rows_factory("rotation", "test", 3)
    path = shard_paths(tmp_path, "rotation", "test", 1)[0]
    write_shard(rows, path)
    before = _sha(path)

    def crash(writer, table, **kwargs):  # after the writer has opened the file and written "PAR1"
        raise OSError("disk full")

    monkeypatch.setattr(dataset_module.pq.ParquetWriter, "write_table", crash)
    with pytest.raises(OSError, match="disk full"):
        write_shard(rows[:1], path)
    assert _sha(path) == before
    assert [p.name for p in path.parent.iterdir()] == [path.name]


def _reference_groups(rows: list[dict]) -> list[list[dict]]:
    """Row groups as documented: runs of one complex_id, cut every ``_ROW_GROUP_SIZE`` rows; none for
    no rows (Hugging Face ``datasets`` fails on a row group of 0 rows)."""
    from itertools import groupby

    runs = [list(run) for _, run in groupby(rows, key=lambda r: r["complex_id"])]
    return [run[i:i + _ROW_GROUP_SIZE] for run in runs for i in range(0, len(run), _ROW_GROUP_SIZE)]


def _reference_shard(rows: list[dict]) -> bytes:
    """What ``write_shard`` wrote before it built row groups itself: ``pa.Table.from_pylist`` of
    each row group (:func:`_reference_groups`), written by one ``pq.ParquetWriter``."""
    import pyarrow as pa

    from misi_tasks.dataset.parquet import _WRITE_OPTIONS
    from misi_tasks.definitions.schema import check_row

    buf = io.BytesIO()
    with pq.ParquetWriter(buf, ARROW_SCHEMA, **_WRITE_OPTIONS) as writer:
        for group in _reference_groups(rows):
            table = pa.Table.from_pylist([check_row(r, "ref") for r in group], schema=ARROW_SCHEMA)
            writer.write_table(table, row_group_size=_ROW_GROUP_SIZE)
    return buf.getvalue()


def _varied_rows(rows_factory, task: str, n: int, n_images: list[int], questions: list[str],
                 no_path: list[bool]) -> list[dict]:
    """``n`` synthetic rows with the given image counts, questions and images without a path."""
    rows = rows_factory(task, "test", n)
    for k, row in enumerate(rows):  # complexes of 20 rows: row groups of 16 and 4 rows
        row.update(complex_id=f"c{k // 20:03d}", id=f"{task}/test/c{k // 20:03d}/{k:03d}")
        pngs = [tiny_png(k + j) for j in range(n_images[k % len(n_images)])]
        if pngs and no_path[k % len(no_path)]:
            pngs[0] = {"bytes": pngs[0], "path": None}
        row.update(images=pngs, image_roles=[f"view {j}" for j in range(len(pngs))],
                   question=questions[k % len(questions)])
    return rows


@pytest.mark.parametrize("n", [0, 1, 15, 16, 17, 63, 64, 65, 130])
def test_shard_bytes_match_the_pyarrow_reference(tmp_path: Path, rows_factory, n: int) -> None:
    rows = _varied_rows(rows_factory, "interaction-location", n, [2, 0, 3, 1], ["Q?", "", "é ✓ 口"], [False, True])
    write_shard(iter(rows), tmp_path / "s.parquet")  # an iterator is read one row group at a time
    assert (tmp_path / "s.parquet").read_bytes() == _reference_shard(rows)
    assert pq.ParquetFile(tmp_path / "s.parquet").metadata.num_row_groups == len(_reference_groups(rows))


def test_huge_row_group_is_left_to_pyarrow(tmp_path: Path, rows_factory, monkeypatch) -> None:
    """Over 2 GiB of images in one row group, pyarrow builds (and chunks) the column: same bytes."""
    import misi_tasks.dataset.parquet as dataset_module

    monkeypatch.setattr(dataset_module, "_MAX_BINARY", 100)
    rows = rows_factory("docking", "test", 70)
    write_shard(rows, tmp_path / "s.parquet")
    assert (tmp_path / "s.parquet").read_bytes() == _reference_shard(rows)


@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 140), n_images=st.lists(st.integers(0, 4), min_size=1, max_size=5),
       questions=st.lists(st.text(max_size=30), min_size=1, max_size=3),
       no_path=st.lists(st.booleans(), min_size=1, max_size=3),
       task=st.sampled_from(["translation", "rotation-rotation", "interaction-location"]))
def test_shard_bytes_match_the_pyarrow_reference_property(tmp_path_factory, n, n_images, questions, no_path,
                                                          task) -> None:
    rows = _varied_rows(synthetic_rows, task, n, n_images, questions, no_path)
    path = tmp_path_factory.mktemp("prop") / "s.parquet"
    write_shard(rows, path)
    assert path.read_bytes() == _reference_shard(rows)


def test_schema_metadata_carries_hf_features(tmp_path: Path, rows_factory) -> None:
    path = tmp_path / "s.parquet"
    write_shard(rows_factory("translation", "test", 2), path)
    schema = pq.read_schema(path)
    assert schema.remove_metadata() == ARROW_SCHEMA.remove_metadata()
    features = json.loads(schema.metadata[b"huggingface"])["info"]["features"]
    assert features["images"] == {"feature": {"_type": "Image"}, "length": -1, "_type": "Sequence"}
    assert list(features) == list(COLUMNS)


# (description, change to a valid row, expected message fragment)
BAD_ROWS = [
    ("unknown task", {"task": "flying"}, "unknown task"),
    ("wrong code", {"task_code": "T2"}, "does not match"),
    ("bad split", {"split": "val"}, "unknown split"),
    ("empty answer", {"answer": ""}, "'answer' must be a non-empty string"),
    ("roles mismatch", {"image_roles": ["front"]}, "2 images but 1 image_roles"),
    ("options on non-MC", {"options": ["a", "b", "c", "d"]}, "needs 0 options"),
    ("not png", {"images": [b"GIF89a", b"x"]}, "not PNG"),
    ("metadata not JSON", {"metadata": "{oops"}, "not JSON"),
    ("metadata not object", {"metadata": "[1]"}, "JSON object"),
    ("extra column", {"score": 1}, "unknown columns"),
]


@pytest.mark.parametrize("desc, change, message", BAD_ROWS, ids=[c[0] for c in BAD_ROWS])
def test_write_shard_rejects(tmp_path: Path, rows_factory, desc: str, change: dict, message: str) -> None:
    row = dict(rows_factory("translation", "test", 1)[0], **change)
    with pytest.raises(DatasetError, match=message):
        write_shard([row], tmp_path / "x.parquet")


@pytest.mark.parametrize("change, message", [
    ({"metadata": "{}"}, "needs label"),
    ({"metadata": json.dumps({"label": "positive"}), "answer": "No"}, "disagrees"),
])
def test_residue_ligand_needs_consistent_label(tmp_path: Path, rows_factory, change: dict, message: str) -> None:
    row = dict(rows_factory("residue-ligand", "test", 1)[0], **change)
    with pytest.raises(DatasetError, match=message):
        write_shard([row], tmp_path / "x.parquet")


def test_mc_rows_need_four_options_and_ids_are_unique(tmp_path: Path, rows_factory) -> None:
    row = rows_factory("rotation-rotation", "test", 1)[0]
    with pytest.raises(DatasetError, match="needs 4 options"):
        write_shard([dict(row, options=["", ""])], tmp_path / "x.parquet")
    with pytest.raises(DatasetError, match="duplicate id"):
        write_shard([row, row], tmp_path / "x.parquet")


def test_accepts_dict_metadata_pil_images_and_missing_task_code(tmp_path: Path, rows_factory) -> None:
    from PIL import Image

    row = rows_factory("docking", "test", 1)[0]
    row.pop("task_code", None)
    row.update(metadata={"b": 1, "a": 2}, images=[Image.new("RGB", (3, 3)), {"bytes": row["images"][1], "path": None}])
    write_shard([row], shard_paths(tmp_path, "docking", "test", 1)[0])
    (item,) = read_items(tmp_path)
    assert item["metadata"] == '{"a": 2, "b": 1}' and item["task_code"] == "T7"
    assert item["images"][1]["path"] is None and item["images"][0]["bytes"].startswith(b"\x89PNG")


def test_read_items_filters_and_order(small_dataset: Path) -> None:
    items = read_items(small_dataset, images=False)
    assert len(items) == len(TASK_NAMES) * (8 + 3)
    order = [(TASK_NAMES.index(it["task"]), ("train", "test").index(it["split"])) for it in items]
    assert order == sorted(order)
    sel = read_items(small_dataset, tasks=["T7", "rotation"], splits=["train"], images=False)
    assert {(it["task"], it["split"]) for it in sel} == {("docking", "train"), ("rotation", "train")}
    assert len(sel) == 6
    assert list_splits(small_dataset) == {t: ["train", "test"] for t in TASK_NAMES}


def test_read_items_detects_missing_shard(tmp_path: Path, rows_factory) -> None:
    paths = shard_paths(tmp_path, "zooming", "test", 3)
    write_shard(rows_factory("zooming", "test", 2), paths[0])
    with pytest.raises(DatasetError, match="incomplete"):
        read_items(tmp_path)
    with pytest.raises(DatasetError, match="no data/ directory"):
        read_items(tmp_path / "nowhere")


def test_configs_yaml_parses() -> None:
    yaml = pytest.importorskip("yaml")
    text = dataset_card_configs_yaml({"T4": ["test", "train"], "translation": ["test"]}, front_matter=True)
    assert text.startswith("---\n") and text.endswith("---\n")
    configs = yaml.safe_load(text.strip("-\n"))["configs"]
    assert [c["config_name"] for c in configs] == ["all", "translation", "residue-ligand"]
    assert configs[0]["default"] is True
    assert configs[0]["data_files"] == [{"split": "train", "path": "data/*/train-*.parquet"},
                                       {"split": "test", "path": "data/*/test-*.parquet"}]
    assert configs[2]["data_files"][1] == {"split": "test", "path": "data/residue-ligand/test-*.parquet"}


@pytest.mark.skipif(not HAS_DATASETS, reason="datasets is not installed")
def test_datasets_loads_pil_images(small_dataset: Path, tmp_path: Path) -> None:
    import datasets
    from PIL import Image

    files = [str(p) for p in shard_paths(small_dataset, "docking", "test", 2)]
    ds = datasets.load_dataset("parquet", data_files=files, split="train", cache_dir=str(tmp_path))
    assert isinstance(ds[0]["images"][0], Image.Image) and len(ds) == 8
    by_config = datasets.load_dataset(str(small_dataset), "residue-ligand", cache_dir=str(tmp_path))
    assert set(by_config) == {"train", "test"} and by_config["test"].num_rows == 8
    assert isinstance(by_config["test"][0]["images"][1], Image.Image)
    default = datasets.load_dataset(str(small_dataset), split="test", cache_dir=str(tmp_path))
    assert default.num_rows == len(TASK_NAMES) * 8


def test_images_are_paged_so_a_shard_is_written_in_little_memory(tmp_path: Path, rows_factory) -> None:
    """Parquet pages hold a few images, not a row group's whole images column: pyarrow's peak
    memory while writing 64 rows of 400 kB images, beyond the 25 MB column itself (whose buffer
    comes from the same pool), stays a small fraction of it (one page per column chunk took ~50 MB
    more); the images read back unchanged."""
    import pickle
    import random
    import subprocess
    import sys

    rng = random.Random(0)
    rows = rows_factory("translation", "test", 64)
    for row in rows:
        row["images"] = [b"\x89PNG\r\n\x1a\n" + rng.randbytes(400_000), b"\x89PNG\r\n\x1a\n" + rng.randbytes(100)]
    (tmp_path / "rows.pkl").write_bytes(pickle.dumps(rows))
    script = (
        "import pickle, sys, pyarrow as pa\n"
        "from misi_tasks.dataset import write_shard\n"
        "rows = pickle.loads(open(sys.argv[1], 'rb').read())\n"
        "write_shard(rows, sys.argv[2])\n"
        "print(pa.default_memory_pool().max_memory())\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(tmp_path / "rows.pkl"), str(tmp_path / "s.parquet")],
                         capture_output=True, text=True, check=True)
    column = sum(len(im) for r in rows for im in r["images"])  # 25.6 MB
    assert int(out.stdout.split()[-1]) - column < 12e6  # bytes
    back = pq.ParquetFile(tmp_path / "s.parquet").read(columns=["images"]).column("images").to_pylist()
    assert [im["bytes"] for r in back for im in r] == [im for r in rows for im in r["images"]]


def test_per_column_compression_levels_name_every_column_of_a_shard(tmp_path: Path, rows_factory) -> None:
    """pyarrow ignores a level given for a column path that does not exist: the levels must name
    exactly the shard's column paths, the PNG bytes at zstd's fast level -1 (smaller than no
    compression, larger than level 1 on repetitive bytes)."""
    import random

    from misi_tasks.dataset import parquet as dataset_module

    rng = random.Random(1)
    rows = rows_factory("translation", "test", 16)
    for row in rows:  # half random, half repeated: what zstd can take off
        row["images"] = [b"\x89PNG\r\n\x1a\n" + rng.randbytes(20_000) * 2, b"\x89PNG\r\n\x1a\n" + rng.randbytes(100)]
    path = tmp_path / "s.parquet"
    write_shard(rows, path)
    schema = pq.ParquetFile(path).schema
    assert set(dataset_module._WRITE_OPTIONS["compression_level"]) == {schema.column(i).path for i in range(len(schema))}
    meta = pq.ParquetFile(path).metadata.row_group(0)
    images = next(meta.column(i) for i in range(meta.num_columns) if meta.column(i).path_in_schema == "images.list.element.bytes")
    assert images.compression == "ZSTD"
    raw = sum(len(im) for r in rows for im in r["images"])
    assert images.total_compressed_size < 0.6 * raw  # the repeated halves are found at level -1


def test_repeated_images_are_stored_once_per_row_group(tmp_path: Path, rows_factory) -> None:
    """The PNG bytes are dictionary-encoded: an image that several rows of one complex show (its
    canonical view) is stored once; every row still reads back its own bytes."""
    import random

    rng = random.Random(2)
    shared = [b"\x89PNG\r\n\x1a\n" + rng.randbytes(100_000) for _ in range(2)]
    rows = rows_factory("translation", "test", 2 * _ROW_GROUP_SIZE)
    for k, row in enumerate(rows):  # a complex a row group; each row: its view + one image of its own
        cid = f"c{k // _ROW_GROUP_SIZE:03d}"
        row.update(complex_id=cid, id=f"translation/test/{cid}/{k:03d}")
        row["images"] = [shared[k // _ROW_GROUP_SIZE], b"\x89PNG\r\n\x1a\n" + rng.randbytes(20_000)]
    path = tmp_path / "s.parquet"
    write_shard(rows, path)
    distinct = 2 * 100_008 + len(rows) * 20_008
    assert distinct < path.stat().st_size < distinct + 50_000  # all images stored plainly: +3 MB
    back = pq.read_table(path, columns=["images"]).column("images").to_pylist()
    assert [[im["bytes"] for im in r] for r in back] == [r["images"] for r in rows]


@pytest.mark.skipif(not HAS_DATASETS, reason="datasets is not installed")
def test_datasets_reads_dictionary_encoded_images_back_exactly(tmp_path: Path, rows_factory) -> None:
    import datasets
    import numpy as np
    from PIL import Image

    pngs = []
    for k in range(3):
        buf = io.BytesIO()
        Image.new("RGB", (8, 5), (k * 40, 255 - k, 7)).save(buf, format="PNG")
        pngs.append(buf.getvalue())
    rows = rows_factory("translation", "test", 5)
    for k, row in enumerate(rows):
        row["images"] = [pngs[0], pngs[1 + k % 2]]
    path = shard_paths(tmp_path / "ds", "translation", "test", 1)[0]
    write_shard(rows, path)
    ds = datasets.load_dataset("parquet", data_files=[str(path)], split="train", cache_dir=str(tmp_path / "c"))
    for k, item in enumerate(ds):
        want = [Image.open(io.BytesIO(pngs[0])), Image.open(io.BytesIO(pngs[1 + k % 2]))]
        assert all(np.array_equal(np.asarray(a), np.asarray(b)) for a, b in zip(item["images"], want, strict=True))
    raw = ds.cast_column("images", datasets.Sequence(datasets.Image(decode=False)))
    assert [[im["bytes"] for im in r["images"]] for r in raw] == [r["images"] for r in rows]
