"""Benchmark misi-gen: all nine tasks, test-split counts, on a folder of complexes.

Usage::

    python benchmarks/bench_generate.py [--input DIR] [--workers 2] [--size 1024] [--limit N]
                                        [--backend local|ray] [--ray-address auto|ray://host:port]
                                        [--profile-workers]

Default input: ``../shared/data/pdbbind_dev`` next to the checkout if present, else the bundled
samples.  Prints wall time, items and images per second, the CPU time of the run (this process and
its worker processes, user + sys) per image, peak memory per worker (max RSS of the worker
processes) and, from a profile of one complex in this process, where the time goes.

``--profile-workers`` (local backend, 2+ workers) runs cProfile in every worker process and prints
where the workers' CPU goes by stage -- loading, generating, writing and reading the units,
building and writing the shards -- summed over the workers.  cProfile slows Python-heavy code, so
take the wall time and images/s of a run without it.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import os
import pstats
import resource
import shutil
import tempfile
import time
from pathlib import Path

from misi_tasks.engine import generate as generate_module
from misi_tasks.engine._malloc import image_maker_memory
from misi_tasks.engine.generate import GenerateConfig, generate_dataset, generate_items
from misi_tasks.engine.units import work_dir_for
from misi_tasks.definitions.registry import TASK_NAMES
from misi_geom.samples import sample_root

DEV = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdbbind_dev"

# where the time goes: cumulative time of these functions ("file:function") -> stage
STAGES = {
    "_raster.py:rasterize": "raster kernel",
    "render.py:_draw_view_labels": "labels",
    "png.py:encode_png": "PNG encoding",
    "decoys.py:grey_thumbnail": "decoy SSIM",  # T5/T6 decoy check: thumbnails,
    "decoys.py:__init__": "decoy SSIM",  # their SsimThumb terms,
    "decoys.py:thumbnail_similarity": "decoy SSIM",  # and the pairwise SSIM
    "hbonds.py:find_hbonds": "H-bonds",
    "io.py:load_complex": "loading",
}


# where the workers' time goes: (indent, label, "file:function" keys whose cumulative CPU times add up;
# "self:file:function" for a function's own time, "fsync<function" for its calls of os.fsync)
WORKER_STAGES = (
    (0, "1. load every complex", ("worker.py:check_complex",)),
    (0, "2. generate the units", ("worker.py:process_complex",)),
    (1, "kernel warm-up", ("worker.py:warm_up_once",)),
    (1, "make the items", ("base.py:generate",)),
    (1, "write the units", ("units.py:write_unit",)),
    (2, "pickle", ("~:<built-in method _pickle.dumps>",)),
    (0, "3. write the shards", ("shards.py:write_shard_job",)),
    (1, "read the units", ("units.py:read_unit",)),
    (1, "rows (letters, to_row)", ("items.py:assign_letter", "items.py:to_row")),
    (1, "check the rows", ("schema.py:check_row",)),
    (1, "Arrow table", ("parquet.py:_row_group", "self:parquet.py:write_shard")),  # from_pylist: C code
    (1, "Parquet write", ("core.py:write_table",)),
    (0, "fsync (units and shards)", ("fsync<atomic_path",)),  # one atomic write for both: one caller
)


_INIT_WORKER = generate_module.init_worker  # before main() wraps it


def _worker_setup(prof_dir: str) -> None:
    """A worker's initializer under --profile-workers: profile it until it exits, then dump the
    profile and the CPU time of its start-up (spawn, imports: before the profile starts)."""
    from multiprocessing import util

    startup = time.process_time()
    prof = cProfile.Profile(time.process_time)  # CPU time: the workers share the cores with others
    prof.enable()
    _INIT_WORKER()

    def dump() -> None:
        prof.disable()
        prof.dump_stats(os.path.join(prof_dir, f"worker-{os.getpid()}.prof"))
        usage = resource.getrusage(resource.RUSAGE_SELF)
        Path(prof_dir, f"worker-{os.getpid()}.cpu").write_text(f"{startup} {usage.ru_utime + usage.ru_stime}")

    util.Finalize(None, dump, exitpriority=100)  # run as the pool's worker exits (atexit is not)


def _key(fname: str, func: str) -> str:
    return f"{Path(fname).name}:{func}" if fname != "~" else f"~:{func}"


def report_worker_profiles(prof_dir: Path, n_img: int) -> None:
    files = sorted(prof_dir.glob("worker-*.prof"))
    if not files:
        print("\nno worker profiles (the local backend profiles worker processes only with 2+ workers)")
        return
    cpu = [tuple(map(float, p.with_suffix(".cpu").read_text().split())) for p in files]
    stats = pstats.Stats(*map(str, files)).stats
    cum: dict[str, float] = {}
    for (fname, _line, func), (_cc, _nc, tt, ct, callers) in stats.items():
        key = _key(fname, func)  # two functions of one name in one file (pq.write_table calls
        cum[key] = max(cum.get(key, 0.0), ct)  # ParquetWriter.write_table): the outer one's time
        cum["self:" + key] = max(cum.get("self:" + key, 0.0), tt)
        if key == "~:<built-in method posix.fsync>":
            for (_f, _l, caller), v in callers.items():
                cum[f"fsync<{caller}"] = cum.get(f"fsync<{caller}", 0.0) + v[3]
    total = sum(c for _s, c in cpu)
    print(f"\nworkers' CPU by stage ({len(files)} workers, cProfile on, {n_img} images): "
          f"{total:.1f} s = {1000 * total / n_img:.2f} ms/image")
    print(f"  {'start-up (spawn, imports)':<34}{sum(s for s, _c in cpu):7.2f} s")
    for indent, label, keys in WORKER_STAGES:
        t = sum(cum.get(k, 0.0) for k in keys)
        print(f"  {'  ' * indent + label:<34}{t:7.2f} s  {1000 * t / n_img:6.2f} ms/image")
    top = sorted(((v[2], k) for k, v in ((_key(f, fn), v) for (f, _l, fn), v in stats.items())), reverse=True)[:12]
    print("  top self times:", ", ".join(f"{k} {t:.1f} s" for t, k in top))


def profile_one(input_dir: Path, size: int) -> None:
    from misi_geom import find_complex_dirs, load_complex
    from misi_render import RenderOptions
    from misi_tasks.tasks.decoys import warm_up_ssim
    from misi_tasks.tasks.scene import Scene

    dirs = find_complex_dirs(input_dir)
    warm = Scene(load_complex(dirs[0]), RenderOptions(size=size))
    generate_items(warm, ["translation", "residue-ligand"], keep_renders=False)  # compile / warm caches
    warm_up_ssim()  # the decoy check's kernels too (T5/T6 use them), outside the profile
    prof = cProfile.Profile()
    t0 = time.perf_counter()
    prof.enable()
    scene = Scene(load_complex(dirs[0]), RenderOptions(size=size))
    partner = Scene(load_complex(dirs[1 % len(dirs)]), RenderOptions(size=size))
    items = generate_items(scene, TASK_NAMES, partners={partner.pdb_id: partner}, keep_renders=False)
    prof.disable()
    total = time.perf_counter() - t0
    stats = pstats.Stats(prof).stats
    cum = {}
    for (fname, _line, func), (_cc, _nc, _tt, ct, _callers) in stats.items():
        stage = STAGES.get(f"{Path(fname).name}:{func}")
        if stage:
            cum[stage] = cum.get(stage, 0.0) + ct
    n_img = sum(len(i.images) + len(i.option_images) for v in items.values() for i in v)
    print(f"\nprofile of one complex ({scene.pdb_id}, {n_img} images, all tasks, in-process): {total:.2f} s")
    for stage, t in sorted(cum.items(), key=lambda kv: -kv[1]):
        print(f"  {stage:<16}{t:7.2f} s  {100 * t / total:5.1f} %")
    rest = total - sum(cum.values())
    print(f"  {'other':<16}{rest:7.2f} s  {100 * rest / total:5.1f} %")


def _cpu_seconds() -> tuple[float, float, float]:
    """(this process, its finished child processes): user + sys CPU seconds; and the sys part of both."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime, me.ru_stime + kids.ru_stime


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", type=Path, default=DEV if DEV.is_dir() else sample_root())
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", default=None, help="with --backend ray (default: a Ray instance started here)")
    p.add_argument("--no-profile", action="store_true")
    p.add_argument("--profile-workers", action="store_true",
                   help="profile the worker processes and print their CPU time by stage (local backend)")
    args = p.parse_args()
    out = Path(tempfile.mkdtemp(prefix="misi-bench-"))
    prof_dir = Path(tempfile.mkdtemp(prefix="misi-bench-prof-"))
    if args.profile_workers:  # generate_dataset looks its worker initializer up by name
        generate_module.init_worker = functools.partial(_worker_setup, str(prof_dir))
    try:
        cfg = GenerateConfig(input_dir=args.input, out_dir=out, split="test", size=args.size,
                             workers=args.workers, limit=args.limit, backend=args.backend,
                             ray_address=args.ray_address)
        if args.workers == 1 and args.backend == "local":  # in-process, as misi-gen --workers 1 runs it
            image_maker_memory()
        t0 = time.perf_counter()
        cpu0 = _cpu_seconds()
        summary = generate_dataset(cfg, progress=False)
        wall = time.perf_counter() - t0
        cpu_self, cpu_children, cpu_sys = (b - a for a, b in zip(cpu0, _cpu_seconds()))
        n_items, n_img = sum(summary.items.values()), sum(summary.images.values())
        rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        size_mb = sum(f.stat().st_size for f in (out / "data").rglob("*.parquet")) / 2**20
        print(summary.format())
        print(f"\ninput {args.input} ({summary.complexes} complexes), {args.size} px, {args.workers} workers, "
              f"{args.backend} backend")
        print(f"wall {wall:.1f} s; {n_items / wall:.1f} items/s; {n_img / wall:.1f} images/s; dataset {size_mb:.0f} MB")
        if args.backend == "local":
            cpu = cpu_self + cpu_children
            print(f"CPU {cpu:.1f} s (user+sys: main {cpu_self:.1f} s, workers {cpu_children:.1f} s; sys {cpu_sys:.1f} s); "
                  f"{1000 * cpu / n_img:.2f} ms CPU/image; {1000 * wall * args.workers / n_img:.2f} ms wall x workers/image")
            print(f"peak RSS: worker {rss_children:.0f} MB, main process {rss_self:.0f} MB")
        else:  # Ray workers are the raylet's children, not ours
            print(f"CPU of the driver {cpu_self:.1f} s (user+sys; the Ray workers' is not counted)")
            print(f"peak RSS: main process (the driver) {rss_self:.0f} MB")
        if args.profile_workers:
            report_worker_profiles(prof_dir, n_img)
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(work_dir_for(out), ignore_errors=True)  # the run's state beside the output
        shutil.rmtree(prof_dir, ignore_errors=True)
    if not args.no_profile:
        profile_one(args.input, args.size)


if __name__ == "__main__":
    main()
