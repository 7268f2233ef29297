"""The default backend: this process (one worker) or a pool of spawned processes."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Any

from misi_tasks.engine.backends.base import WORKER_ENV, Backend, BackendError, J, R

__all__ = ["LocalBackend"]


class LocalBackend(Backend):
    """Jobs in this process (``workers == 1``) or in a pool of ``workers`` spawned processes.

    Results come back in input order.  Spawn, not fork: the parent may already run numba's OpenMP
    threads, which fork cannot copy.
    """

    name = "local"

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be at least 1, got {workers}")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._saved_env: dict[str, str | None] = {}

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
            yield from pool.map(fn, jobs, chunksize=1)
            done = True
        except BrokenProcessPool as exc:
            raise BackendError(
                f"a worker process died ({exc}); what finished jobs wrote is kept: rerun to resume"
            ) from exc
        finally:
            if not self._entered:
                self.close(interrupted=not done)
