"""``misi-view``: a static, browsable gallery of a misi dataset.

Examples::

    misi-view misi_out --out misi_site                       # open misi_site/index.html
    misi-view misi_out --out site --per-task 50 --predictions preds.jsonl
    misi-view misi_out --out site --predictions gold.jsonl --predictions lmms_out --name gold --name qwen
    misi-view my_bench --out site --structures /data/pdbbind/refined-set   # 3-D views of your complexes

Open site/items.html to filter the shown items by task, complex and a model's outcome (correct, wrong,
unparseable, missing); item pages show every model's reply beside the answer and a 3-D view of the
complex (3Dmol.js, bundled with the site: it works offline).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from misi_tasks._cli import new_parser, run

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``misi-view``."""
    doc = __doc__ or ""
    p = new_parser("misi-view", "Write a static HTML gallery of a misi dataset.", raw=True,
                   epilog=doc[doc.index("Examples::"):].replace("Examples::", "examples:"))
    p.add_argument("dataset", type=Path, help="dataset folder (holding data/)")
    p.add_argument("--out", type=Path, required=True, help="site folder (new, empty, or an earlier misi-view site)")
    p.add_argument("--per-task", type=int, default=20, metavar="N", help="items shown per task (default 20)")
    p.add_argument("--predictions", type=Path, nargs="+", action="append", default=None, metavar="PATH",
                   help="one model's predictions in any format misi-eval reads (files or results folders); "
                        "repeat for more models: each reply, its parsed answer and score are shown")
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="name of the i-th --predictions model (default: the model its files record)")
    p.add_argument("--structures", type=Path, default=None, metavar="DIR",
                   help="PDBbind-layout folder of the complexes, for the 3-D views (default: the bundled "
                        "samples when the dataset's complexes are theirs)")
    p.add_argument("--seed", type=int, default=0, help="seed of the choice of items (default 0)")
    p.add_argument("--pick", choices=("last", "first"), default="last",
                   help="which complete answer of a reply to score (as misi-eval; default: last)")
    return p


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``misi-view``; return the exit status (0 ok, 2 bad input)."""
    from misi_tasks.dataset import DatasetError
    from misi_tasks.eval.prediction_formats import PredictionsError
    from misi_tasks.view.site import build_site

    parser = build_parser()
    args = parser.parse_args(argv)
    if args.per_task < 1:
        parser.error(f"--per-task must be at least 1, got {args.per_task}")

    def body() -> int:
        summary = build_site(args.dataset, args.out, per_task=args.per_task, predictions=args.predictions,
                             seed=args.seed, pick=args.pick, names=args.name, structures=args.structures)
        print(summary.format())
        return 0

    return run("misi-view", body, errors=(DatasetError, PredictionsError, ValueError, OSError),
               interrupted="interrupted; run the same command again to finish the site")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
