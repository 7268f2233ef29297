"""Cold start: on an empty numba cache, workers that start together compile the kernels once.

Checked through numba's own cache counters (a dispatcher's ``stats.cache_misses`` counts the
signatures it compiled, ``stats.cache_hits`` those it loaded from the cache), never by timing.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

SRC = Path(__file__).resolve().parents[2] / "src"

#: Waits for the file ``GO`` (so that both processes start warming up at the same moment, after
#: their imports), warms up, and prints how many kernel signatures (render and decoy check) it
#: compiled and loaded.
WORKER = """
import json, os, sys, time
from pathlib import Path
import numba
from misi_render import _layout, _raster
from misi_tasks.engine import worker
from misi_tasks.tasks import _ssim_kernels
go = Path(sys.argv[1])
while not go.exists():
    time.sleep(0.01)
block = sys.argv[2] == "block"
warm = worker.warm_up_once(block=block)
disp = [f for m in (_raster, _layout, _ssim_kernels) for f in vars(m).values()
        if isinstance(f, numba.core.registry.CPUDispatcher)]
ssim = [f for f in vars(_ssim_kernels).values() if isinstance(f, numba.core.registry.CPUDispatcher)]
print(json.dumps({"warm": warm,
                  "compiled": sum(sum(f.stats.cache_misses.values()) for f in disp),
                  "loaded": sum(sum(f.stats.cache_hits.values()) for f in disp),
                  "ssim_loaded": sum(sum(f.stats.cache_hits.values()) for f in ssim)}))
"""


def _start(cache: Path, go: Path, mode: str) -> subprocess.Popen:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": str(SRC)}
    return subprocess.Popen([sys.executable, "-c", WORKER, str(go), mode], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _result(proc: subprocess.Popen) -> dict:
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err[-2000:]
    return json.loads(out.strip().splitlines()[-1])


def test_workers_starting_together_compile_the_kernels_once(tmp_path: Path) -> None:
    cache, go = tmp_path / "numba-cache", tmp_path / "go"
    procs = [_start(cache, go, "block") for _ in range(2)]
    time.sleep(3)  # both have imported numba and misi before either starts (imports take ~1 s)
    go.touch()
    results = sorted((_result(p) for p in procs), key=lambda r: r["compiled"])
    assert all(r["warm"] for r in results)
    assert results[0]["compiled"] == 0 and results[0]["loaded"] > 0, results  # loaded the other's cache
    assert results[0]["ssim_loaded"] > 0, results  # the decoy check's kernels too
    assert results[1]["compiled"] > 0, results
    assert (cache / "misi-compile.lock").is_file()


def test_a_worker_that_finds_the_compile_lock_taken_does_not_wait(tmp_path: Path) -> None:
    cache, go = tmp_path / "numba-cache", tmp_path / "go"
    cache.mkdir()
    fd = os.open(cache / "misi-compile.lock", os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)  # another process is compiling
        go.touch()
        result = _result(_start(cache, go, "try"))
    finally:
        os.close(fd)
    assert result == {"warm": False, "compiled": 0, "loaded": 0, "ssim_loaded": 0}
