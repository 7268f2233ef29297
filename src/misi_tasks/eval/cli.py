"""``misi-eval``: score model replies (or a baseline) against a misi dataset.

Usage::

    misi-eval --dataset OUT --predictions preds.jsonl [--task T1 --task docking] [--split test]
              [--out-json report.json] [--out-csv report.csv] [--out-items items.jsonl] [--reference]
    misi-eval --dataset OUT --baseline oracle|random [--seed 0] [--write-predictions preds.jsonl]
    misi-eval --dataset OUT --predictions a.jsonl [--compare b.jsonl ...] --plot report.png --html report.html
    misi-eval --dataset OUT --predictions lmms_out --predictions vlmeval_outputs/Qwen2.5-VL-7B-Instruct \
              --predictions gpt4o.jsonl [--name A --name B --name C] --reference     # a leaderboard

``preds.jsonl`` holds one JSON object per line with the item ``id`` and the model's ``reply``
(aliases ``prediction``, ``response``; ``null`` is an empty, unparseable reply). Unknown ids, duplicate ids
and malformed lines stop the run with a one-line error naming the line; predictions for items
outside ``--task``/``--split`` are ignored; items without a prediction score 0 and are reported.
``--predictions`` also takes VLMEvalKit result tables, lmms-eval sample logs and OpenAI Batch output,
several files at once, detecting each file's format (:mod:`misi_tasks.eval.prediction_formats`),
and harness results folders (:mod:`misi_tasks.eval.sources`). Each ``--predictions`` group is one
model, named by the model its files record (``--name`` overrides); with several models the report
becomes a leaderboard with seeded bootstrap 95% intervals (:mod:`misi_tasks.eval.leaderboard`).
An output file (``--out-*``, ``--write-predictions``, ``--plot``, ``--html``) that already exists is
refused before any scoring unless ``--overwrite``; files are written atomically.
Exit status: 0 on success, 2 on bad input.
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict
from collections.abc import Sequence
from pathlib import Path

from misi_tasks._atomic import atomic_write_bytes
from misi_tasks._cli import new_parser, run
from misi_tasks._mpl import MatplotlibMissing
from misi_tasks.dataset import DatasetError, list_splits, read_items
from misi_tasks.definitions.registry import SPLITS, resolve_task, task_codes
from misi_tasks.eval.report import render_table, report_csv, report_json, summarize
from misi_tasks.eval.score import score_item
from misi_tasks.eval.baselines import BASELINES, baseline_predictions
from misi_tasks.eval.leaderboard import AVERAGE, MEAN, bootstrap, compare, render_leaderboard
from misi_tasks.eval.prediction_formats import PredictionsError, read_predictions
from misi_tasks.eval.sources import load_models

__all__ = ["PredictionsError", "build_parser", "main", "read_predictions"]

def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``misi-eval``."""
    p = new_parser("misi-eval", "Score replies to a misi (MiSI-Bench-style) dataset.")
    p.add_argument("--dataset", required=True, type=Path, help="dataset directory (holding data/)")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--predictions", type=Path, nargs="+", action="append", metavar="PATH",
                     help="one model's prediction files or results folders: misi JSONL ({id, reply} per line), "
                          "VLMEvalKit .xlsx/.tsv/.json, lmms-eval sample logs or output folders, OpenAI Batch "
                          "output (format detected); repeat for more models")
    src.add_argument("--baseline", choices=BASELINES, help="score a built-in baseline instead")
    p.add_argument("--task", action="append", default=None, metavar="TASK",
                   help="task name or code to score (repeatable or comma-separated; default: all)")
    p.add_argument("--split", default=None, choices=[*SPLITS, "all"],
                   help="split to score (default: test when the dataset has one, else all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the random baseline (default: 0)")
    p.add_argument("--write-predictions", type=Path, metavar="FILE", help="write the baseline's replies as JSONL")
    p.add_argument("--out-json", type=Path, metavar="FILE", help="write the report as JSON")
    p.add_argument("--out-csv", type=Path, metavar="FILE", help="write the report as CSV")
    p.add_argument("--out-items", type=Path, metavar="FILE", help="write per-item scores as JSONL")
    p.add_argument("--reference", action="store_true", help="print the paper's reference rows beside the result")
    p.add_argument("--pick", choices=("last", "first"), default="last",
                   help="which complete answer of a reply to score (default: last)")
    p.add_argument("--compare", type=Path, action="append", default=[], metavar="FILE",
                   help="another model's JSONL predictions, scored on the same items and drawn beside (repeatable)")
    p.add_argument("--name", action="append", default=[], metavar="NAME",
                   help="name of the i-th --predictions model (default: the model its files record)")
    p.add_argument("--bootstrap", type=int, default=1000, metavar="N",
                   help="bootstrap resamples for the 95%% intervals (seeded by --seed; 0: none; default 1000)")
    p.add_argument("--plot", type=Path, metavar="PNG", help="chart of the scores beside the paper's rows (misi[viz])")
    p.add_argument("--html", type=Path, metavar="FILE", help="HTML report: the chart and the tables (misi[viz])")
    p.add_argument("--overwrite", action="store_true", help="replace output files that already exist")
    return p


