"""The default backend: this process (one worker) or a pool of worker processes, forked from this
process where that is safe (:func:`start_method`), else spawned."""

from __future__ import annotations

import functools
import multiprocessing
import os
import pickle
import shutil
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from misi_tasks.engine.backends.base import WORKER_ENV, Backend, BackendError, J, R, shared_elements

__all__ = ["LocalBackend", "START_METHODS", "start_method"]

#: How the pool starts its workers: ``"auto"`` (fork where :func:`start_method` finds it safe, else
#: spawn), or always ``"fork"`` / ``"spawn"``.
START_METHODS: tuple[str, ...] = ("auto", "fork", "spawn")

#: In a worker: the shared job elements loaded so far, by file (the last few maps' only).
_SHARED: dict[str, Any] = {}
_SHARED_KEPT = 8


@dataclass(frozen=True)
class _SharedRef:
    """Stands in a job for an element that jobs share: the file the driver pickled it to, once."""

    path: str


def _load_shared(ref: _SharedRef) -> Any:
    if ref.path not in _SHARED:
        if len(_SHARED) >= _SHARED_KEPT:
            _SHARED.pop(next(iter(_SHARED)))
        with open(ref.path, "rb") as fh:
            _SHARED[ref.path] = pickle.load(fh)
    return _SHARED[ref.path]


def _run_job(fn: Callable[[J], R], job: Any) -> R:
    """One job in a worker, its shared elements loaded once per worker process."""
    if isinstance(job, tuple):
        job = tuple(_load_shared(x) if isinstance(x, _SharedRef) else x for x in job)
    return fn(job)


def _numba_threads_started() -> bool:
    """Whether this process has started numba's threading layer (a ``parallel=True`` kernel ran)."""
    parallel = sys.modules.get("numba.np.ufunc.parallel")
    if parallel is None:
        return False
    return bool(getattr(parallel, "_is_initialized", True))  # unknown numba: assume started


def _only_quiet_threads() -> bool:
    """Whether every thread but this one is tqdm's monitor (it only sleeps, and a worker never uses
    tqdm): then no lock a worker needs can be held at the fork."""
    me = threading.current_thread()
    return all(t is me or type(t).__name__ == "TMonitor" for t in threading.enumerate())


def start_method(requested: str = "auto") -> str:
    """``"fork"`` or ``"spawn"``: how a pool started now starts its workers.

    ``"auto"`` forks when this is Linux, no other thread runs (tqdm's monitor aside), numba's
    threading layer has not started (its OpenMP / TBB threads cannot be copied by fork) and the
    workers will not start it (``MISI_RENDER_PARALLEL=1``: numba reads its thread count for the
    workers, :data:`WORKER_ENV`, when it is imported); otherwise it spawns.  A forked worker starts with this process's imports (numpy, numba, scipy, misi),
    which a spawned one pays for again: about 1.7 s of CPU per worker on the 2-core machine
    (``docs/performance.md``, "Worker start-up").  What a job produces does not depend on it.
    """
    if requested not in START_METHODS:
        raise ValueError(f"start method must be one of {', '.join(START_METHODS)}, got {requested!r}")
    if requested != "auto":
        return requested
    if (sys.platform.startswith("linux") and "fork" in multiprocessing.get_all_start_methods()
            and _only_quiet_threads() and not _numba_threads_started()
            and os.environ.get("MISI_RENDER_PARALLEL", "0") != "1"):
        return "fork"
    return "spawn"


class LocalBackend(Backend):
    """Jobs in this process (``workers == 1``) or in a pool of ``workers`` worker processes.

    Results come back in input order.  Workers are forked from this process where that is safe
    and spawned otherwise (``start``, see :func:`start_method`): fork cannot copy numba's OpenMP
    threads, or locks other threads hold.  Elements that tuple jobs share (:func:`shared_elements`) are
    pickled once to a temporary folder and loaded once per worker: sent with every job, the table
    of a PDBbind-sized run's inputs (19K complexes) would cost ~30 ms to pickle and ~140 ms to
    unpickle per job.
    """

    name = "local"

    def __init__(self, workers: int = 1, start: str = "auto") -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        if start not in START_METHODS:
            raise ValueError(f"start must be one of {', '.join(START_METHODS)}, got {start!r}")
        self.workers = workers
        self.start = start
        #: how the running pool started its workers (``"fork"`` or ``"spawn"``), None before it starts
        self.started_by: str | None = None
        self._pool: ProcessPoolExecutor | None = None
        self._saved_env: dict[str, str | None] = {}
        self._shared_dir: str | None = None
        self._n_shared = 0

    def _start(self, setup: Callable[[], Any] | None) -> ProcessPoolExecutor:
        """The pool, started on first use with ``setup`` as every worker's initializer.

        When the workers are forked, ``setup.before_fork`` (if ``setup`` has one) runs first, once,
        in this process: work every worker would otherwise repeat, such as loading numba kernels,
        which the forked workers then inherit.

        A spawning pool starts workers as jobs are submitted, so :data:`WORKER_ENV` stays set until
        :meth:`close`; a forking pool starts them all at its first job.
        """
        if self._pool is None:
            self._saved_env = {k: os.environ.get(k) for k in WORKER_ENV}
            os.environ.update(WORKER_ENV)
            self.started_by = start_method(self.start)
            before_fork = getattr(setup, "before_fork", None)
            if self.started_by == "fork" and before_fork is not None:
                before_fork()  # once here instead of once in every worker
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context(self.started_by),
                                             initializer=setup)
        return self._pool

    def close(self, interrupted: bool = False) -> None:
        if self._pool is None:
            return
        pool, self._pool = self._pool, None
        try:
            # interrupted (Ctrl-C, an error): stop now; what finished jobs wrote stays on disk
            pool.shutdown(wait=not interrupted, cancel_futures=interrupted)
        finally:
            for k, v in self._saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
            if self._shared_dir is not None:
                shutil.rmtree(self._shared_dir, ignore_errors=True)
                self._shared_dir = None

    def _ship_shared(self, jobs: Sequence[J]) -> list:
        """The jobs with their shared elements replaced by :class:`_SharedRef` (each pickled once)."""
        shared = shared_elements(jobs)
        if not shared:
            return list(jobs)
        if self._shared_dir is None:
            self._shared_dir = tempfile.mkdtemp(prefix="misi-shared-")
        refs = {}
        for i, x in shared.items():
            self._n_shared += 1
            path = os.path.join(self._shared_dir, f"{self._n_shared}.pkl")
            with open(path, "wb") as fh:
                pickle.dump(x, fh, protocol=pickle.HIGHEST_PROTOCOL)
            refs[i] = _SharedRef(path)
        return [tuple(refs.get(id(x), x) for x in job) if isinstance(job, tuple) else job for job in jobs]

    def map(
        self,
        fn: Callable[[J], R],
        jobs: Sequence[J],
        *,
        setup: Callable[[], Any] | None = None,
        name_of: Callable[[J], str] = repr,
        shared_paths: Sequence[Path] = (),
    ) -> Iterator[R]:
        if self.workers == 1 or (len(jobs) <= 1 and self._pool is None):  # in-process: kernels warm up on first use
            for job in jobs:
                yield fn(job)
            return
        pool = self._start(setup)
        done = False
        try:
            yield from pool.map(functools.partial(_run_job, fn), self._ship_shared(jobs), chunksize=1)
            done = True
        except BrokenProcessPool as exc:
            raise BackendError(
                f"a worker process died ({exc}); what finished jobs wrote is kept: rerun to resume"
            ) from exc
        finally:
            if not self._entered:
                self.close(interrupted=not done)
