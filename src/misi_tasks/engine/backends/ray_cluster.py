"""The Ray backend: jobs as Ray tasks on a laptop, a Ray cluster or Ray inside a SLURM allocation.

Each job is one Ray task (1 CPU).  Elements that jobs share by identity (the run's configuration,
the table of complex folders) are put in the object store once and passed by reference.  The
driver keeps at most a window of tasks in flight and holds only their small results; what a job
writes goes straight to the shared filesystem.  A task whose worker process or node dies is run
again by Ray (``max_retries``); since a job skips work already on disk and writes atomically, the
rerun finishes it exactly as a local rerun would (even if a node declared dead still runs it: both
write the same bytes, each through its own temporary file).

Ray is imported when a :class:`RayBackend` starts mapping, never when this module is imported.
"""

from __future__ import annotations

import logging
import os
import socket
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from misi_tasks.engine.backends.base import WORKER_ENV, Backend, BackendError, J, R, shared_elements

__all__ = ["RayBackend"]

#: Tasks in flight per cluster CPU (and at least :data:`_MIN_WINDOW`), so an autoscaler sees demand.
_TASKS_PER_CPU = 4
_MIN_WINDOW = 64

#: Ray Client's proxy forks a server per client; the child sometimes dies at once (a gRPC fork
#: check, seen about once in ten test-suite runs on a loaded 2-core machine) and ``ray.init``
#: fails with this text.  The connection is then tried again, up to this many times in all.
_CLIENT_START_FAILURE = "Initialization failure from server"
_CLIENT_ATTEMPTS = 3
_READY: set[str] = set()  # setup functions already run in this worker process


def _run_job(fn: Callable, setup: Callable | None, shared_paths: tuple[str, ...], is_tuple: bool,
             *parts: Any) -> Any:
    """Body of one Ray task: check the shared filesystem, warm the worker once, run ``fn``."""
    for path in shared_paths:
        if not os.path.exists(path):
            raise BackendError(
                f"worker on {socket.gethostname()} cannot see {path}: input and output must be on a "
                "filesystem that every Ray node mounts at the same path"
            )
    if setup is not None:
        key = f"{setup.__module__}.{setup.__qualname__}"
        if key not in _READY:
            setup()
            _READY.add(key)
    return fn(tuple(parts) if is_tuple else parts[0])


