"""How often the T4/T8/T9 label check (docs/fairness.md) needs a second layout, or another item.

    python benchmarks/label_check.py [--input DIR] [--size 1024] [--limit N] [--split test]

Generates T4, T8 and T9 for every complex of ``--input`` (default: the bundled samples) and counts,
per task, the items whose first label layout passed, those laid out again (``label_check.relaid_out``)
and the complexes skipped, with the reason.  Counts, not times: the machine's load does not matter.
"""

from __future__ import annotations

import argparse
import collections
import json
from pathlib import Path

from misi_geom import find_complex_dirs, load_complex
from misi_geom.samples import sample_root
from misi_render import RenderOptions
from misi_tasks.engine.generate import generate_items
from misi_tasks.tasks.base import TaskSkipped
from misi_tasks.tasks.scene import Scene

TASKS = ("residue-ligand", "interaction-location", "pocket-ligand")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--input", type=Path, default=sample_root())
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--split", default="test", choices=("train", "test"))
    args = ap.parse_args()
    dirs = sorted(find_complex_dirs(args.input))[: args.limit]
    counts: collections.Counter = collections.Counter()
    for d in dirs:
        scene = Scene(load_complex(d), RenderOptions(size=args.size))
        for task in TASKS:
            try:
                items = generate_items(scene, [task], split=args.split, keep_renders=False)[task]
            except TaskSkipped as exc:
                counts[(task, f"skipped: {exc}")] += 1
                continue
            for item in items:
                counts[(task, "laid out again" if item.metadata["label_check"]["relaid_out"] else "first layout")] += 1
    print(f"{len(dirs)} complexes from {args.input}, {args.size} px, {args.split} counts")
    print(json.dumps({f"{t}: {what}": n for (t, what), n in sorted(counts.items())}, indent=1))


if __name__ == "__main__":
    main()
