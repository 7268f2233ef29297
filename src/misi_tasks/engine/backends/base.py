"""The backend interface: map a function over jobs, stream back small results."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, TypeVar

__all__ = ["BACKEND_NAMES", "WORKER_ENV", "Backend", "BackendError", "shared_elements"]

J = TypeVar("J")
R = TypeVar("R")

#: Names accepted by ``misi-gen --backend``.
BACKEND_NAMES: tuple[str, ...] = ("local", "ray")

#: One BLAS / OpenMP / numba thread per worker: the backend already spreads jobs over the cores.
WORKER_ENV: dict[str, str] = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "NUMBA_NUM_THREADS": "1"}


def shared_elements(jobs: Sequence[Any]) -> dict[int, Any]:
    """id -> element, for tuple elements that occur (by identity) in more than one job, scalars aside."""
    seen: set[int] = set()
    shared: dict[int, Any] = {}
    for job in jobs:
        if isinstance(job, tuple):
            for x in job:
                if isinstance(x, (str, bytes, int, float, bool, type(None))):
                    continue
                if id(x) in seen:
                    shared[id(x)] = x
                seen.add(id(x))
    return shared


class BackendError(RuntimeError):
    """A job could not be run (its worker kept dying, or it raised); finished jobs' output is kept."""


class Backend(ABC):
    """Runs independent jobs on workers and yields their results as they arrive.

    Used as a context manager, a backend keeps its workers (the local pool, the Ray connection)
    across several :meth:`map` calls and releases them on exit; outside one, each :meth:`map`
    call starts and releases its own.
    """

    #: The name ``misi-gen --backend`` knows this backend by.
    name: str = ""
    #: Inside a ``with`` block: workers stay up between :meth:`map` calls.
    _entered: bool = False

    def __enter__(self) -> "Backend":
        self._entered = True
        return self

    def __exit__(self, exc_type, exc, tb) -> None:
        self._entered = False
        self.close(interrupted=exc_type is not None)

    def close(self, interrupted: bool = False) -> None:
        """Release the workers; ``interrupted``: the run stopped early, do not wait for queued jobs."""

    @abstractmethod
    def map(
        self,
        fn: Callable[[J], R],
        jobs: Sequence[J],
        *,
        setup: Callable[[], Any] | None = None,
        name_of: Callable[[J], str] = repr,
        shared_paths: Sequence[Path] = (),
    ) -> Iterator[R]:
        """Yield ``fn(job)`` once for every job, in an order the caller must not rely on.

        Parameters
        ----------
        fn : callable
            A module-level function (workers import it by name); it must be safe to run twice on
            the same job, since a job whose worker died is run again.  What a worker process
            keeps between its jobs lives in ``fn``'s module, as one named object (for
            ``misi-gen``, :data:`misi_tasks.engine.worker.THIS_PROCESS`).
        jobs : sequence
            The jobs; a job that is a tuple may share elements (by identity) with other jobs (the
            run's configuration, the table of every complex's input), which a backend ships once,
            not with every job (see :func:`shared_elements`).
        setup : callable, optional
            Run once in each worker process before its first job (e.g. warming numba kernels).
        name_of : callable
            Names a job in error messages.
        shared_paths : sequence of Path
            Paths every worker must see (a shared filesystem); a distributed backend checks them
            on the worker before each job.

        Raises
        ------
        BackendError
            When a job could not finish: its worker died (more often than the backend retries)
            or, on a distributed backend, ``fn`` raised.  Output of finished jobs is kept.
        """
