"""``misi-audit``: prove a dataset's answers from its structures and pixels.

Examples::

    misi-audit misi_out                          # a dataset of the bundled samples
    misi-audit out --input pdbbind/              # the structures it was generated from
    misi-audit out --input pdbbind/ --task T7,T9 --no-card

Prints, per task, the items checked and passed and each failure with its reason, and writes the
counts into the dataset card's "Audit" section.  Exit status: 0 every item passed, 1 some item
failed, 2 bad arguments or an unreadable dataset or input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

from misi_tasks._cli import CliError, new_parser, run

__all__ = ["main", "build_parser", "run_audit"]

_CODES = {"translation": "T1", "rotation": "T2", "zooming": "T3", "residue-ligand": "T4",
          "translation-rotation": "T5", "rotation-rotation": "T6", "docking": "T7",
          "interaction-location": "T8", "pocket-ligand": "T9"}


def build_parser() -> argparse.ArgumentParser:
    p = new_parser(
        "misi-audit",
        "Re-derive every answer of a misi dataset along a second, independent path (own projection, "
        "colours in the pixels, own motions and H-bond geometry) and check that the images show "
        "what the prompts say.",
        epilog=__doc__.split("Examples::")[1].split("Prints,")[0].rstrip(),
        raw=True,
    )
    p.add_argument("dataset", type=Path, help="dataset folder misi-gen wrote")
    p.add_argument("--input", default=None,
                   help="the structures, as misi-gen --input takes them (default: what the dataset card records; "
                        "the bundled samples when it names no --input)")
    p.add_argument("--ligand", default=None, help="as misi-gen --ligand")
    p.add_argument("--smiles", default=None, help="as misi-gen --smiles")
    p.add_argument("--poses", type=int, default=None, help="as misi-gen --poses")
    p.add_argument("--task", default="all", help="task names or codes, comma-separated, or 'all'")
    p.add_argument("--workers", type=int, default=1,
                   help="processes auditing groups of shards side by side (default 1); the report does not depend on it")
    p.add_argument("--no-card", action="store_true", help="do not write the Audit section into the dataset card")
    p.add_argument("--max-failures", type=int, default=20, help="failures printed per task (default 20)")
    p.add_argument("--quiet", action="store_true", help="no progress lines")
    return p


def _tasks(text: str) -> set[str] | None:
    if text.strip().lower() == "all":
        return None
    out = set()
    for t in (x.strip() for x in text.split(",") if x.strip()):
        code = _CODES.get(t.lower(), t.upper())
        if code not in _CODES.values():
            raise ValueError(f"--task: unknown task {t!r} (names: {', '.join(_CODES)}; codes T1-T9)")
        out.add(code)
    return out


def _audit_body(dataset: Path, input_path, *, tasks: set[str] | None, card: bool, quiet: bool,
                max_failures: int, workers: int, **input_kw) -> Callable[[], int]:
    """The work of one audit: audit, write the card section, print the report; returns 0 or 1."""
    def body() -> int:
        from misi_tasks.audit.card import write_audit_section
        from misi_tasks.audit.report import audit_dataset

        say = None if quiet else (lambda line: print(line, file=sys.stderr, flush=True))
        report = audit_dataset(dataset, input_path, tasks=tasks, workers=workers, progress=say, **input_kw)
        if card:
            write_audit_section(Path(dataset) / "README.md", report)
        print(report.format(max_failures))
        return 0 if report.ok else 1
    return body


def run_audit(dataset: Path, input_path=None, *, tasks: set[str] | None = None, card: bool = True,
              quiet: bool = False, max_failures: int = 20, workers: int = 1, prog: str = "misi-audit",
              **input_kw) -> int:
    """Audit ``dataset``, print the report, write the card section; the exit status (0, 1 or 2)."""
    from misi_tasks.audit.report import AuditError

    body = _audit_body(dataset, input_path, tasks=tasks, card=card, quiet=quiet, max_failures=max_failures,
                       workers=workers, **input_kw)
    return run(prog, body, errors=(AuditError, OSError))


def main(argv: list[str] | None = None) -> int:
    """Run ``misi-audit``; return the exit status (0 every item passed, 1 some failed, 2 bad input)."""
    from misi_tasks.audit.report import AuditError

    args = build_parser().parse_args(argv)

    def body() -> int:
        try:
            tasks = _tasks(args.task)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if not args.dataset.is_dir():
            raise CliError(f"{args.dataset}: not a folder")
        if args.workers < 1:
            raise CliError(f"--workers must be at least 1, got {args.workers}")
        if args.max_failures < 0:
            raise CliError(f"--max-failures must be at least 0, got {args.max_failures}")
        return _audit_body(args.dataset, args.input, tasks=tasks, card=not args.no_card, quiet=args.quiet,
                           max_failures=args.max_failures, workers=args.workers, ligand=args.ligand,
                           smiles=args.smiles, poses=args.poses)()

    return run("misi-audit", body, errors=(AuditError, OSError))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
