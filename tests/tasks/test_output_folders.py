"""misi-gen's output folder under faults: one run per real folder,
whatever path names it (a symlink, a bind mount); a foreign folder, however big, is refused after one
look at its top level and nothing is created beside it; ``--out /`` is refused in one line."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from misi_geom.samples import sample_root
from misi_tasks.engine.cli import main
from misi_tasks.engine.generate import GenerateConfig, OutputFolderError, generate_dataset
from misi_tasks.engine.units import WorkDir

TASKS = ("translation",)


def _config(inp: Path, out: Path, **kw) -> GenerateConfig:
    return GenerateConfig(**{"input_dir": inp, "out_dir": out, "tasks": TASKS, "split": "test", "seed": 3,
                             "size": 64, "workers": 1, **kw})


@pytest.fixture(scope="module")
def inputs(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("in")
    shutil.copytree(sample_root() / "1h1d", root / "1h1d")
    return root


def test_a_run_through_a_symlink_meets_the_lock_of_the_real_folder(inputs, tmp_path):
    real = tmp_path / "real" / "out"
    real.mkdir(parents=True)
    (tmp_path / "link").symlink_to(real)
    holder = WorkDir(real)
    assert holder.lock()
    try:
        with pytest.raises(OutputFolderError, match="another misi-gen run is writing"):
            generate_dataset(_config(inputs, tmp_path / "link", overwrite=True), progress=False)
    finally:
        holder.unlock()
    assert not (real / "README.md").exists()
    generate_dataset(_config(inputs, tmp_path / "link"), progress=False)  # free again
    assert (real / "README.md").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link", "real"]  # one work folder, beside the real one


def test_the_folder_itself_is_locked_so_a_bind_mount_shares_the_lock(inputs, tmp_path):
    real, mount = tmp_path / "gpfs" / "out", tmp_path / "scratch" / "out"
    real.mkdir(parents=True)
    mount.mkdir(parents=True)
    if subprocess.run(["mount", "--bind", str(real), str(mount)], capture_output=True).returncode != 0:
        pytest.skip("bind mounts need root (mount --bind)")
    try:
        assert os.path.realpath(mount) != os.path.realpath(real) and os.path.samefile(mount, real)
        holder = WorkDir(real)
        assert holder.lock()
        try:
            with pytest.raises(OutputFolderError, match="another misi-gen run is writing"):
                generate_dataset(_config(inputs, mount, overwrite=True), progress=False)
        finally:
            holder.unlock()
    finally:
        subprocess.run(["umount", str(mount)], check=True)


def test_a_big_foreign_folder_is_refused_after_a_look_at_its_top_level(inputs, tmp_path, monkeypatch):
    home = tmp_path / "home"
    deep = home / "projects"
    for k in range(30):
        (deep / f"p{k}" / "src").mkdir(parents=True)
        (deep / f"p{k}" / "src" / "x.py").write_text("x = 1\n")
    (home / "data" / "mine").mkdir(parents=True)  # a "data" folder that is not a dataset's
    listed: list[str] = []
    for name in ("scandir", "listdir"):
        real = getattr(os, name)
        monkeypatch.setattr(os, name, lambda p=".", _real=real: (listed.append(os.fspath(p)), _real(p))[1])
    with pytest.raises(OutputFolderError, match="misi-gen did not write it"):
        generate_dataset(_config(inputs, home, overwrite=False), progress=False)
    monkeypatch.undo()
    assert not [p for p in listed if p.startswith(str(deep)) or p.startswith(str(home / "data" / "mine"))]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]  # no lock folder left beside it


def test_the_root_folder_is_refused_in_one_line_and_nothing_is_created(inputs, capsys):
    before = set(os.listdir("/"))
    assert main(["--input", str(inputs), "--out", "/", "--task", "translation", "--quiet", "--overwrite"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "/: is the root folder" in err
    assert set(os.listdir("/")) == before


def test_two_runs_started_together_through_two_paths_never_both_own_the_folder(inputs, tmp_path):
    """Whatever the interleaving: a run that says it succeeded left its whole dataset there, and a run
    that did not was refused by the lock in one line (never a traceback, never a half dataset)."""
    import sys

    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[2] / "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    procs = [subprocess.Popen([sys.executable, "-m", "misi_tasks.engine.cli", "--input", str(inputs), "--out",
                               str(out), "--task", "translation", "--size", "64", "--workers", "1", "--quiet",
                               "--overwrite"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for out in (real, tmp_path / "link")]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in procs]
    assert any(code == 0 for code, _ in results)
    for code, err in results:
        assert "Traceback" not in err
        if code != 0:
            assert code == 2 and "another misi-gen run is writing this folder" in err and err.count("\n") == 1
    assert (real / "README.md").is_file() and len(list((real / "data" / "translation").glob("*.parquet"))) == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == [".real.misi-gen", "link", "real"]
