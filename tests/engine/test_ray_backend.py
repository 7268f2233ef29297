"""The Ray backend against the local one: same bytes, on a Ray started by the test, after a killed
worker, after a crash (rerun resumes), and with the job's shared elements shipped once.

Skipped when Ray is not installed (``pip install "misi[ray]"``).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

ray = pytest.importorskip("ray", reason='Ray is not installed: pip install "misi[ray]" to run the Ray backend tests')

from misi_tasks.engine.backends import BackendError, RayBackend  # noqa: E402
from misi_tasks.engine.backends.base import shared_elements  # noqa: E402
from misi_tasks.engine.generate import generate_dataset  # noqa: E402

from .conftest import descendants, digest, small_config  # noqa: E402


@pytest.fixture(scope="module")
def ray_cluster():
    """A fresh two-CPU Ray on this machine, for the whole module."""
    ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level="WARNING")
    yield
    ray.shutdown()


def _kill_a_running_job(out: Path, stop: threading.Event, killed: list[int]) -> None:
    """Once a group's shards are being written, SIGKILL a Ray worker running a job (its title is
    ``ray::_run_job``)."""
    while not stop.is_set() and not killed:
        if not any((out / "data").rglob(".*.tmp")):
            time.sleep(0.02)
            continue
        for pid, cmd in descendants(os.getpid()).items():
            if cmd.startswith("ray::_run_job"):
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
                return
        time.sleep(0.05)


def test_ray_run_is_byte_identical_to_local(ray_cluster, local_reference, tmp_path):
    out = tmp_path / "ray"
    summary = generate_dataset(small_config(out, backend="ray", workers=2), progress=False)
    assert digest(out) == local_reference
    assert summary.complexes == 5 and not summary.failed_complexes


def test_a_worker_killed_mid_run_is_retried_and_the_bytes_do_not_change(ray_cluster, local_reference, tmp_path):
    out = tmp_path / "ray-killed"
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_running_job, args=(out, stop, killed))
    killer.start()
    try:
        generate_dataset(small_config(out, backend="ray"), progress=False)
    finally:
        stop.set()
        killer.join()
    assert killed, "no Ray worker was seen running a job"
    assert digest(out) == local_reference


def test_a_run_stopped_by_a_dead_worker_resumes_identically(ray_cluster, local_reference, tmp_path, monkeypatch):
    """Without retries the killed job stops the run (like a crash); the rerun finishes the rest."""
    import misi_tasks.engine.generate as generate

    out = tmp_path / "ray-crash"
    monkeypatch.setattr(generate, "make_backend", lambda *a, **kw: RayBackend(max_retries=0))
    stop, killed = threading.Event(), []
    killer = threading.Thread(target=_kill_a_running_job, args=(out, stop, killed))
    killer.start()
    try:
        with pytest.raises(BackendError,
                           match=r"group test-0000\d-of-00003 \(.*\) failed after 0 retries.*rerun to resume"):
            generate_dataset(small_config(out, backend="ray"), progress=False)
    finally:
        stop.set()
        killer.join()
    assert killed
    kept = len(list((out / "data").rglob("*.parquet")))  # groups that finished keep their shards; the killed
    # group's temporary files are removed by the rerun (the digest below sees every file of OUT)
    monkeypatch.undo()
    summary = generate_dataset(small_config(out, backend="ray"), progress=False)
    assert digest(out) == local_reference
    assert summary.shards_skipped + len(summary.shards) == 9 and summary.shards_skipped <= kept


def test_units_on_a_filesystem_workers_cannot_see_fail_clearly(ray_cluster, tmp_path):
    jobs = [(1, "a"), (2, "b")]
    with pytest.raises(BackendError, match="cannot see .*nowhere.*every Ray node mounts"):
        list(RayBackend().map(len, jobs, shared_paths=[tmp_path / "nowhere"]))


def test_shared_job_elements_are_shipped_once_and_results_all_come_back(ray_cluster):
    table = {f"c{k}": k for k in range(1000)}  # shared by identity between all jobs
    jobs = [(table, f"c{k}") for k in range(200)]
    assert shared_elements(jobs) == {id(table): table}
    results = sorted(RayBackend().map(_lookup, jobs))
    assert results == list(range(200))


def test_a_job_that_raises_names_the_job(ray_cluster):
    with pytest.raises(BackendError, match="job 'x' raised TypeError"):
        list(RayBackend().map(abs, ["x"], name_of=str.__repr__))


def _lookup(job):
    table, key = job
    return table[key]


def test_each_worker_runs_setup_once_before_its_first_job(ray_cluster):
    results = list(RayBackend().map(_setups_seen, list(range(40)), setup=_count_setup))
    assert len(results) == 40
    assert {count for _pid, count in results} == {1}
    assert len({pid for pid, _count in results}) <= 4  # a few long-lived workers, not one per job


_SETUPS = [0]


def _count_setup():
    _SETUPS[0] += 1


def _setups_seen(_job):
    return os.getpid(), _SETUPS[0]


def _fake_init(failures: list[str], calls: list[str]):
    """A ray.init that raises ConnectionError(text) for each of ``failures``, then succeeds."""
    def init(address=None, **kwargs):
        calls.append(address)
        if failures:
            raise ConnectionError(failures.pop(0))
    return init


def test_a_ray_client_whose_server_fails_to_start_is_tried_again(monkeypatch):
    """Ray Client's proxy sometimes loses the per-client server it forks (Ray's gRPC fork check):
    the connection is tried again rather than failing the run."""
    from misi_tasks.engine.backends import ray_cluster

    calls: list[str] = []
    failure = "Initialization failure from server:\npsutil.ZombieProcess: PID still exists but it's a zombie"
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", _fake_init([failure, failure], calls))
    monkeypatch.setattr(ray, "shutdown", lambda: None)
    monkeypatch.setattr(ray_cluster.time, "sleep", lambda s: None)
    assert RayBackend(address="ray://127.0.0.1:1")._connect() == (ray, True)
    assert calls == ["ray://127.0.0.1:1"] * 3
    calls.clear()
    monkeypatch.setattr(ray, "init", _fake_init([failure] * 3, calls))
    with pytest.raises(BackendError, match="cannot connect to Ray at ray://127.0.0.1:1: Initialization failure"):
        RayBackend(address="ray://127.0.0.1:1")._connect()
    assert len(calls) == 3  # then it gives up, with Ray's message


def test_other_connection_failures_are_not_retried(monkeypatch):
    calls: list[str] = []
    monkeypatch.setattr(ray, "is_initialized", lambda: False)
    monkeypatch.setattr(ray, "init", _fake_init(["Initialization failure from server: x"], calls))
    with pytest.raises(BackendError, match="cannot connect"):
        RayBackend(address="127.0.0.1:6379")._connect()  # not a Ray Client address
    monkeypatch.setattr(ray, "init", _fake_init(["Failed to connect to GCS"], calls))
    with pytest.raises(BackendError, match="Failed to connect to GCS"):
        RayBackend(address="ray://127.0.0.1:1")._connect()
    assert len(calls) == 2
