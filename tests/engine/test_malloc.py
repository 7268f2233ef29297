"""engine/_malloc.py: a worker keeps the big blocks it frees, so the next image does not fault them in."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from misi_tasks.engine._malloc import MMAP_THRESHOLD, keep_freed_memory

_GLIBC = sys.platform.startswith("linux") and bool(__import__("platform").libc_ver()[0] == "glibc")

# Allocate, touch and free buffers the size of a worker's per-image ones (4 MB framebuffer, 40 MB:
# beyond glibc's largest dynamic mmap threshold), and count the minor page faults of the last rounds.
_PROBE = textwrap.dedent("""
    import resource, sys
    from misi_tasks.engine._malloc import keep_freed_memory
    took = keep_freed_memory() if sys.argv[1] == "tuned" else None
    def round_():
        a = b"\x01" * (4 << 20)  # written through: every page touched
        b = b"\x01" * (40 << 20)
        del a, b
    round_()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(10):
        round_()
    print(took, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
""")


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", _PROBE, mode], capture_output=True, text=True, check=True).stdout
    took, faults = out.split()
    return took, int(faults)


@pytest.mark.skipif(not _GLIBC, reason="mallopt tuning applies to glibc only")
def test_freed_blocks_are_reused_instead_of_faulted_in_again() -> None:
    took, tuned = _faults("tuned")
    _, plain = _faults("plain")
    assert took == "True"
    pages = 10 * (44 << 20) // 4096  # what the ten rounds would fault in from fresh pages
    assert plain > pages // 2, f"the probe no longer shows the default behaviour ({plain} faults)"
    assert tuned < pages // 20, f"{tuned} faults: freed blocks were not reused"


def test_threshold_covers_a_2048_px_image_buffer() -> None:
    assert MMAP_THRESHOLD > 2048 * 2048 * 8  # a float64 depth buffer at the largest size


@pytest.mark.skipif(sys.platform.startswith("linux"), reason="the off-Linux answer")
def test_is_a_no_op_off_linux() -> None:
    assert keep_freed_memory() is False


def _thp_enabled(code: str) -> str:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    return out.split()[-1]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="prctl is Linux's")
def test_huge_pages_are_off_in_a_worker_and_what_it_starts() -> None:
    status = "print(open('/proc/self/status').read().split('THP_enabled:')[1].split()[0])"
    if "THP_enabled" not in open("/proc/self/status").read():
        pytest.skip("this kernel does not report THP_enabled")
    if _thp_enabled(status) != "1":
        pytest.skip("transparent huge pages are off for this process tree already")
    code = (
        "import subprocess, sys\n"
        "from misi_tasks.engine._malloc import no_transparent_huge_pages\n"
        "assert no_transparent_huge_pages()\n"
        f"{status}\n"
        f"subprocess.run([sys.executable, '-c', {status!r}], check=True)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["0", "0"]


def _arrow_pool(code: str, **env: str) -> str:
    import os

    full = {k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"} | env
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=full).stdout.split()[-1]


def test_misi_gen_allocates_arrow_through_malloc_and_a_library_import_does_not_choose() -> None:
    run = ("from misi_tasks.engine.cli import main\nmain(['--check'])\n"
           "import pyarrow as pa\nprint(pa.default_memory_pool().backend_name)")
    assert _arrow_pool(run) == "system"
    assert _arrow_pool(run, ARROW_DEFAULT_MEMORY_POOL="mimalloc") == "mimalloc"  # the user's choice stays
    imported = "import misi_tasks.engine.cli, pyarrow as pa\nprint(pa.default_memory_pool().backend_name)"
    default = _arrow_pool("import pyarrow as pa\nprint(pa.default_memory_pool().backend_name)")
    assert _arrow_pool(imported) == default  # importing misi (a library) leaves the process's pool alone
