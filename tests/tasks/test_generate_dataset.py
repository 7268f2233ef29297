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
from misi_tasks.engine.shards import complex_letters, plan_groups, tiny_pick
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
    assert [p.name for p in work.iterdir() if p.is_dir()] == []  # no image was written anywhere else
    assert not any(p.name.startswith(".") for p in two.rglob("*"))
    summary = generate_dataset(_config(two), progress=False)  # a rerun of a finished run
    assert summary.shards == [] and summary.shards_skipped == 3
    assert _digest(two) == _digest(ref_out)
    (two / "data" / "docking" / "test-00000-of-00001.parquet").unlink()  # a lost shard: its group is rebuilt
    summary = generate_dataset(_config(two), progress=False)
    assert summary.shards == [f"data/{t}/test-00000-of-00001.parquet" for t in TASKS]
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


def test_letters_are_balanced_per_complex():
    for n in range(1, 14):
        for cid in ("1abc", "2xyz", "3pqr"):
            letters = complex_letters(n, 0, "rotation-rotation", "test", cid)
            counts = Counter(letters)
            assert len(letters) == n and set(counts) <= {0, 1, 2, 3}
            assert max(counts.values()) - min(counts.get(k, 0) for k in range(4)) <= 1
            assert complex_letters(n, 0, "rotation-rotation", "test", cid) == letters  # seeded
    # the n mod 4 extra letters are not always A: over many complexes every letter gets its share
    extras = Counter(k for c in range(400) for k in complex_letters(5, 0, "rotation-rotation", "test", f"c{c}"))
    assert max(extras.values()) - min(extras.values()) < 80 and min(extras.values()) > 400
    item = Item(task="rotation-rotation", split="test", complex_id="c", index=0, question="q <<OPTIONS>>",
                images=[], image_roles=[], answer="A", metadata={}, options=["", "", "", ""],
                option_images=[b"a", b"b", b"c", b"d"])
    for k in range(4):  # the correct image sits at the answer letter
        out = item.assign_letter(k)
        assert out.images["ABCD".index(out.answer)] == b"a"


def test_generated_letters_are_balanced_per_complex(reference):
    out, _ = reference
    rows = pq.read_table(out / "data" / "translation-rotation" / "test-00000-of-00001.parquet",
                         columns=["complex_id", "answer", "metadata"]).to_pylist()
    by_complex: dict[str, Counter] = {}
    for r in rows:
        by_complex.setdefault(r["complex_id"], Counter())[r["answer"]] += 1
        assert json.loads(r["metadata"])["correct_letter"] == r["answer"]
    assert len(by_complex) == 2
    for cid, counts in by_complex.items():  # 3 items a complex: three letters once each, as drawn
        assert sum(counts.values()) == 3 and max(counts.values()) == 1, (cid, counts)
        drawn = complex_letters(3, 7, "translation-rotation", "test", cid)
        assert sorted("ABCD"[k] for k in drawn) == sorted(counts.elements())


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--task", "nope", "--out", "x"], "valid names"),
        (["--task", "T1", "--out", "x", "--size", "8"], "--size"),
        (["--task", "T1", "--out", "x", "--task-params", '{"translation": {"bogus": 1}}'], "no parameter"),
        (["--task", "T1", "--out", "x", "--workers", "0"], "--workers"),
        (["--task", "T1", "--out", "x", "--group-size", "0"], "--group-size"),
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

    answers = [f"x{k}" for k in range(120)]
    picked = tiny_pick(answers, 0, "rotation", mc=False)
    assert len(picked) == TINY_PER_TASK == 50
    assert picked == sorted(set(picked)) and max(picked) < 120
    assert tiny_pick(answers, 0, "rotation", mc=False) == picked  # deterministic
    assert tiny_pick(answers, 1, "rotation", mc=False) != picked  # but seeded
    assert tiny_pick(answers[:30], 0, "rotation", mc=False) == list(range(30))


def test_tiny_balances_the_letters_of_a_multiple_choice_task():
    answers = ["A"] * 60 + ["B"] * 15 + ["C"] * 40 + ["D"] * 5  # skewed: D has too few
    picked = tiny_pick(answers, 0, "rotation-rotation", mc=True)
    counts = Counter(answers[k] for k in picked)
    assert len(picked) == 50 == len(set(picked)) and picked == sorted(picked)
    assert counts["D"] == 5 and all(c >= 12 for letter, c in counts.items() if letter != "D")
    even = tiny_pick(list("ABCD") * 30, 3, "rotation-rotation", mc=True)
    assert sorted(Counter(("ABCD" * 30)[k] for k in even).values()) == [12, 12, 13, 13]