class RayBackend(Backend):
    """Jobs as Ray tasks.

    Parameters
    ----------
    address : str, optional
        ``"auto"`` (a cluster started with ``ray start`` on this machine, or ``RAY_ADDRESS``),
        ``"ray://host:10001"`` (Ray Client), a GCS ``host:port``, or None: connect to
        ``RAY_ADDRESS`` if set, else start a Ray instance on this machine with ``num_cpus`` CPUs.
        If this process already called ``ray.init``, that Ray is used as it is.
    num_cpus : int, optional
        CPUs of a Ray instance started here (ignored when connecting to a cluster).
    max_retries : int
        How often a task whose worker or node died is run again before the run stops.
    """

    name = "ray"

    def __init__(self, address: str | None = None, num_cpus: int | None = None, max_retries: int = 3) -> None:
        self.address = address
        self.num_cpus = num_cpus
        self.max_retries = max_retries
        self._started = False  # this backend started the Ray instance it uses (and stops it in close)

    def _connect(self):
        """Import Ray and connect; returns (ray module, whether this call started Ray)."""
        try:
            import ray
        except ImportError as exc:
            raise BackendError('--backend ray needs Ray: pip install "misi[ray]"') from exc
        if ray.is_initialized():
            return ray, False  # ours from an earlier map of this run, or the caller's own ray.init
        kwargs: dict[str, Any] = {"logging_level": logging.WARNING}
        address = self.address
        if address is None and not os.environ.get("RAY_ADDRESS"):
            # "local": a new instance even if `ray start` runs here (that one is --ray-address auto)
            address = "local"
            kwargs.update(num_cpus=self.num_cpus, include_dashboard=False)
        client = str(address or os.environ.get("RAY_ADDRESS", "")).startswith("ray://")
        attempt = 1
        while True:
            try:
                ray.init(address=address, **kwargs)
                return ray, True
            except (ConnectionError, ValueError, RuntimeError) as exc:
                if not (client and _CLIENT_START_FAILURE in str(exc) and attempt < _CLIENT_ATTEMPTS):
                    raise BackendError(f"cannot connect to Ray at {self.address or 'a new local instance'}: {exc}") from exc
            ray.shutdown()  # drop the half-made client connection before trying again
            time.sleep(attempt)
            attempt += 1

    def map(
        self,
        fn: Callable[[J], R],
        jobs: Sequence[J],
        *,
        setup: Callable[[], Any] | None = None,
        name_of: Callable[[J], str] = repr,
        shared_paths: Sequence[Path] = (),
    ) -> Iterator[R]:
        if not jobs:
            return
        ray, started = self._connect()
        self._started = self._started or started
        pending: dict[Any, int] = {}  # object ref -> job index
        try:
            task = ray.remote(_run_job).options(
                num_cpus=1, max_retries=self.max_retries, retry_exceptions=False,
                runtime_env={"env_vars": dict(WORKER_ENV)},
            )
            refs = {i: ray.put(x) for i, x in shared_elements(jobs).items()}
            paths = tuple(str(p) for p in shared_paths)
            cpus = int(ray.cluster_resources().get("CPU", 1))
            window = max(_MIN_WINDOW, _TASKS_PER_CPU * cpus)
            for k, job in enumerate(jobs):
                if isinstance(job, tuple):
                    parts = [refs.get(id(x), x) for x in job]
                    pending[task.remote(fn, setup, paths, True, *parts)] = k
                else:
                    pending[task.remote(fn, setup, paths, False, job)] = k
                while len(pending) >= window:
                    yield from self._collect(ray, pending, jobs, name_of)
            while pending:
                yield from self._collect(ray, pending, jobs, name_of)
        finally:
            for ref in pending:  # the run stopped early: do not leave tasks writing behind us
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # noqa: BLE001 - already finished or unreachable; keep the first error
                    pass
            if not self._entered:
                self.close()

    def close(self, interrupted: bool = False) -> None:
        """Stop the Ray instance this backend started (a cluster it connected to stays up)."""
        if self._started:
            import ray

            self._started = False
            ray.shutdown()

    def _collect(self, ray, pending: dict, jobs: Sequence, name_of: Callable) -> list:
        """Wait for at least one task, then take every finished one out of ``pending``; their results."""
        refs = list(pending)
        ray.wait(refs, num_returns=1, fetch_local=False)
        done, _ = ray.wait(refs, num_returns=len(refs), timeout=0)  # one call per batch, not per task
        return [self._result(ray, ref, pending.pop(ref), jobs, name_of) for ref in done]

    def _result(self, ray, done, k: int, jobs: Sequence, name_of: Callable) -> Any:
        """The result of finished task ``done`` (job ``k``), or a :class:`BackendError`."""
        try:
            return ray.get(done)
        except ray.exceptions.RayTaskError as exc:
            cause = exc.cause if isinstance(exc.cause, BaseException) else exc
            if isinstance(cause, BackendError):
                raise BackendError(str(cause)) from exc
            raise BackendError(f"job {name_of(jobs[k])} raised {type(cause).__name__}: {cause}") from exc
        except ray.exceptions.RayError as exc:  # worker or node died more than max_retries times
            raise BackendError(
                f"job {name_of(jobs[k])} failed after {self.max_retries} retries: {type(exc).__name__}: "
                f"{str(exc).splitlines()[0] if str(exc) else ''}; what finished jobs wrote is kept: rerun to resume"
            ) from exc
