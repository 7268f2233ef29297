"""misi-audit's cost against generation's: CPU seconds of ``misi-gen`` and of ``misi-audit`` on the same
dataset, each run as a subprocess and measured by ``RUSAGE_CHILDREN`` (CPU time: fairer than wall
time on a shared machine, though contention still inflates both).

    python benchmarks/bench_audit.py                      # all tasks, 5 bundled samples, 1024 px
    python benchmarks/bench_audit.py --size 512 --limit 2
    python benchmarks/bench_audit.py --input DEV --size 512 --workers 2   # as misi-gen --audit runs it

Prints both figures and the ratio; the issue's target is an audit under ~20 % of generation.
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _cpu_of(cmd: list[str]) -> tuple[float, float, str]:
    """(CPU seconds of the child and its children, wall seconds, last line printed) of running ``cmd``."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} exited with {done.returncode}")
    last = (done.stdout.strip().splitlines() or [""])[-1]
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime), wall, last


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--task", default="all")
    p.add_argument("--input", default=None, help="a folder of complexes (default: the bundled samples)")
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "ds"
        gen = [sys.executable, "-m", "misi_tasks.engine.cli", "--task", args.task, "--out", str(out), "--quiet",
               "--size", str(args.size), "--workers", str(args.workers)]
        if args.limit:
            gen += ["--limit", str(args.limit)]
        if args.input:
            gen += ["--input", args.input]
        gen_cpu, gen_wall, _ = _cpu_of(gen)
        audit = [sys.executable, "-m", "misi_tasks.audit.cli", str(out), "--quiet", "--no-card",
                 "--workers", str(args.workers)]  # the same workers, as misi-gen --audit runs it
        if args.input:
            audit += ["--input", args.input]
        audit_cpu, audit_wall, verdict = _cpu_of(audit)
    print(f"misi-gen   --size {args.size} --workers {args.workers}: {gen_cpu:7.1f} s CPU  {gen_wall:7.1f} s wall")
    print(f"misi-audit --workers {args.workers}:             {audit_cpu:7.1f} s CPU  {audit_wall:7.1f} s wall")
    print(f"audit: {verdict}")
    print(f"audit / generation: {audit_cpu / gen_cpu:.0%} of the CPU time, {audit_wall / gen_wall:.0%} of the wall time")
    return 0


if __name__ == "__main__":
    sys.exit(main())