def test_groups_are_fixed_runs_of_sorted_complexes_per_split():
    splits = {f"c{k:02d}": ("test" if k % 3 == 0 else "train") for k in range(20)}
    groups = plan_groups(splits, 4)
    assert [g.key for g in groups] == ["test-00000-of-00002", "test-00001-of-00002"] + [
        f"train-{i:05d}-of-00004" for i in range(4)]
    assert groups[0].complexes == ("c00", "c03", "c06", "c09") and groups[1].complexes == ("c12", "c15", "c18")
    assert [c for g in groups for c in g.complexes] == sorted(c for c in splits if splits[c] == "test") + sorted(
        c for c in splits if splits[c] == "train")
    assert plan_groups(dict(reversed(list(splits.items()))), 4) == groups  # input order does not matter
    assert groups[0].shard(Path("OUT"), "docking") == Path("OUT/data/docking/test-00000-of-00002.parquet")
    with pytest.raises(ValueError, match="at least 1"):
        plan_groups(splits, 0)


def test_a_shard_per_group_holds_the_same_rows_and_resumes_by_group(reference, tmp_path):
    ref_out, _ = reference
    out = tmp_path / "g1"
    cfg = GenerateConfig(**{**_config(out, workers=2).__dict__, "group_size": 1})
    summary = generate_dataset(cfg, progress=False)
    names = sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet"))
    assert names == sorted(f"data/{t}/test-0000{i}-of-00002.parquet" for t in TASKS for i in (0, 1))
    assert len(summary.shards) == 6
    for task in TASKS:  # the rows of the two one-complex shards are the rows of the one two-complex shard
        ref = pq.read_table(ref_out / "data" / task / "test-00000-of-00001.parquet").to_pylist()
        parts = [pq.read_table(out / "data" / task / f"test-0000{i}-of-00002.parquet").to_pylist() for i in (0, 1)]
        assert parts[0] and {r["complex_id"] for r in parts[0]} == {"1h1d"}
        assert parts[0] + parts[1] == ref
    digest = _digest(out)
    (out / "data" / "docking" / "test-00001-of-00002.parquet").unlink()  # its group is generated again
    summary = generate_dataset(cfg, progress=False)
    assert summary.shards == [f"data/{t}/test-00001-of-00002.parquet" for t in TASKS]
    assert summary.shards_skipped == 3 and _digest(out) == digest


def test_a_complex_that_fails_in_its_group_costs_the_others_nothing(reference, tmp_path, monkeypatch):
    import misi_tasks.engine.worker as worker

    ref_out, _ = reference
    real = worker.save_provenance

    def fail_for_2pyy(out_dir, cid, provenance):
        if cid == "2pyy":
            raise RuntimeError("boom")
        real(out_dir, cid, provenance)

    monkeypatch.setattr(worker, "save_provenance", fail_for_2pyy)
    out = tmp_path / "fail"
    summary = generate_dataset(_config(out), progress=False)  # one worker: in this process
    assert "boom" in summary.failed_complexes["2pyy"] and "2pyy" in (out / "failures.txt").read_text()
    for task in TASKS:
        rows = pq.read_table(out / "data" / task / "test-00000-of-00001.parquet").to_pylist()
        ref = pq.read_table(ref_out / "data" / task / "test-00000-of-00001.parquet").to_pylist()
        assert rows and rows == [r for r in ref if r["complex_id"] == "1h1d"]


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


def test_tiny_copies_its_rows_from_the_full_run(reference, tmp_path):
    ref_out, ref_summary = reference
    out = tmp_path / "tiny"
    cfg = GenerateConfig(**{**_config(out).__dict__, "tiny": True, "group_size": 1})
    summary = generate_dataset(cfg, progress=False)
    assert sorted(p.relative_to(out).as_posix() for p in out.rglob("*.parquet")) == sorted(
        f"data/{t}/test-00000-of-00001.parquet" for t in TASKS)
    for task in TASKS:  # fewer than 50 items: every row, as the full run wrote it
        rows = pq.read_table(out / "data" / task / "test-00000-of-00001.parquet").to_pylist()
        assert rows == pq.read_table(ref_out / "data" / task / "test-00000-of-00001.parquet").to_pylist()
        assert summary.items[(task, "test")] == ref_summary.items[(task, "test")] == len(rows)
    assert not (tmp_path / ".tiny.misi-gen" / "full").exists()  # the full split is work, removed at the end


def test_a_group_without_items_for_a_task_writes_an_empty_shard_that_datasets_reads(reference, tmp_path):
    datasets = pytest.importorskip("datasets")
    import shutil

    from misi_tasks.dataset import read_items, write_shard

    ref_out, _ = reference
    folder = tmp_path / "ds" / "data" / "translation"
    folder.mkdir(parents=True)
    shutil.copy(ref_out / "data" / "translation" / "test-00000-of-00001.parquet", folder / "test-00000-of-00002.parquet")
    write_shard([], folder / "test-00001-of-00002.parquet")  # e.g. a group whose complexes all failed
    assert pq.ParquetFile(folder / "test-00001-of-00002.parquet").metadata.num_row_groups == 0
    assert len(read_items(tmp_path / "ds", images=False)) == 4
    ds = datasets.load_dataset(str(folder), split="test", cache_dir=str(tmp_path / "cache"))
    assert len(ds) == 4
