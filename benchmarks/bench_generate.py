"""Benchmark misi-gen: all nine tasks, test-split counts, on a folder of complexes.

Usage::

    python benchmarks/bench_generate.py [--input DIR] [--workers 2] [--size 1024] [--limit N]
                                        [--backend local|ray] [--ray-address auto|ray://host:port]
                                        [--profile-workers]
    python benchmarks/bench_generate.py --against COMMIT [--pairs 2] [--limit N] [--check-pixels]

Default input: ``../shared/data/pdbbind_dev`` next to the checkout if present, else the bundled
samples.  Prints wall time, items and images per second, the CPU time of the run (this process and
its worker processes, user + sys) per image, peak memory per worker (max RSS of the worker
processes) and, from a profile of one complex in this process, where the time goes.

``--profile-workers`` (local backend, 2+ workers) runs cProfile in every worker process and prints
where the workers' CPU goes by stage -- loading, generating the items, building and writing the
shards -- summed over the workers.  cProfile slows Python-heavy code, so
take the wall time and images/s of a run without it.

``--against COMMIT`` (side by side): exports ``COMMIT`` of this repository (``git archive``, so
no worktree is registered) into a temporary folder and runs the same generation (``misi-gen``'s
``generate_dataset``: all nine tasks, test split, ``--input``, ``--size``, ``--workers``,
``--limit``) in fresh processes with ``PYTHONPATH`` set to that commit's ``src`` (A) and to this
tree's ``src`` (B), in ABBA order for ``--pairs`` pairs, after one unmeasured warm-up run of each
(numba compiles into each tree's cache).  It prints per run the CPU time (user + sys of the
process and its workers), wall time, images, dataset bytes per image and the workers' peak RSS
(the process's own when the run is in-process: one worker or one complex), then B/A ratios: CPU per image and wall per image (median over the pairs) and bytes per image.
On a shared machine the CPU ratio is the figure to trust; wall times move with the other load.
``--check-pixels`` then decodes every image of the last A and B datasets and checks that the two
hold the same rows with the same pixels (the PNG bytes may differ).  Rows are matched by item id
and their images taken in canonical order (a multiple-choice row's option images put back in the
order of ``metadata.option_order``), so two datasets whose correct letters were drawn differently
(per complex since issue 27, per task and split before) still compare image for image.
"""

from __future__ import annotations

import argparse
import cProfile
import functools
import json
import os
import pstats
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from misi_tasks.engine._malloc import arrow_uses_malloc
from misi_tasks.engine._threads import blas_threads_by_default

#: the environment's Arrow pool before this script chose one: side-by-side runs get it back
_ARROW_POOL_BEFORE_MISI = os.environ.get("ARROW_DEFAULT_MEMORY_POOL")
arrow_uses_malloc()  # as misi-gen starts: before pyarrow loads (engine/_malloc.py)
_BLAS_THREADS_BEFORE_MISI = os.environ.get("OPENBLAS_NUM_THREADS")
blas_threads_by_default()  # and before numpy loads (engine/_threads.py)

from misi_tasks.engine import generate as generate_module  # noqa: E402
from misi_tasks.engine.generate import GenerateConfig, generate_dataset, generate_items
from misi_tasks.engine.units import work_dir_for
from misi_tasks.engine.worker import become_image_maker
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
    (0, "2. generate the groups into their shards", ("worker.py:process_group",)),
    (1, "kernel warm-up", ("worker.py:warm_up_once",)),
    (1, "make the items", ("base.py:generate",)),
    (1, "rows (letters, to_row)", ("items.py:assign_letter", "items.py:to_row")),
    (1, "check the rows", ("schema.py:check_row",)),
    (1, "Arrow table", ("parquet.py:_row_group",)),
    (1, "Parquet write", ("core.py:write_table",)),
    (0, "3. --tiny: copy the Tiny subset", ("shards.py:write_tiny_shard",)),
    (0, "fsync (shards)", ("fsync<commit",)),
)


_INIT_WORKER = generate_module.init_worker  # before main() wraps it


def _worker_setup(prof_dir: str) -> None:
    """A worker's initializer under --profile-workers: profile it until it exits, then dump the
    profile and the CPU time of its start-up (spawn, imports: before the profile starts; a forked
    worker's CPU time starts at the fork, so its start-up is only what the fork copies)."""
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
    print(f"  {'start-up (spawn/fork, imports)':<34}{sum(s for s, _c in cpu):7.2f} s")
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
    items = generate_items(scene, TASK_NAMES, partners={partner.pdb_id: partner}, keep_renders=False,
                           skipped_empty=True)  # a task with nothing to ask about this complex: no items
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


