"""misi-gen end to end: shards, resume, worker independence, letter balance, CLI errors."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from misi_tasks.engine.cli import main
from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_tasks.engine.shards import _letters, _shard_bounds, _tiny_indices
from misi_tasks.definitions.items import Item
from misi_geom.samples import sample_root

TASKS = ("translation", "translation-rotation", "docking")


def _config(out: Path, workers: int = 1) -> GenerateConfig:
    return GenerateConfig(input_dir=sample_root(), out_dir=out, tasks=TASKS, split="test", seed=7, size=96,
                          workers=workers, limit=2)


def _digest(out: Path) -> dict[str, str]:
    files = sorted(p for p in out.rglob("*") if p.is_file() and ".misi-gen" not in p.parts)
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="module")
def reference(tmp_path_factory) -> tuple[Path, object]:
    out = tmp_path_factory.mktemp("ref")
    summary = generate_dataset(_config(out), progress=False)
    return out, summary


def test_shards_hold_every_item_with_the_contract_columns(reference):
    out, summary = reference
    assert summary.items[("translation", "test")] == 4  # 2 complexes x 2 axes
    assert summary.items[("docking", "test")] == 6
    assert summary.items[("translation-rotation", "test")] == 6
    table = pq.read_table(out / "data" / "translation-rotation" / "test-00000-of-00001.parquet")
    rows = table.to_pylist()
    assert {r["complex_id"] for r in rows} == {"1h1d", "2pyy"}
    for r in rows:
        assert len(r["images"]) == 11 and r["image_roles"][-1] == "option D"
        assert r["answer"] in "ABCD" and len(r["options"]) == 4
        meta = json.loads(r["metadata"])
        assert meta["query_complex"] != r["complex_id"]
        assert meta["correct_letter"] == r["answer"]
        assert r["images"][0]["bytes"].startswith(b"\x89PNG")
    assert (out / "README.md").read_text().startswith("---\nconfigs:")


def test_output_does_not_depend_on_workers_and_reruns_identically(reference, tmp_path):
    ref_out, _ = reference
    two = tmp_path / "two"
    generate_dataset(_config(two, workers=2), progress=False)
    assert _digest(two) == _digest(ref_out)
    # the work files sit beside the output, and only a small state file is left once complete
    work = tmp_path / ".two.misi-gen"
    assert not (work / "units").exists() and (work / "state.json").is_file()
    assert not any(p.name.startswith(".") for p in two.rglob("*"))
    summary = generate_dataset(_config(two), progress=False)  # a rerun of a finished run
    assert summary.shards == [] and summary.shards_skipped == 3
    assert _digest(two) == _digest(ref_out)
    (two / "data" / "docking" / "test-00000-of-00001.parquet").unlink()  # a lost shard is rebuilt
    summary = generate_dataset(_config(two), progress=False)
    assert summary.shards == ["data/docking/test-00000-of-00001.parquet"]
    assert _digest(two) == _digest(ref_out)


def test_output_does_not_depend_on_how_workers_start(reference, tmp_path, monkeypatch):
    import misi_tasks.engine.backends.local as local

    ref_out, _ = reference
    monkeypatch.setattr(local, "start_method", lambda requested="auto": "spawn")  # auto forks on Linux
    spawned = tmp_path / "spawned"
    generate_dataset(_config(spawned, workers=2), progress=False)
    assert _digest(spawned) == _digest(ref_out)


def test_bad_complex_is_skipped_and_reported(tmp_path):
    import shutil

    src = tmp_path / "in"

    shutil.copytree(sample_root() / "2pyy", src / "2pyy")
    (src / "0bad").mkdir()
    (src / "0bad" / "0bad_ligand.mol2").write_text("not a molecule\n")
    (src / "0bad" / "0bad_pocket.pdb").write_text("")
    cfg = GenerateConfig(input_dir=src, out_dir=tmp_path / "out", tasks=("translation",), split="test", size=96)
    summary = generate_dataset(cfg, progress=False)
    assert "0bad" in summary.failed_complexes and "0bad_ligand.mol2" in summary.failed_complexes["0bad"]
    assert summary.items[("translation", "test")] == 2
    assert "skipped complex 0bad" in summary.format()


def test_letters_are_balanced():
    items = [
        Item(task="rotation-rotation", split="test", complex_id=f"c{k:02d}", index=0, question="q <<OPTIONS>>",
             images=[], image_roles=[], answer="A", metadata={}, options=["", "", "", ""],
             option_images=[b"a", b"b", b"c", b"d"])
        for k in range(41)
    ]
    out = [item.assign_letter(k) for item, k in zip(items, _letters(len(items), 0, "rotation-rotation", "test"))]
    counts = Counter(i.answer for i in out)
    assert set(counts) == set("ABCD") and max(counts.values()) - min(counts.values()) <= 1
    for i in out:  # the correct image sits at the answer letter
        assert i.images["ABCD".index(i.answer)] == b"a"


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--task", "nope", "--out", "x"], "valid names"),
        (["--task", "T1", "--out", "x", "--size", "8"], "--size"),
        (["--task", "T1", "--out", "x", "--task-params", '{"translation": {"bogus": 1}}'], "no parameter"),
        (["--task", "T1", "--out", "x", "--workers", "0"], "--workers"),
    ],
)
def test_cli_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 2
    assert message in capsys.readouterr().err


def test_cli_reports_missing_input(tmp_path, capsys):
    assert main(["--task", "T1", "--input", str(tmp_path / "none"), "--out", str(tmp_path / "o"), "--quiet"]) == 2
    assert "input folder not found" in capsys.readouterr().err


def test_generated_shards_load_with_datasets(reference):
    datasets = pytest.importorskip("datasets")
    out, _ = reference
    ds = datasets.load_dataset(str(out), "docking", split="test")
    assert len(ds) == 6
    row = ds[0]
    assert len(row["images"]) == 7 and row["images"][0].size == (96, 96)
    assert row["answer"].startswith("roll ")
    everything = datasets.load_dataset(str(out), split="test")  # the default "all" config
    assert len(everything) == 16


def test_tiny_draws_fifty_sorted_items_per_task():
    from misi_tasks.engine.generate import TINY_PER_TASK

    picked = _tiny_indices(120, 0, "rotation")
    assert len(picked) == TINY_PER_TASK == 50
    assert picked == sorted(set(picked)) and max(picked) < 120
    assert _tiny_indices(120, 0, "rotation") == picked  # deterministic
    assert _tiny_indices(120, 1, "rotation") != picked  # but seeded
    assert _tiny_indices(30, 0, "rotation") == list(range(30))


def test_shards_close_at_the_byte_budget():
    from misi_tasks.engine.shards import SHARD_BYTES

    half = SHARD_BYTES // 2
    assert _shard_bounds([half - 10, half - 10, 10, half]) == [(0, 3), (3, 4)]
    assert _shard_bounds([SHARD_BYTES * 2, 5]) == [(0, 1), (1, 2)]  # an oversized item gets a shard alone
    assert _shard_bounds([1] * 2500) == [(0, 1000), (1000, 2000), (2000, 2500)]


def test_split_is_by_complex_and_near_the_paper_fraction():
    from misi_tasks.tasks.seeding import split_of

    ids = [f"{k}abc" for k in range(4000)]
    test_share = sum(split_of(i) == "test" for i in ids) / len(ids)
    assert 0.10 < test_share < 0.15
    assert all(split_of(i) == split_of(i.upper()) for i in ids[:50])


def test_a_rerun_with_other_arguments_is_refused_or_cleanly_replaces(tmp_path):
    from misi_tasks.engine.generate import OutputFolderError

    out = tmp_path / "out"
    cfg = GenerateConfig(input_dir=sample_root(), out_dir=out, tasks=("translation", "docking"), split="test",
                         size=64, limit=1)
    generate_dataset(cfg, progress=False)
    other = GenerateConfig(input_dir=sample_root(), out_dir=out, tasks=("translation",), split="test", size=64,
                           limit=1, seed=3)
    with pytest.raises(OutputFolderError, match="other arguments .*seed 0 -> 3"):
        generate_dataset(other, progress=False)
    generate_dataset(GenerateConfig(**{**other.__dict__, "overwrite": True}), progress=False)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet")) == [
        "data/translation/test-00000-of-00001.parquet"]
