"""The default backend: this process (one worker) or a pool of spawned processes."""

from __future__ import annotations

import functools
import multiprocessing
import os
import pickle
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from misi_tasks.engine.backends.base import WORKER_ENV, Backend, BackendError, J, R, shared_elements

__all__ = ["LocalBackend"]

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


class LocalBackend(Backend):
    """Jobs in this process (``workers == 1``) or in a pool of ``workers`` spawned processes.

    Results come back in input order.  Spawn, not fork: the parent may already run numba's OpenMP
    threads, which fork cannot copy.  Elements that tuple jobs share (:func:`shared_elements`) are
    pickled once to a temporary folder and loaded once per worker: sent with every job, the table
    of a PDBbind-sized run's inputs (19K complexes) would cost ~30 ms to pickle and ~140 ms to
    unpickle per job.
    """

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._saved_env: dict[str, str | None] = {}
        self._shared_dir: str | None = None
        self._n_shared = 0

    def _start(self, setup: Callable[[], Any] | None) -> ProcessPoolExecutor:
        """The pool, started on first use with ``setup`` as every worker's initializer.

        The pool spawns workers as jobs are submitted, so :data:`WORKER_ENV` stays set until
        :meth:`close`.
        """
        if self._pool is None:
            self._saved_env = {k: os.environ.get(k) for k in WORKER_ENV}
            os.environ.update(WORKER_ENV)
            self._pool = ProcessPoolExecutor(self.workers, mp_context=multiprocessing.get_context("spawn"),
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
