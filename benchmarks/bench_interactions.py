"""Time of profiling every interaction type of a complex, against the H-bond detector alone.

Per complex (loading excluded; one warm-up run each), ``--repeat`` interleaved runs of
``find_hbonds`` and of ``find_interactions`` (all seven types, the H-bond one included) in one
process, CPU time (``time.process_time``); prints per-complex medians and the median and max of the
ratio all/H-bond.  The goal: all types within 2x the H-bond detector's time.  Usage::

    python benchmarks/bench_interactions.py [ROOT] [--repeat 5] [--limit N]

ROOT is a folder of complexes (default: the dev set, else the bundled samples).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import warnings
from pathlib import Path

from misi_geom import find_complex_dirs, find_hbonds, load_complex
from misi_geom.interactions import find_interactions
from misi_geom.samples import sample_root

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")


def _cpu(fn, c) -> float:
    t = time.process_time()
    fn(c)
    return time.process_time() - t


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", nargs="?", type=Path, default=DEFAULT_DEV if DEFAULT_DEV.is_dir() else sample_root())
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args(argv)
    warnings.simplefilter("ignore")
    dirs = find_complex_dirs(args.root)[: args.limit or None]
    ratios, hb_all, all_all = [], [], []
    for d in dirs:
        c = load_complex(d)
        find_hbonds(c), find_interactions(c)  # warm-up (numba, caches)
        hb, al = [], []
        for _ in range(args.repeat):
            hb.append(_cpu(find_hbonds, c))
            al.append(_cpu(find_interactions, c))
        h, a = statistics.median(hb), statistics.median(al)
        ratios.append(a / h)
        hb_all.append(h)
        all_all.append(a)
        print(f"{d.name:<10} hbond {h * 1e3:7.1f} ms   all types {a * 1e3:7.1f} ms   ratio {a / h:5.2f}")
    print(f"{len(dirs)} complexes, CPU time (process_time), median of {args.repeat} interleaved runs each:")
    print(f"  hbond median {statistics.median(hb_all) * 1e3:.1f} ms, all types median "
          f"{statistics.median(all_all) * 1e3:.1f} ms")
    print(f"  ratio all/hbond: median {statistics.median(ratios):.2f}, max {max(ratios):.2f} (goal <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
