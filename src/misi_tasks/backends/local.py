"""The default backend: this process (one worker) or a pool of spawned processes."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from misi_tasks.backends.base import WORKER_ENV, Backend, BackendError, J, R

__all__ = ["LocalBackend"]


@contextmanager
def _worker_environment():
    """Set :data:`WORKER_ENV` while a pool starts: spawned workers read it at start-up."""
    saved = {k: os.environ.get(k) for k in WORKER_ENV}
    os.environ.update(WORKER_ENV)
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


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

    def map(
        self,
        fn: Callable[[J], R],
        jobs: Sequence[J],
        *,
        setup: Callable[[], Any] | None = None,
        name_of: Callable[[J], str] = repr,
        shared_paths: Sequence[Path] = (),
    ) -> Iterator[R]:
        workers = max(1, min(self.workers, len(jobs)))
        if workers == 1:  # in-process: kernels warm up on first use
            for job in jobs:
                yield fn(job)
            return
        ctx = multiprocessing.get_context("spawn")
        # the pool spawns workers as jobs are submitted, so the environment stays set throughout
        with _worker_environment(), ProcessPoolExecutor(workers, mp_context=ctx, initializer=setup) as pool:
            try:
                yield from pool.map(fn, jobs, chunksize=1)
            except BrokenProcessPool as exc:
                raise BackendError(
                    f"a worker process died ({exc}); what finished jobs wrote is kept: rerun to resume"
                ) from exc
