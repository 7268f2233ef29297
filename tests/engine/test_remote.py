"""misi-gen with URL inputs and outputs (fsspec), on fsspec's in-memory filesystem: the uploaded
dataset has the local run's bytes, a rerun downloads nothing and uploads the same files, and a
remote prefix holding other files is protected like a local folder."""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

fsspec = pytest.importorskip("fsspec", reason='fsspec is not installed: pip install "misi[remote]"')

from misi_geom.samples import sample_root  # noqa: E402
from misi_tasks.engine.cli import main  # noqa: E402
from misi_tasks.engine.remote import is_url, published_files  # noqa: E402

from .conftest import TASKS, digest  # noqa: E402

ARGS = ["--task", ",".join(TASKS), "--split", "test", "--seed", "3", "--size", "96", "--quiet", "--workers", "1"]


@pytest.fixture
def mem():
    fs = fsspec.filesystem("memory")
    root = f"/misi-test-{id(fs)}"
    for f in sorted(sample_root().rglob("*")):
        if f.is_file():
            fs.pipe_file(f"{root}/in/{f.relative_to(sample_root())}", f.read_bytes())
    yield fs, root
    fs.rm(root, recursive=True)


def _remote_digest(fs, prefix: str) -> dict[str, str]:
    return {p[len(prefix):].lstrip("/"): hashlib.sha256(fs.cat_file(p)).hexdigest() for p in sorted(fs.find(prefix))}


def test_is_url_tells_urls_from_paths():
    assert is_url("s3://bucket/x") and is_url("memory://a") and is_url("gs://b")
    assert not is_url("file:///tmp/x") and not is_url("/tmp/x") and not is_url("rel/dir") and not is_url(None)


def test_url_in_url_out_uploads_the_local_runs_bytes_and_a_rerun_fetches_nothing(mem, tmp_path, capsys):
    fs, root = mem
    local = tmp_path / "local"
    shutil.copytree(sample_root(), tmp_path / "in")  # same folder name: the card shows `--input in`
    assert main([*ARGS, "--input", str(tmp_path / "in"), "--out", str(local)]) == 0
    stage = tmp_path / "stage"
    url = f"memory://{root}/out/ds"
    assert main([*ARGS, "--input", f"memory://{root}/in", "--out", url, "--stage", str(stage)]) == 0
    assert "uploaded to" in capsys.readouterr().out
    uploaded = _remote_digest(fs, f"{root}/out/ds")
    assert uploaded == digest(local)
    assert sorted(uploaded) == sorted(published_files(stage / "out"))
    fetched = {p: p.stat().st_mtime_ns for p in (stage / "input").rglob("*") if p.is_file()}
    assert main([*ARGS, "--input", f"memory://{root}/in", "--out", url, "--stage", str(stage)]) == 0
    assert {p: p.stat().st_mtime_ns for p in (stage / "input").rglob("*") if p.is_file()} == fetched
    assert _remote_digest(fs, f"{root}/out/ds") == uploaded


def test_a_remote_output_with_other_files_is_refused_then_overwritten_keeping_the_users_files(mem, tmp_path, capsys):
    fs, root = mem
    prefix = f"{root}/out/ds"
    fs.pipe_file(f"{prefix}/notes.txt", b"mine")
    fs.pipe_file(f"{prefix}/data/translation/test-00000-of-00009.parquet", b"stale shard of another run")
    argv = [*ARGS, "--out", f"memory://{prefix}", "--stage", str(tmp_path / "stage")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "not this dataset's" in err and "--overwrite" in err
    assert fs.cat_file(f"{prefix}/notes.txt") == b"mine"  # nothing touched
    assert main([*argv, "--overwrite"]) == 0
    files = _remote_digest(fs, prefix)
    assert "data/translation/test-00000-of-00009.parquet" not in files  # no stale shard mixed in
    assert fs.cat_file(f"{prefix}/notes.txt") == b"mine"
    assert set(files) - {"notes.txt"} == set(published_files(tmp_path / "stage" / "out"))


def test_a_missing_remote_input_is_a_one_line_error(mem, tmp_path, capsys):
    fs, root = mem
    assert main([*ARGS, "--input", f"memory://{root}/nothing-here", "--out", str(tmp_path / "o"),
                 "--stage", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing-here" in err and "not found" in err


def test_an_unknown_protocol_is_a_one_line_error(tmp_path, capsys):
    assert main([*ARGS, "--input", "nosuchproto://x/y", "--out", str(tmp_path / "o"), "--stage", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nosuchproto://x/y" in err


def test_an_unusable_output_url_fails_before_anything_is_generated(tmp_path, capsys):
    assert main([*ARGS, "--out", "nosuchproto://x/y", "--stage", str(tmp_path / "s")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nosuchproto://x/y" in err and "rerun to upload" not in err
    assert not (tmp_path / "s" / "out").exists()
