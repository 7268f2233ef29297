"""``misi-export``: write a misi dataset in the formats evaluation and fine-tuning tools read.

Examples::

    misi-export OUT --to vlmevalkit --out ~/LMUData            # then: python run.py --data MiSI_T1_train ...
    misi-export OUT --to lmms-eval --out misi_lmms_tasks        # then: lmms-eval --include_path misi_lmms_tasks --tasks misi
    misi-export OUT --to llamafactory --out LLaMA-Factory/data  # the train split; dataset name misi_train
    misi-export OUT --to jsonl --out misi_jsonl --split all
    misi-export OUT --to openai-batch --out batch --model gpt-4o --max-image-px 768   # requests-00001.jsonl, ...

Every format uses misi's one prompt builder, so the prompts match misi-run and each other. Default
split: train for llamafactory, all for jsonl, else test (when the dataset has one). Files of an
earlier export in --out are refused unless --overwrite; nothing else in the folder is touched.
An --out inside the dataset folder (whose files ``hf upload`` would publish) is refused unless --overwrite.
Exit status: 0 written, 2 bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from misi_tasks._cli import new_parser, run
from misi_tasks.dataset import DatasetError
from misi_tasks.export import jsonl, llamafactory, lmms_eval, openai_batch, vlmevalkit
from misi_tasks.export.files import ExportDir, ExportError
from misi_tasks.export.source import iter_items_with_images, parse_tasks, select_items
from misi_tasks.definitions.registry import SPLITS
from misi_tasks.version import package_version

__all__ = ["FORMATS", "build_parser", "main"]

FORMATS: tuple[str, ...] = ("vlmevalkit", "lmms-eval", "llamafactory", "jsonl", "openai-batch")
_DEFAULT_SPLIT = {"llamafactory": "train", "jsonl": "all"}


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``misi-export``."""
    doc = __doc__ or ""
    p = new_parser(
        "misi-export",
        "Export a misi dataset for VLMEvalKit, lmms-eval, LLaMA-Factory, OpenAI Batch or as plain JSONL.",
        epilog=doc[doc.index("Examples::"):].replace("Examples::", "examples:"), raw=True,
    )
    p.add_argument("dataset", type=Path, help="misi dataset folder (holding data/)")
    p.add_argument("--to", required=True, choices=FORMATS, help="target format")
    p.add_argument("--out", required=True, type=Path, help="output folder")
    p.add_argument("--task", action="append", metavar="TASK",
                   help="task name or code (repeatable or comma-separated; default: all)")
    p.add_argument("--split", choices=[*SPLITS, "all"], default=None,
                   help="split to export (default: train for llamafactory, all for jsonl, else test if present)")
    p.add_argument("--limit", type=int, default=None, metavar="N", help="only the first N items of each task")
    p.add_argument("--max-image-px", type=int, default=None, metavar="PX",
                   help="downscale images whose longer side exceeds PX (default: as generated)")
    p.add_argument("--system-prompt", default=None, metavar="TEXT",
                   help="system prompt (llamafactory, jsonl, openai-batch)")
    p.add_argument("--model", default="gpt-4o", help="model named in openai-batch requests (default gpt-4o)")
    p.add_argument("--max-tokens", type=int, default=None, metavar="N",
                   help="reply cap: openai-batch max_tokens, lmms-eval max_new_tokens (default 512)")
    p.add_argument("--batch-max-mb", type=float, default=openai_batch.MAX_PART_BYTES / 1e6, metavar="MB",
                   help="openai-batch: start a new requests-NNNNN.jsonl part before this size (default 190; "
                        "the Batch API takes 200 MB per file)")
    p.add_argument("--batch-max-requests", type=int, default=openai_batch.MAX_PART_REQUESTS, metavar="N",
                   help="openai-batch: at most N requests per part (default 50000, the Batch API's limit)")
    p.add_argument("--overwrite", action="store_true", help="replace the files of an earlier export in --out")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p



def export(args: argparse.Namespace) -> list[str]:
    """Run one export from parsed arguments; return the names written."""
    for name in ("limit", "max_image_px", "max_tokens", "batch_max_requests"):
        value = getattr(args, name)
        if value is not None and value < 1:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 1, got {value}")
    if not args.batch_max_mb > 0:
        raise ValueError(f"--batch-max-mb must be positive, got {args.batch_max_mb:g}")
    dataset, out = args.dataset.resolve(), args.out.resolve()
    if (out == dataset or dataset in out.parents) and not args.overwrite:
        raise ValueError(f"--out {args.out}: is inside the dataset {args.dataset} (hf upload would publish the "
                         "export with it); choose a folder outside it, or pass --overwrite")
    split = args.split or _DEFAULT_SPLIT.get(args.to)
    items, _, split = select_items(args.dataset, parse_tasks(args.task), split, args.limit)
    pairs = list(dict.fromkeys((it["task"], it["split"]) for it in items))
    if args.to == "lmms-eval":
        if args.limit is not None or args.max_image_px is not None:
            raise ValueError("--limit and --max-image-px do not apply to --to lmms-eval (it reads the dataset in "
                             "place; use lmms-eval's own --limit)")
        if split == "all" and len({s for _, s in pairs}) > 1:
            raise ValueError("--to lmms-eval evaluates one split per task: pass --split test or --split train")
        out = ExportDir(args.out, lmms_eval.planned_names(t for t, _ in pairs), overwrite=args.overwrite)
        return lmms_eval.export_lmms_eval(pairs, out, dataset=args.dataset, version=package_version(),
                                          max_new_tokens=args.max_tokens or 512)
    planned = {
        "vlmevalkit": lambda: vlmevalkit.planned_names(pairs),
        "llamafactory": lambda: llamafactory.planned_names(dict.fromkeys(s for _, s in pairs)),
        "jsonl": jsonl.planned_names,
        "openai-batch": lambda: openai_batch.planned_names(args.out),
    }[args.to]()
    out = ExportDir(args.out, planned, overwrite=args.overwrite)
    rows = iter_items_with_images(args.dataset, {it["id"] for it in items})
    if not args.quiet:
        from tqdm import tqdm

        rows = tqdm(rows, total=len(items), unit="item", desc=f"misi-export {args.to}", file=sys.stderr)
    kw = dict(max_image_px=args.max_image_px, system=args.system_prompt)
    if args.to == "vlmevalkit":
        return vlmevalkit.export_vlmevalkit(rows, out, **kw)
    if args.to == "llamafactory":
        return llamafactory.export_llamafactory(rows, out, **kw)
    if args.to == "jsonl":
        return jsonl.export_jsonl(rows, out, **kw)
    return openai_batch.export_openai_batch(rows, out, model=args.model, max_tokens=args.max_tokens,
                                            max_part_bytes=int(args.batch_max_mb * 1e6),
                                            max_part_requests=args.batch_max_requests, **kw)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``misi-export``; return the exit status (0 written, 2 bad input)."""
    args = build_parser().parse_args(argv)

    def body() -> int:
        names = export(args)
        shown = ", ".join(names[:6]) + (f", ... ({len(names)} in all)" if len(names) > 6 else "")
        print(f"misi-export: wrote {args.to} to {args.out}: {shown}", file=sys.stderr)
        return 0

    return run("misi-export", body, errors=(DatasetError, ExportError, ValueError, OSError),
               interrupted="interrupted; index files are written last, so rerun with --overwrite")


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
