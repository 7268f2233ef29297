"""Speed of ``find_hbonds``, and a digest of its results, for one or two source trees side by side.

Each tree is measured in its own subprocess (``PYTHONPATH=TREE``) on the same complexes, in the
same run, so that an old commit and the working tree can be compared under the same load::

    git worktree add /tmp/hb-old a4247c7
    PYTHONPATH=$PWD/src python benchmarks/bench_hbonds.py --tree /tmp/hb-old/src --tree src

Complexes: the bundled samples and, when present, the ``--dev`` PDBbind folder (skipped if absent).
Workloads, each the best of ``--repeat`` runs (s, summed over complexes):

- ``pocket-ligand``: ``find_hbonds(c)`` as the tasks call it (typing included);
- ``all pairs``: ``find_hbonds(c, typing=t, between="all")`` with the typing precomputed, on the
  ``--large`` largest complexes: every donor/acceptor pair of the complex goes through the
  criteria, which isolates the criterion tests from the typing.

The digest (sha256 of every ``HBond`` record of both workloads, relaxed and precise, with and
without hydrogens) must be equal for trees that claim the same results.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
import warnings
from pathlib import Path

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")


def _measure(dev: Path, repeat: int, large: int) -> dict:
    """Run inside one tree: timings and the digest of the results."""
    import dataclasses

    from misi_geom import assign_hbond_types, find_hbonds, load_complex
    from misi_geom.samples import sample_dirs

    warnings.simplefilter("ignore")
    dirs = list(sample_dirs())
    if dev.is_dir():
        dirs += sorted(d for d in dev.iterdir() if d.is_dir())
    complexes = [load_complex(d) for d in dirs]
    complexes += [c[~c.is_hydrogen] for c in complexes]
    big = sorted(complexes, key=len)[-large:]
    typings = [assign_hbond_types(c) for c in big]
    digest = hashlib.sha256()
    out = {"complexes": len(complexes), "large_atoms": [len(c) for c in big]}
    for name, run in (
        ("pocket-ligand", lambda relax: [find_hbonds(c, relax=relax) for c in complexes]),
        ("all pairs", lambda relax: [find_hbonds(c, relax=relax, typing=t, between="all")
                                     for c, t in zip(big, typings)]),
    ):
        for relax in (True, False):
            found = run(relax)
            digest.update(json.dumps([[dataclasses.astuple(b) for b in f] for f in found]).encode())
            best = float("inf")
            for _ in range(repeat):
                t0 = time.perf_counter()
                run(relax)
                best = min(best, time.perf_counter() - t0)
            out[f"{name} {'relaxed' if relax else 'precise'} s"] = round(best, 4)
            out[f"{name} {'relaxed' if relax else 'precise'} bonds"] = sum(len(f) for f in found)
    out["digest"] = digest.hexdigest()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tree", action="append", type=Path, help="a src folder to measure (repeatable)")
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--large", type=int, default=10, help="complexes in the all-pairs workload")
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.child:
        print(json.dumps(_measure(args.dev, args.repeat, args.large)))
        return 0
    trees = args.tree or [Path(__file__).resolve().parents[1] / "src"]
    results = []
    for tree in trees:
        env = dict(os.environ, PYTHONPATH=str(tree.resolve()))
        proc = subprocess.run([sys.executable, __file__, "--child", "--dev", str(args.dev), "--repeat",
                               str(args.repeat), "--large", str(args.large)], env=env, capture_output=True,
                              text=True, check=True)
        results.append(json.loads(proc.stdout))
    print(f"load: {os.getloadavg()[0]:.2f} (1-min average)")
    keys = [k for k in results[0] if k.endswith(" s") or k.endswith(" bonds")]
    print(f"{'':32s}" + "".join(f"{str(t):>24s}" for t in trees))
    for k in ["complexes"] + keys + ["digest"]:
        print(f"{k:32s}" + "".join(f"{str(r[k])[:22]:>24s}" for r in results))
    if len(results) > 1:
        for k in (k for k in keys if k.endswith(" s")):
            print(f"ratio {k:26s} {results[0][k] / results[-1][k]:.2f}x (first tree / last tree)")
        same = len({r['digest'] for r in results}) == 1
        print("results identical" if same else "RESULTS DIFFER")
        return 0 if same else 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
