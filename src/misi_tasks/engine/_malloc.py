"""A worker's memory policy: reuse what it frees, in small pages (Linux; glibc for the first part).

A worker draws one image after another with the same big buffers: 3–12 MB framebuffers and
depth buffers, PNG output and Arrow row groups.  glibc's defaults serve the big
ones with fresh ``mmap`` regions or trim them off the heap top as soon as they are freed, so every
image faults its buffers in again and the kernel zeroes every page (perf: ``clear_page_erms`` and
the fault path ~5 % of a run's samples; ~330 minor faults per image).  With a fixed mmap threshold
above those sizes and a generous trim threshold, the freed blocks stay in the heap and the next
image reuses them: ~35 faults per image, and the system time of making items falls from ~0.5 to
~0.07 ms per image (``benchmarks/bench_generate.py``).

Peak memory does not grow: the blocks kept are the ones the next image asks for again.  Nothing
drawn or written depends on where memory comes from.  On other C libraries this does nothing.

Arrow allocates through the C library's ``malloc`` too (:func:`arrow_uses_malloc`): its default
pool (mimalloc) hands the row groups' buffers back to the kernel between row groups, so every
row group faulted them in again.  On the system pool they are reused like the image buffers
(measured in ``docs/performance.md``, "CPU per image: where it goes").  Arrow reads
that choice once, when pyarrow is imported, and ``pa.set_memory_pool`` changes only pyarrow's own
allocations, not those of the Parquet writer; so ``misi-gen`` sets it as it starts, before it
imports pyarrow (a program's choice: importing misi as a library leaves the pool alone).  The
Parquet bytes do not depend on the allocator.

Transparent huge pages are turned off for the worker as well (:func:`no_transparent_huge_pages`):
numpy and Arrow's allocator ask for them on big blocks, so a block faulted in again costs the
kernel a zeroed 2 MB page at a time; without them the workers' system time fell by a quarter and
their CPU by ~7 % (20 dev complexes, two pairs side by side; THP faults per run 290 -> 60).
"""

from __future__ import annotations

import ctypes
import os
import sys
from typing import Any

__all__ = ["arrow_uses_malloc", "image_maker_memory", "keep_freed_memory", "no_transparent_huge_pages"]

# mallopt parameters (glibc's malloc.h)
_M_TRIM_THRESHOLD = -1
_M_TOP_PAD = -2
_M_MMAP_THRESHOLD = -3

#: Blocks up to this size come from the heap (the biggest per-image buffer at 2048 px is ~32 MB).
MMAP_THRESHOLD = 64 << 20
#: Free memory at the heap top is returned to the kernel only beyond this.
TRIM_THRESHOLD = 256 << 20
#: Extra heap requested per growth, so growing the heap does not fault page by page.
TOP_PAD = 16 << 20


def _linux_libc(name: str, *argtypes: Any) -> Any:
    """The C library function ``name`` of this process (``int`` result), or ``None`` off Linux."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        fn = getattr(ctypes.CDLL(None), name)  # the C library this process already uses
    except (OSError, AttributeError):
        return None
    fn.argtypes, fn.restype = argtypes, ctypes.c_int
    return fn


def keep_freed_memory() -> bool:
    """Tune this process's ``malloc`` to keep freed big blocks for reuse; ``True`` when it took effect.

    Call it once at the start of a worker process.  It is a no-op (``False``) off Linux or on a C
    library without glibc's ``mallopt`` (e.g. musl, whose ``mallopt`` does nothing and says so).
    """
    mallopt = _linux_libc("mallopt", ctypes.c_int, ctypes.c_int)
    if mallopt is None:
        return False
    settings = ((_M_MMAP_THRESHOLD, MMAP_THRESHOLD), (_M_TRIM_THRESHOLD, TRIM_THRESHOLD), (_M_TOP_PAD, TOP_PAD))
    took = [mallopt(param, value) == 1 for param, value in settings]  # each on its own, whatever the others did
    return all(took)


_PR_SET_THP_DISABLE = 41  # prctl option (linux/prctl.h), Linux 3.15+


def no_transparent_huge_pages() -> bool:
    """Turn transparent huge pages off for this process (and processes it starts); ``True`` when done.

    A no-op (``False``) off Linux or where ``prctl`` refuses.  Call it once at a worker's start.
    """
    prctl = _linux_libc("prctl", ctypes.c_int, *[ctypes.c_ulong] * 4)
    return prctl is not None and prctl(_PR_SET_THP_DISABLE, 1, 0, 0, 0) == 0


def arrow_uses_malloc() -> bool:
    """Make the C library's ``malloc`` Arrow's default memory pool in this process and the processes
    it starts (``ARROW_DEFAULT_MEMORY_POOL=system``), unless the environment names a pool already;
    ``True`` when Arrow will use it.

    Arrow reads the variable when pyarrow is first imported, so this must run before that (as
    ``misi-gen``'s :func:`~misi_tasks.engine.cli.main` does first); later, it only sets the variable
    for child processes.
    """
    os.environ.setdefault("ARROW_DEFAULT_MEMORY_POOL", "system")
    return os.environ["ARROW_DEFAULT_MEMORY_POOL"] == "system" and "pyarrow" not in sys.modules


def image_maker_memory() -> None:
    """The memory settings of a process that makes images, set once at its start (through
    :func:`misi_tasks.engine.worker.become_image_maker`, which also limits its BLAS threads).
    Arrow's pool is chosen earlier, as misi-gen starts (:func:`arrow_uses_malloc`)."""
    keep_freed_memory()
    no_transparent_huge_pages()