# --- side by side against another commit --------------------------------------------------------
_SIDE_RUN = r"""
import json, resource, sys, time
from pathlib import Path
try:  # what misi-gen does as it starts, where this version does it (before pyarrow loads)
    from misi_tasks.engine._malloc import arrow_uses_malloc
except ImportError:
    pass
else:
    arrow_uses_malloc()
try:  # before numpy loads, where this version does it
    from misi_tasks.engine._threads import blas_threads_by_default
except ImportError:
    pass
else:
    blas_threads_by_default()
from misi_tasks.engine.generate import GenerateConfig, generate_dataset
a = json.loads(sys.argv[1])
out = Path(a["out"])
cfg = GenerateConfig(input_dir=Path(a["input"]), out_dir=out, split="test", size=a["size"], workers=a["workers"],
                     limit=a["limit"])
def cpu():
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime, me.ru_stime + kids.ru_stime
t0, (c0, s0) = time.perf_counter(), cpu()
summary = generate_dataset(cfg, progress=False)
wall, (c1, s1) = time.perf_counter() - t0, cpu()
print(json.dumps({"cpu": c1 - c0, "sys": s1 - s0, "wall": wall, "images": sum(summary.images.values()),
                  "bytes": sum(f.stat().st_size for f in (out / "data").rglob("*.parquet")),
                  "worker_rss_mb": (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # no worker processes:
                                    or resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) / 1024}))  # in-process
"""


