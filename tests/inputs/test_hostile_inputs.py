"""Hostile inputs that must give one line naming the file and saying why: a YAML
manifest nested 5,000 deep, a manifest that is not UTF-8, ``/dev/null`` as a ligand, a full disk."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from misi_geom.samples import sample_root
from misi_tasks.engine.cli import main


def _one_error_line(capsys) -> str:
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_yaml_manifest_nested_5000_deep_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.yaml"
    path.write_text("- " * 5000 + "x\n")
    assert main(["--input", str(path), "--check"]) == 2
    assert f"{path}: not a manifest (YAML nested too deeply)" in _one_error_line(capsys)


def test_a_manifest_that_is_not_utf8_is_one_line_naming_the_line(tmp_path, capsys):
    path = tmp_path / "m.csv"
    path.write_bytes(b"id,ligand\ncaf\xe9,x.sdf\n")
    assert main(["--input", str(path), "--check"]) == 2
    assert f"{path}: manifest is not UTF-8 text (line 2, byte 0xe9)" in _one_error_line(capsys)


def test_dev_null_as_a_ligand_is_not_a_regular_file(tmp_path, capsys):
    shutil.copy(sample_root() / "2pyy" / "2pyy_pocket.pdb", tmp_path / "e.pdb")
    assert main(["--input", str(tmp_path / "e.pdb"), "--ligand", "/dev/null", "--check"]) == 1
    out = capsys.readouterr().out
    assert "/dev/null: is not a regular file (a device, pipe or socket)" in out and "file not found" not in out


@pytest.fixture
def small_disk(tmp_path):
    """A 300 kB tmpfs: a full disk for real (needs root's mount; skipped otherwise)."""
    mnt = tmp_path / "disk"
    mnt.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=300k", "tmpfs", str(mnt)],
                      capture_output=True).returncode != 0:
        pytest.skip("a small file system needs root (mount -t tmpfs)")
    yield mnt
    subprocess.run(["umount", str(mnt)], check=True)


def test_a_full_disk_is_one_line_naming_the_file_and_saying_what_to_do(small_disk, capsys):
    argv = ["--out", str(small_disk / "out"), "--task", "translation", "--size", "128", "--workers", "1", "--quiet"]
    assert main(argv) == 2
    err = _one_error_line(capsys)
    assert f"misi-gen: error: {small_disk}/" in err and "no space left on the device" in err
    assert "run the same command again" in err


def test_check_shows_progress_on_stderr_and_the_table_on_stdout(tmp_path, capsys):
    shutil.copy(sample_root() / "2pyy" / "2pyy_pocket.pdb", tmp_path / "e.pdb")
    pose = (sample_root() / "2pyy" / "2pyy_ligand.sdf").read_text()
    (tmp_path / "poses.sdf").write_text(pose * 30)
    argv = ["--input", str(tmp_path / "e.pdb"), "--ligand", str(tmp_path / "poses.sdf"), "--check"]
    assert main(argv) == 0
    out, err = capsys.readouterr()
    assert "checking" in err and "30/30" in err and "checking" not in out
    assert out.splitlines()[-1] == "30 complexes: 30 ok, 0 with errors"
    assert main([*argv, "--quiet"]) == 0
    assert capsys.readouterr().err == ""
