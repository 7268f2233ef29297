"""Benchmark misi_render: raster kernel, labels, PNG encoding and end-to-end time per image.

Usage::

    python benchmarks/bench_render.py                 # one thread (the targets are per core)
    python benchmarks/bench_render.py --threads 2 --repeats 9 --sizes 512 1024   # prange kernel

Scenes: the five bundled sample complexes, plus ``pocket1000``: about 1000 heavy atoms, the size the
targets are set for (see :func:`pocket_1000`).  For every scene, image size (512, 1024, 2048 px) and view count (1, 6) it prints medians
over ``--repeats`` runs of: the raster kernel, labels, PNG encoding + atomic write, and the whole
``render_views`` + ``save_png`` (total), per image, with the peak traced memory of one run.
If PyMOL (``pymol-open-source``) is importable, the same scene is ray-traced with
``cmd.png(..., ray=1)`` at 1024 px (ball-and-stick, residue labels) and the time ratio printed.
Finally the time to the first saved image in a fresh process (numba cache warm) is measured.
Stage times are wall (``perf_counter``); the ``cpu`` columns are process CPU time (``process_time``)
of the same runs, steadier than wall time on a shared machine.

A/B comparison (``--ab OTHER_SRC``): the same benchmark runs in fresh subprocesses, alternating
``PYTHONPATH=OTHER_SRC`` (e.g. ``/work/main/src``, "A") and this tree's ``src`` ("B"), ``--ab-rounds``
times each, and prints the median of the per-round medians of both side by side with B/A ratios, so
a claimed gain comes from one run on one machine state.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

if __name__ == "__main__":  # the thread count must be fixed before numba is imported
    _threads = "1"
    if "--threads" in sys.argv:
        _threads = sys.argv[sys.argv.index("--threads") + 1]
    os.environ.setdefault("NUMBA_NUM_THREADS", _threads)
    if int(_threads) > 1:  # the multi-threaded kernel is opt-in (misi_render.render.parallel_default)
        os.environ.setdefault("MISI_RENDER_PARALLEL", "1")

import resource  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from misi_geom import SIX_VIEWS, Complex, fit_frame  # noqa: E402
from misi_render import RenderOptions, render_views, save_png, warm_up  # noqa: E402
from misi_render import render as _render  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "render"))
from scenes import SAMPLE_IDS, big_scene, load_sample, read_ligand_mol2, read_pocket_pdb  # noqa: E402


SHARED_DEV = Path("/work/shared/data/pdbbind_dev")


def grown_pocket(folder: Path, pdb_id: str, target: int) -> Complex:
    """Whole protein residues nearest the ligand, added until about ``target`` heavy atoms, + ligand."""
    protein = read_pocket_pdb(folder / f"{pdb_id}_protein.pdb")
    ligand = read_ligand_mol2(folder / f"{pdb_id}_ligand.mol2", int(protein.res_index.max()) + 1)
    lig = ligand.coord[~ligand.is_hydrogen]
    d = np.sqrt(((protein.coord[:, None, :] - lig[None]) ** 2).sum(-1)).min(axis=1)
    nres = int(protein.res_index.max()) + 1
    res_d = np.full(nres, np.inf)
    np.minimum.at(res_d, protein.res_index, d)
    heavy = np.bincount(protein.res_index[~protein.is_hydrogen], minlength=nres)
    keep, total = [], int((~ligand.is_hydrogen).sum())
    for r in np.argsort(res_d, kind="stable"):
        if total >= target or not np.isfinite(res_d[r]):
            break
        keep.append(r)
        total += int(heavy[r])
    pocket = protein[np.isin(protein.res_index, keep)]
    return Complex.concatenate([pocket, ligand], pdb_id=f"{pdb_id}+")


def pocket_1000(target: int = 1000) -> tuple[str, Complex]:
    """The ~1000-heavy-atom scene the targets are set for.

    A pocket grown from a PDBbind protein in ``/work/shared`` when present (2pv2, the largest dev
    pocket), else the bundled sample pockets side by side (tests/render/scenes.py:big_scene).
    """
    folder = SHARED_DEV / "2pv2"
    if (folder / "2pv2_protein.pdb").exists():
        return "2pv2-1000", grown_pocket(folder, "2pv2", target)
    return "samples-1000", big_scene(target)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1e3


def bench_scene(c: Complex, size: int, n_views: int, repeats: int, out_dir: Path) -> dict:
    views = SIX_VIEWS[:n_views]
    frame, options = fit_frame(c.coord[~c.is_hydrogen]), RenderOptions(size=size)
    scene = _render._prepare(c, "ball-and-stick")
    raster, labels, png, total = [], [], [], []
    cpu = {"raster": [], "labels": [], "png": [], "total": []}
    clock = time.process_time
    peak = 0
    for rep in range(repeats + 1):  # first run warms caches (text patches, numba dispatch)
        # stages, timed one by one on the same inputs render_views uses
        t_r = t_l = t_p = 0.0
        c_r = c_l = c_p = 0.0
        for name in views:
            screen = options.project(frame, frame.to_camera_frame(c.coord, name))
            q0 = clock()
            t0 = time.perf_counter()
            image, visible = _render.draw_scene(scene, screen, frame, options)
            t1 = time.perf_counter()
            q1 = clock()
            image, _ = _render._draw_view_labels(c, scene, screen, visible, size, image, residue_labels=True,
                                                 ligand_labels=True, atom_label_residue=None, key_atoms=None,
                                                 residue_chain=False)
            t2 = time.perf_counter()
            q2 = clock()
            save_png(image, out_dir / f"stage_{name}.png")
            t3 = time.perf_counter()
            q3 = clock()
            t_r, t_l, t_p = t_r + t1 - t0, t_l + t2 - t1, t_p + t3 - t2
            c_r, c_l, c_p = c_r + q1 - q0, c_l + q2 - q1, c_p + q3 - q2
        # end to end through the public API
        if rep == 1:
            tracemalloc.start()
        q0 = clock()
        t0 = time.perf_counter()
        for v in render_views(c, views, options=options):
            save_png(v.image, out_dir / f"{v.name}.png")
        t1 = time.perf_counter()
        q1 = clock()
        if rep == 1:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        if rep:
            raster.append(t_r / n_views)
            labels.append(t_l / n_views)
            png.append(t_p / n_views)
            total.append(t1 - t0)
            for k, v in (("raster", c_r / n_views), ("labels", c_l / n_views), ("png", c_p / n_views), ("total", q1 - q0)):
                cpu[k].append(v)
    return {
        "raster": median_ms(raster),
        "labels": median_ms(labels),
        "png": median_ms(png),
        "total": median_ms(total),
        "per_view": median_ms(total) / n_views,
        "peak_mb": peak / 2**20,
        **{f"{k}_cpu": median_ms(v) for k, v in cpu.items()},
    }


def pymol_style(cmd, pocket: str, ligand: str) -> None:
    """Show what PyMOL has loaded as misi draws it: balls and sticks on black, residues labelled
    "ASN 460" at their CA, ligand atoms by name (``pocket``, ``ligand``: PyMOL selections)."""
    cmd.hide("everything")
    cmd.show("sticks")
    cmd.show("spheres")
    cmd.set("sphere_scale", 0.25)
    cmd.set("stick_radius", 0.15)
    cmd.bg_color("black")
    cmd.label(f"({pocket}) and name CA", 'resn+" "+resi')
    cmd.label(ligand, "name")
    cmd.orient()


def pymol_time(c: Complex, size: int, repeats: int, out_dir: Path) -> float | None:
    """Median seconds for PyMOL to ray-trace and write the same scene, or None without PyMOL."""
    try:
        import pymol2
    except ImportError:
        return None
    pdb = out_dir / "scene.pdb"
    h = c[~c.is_hydrogen]
    with open(pdb, "w") as fh:
        for i in range(len(h)):
            rec = "HETATM" if h.is_ligand[i] else "ATOM  "
            x, y, z = h.coord[i]
            fh.write(
                f"{rec}{i + 1:5d} {h.atom_name[i]:<4s} {h.res_name[i]:>3s} {h.chain_id[i] or 'A':1s}"
                f"{h.res_id[i]:4d}{h.ins_code[i] or ' ':1s}   {x:8.3f}{y:8.3f}{z:8.3f}  1.00  0.00"
                f"          {h.element[i]:>2s}\n"
            )
        fh.write("END\n")
    times = []
    with pymol2.PyMOL() as p:
        cmd = p.cmd
        cmd.load(str(pdb), "scene")
        pymol_style(cmd, "not hetatm", "hetatm")
        for rep in range(repeats):
            t0 = time.perf_counter()
            cmd.png(str(out_dir / "pymol.png"), width=size, height=size, ray=1)
            times.append(time.perf_counter() - t0)
    return statistics.median(times)


_FIRST_IMAGE = r"""
import sys, time
sys.path.insert(0, sys.argv[1])
from scenes import load_sample
c = load_sample("2pyy")
t0 = time.perf_counter()
from misi_render import RenderOptions, render_views, save_png
v, = render_views(c, ("front",), options=RenderOptions(size=1024))
save_png(v.image, sys.argv[2])
print(time.perf_counter() - t0)
"""


def first_image_seconds(out_dir: Path) -> float:
    here = str(Path(__file__).resolve().parents[1] / "tests" / "render")
    res = subprocess.run(
        [sys.executable, "-c", _FIRST_IMAGE, here, str(out_dir / "first.png")],
        capture_output=True, text=True, check=True, env=dict(os.environ),
    )  # fmt: skip
    return float(res.stdout.strip().splitlines()[-1])


_STAGES = ("raster", "labels", "png", "total")


def _print_rows(rows: dict, heavy: dict) -> None:
    header = f"{'scene':<13}{'heavy':>6}{'size':>6}{'views':>6}{'raster':>9}{'labels':>9}{'png':>8}" \
             f"{'total':>9}{'/view':>8}{'peakMB':>8}   cpu:{'raster':>7}{'labels':>8}{'png':>7}{'total':>8}"  # fmt: skip
    print("\nmedian ms per image (raster, labels, png = per view; total = all views, render_views + save_png)")
    print(header)
    for (name, size, nv), r in rows.items():
        print(f"{name:<13}{heavy[name]:>6}{size:>6}{nv:>6}{r['raster']:>9.1f}{r['labels']:>9.1f}"
              f"{r['png']:>8.1f}{r['total']:>9.1f}{r['per_view']:>8.1f}{r['peak_mb']:>8.1f}      "
              f"{r['raster_cpu']:>7.2f}{r['labels_cpu']:>8.2f}{r['png_cpu']:>7.2f}{r['total_cpu']:>8.2f}")  # fmt: skip


def run_ab(args: argparse.Namespace, argv: list[str]) -> None:
    """Run this benchmark in subprocesses, alternating ``args.ab`` (A) and this tree's src (B)."""
    mine = str(Path(__file__).resolve().parents[1] / "src")
    trees = {"A": str(Path(args.ab).resolve()), "B": mine}
    child = [a for a in argv]
    k = child.index("--ab")
    del child[k : k + 2]
    if "--ab-rounds" in child:
        k = child.index("--ab-rounds")
        del child[k : k + 2]
    child += ["--json", "--no-pymol"]
    runs: dict[str, list[dict]] = {"A": [], "B": []}
    heavy: dict = {}
    print(f"A = {trees['A']}\nB = {trees['B']}\nrounds {args.ab_rounds} (A then B, alternating), "
          f"load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    for rnd in range(args.ab_rounds):
        for tag in ("A", "B") if rnd % 2 == 0 else ("B", "A"):
            env = dict(os.environ, PYTHONPATH=trees[tag])
            res = subprocess.run([sys.executable, __file__, *child], capture_output=True, text=True, env=env)
            if res.returncode:
                sys.exit(f"{tag} run failed:\n{res.stderr}")
            out = json.loads(res.stdout.strip().splitlines()[-1])
            heavy.update(out["heavy"])
            runs[tag].append({tuple(r["key"]): r for r in out["rows"]})
    for tag in ("A", "B"):
        med = {key: {f: statistics.median(run[key][f] for run in runs[tag]) for f in runs[tag][0][key] if f != "key"}
               for key in runs[tag][0]}  # fmt: skip
        runs[tag] = med
        print(f"\n== {tag}: {trees[tag]} (median of {args.ab_rounds} runs)", end="")
        _print_rows(med, heavy)
    print("\nB / A (median ms ratio; < 1 means B is faster)")
    print(f"{'scene':<13}{'size':>6}{'views':>6}" + "".join(f"{s:>9}" for s in _STAGES)
          + "   cpu:" + "".join(f"{s:>8}" for s in _STAGES))  # fmt: skip
    for key in runs["A"]:
        a, b = runs["A"][key], runs["B"][key]
        print(f"{key[0]:<13}{key[1]:>6}{key[2]:>6}" + "".join(f"{b[s] / a[s]:>9.2f}" for s in _STAGES)
              + "      " + "".join(f"{b[s + '_cpu'] / a[s + '_cpu']:>8.2f}" for s in _STAGES))  # fmt: skip


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=1, help="numba threads; >1 uses the prange kernel (default 1)")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--sizes", type=int, nargs="+", default=[512, 1024, 2048])
    ap.add_argument("--views", type=int, nargs="+", default=[1, 6])
    ap.add_argument("--scenes", nargs="+", default=[*SAMPLE_IDS, "pocket1000"])
    ap.add_argument("--no-pymol", action="store_true")
    ap.add_argument("--ab", metavar="OTHER_SRC", help="A/B: alternate subprocess runs of OTHER_SRC (A) and this "
                    "tree's src (B), e.g. --ab /work/main/src; prints both and B/A ratios")  # fmt: skip
    ap.add_argument("--ab-rounds", type=int, default=4, help="runs of each side with --ab (default 4)")
    ap.add_argument("--json", action="store_true", help=argparse.SUPPRESS)  # one JSON line (for --ab)
    argv = sys.argv[1:] if argv is None else list(argv)
    args = ap.parse_args(argv)
    if args.ab:
        run_ab(args, argv)
        return
    import numba

    if not args.json:
        print(f"numba {numba.__version__}, threads {numba.get_num_threads()}, parallel kernel {_render.parallel_default()}, "
              f"CPUs {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")  # fmt: skip
    scenes = {}
    for s in args.scenes:
        if s == "pocket1000":
            name, c = pocket_1000()
            scenes[name] = c
        else:
            scenes[s] = load_sample(s)
    heavy = {name: int((~c.is_hydrogen).sum()) for name, c in scenes.items()}
    with tempfile.TemporaryDirectory() as tmp:
        out_dir = Path(tmp)
        warm_up()  # compile or load the numba kernels
        rows = {}
        for name, c in scenes.items():
            for size in args.sizes:
                for nv in args.views:
                    reps = max(3, args.repeats // (2 if size >= 2048 else 1))
                    rows[(name, size, nv)] = bench_scene(c, size, nv, reps, out_dir)
        if args.json:
            print(json.dumps({"heavy": heavy, "rows": [{"key": list(k), **r} for k, r in rows.items()]}))
            return
        _print_rows(rows, heavy)
        print(f"\nprocess peak RSS: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")
        print(f"first image of a new process (import + render + save, cache warm): {first_image_seconds(out_dir):.2f} s")
        if args.no_pymol:
            print("PyMOL comparison skipped (--no-pymol)")
        else:
            for name in scenes:
                if (name, 1024, 1) not in rows or name not in ("2pyy", "2pv2-1000", "samples-1000"):
                    continue
                t = pymol_time(scenes[name], 1024, 3, out_dir)
                if t is None:
                    print("PyMOL not installed (pip install pymol-open-source): comparison skipped")
                    break
                ours = rows[(name, 1024, 1)]["total"]
                print(f"PyMOL ray-traced png, {name} 1024 px: {t * 1e3:.0f} ms vs misi {ours:.1f} ms "
                      f"-> misi is {t * 1e3 / ours:.1f}x faster")  # fmt: skip


if __name__ == "__main__":
    main()