#: The options that name a file misi-eval writes.
_OUTPUTS = ("out_json", "out_csv", "out_items", "write_predictions", "plot", "html")


def _check_outputs(args: argparse.Namespace) -> None:
    """Refuse an output file that exists (a dataset's card, another report) unless ``--overwrite``."""
    for name in _OUTPUTS:
        path = getattr(args, name)
        if path is not None and path.is_dir():
            raise ValueError(f"--{name.replace('_', '-')} {path}: is a folder, not a file")
        if path is not None and path.exists() and not args.overwrite:
            raise ValueError(f"--{name.replace('_', '-')} {path}: exists; choose another file or pass --overwrite "
                             "to replace it")


def _write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def _paths_meta(paths: list[Path] | None) -> str | list[str] | None:
    """The predictions path(s) for the JSON report: a string for one file, a list for several."""
    if not paths:
        return None
    return str(paths[0]) if len(paths) == 1 else [str(p) for p in paths]


def _run(args: argparse.Namespace) -> int:
    """The body of ``misi-eval``: select the items, read (or make) the replies, score, report."""
    _check_outputs(args)
    tasks, items, known = _selected_items(args)
    names, replies, files = _replies(args, items, known)
    selected = {it["id"] for it in items}
    ignored = sum(1 for k in replies[0] if k not in selected)
    scores = [[score_item(it, preds.get(it["id"]), pick=args.pick) for it in items] for preds in replies]
    reports = [summarize(s) for s in scores]
    cis = bootstrap(scores, resamples=args.bootstrap, seed=args.seed)
    comparisons = _print_reports(args, names, reports, cis, ignored, scores)
    meta = dict(dataset=str(args.dataset), predictions=_paths_meta(files[0]), model=names[0],
                baseline=args.baseline, seed=args.seed, tasks=tasks, split=args.split, pick=args.pick,
                ignored_predictions=ignored, bootstrap={"resamples": args.bootstrap, "seed": args.seed})
    _write_outputs(args, meta, names, files, reports, cis, comparisons, scores[0])
    if args.plot or args.html:
        from misi_tasks.eval.charts import write_charts  # needs matplotlib (misi[viz])

        write_charts(list(zip(names, reports)), items, plot=args.plot, html=args.html, seed=args.seed,
                     meta=dict(meta, compare=", ".join(names[1:]) or None))
    return 0


def _selected_items(args: argparse.Namespace) -> tuple[list[str] | None, list[dict], set[str]]:
    """(tasks asked for or None, the items of those tasks and ``--split``, every item id of the
    dataset); sets ``args.split`` when not given."""
    tasks = None
    if args.task:
        tasks = [resolve_task(t) for arg in args.task for t in arg.split(",") if t.strip()]
    args.predictions = args.predictions or []
    if args.write_predictions and not args.baseline:
        raise PredictionsError("--write-predictions needs --baseline")
    all_items = read_items(args.dataset, images=False)
    if args.split is None:  # the benchmark split when there is one (a train-only run scores everything)
        args.split = "test" if any(it["split"] == "test" for it in all_items) else "all"
    splits = None if args.split == "all" else [args.split]
    items = [it for it in all_items if (tasks is None or it["task"] in tasks)
             and (splits is None or it["split"] in splits)]
    if not items:
        present = ", ".join(f"{task_codes()[t]} {t} ({'/'.join(s)})" for t, s in list_splits(args.dataset).items())
        raise DatasetError(f"{args.dataset}: no items match --task/--split; dataset has: {present or 'nothing'}")
    return tasks, items, {it["id"] for it in all_items}


