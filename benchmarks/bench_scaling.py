"""Scaling of misi-gen over backends and CPUs, and the wall time it projects for large runs.

Usage::

    python benchmarks/bench_scaling.py [--input DIR] [--limit 20] [--size 1024] [--runs local:1,local:2,ray:1,ray:2]

Runs the same generation (all nine tasks, test-split counts, warm numba cache) once per
``backend:cpus`` entry and prints images/s, speed-up and efficiency (speed-up / CPUs) against the
first entry, then projects the wall time of the paper's 588K images and of full PDBbind (2.8M)
at 64, 256 and 1,024 CPUs.  A Ray instance is started before its run and its start-up is reported
apart (a fixed cost, not a rate).  Each run is split into the parallel phase (until the last
result of the backend: the complexes' reports, then the shards the workers write) and the
driver's serial phase (the card, the final state); the projection is

    wall(N) = images / (per-CPU images/s x N) + images x serial seconds per image

with the per-CPU rate of the widest Ray run, once from its wall time (parallel phase, efficiency
included) and once from its CPU time (every process of the run, Ray's own included: what a quiet
machine would reach with every CPU busy), i.e. linear scaling past that run and a driver's serial
phase that grows with the images; cluster start-up, stragglers and shared-filesystem bandwidth are
not modelled.  CPU time is the figure to trust on a busy machine, where wall times are not.
Run it on a quiet machine: the figures are only as good as the load allows (``uptime`` is printed).
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import misi_tasks.engine.generate as generate
from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_tasks.engine.worker import become_image_maker
from misi_geom.samples import sample_root

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdbbind_dev"
#: (label, images) of the projected runs: the paper's benchmark and full PDBbind at its counts.
TARGETS = (("588K images (paper)", 588_000), ("2.8M images (PDBbind)", 2_800_000))
CPUS = (64, 256, 1024)
_ORIGINAL_MAKE = generate.make_backend


@dataclass
class Run:
    backend: str
    cpus: int
    images: int = 0
    wall: float = 0.0  # generate_dataset, Ray start-up excluded
    parallel: float = 0.0  # until the backend's last result (complexes, then shards)
    startup: float = 0.0  # Ray start-up, before the run
    cpu: float = 0.0  # CPU seconds of this process and all its descendants (pool workers, Ray) during the run
    cpu_parallel: float = 0.0  # ... until the last report

    @property
    def rate(self) -> float:
        return self.images / self.wall

    @property
    def cpu_per_image(self) -> float:
        return self.cpu / self.images

    @property
    def parallel_cpu_per_image(self) -> float:
        return self.cpu_parallel / self.images

    @property
    def serial_per_image(self) -> float:
        return (self.wall - self.parallel) / self.images


def _descendants(root: int) -> list[int]:
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                ppid = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry.name))
    found, todo = [], [root]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found


def tree_cpu_seconds() -> float:
    """CPU time (user + system) of this process, its reaped children and every live descendant with
    theirs (Linux /proc): robust to other load on the machine, unlike wall time."""
    tick = os.sysconf("SC_CLK_TCK")
    total = sum(getattr(resource.getrusage(w), f) for w in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
                for f in ("ru_utime", "ru_stime"))
    for pid in _descendants(os.getpid()):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in fields[11:15]) / tick  # utime, stime, cutime, cstime
    return total


def _timed_backend(stamps: list[tuple[float, float]]):
    """make_backend whose map records when each report arrives, and the CPU time spent by then."""
    make = generate.make_backend

    def make_timed(*args, **kwargs):
        backend = make(*args, **kwargs)
        inner = backend.map

        def timed_map(*a, **kw):
            for r in inner(*a, **kw):
                stamps.append((time.perf_counter(), tree_cpu_seconds()))
                yield r

        backend.map = timed_map
        return backend

    return make_timed


def run_once(backend: str, cpus: int, input_dir: Path, size: int, limit: int | None) -> Run:
    run = Run(backend, cpus)
    if backend == "ray":
        import ray

        t0 = time.perf_counter()
        ray.init(address="local", num_cpus=cpus, include_dashboard=False, logging_level="WARNING")
        run.startup = time.perf_counter() - t0
    out = Path(tempfile.mkdtemp(prefix="misi-scale-"))
    stamps: list[tuple[float, float]] = []
    generate.make_backend = _timed_backend(stamps)
    try:
        cfg = GenerateConfig(input_dir=input_dir, out_dir=out, split="test", size=size, workers=cpus,
                             limit=limit, backend=backend)
        if backend == "local" and cpus == 1:  # in-process, as misi-gen --workers 1 runs it
            become_image_maker()
        c0, t0 = tree_cpu_seconds(), time.perf_counter()
        summary = generate_dataset(cfg, progress=False)
        run.wall = time.perf_counter() - t0
        run.cpu = tree_cpu_seconds() - c0  # before ray.shutdown: Ray's processes are still alive
        run.parallel = stamps[-1][0] - t0
        run.cpu_parallel = stamps[-1][1] - c0
        run.images = sum(summary.images.values())
    finally:
        generate.make_backend = _ORIGINAL_MAKE
        shutil.rmtree(out, ignore_errors=True)
        if backend == "ray":
            import ray

            ray.shutdown()
    return run


def _hms(seconds: float) -> str:
    m, s = divmod(round(seconds), 60)
    h, m = divmod(m, 60)
    return f"{h}:{m:02d}:{s:02d}"


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", type=Path, default=DEV if DEV.is_dir() else sample_root())
    p.add_argument("--limit", type=int, default=20)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--runs", default="local:1,local:2,ray:1,ray:2", help="backend:cpus entries, comma-separated")
    args = p.parse_args()
    plan = [(b, int(c)) for b, c in (e.split(":") for e in args.runs.split(","))]
    print(f"load before: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} on {os.cpu_count()} cores")
    warm = GenerateConfig(input_dir=args.input, out_dir=Path(tempfile.mkdtemp(prefix="misi-warm-")), split="test",
                          size=args.size, workers=1, limit=1)
    generate_dataset(warm, progress=False)  # numba cache warm: the runs measure steady work
    shutil.rmtree(warm.out_dir, ignore_errors=True)
    runs = []
    for backend, cpus in plan:
        r = run_once(backend, cpus, args.input, args.size, args.limit)
        runs.append(r)
        print(f"  {backend}:{cpus} done: {r.images} images in {r.wall:.1f} s (load {os.getloadavg()[0]:.2f})", flush=True)
    base = runs[0]
    print(f"\ninput {args.input}, {args.limit} complexes, all tasks, {args.size} px, {base.images} images per run")
    print("By wall time (only meaningful on a quiet machine):")
    print("| backend | CPUs | wall s | images/s | speed-up | efficiency | serial phase s | start-up s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in runs:
        speed = r.rate / base.rate * base.cpus
        print(f"| {r.backend} | {r.cpus} | {r.wall:.1f} | {r.rate:.1f} | {speed:.2f} | {speed / r.cpus:.2f} "
              f"| {r.wall - r.parallel:.1f} | {r.startup:.1f} |")
    print("\nBy CPU time (robust to other load): images/s = CPUs / CPU time per image, as if every CPU were busy")
    print("| backend | CPUs | CPU ms per image (parallel + driver's serial phase) | images/s | speed-up | efficiency |")
    print("|---|---|---|---|---|---|")
    for r in runs:
        speed = base.cpu_per_image / base.cpus / r.cpu_per_image * r.cpus
        print(f"| {r.backend} | {r.cpus} | {1e3 * r.cpu_per_image:.1f} ({1e3 * r.parallel_cpu_per_image:.1f} + "
              f"{1e3 * (r.cpu_per_image - r.parallel_cpu_per_image):.1f}) | {r.cpus / r.cpu_per_image:.1f} "
              f"| {speed:.2f} | {speed / r.cpus:.2f} |")
    ray_runs = [r for r in runs if r.backend == "ray"] or runs
    ref = max(ray_runs, key=lambda r: r.cpus)
    bases = {  # basis -> (images/s per CPU in the parallel phase, driver's serial seconds per image)
        "wall time": (ref.images / ref.parallel / ref.cpus, ref.serial_per_image),
        # every CPU busy at the CPU cost measured: what a quiet machine reaches at best
        "CPU time": (1 / ref.parallel_cpu_per_image, (ref.cpu - ref.cpu_parallel) / ref.images),
    }
    for basis, (per_cpu, serial) in bases.items():
        print(f"\nprojection from {ref.backend}:{ref.cpus} by {basis}: {per_cpu:.1f} images/s per CPU, plus "
              f"{1e3 * serial:.2f} ms per image in the driver's serial phase")
        print("| images | " + " | ".join(f"{n} CPUs" for n in CPUS) + " |")
        print("|---|" + "---|" * len(CPUS))
        for label, n in TARGETS:
            cells = [_hms(n / (per_cpu * c) + n * serial) for c in CPUS]
            print(f"| {label} | " + " | ".join(cells) + " |")
    print(f"load after: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f}")


if __name__ == "__main__":
    main()
