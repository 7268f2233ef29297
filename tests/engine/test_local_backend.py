"""The backend seam: the local backend, its errors, and that nothing imports Ray unless asked."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from misi_tasks.engine.backends import BACKEND_NAMES, BackendError, LocalBackend, make_backend

SRC = Path(__file__).resolve().parents[2] / "src"


@pytest.mark.parametrize("workers", [1, 2])
def test_local_backend_yields_every_result_once(workers):
    jobs = [-5, 3, -1, 0, 8]
    assert sorted(LocalBackend(workers).map(abs, jobs)) == [0, 1, 3, 5, 8]


def test_shared_job_elements_are_pickled_once_and_reach_every_job():
    import operator

    table = {f"c{k}": k for k in range(1000)}  # shared by identity between all jobs
    jobs = [(k, table, f"c{k}") for k in range(40)]
    backend = LocalBackend(2)
    with backend:
        assert list(backend.map(operator.itemgetter(1), jobs)) == [table] * 40  # in input order
        assert list(backend.map(operator.itemgetter(0), jobs)) == list(range(40))
        folder = Path(backend._shared_dir)
        assert sorted(os.listdir(folder)) == ["1.pkl", "2.pkl"]  # once per map, not per job
    assert not folder.exists()


def test_a_dead_local_worker_is_a_backend_error():
    with pytest.raises(BackendError, match="rerun to resume"):
        list(LocalBackend(2).map(os._exit, [3, 3]))  # the worker process exits mid-job


@pytest.mark.parametrize(
    "name, address, message",
    [("slurm", None, "unknown backend 'slurm'; valid: local, ray"), ("local", "auto", "--ray-address needs --backend ray")],
)
def test_make_backend_rejects_bad_choices(name, address, message):
    with pytest.raises(ValueError, match=message):
        make_backend(name, ray_address=address)
    assert BACKEND_NAMES == ("local", "ray")


def test_a_local_run_never_imports_ray(tmp_path):
    """The default path imports no Ray, even where Ray is installed (a subprocess has clean modules)."""
    code = (
        "import sys; from misi_tasks.engine.cli import main; "
        f"rc = main(['--task', 'T1', '--limit', '1', '--size', '64', '--workers', '1', '--quiet', '--out', {str(tmp_path / 'o')!r}]); "
        "import misi_tasks.engine.backends, misi_tasks.engine.generate; "
        "assert rc == 0, rc; "
        "print('ray' in sys.modules, any(m.startswith('ray.') for m in sys.modules))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")])}
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().splitlines()[-1] == "False False"


def test_cli_rejects_ray_address_without_the_ray_backend(capsys):
    from misi_tasks.engine.cli import main

    with pytest.raises(SystemExit) as exc:
        main(["--task", "T1", "--out", "x", "--ray-address", "auto"])
    assert exc.value.code == 2
    assert "--ray-address needs --backend ray" in capsys.readouterr().err


def test_without_ray_the_ray_backend_says_how_to_install_it(monkeypatch, capsys):
    import importlib.util

    from misi_tasks.engine.backends import RayBackend
    from misi_tasks.engine.cli import main

    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` now fails as if Ray were not installed
    with pytest.raises(BackendError, match=r'pip install "misi\[ray\]"'):
        list(RayBackend().map(abs, [1]))
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real_find_spec(name, *a))
    with pytest.raises(SystemExit) as exc:
        main(["--task", "T1", "--out", "x", "--backend", "ray"])
    assert exc.value.code == 2
    assert '--backend ray needs Ray: pip install "misi[ray]"' in capsys.readouterr().err
