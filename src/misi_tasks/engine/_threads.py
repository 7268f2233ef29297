"""BLAS threads of misi-gen's processes: one each.

misi multiplies only small matrices (a complex's atoms by three), which OpenBLAS never splits over
threads, so its extra threads only spin after each product (perf: ``blas_thread_server``, ~0.6 %
of a run's CPU in the driver alone) and compete with the workers for the cores.  A run's backend
already spreads jobs over the cores, one worker each.  Nothing drawn or written depends on the
count (``benchmarks/golden_hash.py --compare``).
"""

from __future__ import annotations

import os
import sys

__all__ = ["blas_threads_by_default", "one_blas_thread"]


def blas_threads_by_default() -> bool:
    """One OpenBLAS thread for this process and the processes it starts (``OPENBLAS_NUM_THREADS=1``)
    unless the environment says otherwise; ``True`` when it applies to this process.

    OpenBLAS reads the variable when numpy loads, so ``misi-gen`` calls this first (as it chooses
    Arrow's pool, :func:`~misi_tasks.engine._malloc.arrow_uses_malloc`); later it only sets the
    variable for child processes.
    """
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    return os.environ["OPENBLAS_NUM_THREADS"] == "1" and "numpy" not in sys.modules


def one_blas_thread() -> None:
    """Limit the BLAS libraries this process has loaded (numpy's and scipy's OpenBLAS) to one thread.

    For a worker's start: the backends set ``OPENBLAS_NUM_THREADS=1`` for their workers
    (:data:`~misi_tasks.engine.backends.WORKER_ENV`), but a forked worker inherits the count the
    driver's OpenBLAS read when numpy loaded (the machine's cores, unless the driver is
    ``misi-gen``, see :func:`blas_threads_by_default`).  ``threadpoolctl`` sets it in the
    libraries themselves.
    """
    from threadpoolctl import threadpool_limits

    threadpool_limits(limits=1, user_api="blas")
