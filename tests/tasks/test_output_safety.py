"""misi-gen never loses, mixes or overwrites: output-folder rules, kill -9 and
Ctrl-C then rerun, failures, T5 partners from complexes that loaded."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from misi_tasks.engine.cli import main
from misi_tasks.engine.generate import FAILURES_FILE, GenerateConfig, OutputFolderError, generate_dataset
from misi_geom.samples import sample_root
from misi_tasks.engine.units import WorkDir, work_dir_for

TASKS = ("translation", "translation-rotation")


def _config(inp: Path, out: Path, **kw) -> GenerateConfig:
    return GenerateConfig(**{"input_dir": inp, "out_dir": out, "tasks": TASKS, "split": "test", "seed": 3,
                             "size": 64, **kw})


def _digest(out: Path) -> dict[str, str]:
    return {p.relative_to(out).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(out.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    """Three good complexes and one that cannot load."""
    root = tmp_path_factory.mktemp("in")
    for cid in ("1h1d", "2pyy", "2w9r"):
        shutil.copytree(sample_root() / cid, root / cid)
    bad = root / "0bad"
    bad.mkdir()
    (bad / "0bad_ligand.sdf").write_text("not a molecule\n")
    (bad / "0bad_pocket.pdb").write_text("ATOM      1  N   GLY A   1    9999.999   0.000   0.000  1.00  0.00           N\n")
    return root


@pytest.fixture(scope="module")
def reference(inputs, tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "out"
    generate_dataset(_config(inputs, out), progress=False)
    return out


@pytest.fixture(scope="module")
def reference_g1(inputs, tmp_path_factory) -> Path:
    """The run :func:`_cli` makes: one group (a job and a shard per task) per complex, four groups."""
    out = tmp_path_factory.mktemp("ref1") / "out"
    generate_dataset(_config(inputs, out, group_size=1), progress=False)
    return out


def test_failures_are_listed_and_t5_draws_partners_only_from_loaded_complexes(inputs, reference, tmp_path):
    lines = (reference / FAILURES_FILE).read_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("0bad\t") and "0bad_" in lines[0]
    # the same good complexes without the bad one: identical T5 items
    good = tmp_path / "good"
    for cid in ("1h1d", "2pyy", "2w9r"):
        shutil.copytree(inputs / cid, good / cid)
    generate_dataset(_config(good, tmp_path / "out"), progress=False)
    t5 = "data/translation-rotation/test-00000-of-00001.parquet"
    assert pq.read_table(reference / t5).num_rows == 3 * 3
    assert (tmp_path / "out" / t5).read_bytes() == (reference / t5).read_bytes()
    assert not (tmp_path / "out" / FAILURES_FILE).exists()


def test_work_files_are_not_in_the_output_and_are_removed_on_completion(reference):
    published = [f for f in _digest(reference) if not f.startswith("figures/")]  # the card's figures (misi[viz])
    assert sorted(published) == sorted([
        "README.md", FAILURES_FILE, "data/translation-rotation/test-00000-of-00001.parquet",
        "data/translation/test-00000-of-00001.parquet"])
    work = work_dir_for(reference)
    assert not (work / "units").exists() and (work / "state.json").is_file()


def test_rerun_twice_gives_the_same_bytes(inputs, reference, tmp_path):
    out = tmp_path / "out"
    generate_dataset(_config(inputs, out, workers=2), progress=False)
    first = _digest(out)
    generate_dataset(_config(inputs, out), progress=False)
    assert _digest(out) == first == _digest(reference)


def test_a_folder_misi_did_not_write_is_refused_unless_overwrite(inputs, tmp_path):
    out = tmp_path / "mine"
    (out / "data" / "translation").mkdir(parents=True)
    (out / "README.md").write_text("my notes\n")
    (out / "data" / "translation" / "test-00000-of-00001.parquet").write_bytes(b"my data")
    (out / "keep.txt").write_text("keep me\n")
    with pytest.raises(OutputFolderError, match="did not write it .*README.md.*--overwrite"):
        generate_dataset(_config(inputs, out), progress=False)
    assert (out / "README.md").read_text() == "my notes\n"
    assert (out / "data" / "translation" / "test-00000-of-00001.parquet").read_bytes() == b"my data"
    generate_dataset(_config(inputs, out, overwrite=True), progress=False)
    assert (out / "README.md").read_text().startswith("---") and (out / "keep.txt").read_text() == "keep me\n"
    assert pq.read_table(out / "data" / "translation" / "test-00000-of-00001.parquet").num_rows == 6


def test_an_output_path_that_is_a_file(inputs, tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(OutputFolderError, match="is a file"):
        generate_dataset(_config(inputs, f), progress=False)
    with pytest.raises(SystemExit):
        main(["--out", str(f), "--quiet"])
    assert "is a file, not a folder" in capsys.readouterr().err


def test_a_lock_stops_a_second_run(inputs, tmp_path):
    out = tmp_path / "out"
    holder = WorkDir(out)
    assert holder.lock()
    try:
        with pytest.raises(OutputFolderError, match="another misi-gen run is writing"):
            generate_dataset(_config(inputs, out), progress=False)
    finally:
        holder.unlock()
    generate_dataset(_config(inputs, out), progress=False)  # free again


def _cli(inputs: Path, out: Path) -> list[str]:
    return [sys.executable, "-m", "misi_tasks.engine.cli", "--input", str(inputs), "--out", str(out), "--task",
            ",".join(TASKS), "--split", "test", "--seed", "3", "--size", "64", "--workers", "1", "--group-size", "1", "--quiet"]


def _start(inputs: Path, out: Path) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    return subprocess.Popen(_cli(inputs, out), env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _groups_done(out: Path) -> int:
    try:
        return len(json.loads((work_dir_for(out) / "state.json").read_text()).get("groups_done", {}))
    except (OSError, ValueError):
        return 0


def _wait_for_groups(out: Path, proc: subprocess.Popen, n: int) -> None:
    """Until the run has recorded ``n`` finished groups (0: until a group's shard is being written)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None:
        if _groups_done(out) >= n and (n or any((out / "data").rglob(".*.tmp"))):
            return
        time.sleep(0.01)


@pytest.mark.parametrize("n_groups", [0, 1, 2])
def test_kill_9_then_rerun_gives_the_same_bytes(inputs, reference_g1, tmp_path, n_groups):
    out = tmp_path / "out"
    proc = _start(inputs, out)
    _wait_for_groups(out, proc, n_groups)
    proc.kill()  # SIGKILL
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    assert _groups_done(out) < 4  # interrupted mid-way (4 groups: one a complex that fails)
    # what a kill inside an atomic write leaves behind
    (out / "data" / "translation").mkdir(parents=True, exist_ok=True)
    (out / "data" / "translation" / ".test-00000-of-00004.parquet.k3j_9xq2.tmp").write_bytes(b"partial")
    (out / ".README.md.a1b2c3d4.tmp").write_bytes(b"partial")
    assert main(_cli(inputs, out)[3:]) == 0
    assert _digest(out) == _digest(reference_g1)


def test_an_interrupted_run_holds_no_image_outside_its_shards(inputs, reference_g1, tmp_path):
    """Each image is written once: the work folder beside OUT keeps only small records (no units)."""
    out = tmp_path / "out"
    proc = _start(inputs, out)
    _wait_for_groups(out, proc, 2)
    proc.kill()
    proc.communicate()
    assert proc.returncode == -signal.SIGKILL, "the run ended before it could be killed"
    work_files = [p for p in work_dir_for(out).rglob("*") if p.is_file()]
    assert {p.name for p in work_files} <= {"state.json", "lock", "source.json"}
    assert all(p.stat().st_size < 20_000 for p in work_files)
    state = json.loads((work_dir_for(out) / "state.json").read_text())
    for report in state["groups_done"].values():  # what a finished group wrote is in place
        assert all((out / shard).is_file() for shard in report["shards"])
    assert main(_cli(inputs, out)[3:]) == 0
    assert _digest(out) == _digest(reference_g1)


def test_ctrl_c_is_one_line_and_the_run_resumes(inputs, reference_g1, tmp_path):
    out = tmp_path / "out"
    proc = _start(inputs, out)
    _wait_for_groups(out, proc, 1)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the interrupt")
    assert proc.returncode == 130
    assert err.strip().splitlines()[-1].startswith("misi-gen: interrupted") and "Traceback" not in err
    assert main(_cli(inputs, out)[3:]) == 0
    assert _digest(out) == _digest(reference_g1)


def test_tiny_says_when_fewer_than_50_items_exist(inputs, tmp_path, capsys):
    assert main(["--input", str(inputs / "2pyy"), "--out", str(tmp_path / "t"), "--task", "T1", "--tiny",
                 "--size", "64", "--workers", "1", "--group-size", "1", "--quiet"]) == 0
    assert "only 2 translation items exist in the test split (fewer than 50)" in capsys.readouterr().out


def test_a_folder_of_the_old_layout_is_adopted(inputs, reference, tmp_path):
    out = tmp_path / "out"
    shutil.copytree(reference, out)
    (out / ".misi-gen").mkdir()  # earlier versions kept the work folder inside OUT
    shutil.copy(work_dir_for(reference) / "state.json", out / ".misi-gen" / "state.json")
    generate_dataset(_config(inputs, out), progress=False)
    assert not (out / ".misi-gen").exists() and _digest(out) == _digest(reference)


def test_a_refused_run_leaves_nothing_beside_the_folder(inputs, tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("x")
    with pytest.raises(OutputFolderError):
        generate_dataset(_config(inputs, out), progress=False)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mine"]
