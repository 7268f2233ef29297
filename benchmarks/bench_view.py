"""Benchmark the views of a dataset: the misi-view site and the card's figures.

Usage::

    python benchmarks/bench_view.py DATASET [--input DIR] [--per-task 20] [--repeat 3]

``DATASET`` is a misi-gen output folder; ``--input`` the complexes it was made from (for the
heavy-atom figure; default: the bundled samples). Prints, with the load average (timings on a
shared machine are noisy):

- the site: a fresh build (every thumbnail converted) and a rebuild (thumbnails already there),
  with a random-baseline predictions file scored on every item;
- the card's figures (all four), in a process that has already imported misi_geom and matplotlib,
  as misi-gen has when it writes the card; median of ``--repeat`` runs, wall and CPU.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

from misi_tasks.dataset import read_items
from misi_geom.samples import sample_root
from misi_tasks.eval.baselines import baseline_predictions
from misi_tasks.view import build_site


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


def bench_site(dataset: Path, per_task: int) -> None:
    items = read_items(dataset, images=False)
    tmp = Path(tempfile.mkdtemp(prefix="bench_view_"))
    try:
        preds = tmp / "preds.jsonl"
        preds.write_text("".join(json.dumps({"id": k, "reply": v}) + "\n"
                                 for k, v in baseline_predictions(items, "random").items()))
        for label in ("fresh build", "rebuild"):
            t, c = time.perf_counter(), time.process_time()
            s = build_site(dataset, tmp / "site", per_task=per_task, predictions=preds)
            print(f"site {label:12s} wall {time.perf_counter() - t:6.2f} s  cpu {time.process_time() - c:6.2f} s  "
                  f"({s.items_shown} of {s.items_total} items, {s.images} images, {s.images_written} converted, "
                  f"{s.pages} pages)  load {_load()}")
        size = sum(f.stat().st_size for f in (tmp / "site").rglob("*") if f.is_file())
        print(f"site size {size / 2**20:.1f} MiB")
    finally:
        shutil.rmtree(tmp)


def bench_card(dataset: Path, input_dir: Path, repeat: int) -> None:
    import matplotlib.figure  # noqa: F401 - imported by misi-gen before the card too
    import misi_geom  # noqa: F401

    from misi_tasks.engine.card_figures import write_card_figures

    tmp = Path(tempfile.mkdtemp(prefix="bench_card_"))
    try:
        (tmp / "data").symlink_to((dataset / "data").resolve())
        walls, cpus = [], []
        for _ in range(repeat):
            t, c = time.perf_counter(), time.process_time()
            figs = write_card_figures(tmp, input_dir)
            walls.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
        n = len({it["complex_id"] for it in read_items(dataset, images=False)})
        print(f"card figures ({len(figs)}, {n} complexes): median wall {statistics.median(walls):.2f} s, "
              f"cpu {statistics.median(cpus):.2f} s over {repeat} runs  load {_load()}")
    finally:
        shutil.rmtree(tmp)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("dataset", type=Path)
    p.add_argument("--input", type=Path, default=None, help="complexes of the dataset (default: bundled samples)")
    p.add_argument("--per-task", type=int, default=20)
    p.add_argument("--repeat", type=int, default=3)
    args = p.parse_args()
    print(f"load average at start: {_load()} on {os.cpu_count()} cores")
    bench_site(args.dataset, args.per_task)
    bench_card(args.dataset, args.input or sample_root(), args.repeat)


if __name__ == "__main__":
    main()
