"""misi-gen's URL inputs against a real S3 API on loopback (moto's server, see ``conftest.s3``): a staged
input is reused only while the object store describes it as when it was fetched."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from misi_geom.samples import sample_root
from misi_tasks.engine.cli import main
from misi_tasks.engine.remote import download_input
from misi_tasks.engine.units import work_dir_for


def _upload(s3, prefix: str) -> dict[str, bytes]:
    files = {}
    for f in sorted(sample_root().rglob("*")):
        if f.is_file() and f.parent != sample_root():
            key = f"{prefix}/{f.relative_to(sample_root()).as_posix()}"
            s3.put_object(Bucket="misi", Key=key, Body=f.read_bytes())
            files[key] = f.read_bytes()
    return files


def _same_size_edit(text: bytes) -> bytes:
    """Move the first ATOM's x coordinate by 0.001 Å: fixed-width columns, so the size is unchanged."""
    lines = text.split(b"\n")
    k = next(i for i, line in enumerate(lines) if line.startswith(b"ATOM"))
    x = float(lines[k][30:38])
    lines[k] = lines[k][:30] + f"{x + 0.001:8.3f}".encode() + lines[k][38:]
    return b"\n".join(lines)


def test_an_edited_same_size_remote_file_is_fetched_again(s3, tmp_path: Path):
    files = _upload(s3, "in")
    stage = tmp_path / "stage"
    local = download_input("s3://misi/in", stage)
    assert {f.relative_to(local).as_posix() for f in local.rglob("*") if f.is_file()} == \
        {k[len("in/"):] for k in files}
    key = "in/1h1d/1h1d_pocket.pdb"
    edited = _same_size_edit(files[key])
    assert len(edited) == len(files[key]) and edited != files[key]
    untouched = local / "2pyy" / "2pyy_pocket.pdb"
    before = untouched.stat().st_mtime_ns
    s3.put_object(Bucket="misi", Key=key, Body=edited)
    download_input("s3://misi/in", stage)
    assert (local / "1h1d" / "1h1d_pocket.pdb").read_bytes() == edited
    assert untouched.stat().st_mtime_ns == before  # what did not change is not fetched again


def test_a_staged_copy_touched_locally_or_deleted_remotely_is_not_trusted(s3, tmp_path: Path):
    files = _upload(s3, "in")
    stage = tmp_path / "stage"
    local = download_input("s3://misi/in", stage)
    pdb = local / "1h1d" / "1h1d_pocket.pdb"
    pdb.write_bytes(_same_size_edit(pdb.read_bytes()))  # someone edited the staged copy
    s3.delete_object(Bucket="misi", Key="in/2w9r/2w9r_ligand.mol2")
    download_input("s3://misi/in", stage)
    assert pdb.read_bytes() == files["in/1h1d/1h1d_pocket.pdb"]
    assert not (local / "2w9r" / "2w9r_ligand.mol2").exists()


def test_a_rerun_with_overwrite_generates_from_the_edited_input(s3, tmp_path: Path, capsys):
    files = _upload(s3, "in")
    argv = ["--input", "s3://misi/in/1h1d", "--stage", str(tmp_path / "stage"), "--check"]
    assert main(argv) == 0
    key = "in/1h1d/1h1d_pocket.pdb"
    s3.put_object(Bucket="misi", Key=key, Body=b"not a PDB file\n".ljust(len(files[key]), b" "))
    assert main(argv) == 1  # the new (broken) remote file is the one checked, not the staged old copy
    assert "1h1d" in capsys.readouterr().out


def test_an_unreachable_endpoint_is_one_line_naming_the_url(tmp_path: Path, monkeypatch, capsys):
    pytest.importorskip("s3fs", reason="s3fs is not installed: pip install s3fs")
    import s3fs

    from .conftest import _free_port

    for var, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                       ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_MAX_ATTEMPTS", "1"),
                       ("AWS_ENDPOINT_URL", f"http://127.0.0.1:{_free_port()}")):  # nothing listens there
        monkeypatch.setenv(var, value)
    s3fs.S3FileSystem.clear_instance_cache()
    code = main(["--input", "s3://misi/in", "--out", str(tmp_path / "o"), "--stage", str(tmp_path / "s"), "--quiet"])
    err = capsys.readouterr().err
    s3fs.S3FileSystem.clear_instance_cache()
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("misi-gen: error: s3://misi/in: ") and "connect" in err


def test_the_refusal_of_a_foreign_prefix_says_other_files_are_kept(s3, tmp_path: Path, capsys):
    s3.put_object(Bucket="misi", Key="out/notes.txt", Body=b"mine")
    argv = ["--task", "translation", "--limit", "1", "--size", "64", "--workers", "1", "--quiet",
            "--out", "s3://misi/out", "--stage", str(tmp_path / "stage")]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "other files are kept" in err and "everything" not in err
    assert main([*argv, "--overwrite"]) == 0
    assert s3.get_object(Bucket="misi", Key="out/notes.txt")["Body"].read() == b"mine"


def test_a_plain_rerun_after_a_remote_edit_does_not_report_the_old_dataset_done(s3, tmp_path: Path, capsys):
    files = _upload(s3, "in")
    out, stage = tmp_path / "out", tmp_path / "stage"
    argv = ["--input", "s3://misi/in", "--out", str(out), "--stage", str(stage), "--task", "translation",
            "--split", "test", "--size", "64", "--workers", "1", "--quiet"]
    assert main(argv) == 0
    state = work_dir_for(out) / "state.json"
    first = json.loads(state.read_text())["config"]["input_version"]
    assert main(argv) == 0  # unchanged: resumes, done
    key = "in/1h1d/1h1d_pocket.pdb"
    s3.put_object(Bucket="misi", Key=key, Body=_same_size_edit(files[key]))
    capsys.readouterr()
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "generated with other arguments" in err and "input_version" in err
    assert main([*argv, "--overwrite"]) == 0  # regenerated from the new input
    assert json.loads(state.read_text())["config"]["input_version"] != first
    assert (stage / "input" / "in" / "1h1d" / "1h1d_pocket.pdb").read_bytes() == _same_size_edit(files[key])