def _export(commit: str, dest: Path) -> Path:
    """``commit`` of the repository this script is in, exported to ``dest``; returns its ``src``."""
    repo = Path(__file__).resolve().parents[1]
    archive = subprocess.run(["git", "-C", str(repo), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest / "src"


def _side_run(src: Path, out: Path, args: argparse.Namespace, limit: int | None) -> dict:
    """One generation in a fresh process importing misi from ``src``; its figures (see _SIDE_RUN)."""
    params = {"out": str(out), "input": str(args.input), "size": args.size, "workers": args.workers, "limit": limit}
    env = {**os.environ, "PYTHONPATH": str(src)}
    if _ARROW_POOL_BEFORE_MISI is None:  # this process chose one for itself (above): each version chooses its own
        env.pop("ARROW_DEFAULT_MEMORY_POOL", None)
    if _BLAS_THREADS_BEFORE_MISI is None:  # the same for the BLAS threads
        env.pop("OPENBLAS_NUM_THREADS", None)
    proc = subprocess.run([sys.executable, "-c", _SIDE_RUN, json.dumps(params)], env=env, capture_output=True,
                          text=True)
    if proc.returncode != 0:
        sys.exit(f"bench_generate: the run with {src} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _rows(out: Path) -> dict[str, list[bytes]]:
    """id -> the row's images in canonical order: the question's images, then a multiple-choice
    row's option images in the order of its options before letters were drawn (correct first)."""
    import pyarrow.parquet as pq

    rows = {}
    for f in sorted((out / "data").rglob("*.parquet")):
        for row in pq.read_table(f, columns=["id", "images", "image_roles", "metadata"]).to_pylist():
            images = [im["bytes"] for im in row["images"]]
            n_opt = sum(r.startswith("option ") for r in row["image_roles"])
            order = json.loads(row["metadata"]).get("option_order")
            if n_opt and order:  # option image k shows canonical option order[k]
                base, opts = images[:len(images) - n_opt], images[len(images) - n_opt:]
                images = base + [opts[order.index(i)] for i in range(len(order))]
            rows[row["id"]] = images
    return rows


def _same_pixels(a: Path, b: Path) -> str:
    """'same rows, same pixels (N images, M with other bytes)', or which rows differ, by task."""
    import io
    from collections import Counter

    import numpy as np
    from PIL import Image

    ra, rb = _rows(a), _rows(b)
    if ra.keys() != rb.keys():
        return f"DIFFERENT rows: {len(ra.keys() ^ rb.keys())} ids in one dataset only"
    n = other_bytes = 0
    differ: Counter = Counter()
    first: dict[str, str] = {}
    for rid in sorted(ra):
        task = rid.split("/")[0]
        if len(ra[rid]) != len(rb[rid]):
            differ[task] += 1
            first.setdefault(task, f"{rid} (image count)")
            continue
        for x, y in zip(ra[rid], rb[rid]):
            n += 1
            other_bytes += x != y
            if x != y and not np.array_equal(np.asarray(Image.open(io.BytesIO(x)).convert("RGB")),
                                             np.asarray(Image.open(io.BytesIO(y)).convert("RGB"))):
                differ[task] += 1
                first.setdefault(task, rid)
                break
    if differ:
        return "DIFFERENT pixels in " + "; ".join(f"{t}: {k} of {sum(r.startswith(t + '/') for r in ra)} rows "
                                                   f"(first {first[t]})" for t, k in sorted(differ.items()))
    return f"same rows, same pixels ({n} images, {other_bytes} with other PNG bytes)"


def side_by_side(args: argparse.Namespace) -> None:
    """Run A (``args.against``) and B (this tree) in ABBA order and print B/A ratios (module docs)."""
    tmp = Path(tempfile.mkdtemp(prefix="misi-side-"))
    try:
        src = {"A": _export(args.against, tmp), "B": Path(__file__).resolve().parents[1] / "src"}
        print(f"A = {args.against} ({src['A']}), B = this tree ({src['B']}); input {args.input}, limit {args.limit}, "
              f"{args.size} px, {args.workers} workers, {args.pairs} pairs in ABBA order")
        for side in "AB":  # numba compiles (or loads) each tree's kernels into its own cache
            _side_run(src[side], tmp / f"warm-{side}", args, 1)
        runs: dict[str, list[dict]] = {"A": [], "B": []}
        order = [s for k in range(args.pairs) for s in ("AB" if k % 2 == 0 else "BA")]
        for k, side in enumerate(order):
            out = tmp / f"run-{k}-{side}"
            r = _side_run(src[side], out, args, args.limit)
            runs[side].append(r)
            print(f"  {side}: CPU {r['cpu']:6.1f} s (sys {r['sys']:4.1f}), wall {r['wall']:6.1f} s, {r['images']} images, "
                  f"{r['bytes'] / r['images'] / 1e3:6.1f} kB/image, worker peak RSS {r['worker_rss_mb']:.0f} MB", flush=True)
            if k < len(order) - 2 or not args.check_pixels:
                shutil.rmtree(out, ignore_errors=True)
                shutil.rmtree(work_dir_for(out), ignore_errors=True)
        a, b = runs["A"], runs["B"]
        if {r["images"] for r in a + b} != {a[0]["images"]}:
            print("WARNING: the runs made different numbers of images")
        per = lambda r, key: r[key] / r["images"]  # noqa: E731
        cpu = [per(y, "cpu") / per(x, "cpu") for x, y in zip(a, b)]
        wall = [per(y, "wall") / per(x, "wall") for x, y in zip(a, b)]
        print(f"CPU per image: A {1e3 * statistics.median(per(r, 'cpu') for r in a):.2f} ms, "
              f"B {1e3 * statistics.median(per(r, 'cpu') for r in b):.2f} ms; B/A per pair "
              f"{', '.join(f'{x:.2f}' for x in cpu)}; median {statistics.median(cpu):.2f}x")
        print(f"wall per image (noisy on a shared machine): B/A per pair {', '.join(f'{x:.2f}' for x in wall)}; "
              f"median {statistics.median(wall):.2f}x")
        print(f"dataset bytes per image: A {per(a[0], 'bytes') / 1e3:.1f} kB, B {per(b[0], 'bytes') / 1e3:.1f} kB, "
              f"B/A {per(b[0], 'bytes') / per(a[0], 'bytes'):.3f}x")
        print(f"worker peak RSS: A {max(r['worker_rss_mb'] for r in a):.0f} MB, "
              f"B {max(r['worker_rss_mb'] for r in b):.0f} MB")
        if args.check_pixels:
            last = {side: tmp / f"run-{k}-{side}" for k, side in enumerate(order)}
            print("pixels:", _same_pixels(last["A"], last["B"]))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)  # the work folders are beside the outputs, inside it


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
    p.add_argument("--against", metavar="COMMIT", help="side by side: this tree (B) against COMMIT (A), see above")
    p.add_argument("--pairs", type=int, default=2, help="with --against: A/B pairs, run in ABBA order")
    p.add_argument("--check-pixels", action="store_true",
                   help="with --against: check that the last A and B datasets hold the same pixels")
    args = p.parse_args()
    if args.against:
        side_by_side(args)
        return
    out = Path(tempfile.mkdtemp(prefix="misi-bench-"))
    prof_dir = Path(tempfile.mkdtemp(prefix="misi-bench-prof-"))
    if args.profile_workers:  # generate_dataset looks its worker initializer up by name
        generate_module.init_worker = functools.partial(_worker_setup, str(prof_dir))
        generate_module.init_worker.before_fork = getattr(_INIT_WORKER, "before_fork", None)  # as a real run
    try:
        cfg = GenerateConfig(input_dir=args.input, out_dir=out, split="test", size=args.size,
                             workers=args.workers, limit=args.limit, backend=args.backend,
                             ray_address=args.ray_address)
        if args.workers == 1 and args.backend == "local":  # in-process, as misi-gen --workers 1 runs it
            become_image_maker()
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