def _replies(args: argparse.Namespace, items: list[dict], known: set[str]
             ) -> tuple[list[str], list[dict[str, str]], list[list[Path]]]:
    """(model names, each model's replies by item id, each model's prediction files): a baseline's
    (written out with ``--write-predictions``), or the ``--predictions`` / ``--compare`` models'."""
    if args.baseline:
        preds = baseline_predictions(items, args.baseline, seed=args.seed)
        if args.write_predictions:
            lines = [json.dumps({"id": k, "reply": v}, ensure_ascii=False) for k, v in preds.items()]
            _write_text(args.write_predictions, "\n".join(lines) + "\n")
        return [f"baseline {args.baseline}"], [preds], [[]]
    if args.bootstrap < 0:
        raise ValueError(f"--bootstrap must be >= 0, got {args.bootstrap}")
    models = load_models([*args.predictions, *([c] for c in args.compare)], args.name, known)
    names, replies, files = [m.name for m in models], [m.replies for m in models], [m.files for m in models]
    for fs, answered in zip(files, replies):
        _note_failures(fs, answered)
    return names, replies, files


def _print_reports(args: argparse.Namespace, names: list[str], reports: list, cis: list[dict], ignored: int,
                   scores: list[list]) -> list:
    """Print the first model's table (and what it misses), the others' and the leaderboard; returns
    the pairwise comparisons."""
    report = reports[0]
    table = render_table(report, reference=args.reference and len(names) == 1, label=names[0][:25], ci=cis[0])
    sys.stdout.write(f"model: {names[0]}\n{table}")
    if report.missing_ids:
        shown = ", ".join(report.missing_ids[:3]) + (", ..." if len(report.missing_ids) > 3 else "")
        print(f"misi-eval: warning: {len(report.missing_ids)} item(s) have no prediction and score 0: {shown}",
              file=sys.stderr)
    if ignored:
        print(f"misi-eval: note: ignored {ignored} prediction(s) outside --task/--split", file=sys.stderr)
    comparisons = compare(names, scores, reports, resamples=args.bootstrap, seed=args.seed)
    for name, rep in zip(names[1:], reports[1:]):
        sys.stdout.write(f"\n{name}:\n" + render_table(rep, label=name[:25]))
    if len(names) > 1:
        sys.stdout.write("\n" + render_leaderboard(names, reports, cis, comparisons, reference=args.reference,
                                                    resamples=args.bootstrap, seed=args.seed))
    return comparisons


def _write_outputs(args: argparse.Namespace, meta: dict, names: list[str], files: list[list[Path]], reports: list,
                   cis: list[dict], comparisons: list, first_scores: list) -> None:
    """``--out-json``, ``--out-csv`` and ``--out-items``, for those given."""
    if args.out_json:
        doc = _with_ci(report_json(reports[0], reference=args.reference, **meta), cis[0])
        doc["models"] = [_with_ci(dict(name=n, files=[str(f) for f in fs], **asdict(r)), ci)
                         for n, fs, r, ci in zip(names, files, reports, cis)]
        doc["comparisons"] = [dict(a=c.a, b=c.b, difference=c.difference, ci95=list(c.ci95),
                                   within_noise=c.within_noise) for c in comparisons]
        _write_text(args.out_json, json.dumps(doc, indent=2) + "\n")
    if args.out_csv:
        _write_text(args.out_csv, report_csv(reports[0]))
    if args.out_items:
        _write_text(args.out_items, "".join(json.dumps(asdict(s)) + "\n" for s in first_scores))


def _with_ci(doc: dict, ci: dict) -> dict:
    """Add the 95% intervals to a report dict: ``columns[c]["ci95"]``, ``ci95`` for the two averages."""
    for col, st in doc["columns"].items():
        st["ci95"] = list(ci[col]) if col in ci else None
    doc["ci95"] = {key: list(ci[key]) if key in ci else None for key in (AVERAGE, MEAN)}
    return doc


def _note_failures(paths: list[Path], answered: dict[str, str]) -> None:
    """Say how many items misi-run recorded as rejected by the server and never answered (they
    score as missing here), and where they are listed."""
    for path in paths:
        failed = path.with_name(path.name + ".failed")
        if not failed.is_file():
            continue
        ids = set()
        for line in failed.read_text(encoding="utf-8", errors="replace").splitlines():
            try:
                obj = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(obj, dict) and isinstance(obj.get("id"), str) and obj["id"] not in answered:
                ids.add(obj["id"])
        if ids:
            print(f"misi-eval: note: {len(ids)} item(s) were rejected by the server (listed in {failed}) and score "
                  "as missing; misi-run --retry-failed asks them again", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``misi-eval``; return the exit status (0 ok, 2 bad input)."""
    args = build_parser().parse_args(argv)
    return run("misi-eval", lambda: _run(args),
               errors=(DatasetError, PredictionsError, ValueError, OSError, MatplotlibMissing))


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
