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


#: set by _setup_in_parent in the driver; a forked worker sees the driver's value
_PARENT_STATE: dict[str, int] = {}


def _noop_setup() -> None:
    """A worker initializer whose ``before_fork`` records that it ran, and in which process."""


def _record_parent() -> None:
    _PARENT_STATE["pid"] = os.getpid()
    _PARENT_STATE["calls"] = _PARENT_STATE.get("calls", 0) + 1


_noop_setup.before_fork = _record_parent  # type: ignore[attr-defined]


def _inherited_pid(_job: int) -> int:
    return _PARENT_STATE.get("pid", -1)


@pytest.mark.parametrize("start", ["fork", "spawn"])
def test_before_fork_runs_once_in_the_driver_and_only_for_forked_workers(start, monkeypatch):
    if start == "fork" and sys.platform != "linux":
        pytest.skip("fork is used on Linux only")
    monkeypatch.setattr(sys.modules[__name__], "_PARENT_STATE", {})
    backend = LocalBackend(2, start=start)
    with backend:
        seen = set(backend.map(_inherited_pid, range(6), setup=_noop_setup))
    assert backend.started_by == start
    if start == "fork":  # run here, once; the workers inherit what it did
        assert _PARENT_STATE == {"pid": os.getpid(), "calls": 1} and seen == {os.getpid()}
    else:
        assert _PARENT_STATE == {} and seen == {-1}


@pytest.mark.skipif(sys.platform != "linux", reason="fork is chosen on Linux only")
def test_auto_forks_only_when_no_other_thread_runs_and_no_parallel_kernels(monkeypatch):
    import threading

    from misi_tasks.engine.backends.local import start_method

    monkeypatch.delenv("MISI_RENDER_PARALLEL", raising=False)
    assert start_method() == "fork"
    assert start_method("spawn") == "spawn"
    monkeypatch.setenv("MISI_RENDER_PARALLEL", "1")  # the workers would start numba's threads
    assert start_method() == "spawn"
    monkeypatch.delenv("MISI_RENDER_PARALLEL")
    stop = threading.Event()
    other = threading.Thread(target=stop.wait, daemon=True)  # may hold a lock a worker needs
    other.start()
    try:
        assert start_method() == "spawn"
    finally:
        stop.set()
        other.join()
    assert start_method() == "fork"
    with pytest.raises(ValueError, match="start method must be one of auto, fork, spawn"):
        start_method("forkserver")
    with pytest.raises(ValueError, match="start must be one of"):
        LocalBackend(2, start="threads")


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


def _blas_threads(_job: int) -> int:
    from threadpoolctl import threadpool_info

    return max(lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas")


@pytest.mark.skipif(sys.platform != "linux", reason="fork is used on Linux only")
def test_forked_misi_workers_use_one_blas_thread_whatever_the_driver_has():
    from threadpoolctl import threadpool_limits

    from misi_tasks.engine.worker import init_worker

    with threadpool_limits(limits=3, user_api="blas"):  # the driver's OpenBLAS, read when numpy loaded
        assert _blas_threads(0) == 3
        with LocalBackend(2, start="fork") as backend:
            plain = set(backend.map(_blas_threads, range(2)))
        with LocalBackend(2, start="fork") as backend:
            misi = set(backend.map(_blas_threads, range(4), setup=init_worker))
    assert plain == {3}  # the environment the backend sets does not reach a forked worker's OpenBLAS
    assert misi == {1}


def test_misi_gen_starts_numpy_with_one_blas_thread_unless_told_otherwise():
    code = ("from misi_tasks.engine import cli\n"
            "try:\n    cli.main(['--version'])\nexcept SystemExit:\n    pass\n"
            "import numpy\nfrom threadpoolctl import threadpool_info\n"
            "print(max(lib['num_threads'] for lib in threadpool_info() if lib['user_api'] == 'blas'))\n")
    env = {k: v for k, v in os.environ.items() if k not in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS")}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "1"
    env["OPENBLAS_NUM_THREADS"] = "2"  # the user's choice stands
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True).stdout
    assert out.split()[-1] == "2"
