"""Benchmark misi-gen: all nine tasks, test-split counts, on a folder of complexes.

Usage::

    python benchmarks/bench_generate.py [--input DIR] [--workers 2] [--size 1024] [--limit N]
                                        [--backend local|ray] [--ray-address auto|ray://host:port]

Default input: ``../shared/data/pdbbind_dev`` next to the checkout if present, else the bundled
samples.  Prints wall time, items and images per second, peak memory per worker (max RSS of the
worker processes) and, from a profile of one complex in this process, where the time goes.
"""

from __future__ import annotations

import argparse
import cProfile
import pstats
import resource
import shutil
import tempfile
import time
from pathlib import Path

from misi_tasks.engine.generate import GenerateConfig, generate_dataset, generate_items
from misi_tasks.engine.units import work_dir_for
from misi_tasks.spec.names import TASK_NAMES
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


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--input", type=Path, default=DEV if DEV.is_dir() else sample_root())
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--size", type=int, default=1024)
    p.add_argument("--limit", type=int, default=None)
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", default=None, help="with --backend ray (default: a Ray instance started here)")
    p.add_argument("--no-profile", action="store_true")
    args = p.parse_args()
    out = Path(tempfile.mkdtemp(prefix="misi-bench-"))
    try:
        cfg = GenerateConfig(input_dir=args.input, out_dir=out, split="test", size=args.size,
                             workers=args.workers, limit=args.limit, backend=args.backend,
                             ray_address=args.ray_address)
        t0 = time.perf_counter()
        summary = generate_dataset(cfg, progress=False)
        wall = time.perf_counter() - t0
        n_items, n_img = sum(summary.items.values()), sum(summary.images.values())
        rss_children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        rss_self = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        size_mb = sum(f.stat().st_size for f in (out / "data").rglob("*.parquet")) / 2**20
        print(summary.format())
        print(f"\ninput {args.input} ({summary.complexes} complexes), {args.size} px, {args.workers} workers, "
              f"{args.backend} backend")
        print(f"wall {wall:.1f} s; {n_items / wall:.1f} items/s; {n_img / wall:.1f} images/s; dataset {size_mb:.0f} MB")
        if args.backend == "local":
            print(f"peak RSS: worker {rss_children:.0f} MB, main process {rss_self:.0f} MB")
        else:  # Ray workers are the raylet's children, not ours
            print(f"peak RSS: main process (the driver) {rss_self:.0f} MB")
    finally:
        shutil.rmtree(out, ignore_errors=True)
        shutil.rmtree(work_dir_for(out), ignore_errors=True)  # the run's state beside the output
    if not args.no_profile:
        profile_one(args.input, args.size)


if __name__ == "__main__":
    main()
