"""Time and memory to load complexes with misi_geom.load_complex.

Loads the bundled samples and, if present, the 50 development complexes, and prints per set the
median wall and CPU time per complex (ms; each complex loaded ``--repeat`` times, median taken), the slowest
complex, and the peak Python/numpy heap while loading one complex (tracemalloc, in a separate pass so
tracing does not slow the timed one; gemmi's and RDKit's C++ allocations are not traced, hence the
process's resident memory after imports and at the end is printed too).  One extra row times 2w9r
with its pocket file removed, i.e. the pocket built from the whole protein.

Usage::

    python benchmarks/bench_load.py [--dev /work/shared/data/pdbbind_dev] [--repeat 5]
"""

from __future__ import annotations

import argparse
import platform
import resource
import shutil
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

from misi_geom import find_complex_dirs, load_complex
from misi_geom.samples import sample_dirs

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")


def time_set(dirs: list[Path], repeat: int) -> list[tuple[str, float, float]]:
    """(id, median wall ms, median CPU ms) per complex.  CPU time is steadier on a busy machine."""
    out = []
    for d in dirs:
        wall, cpu = [], []
        for _ in range(repeat):
            t0, c0 = time.perf_counter(), time.process_time()
            load_complex(d)
            wall.append((time.perf_counter() - t0) * 1e3)
            cpu.append((time.process_time() - c0) * 1e3)
        out.append((d.name, statistics.median(wall), statistics.median(cpu)))
    return out


def peak_heap_mb(dirs: list[Path]) -> float:
    """Largest tracemalloc peak (MB) while loading any one complex of ``dirs``."""
    tracemalloc.start()
    worst = 0.0
    for d in dirs:
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        load_complex(d)
        worst = max(worst, (tracemalloc.get_traced_memory()[1] - base) / 2**20)
    tracemalloc.stop()
    return worst


def max_rss_mb() -> float:
    kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kb / 2**20 if sys.platform == "darwin" else kb / 2**10  # bytes on macOS, KiB on Linux


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV, help="folder of PDBbind complexes (skipped if absent)")
    ap.add_argument("--repeat", type=int, default=5, help="loads per complex (median taken)")
    args = ap.parse_args(argv)

    sets = {"bundled samples": sample_dirs()}
    if args.dev.is_dir():
        sets["dev set"] = find_complex_dirs(args.dev)
    else:
        print(f"(no dev set at {args.dev}; bundled samples only)")

    tmp = Path(tempfile.mkdtemp(prefix="bench_load_"))
    protein_only = tmp / "2w9r"
    shutil.copytree(next(d for d in sample_dirs() if d.name == "2w9r"), protein_only)
    (protein_only / "2w9r_pocket.pdb").unlink()
    sets["2w9r from protein"] = [protein_only]

    t0 = time.perf_counter()
    load_complex(sets["bundled samples"][0])  # first load pays for importing gemmi, RDKit, scipy
    cold = (time.perf_counter() - t0) * 1e3
    rss_after_imports = max_rss_mb()
    print(f"python {platform.python_version()}, {platform.machine()}; first (cold) load incl. imports: {cold:.0f} ms")
    print(f"{'set':<18} {'n':>3} {'median ms':>10} {'CPU ms':>7} {'max ms (id)':>18} {'py heap MB':>11}")
    try:
        for name, dirs in sets.items():
            times = time_set(dirs, args.repeat)
            worst = max(times, key=lambda t: t[1])
            heap = peak_heap_mb(dirs)
            med = statistics.median(t[1] for t in times)
            med_cpu = statistics.median(t[2] for t in times)
            print(f"{name:<18} {len(dirs):>3} {med:>10.1f} {med_cpu:>7.1f} {worst[1]:>11.1f} ({worst[0]}) {heap:>11.1f}")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"process peak RSS: {rss_after_imports:.0f} MB after imports, {max_rss_mb():.0f} MB at the end")


if __name__ == "__main__":
    main()
