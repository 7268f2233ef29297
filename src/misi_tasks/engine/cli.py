"""``misi-gen``: turn a folder of complexes into MiSI-style benchmark items.

Examples::

    misi-gen --task all --out misi_out                 # the bundled sample complexes
    misi-gen --task docking --input pdbbind/ --out out --split test --workers 2
    misi-gen --task T4 --task-params '{"residue-ligand": {"hard_negatives": false}}' --out out
    misi-gen --input complexes.csv --check                 # validate a manifest, render nothing
    misi-gen --input 1abc.cif.gz --ligand ATP:A --smiles '...' --out out
    misi-gen --task all --input pdbbind/ --out /shared/out --backend ray --ray-address auto

Every argument is checked before any work starts; a bad one is one line naming the option and the
value.  Ctrl-C stops with one line; the same command then resumes where the run stopped.
Exit status: 0 done, 1 an item failed ``--audit``, 2 bad arguments, input or output folder, 130 interrupted.
"""

from __future__ import annotations

import argparse
import errno
import importlib.util
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from misi_tasks._cli import EXIT_FAILED, CliError, new_parser, run
from misi_tasks.engine.backends import BACKEND_NAMES, BackendError
from misi_tasks.engine.remote import (RemoteError, check_url, download_input, is_url, stage_dir, staged_version,
                                     upload_output)
from misi_tasks.definitions.registry import paper_tasks, resolve_task, task_names, task_spec

if TYPE_CHECKING:
    from misi_tasks.engine.generate import GenerateConfig

__all__ = ["main", "build_parser", "default_workers"]

_EXAMPLES = """examples:
  misi-gen --out misi_out                                   all tasks on the bundled sample complexes
  misi-gen --input pdbbind/ --out out --task docking,T5 --split test --workers 4
  misi-gen --input pdbbind/ --out tiny --tiny              50 items per task from the test split
  misi-gen --out out --task T4 --task-params '{"residue-ligand": {"hard_negatives": true}}'

An interrupted run resumes when the same command is run again.  --out must be a new or empty
folder, or one an earlier run with the same arguments wrote; --overwrite replaces the README.md,
failures.txt, figures/ and data/ of any other folder."""


def default_workers() -> int:
    """The CPUs this process may run on (``os.sched_getaffinity``), not the machine's count."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def build_parser() -> argparse.ArgumentParser:
    """Return the argument parser of ``misi-gen``."""
    from misi_tasks.engine.config import DEFAULT_GROUP_SIZE

    p = new_parser(
        "misi-gen",
        "Generate MiSI-Bench-style images, questions and answers from protein-ligand complexes "
        "(PDBbind folders, manifests, PDB/mmCIF entries, multi-pose SDFs).",
        epilog=_EXAMPLES, raw=True,
    )
    p.add_argument("--task", default="all",
                   help=f"task name or code, comma-separated, or 'all' (the paper's nine; names: {', '.join(task_names())})")
    p.add_argument("--input", default=None,
                   help="folder of complexes (<id>/<id>_pocket.pdb, <id>_ligand.mol2|sdf), a manifest (.csv, .yaml) "
                        "or a PDB/mmCIF file (with --ligand), or a URL of one (s3://, gs://, ... via fsspec); "
                        "default: bundled samples")
    p.add_argument("--ligand", default=None,
                   help="with a PDB/mmCIF --input: the ligand residue RESNAME[:CHAIN[:RESNUM]], every copy of one "
                        "(RESNAME:*), every ligand (all), a peptide chain (chain:ID), or a ligand file "
                        "(SDF/mol2/PDBQT; one complex per pose)")
    p.add_argument("--smiles", default=None, help="with --ligand: SMILES whose bond orders the ligand takes")
    p.add_argument("--poses", type=int, default=None, help="use only the first N poses of a multi-molecule ligand file")
    p.add_argument("--check", action="store_true",
                   help="load every complex of --input without rendering, print a table and exit (1 if any fails)")
    p.add_argument("--out", default=None,
                   help="output dataset folder, or a URL (s3://, gs://, ... via fsspec: generated in --stage, "
                        "uploaded when complete); required unless --check")
    p.add_argument("--stage", type=Path, default=None, metavar="DIR",
                   help="local folder that stages URL inputs and outputs (default: under ~/.cache/misi/stage); "
                        "with --backend ray on several nodes, a shared filesystem")
    p.add_argument("--split", choices=["auto", "train", "test"], default="auto",
                   help="put every complex in this split, or 'auto': by a hash of its id (default)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--size", type=int, default=1024, help="image width = height in pixels (default 1024)")
    p.add_argument("--projection", choices=["orthographic", "perspective"], default="orthographic")
    p.add_argument("--style", choices=["ball-and-stick", "spacefill"], default="ball-and-stick")
    p.add_argument("--workers", type=int, default=default_workers(),
                   help="worker processes (default: the CPUs this process may use, here %(default)s), or the "
                        "CPUs of the Ray instance that --backend ray starts here; results do not depend on it")
    p.add_argument("--backend", choices=BACKEND_NAMES, default="local",
                   help="where complexes are processed: 'local' process pool (default) or 'ray' "
                        '(pip install "misi[ray]"); results do not depend on it')
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --backend ray: 'auto' (cluster started by `ray start` here, or $RAY_ADDRESS), "
                        "ray://host:port (Ray Client); default: $RAY_ADDRESS, else a Ray instance on this machine")
    p.add_argument("--limit", type=int, default=None, help="use only the first N complexes (sorted by id)")
    p.add_argument("--tiny", action="store_true", help="draw 50 items per task from the test split")
    p.add_argument("--group-size", type=int, default=DEFAULT_GROUP_SIZE, metavar="N",
                   help=f"complexes per shard (default {DEFAULT_GROUP_SIZE}): each shard holds one task's rows of N "
                        "consecutive complexes; the layout never depends on --workers or --backend")
    p.add_argument("--task-params", default=None,
                   help='JSON overrides per task, e.g. \'{"residue-ligand": {"hard_negatives": false}}\'')
    p.add_argument("--overwrite", action="store_true",
                   help="write into a non-empty folder misi-gen did not write, or one written with other "
                        "arguments, replacing its README.md, failures.txt, figures/ and data/ (other files stay)")
    p.add_argument("--audit", action="store_true",
                   help="run misi-audit on the dataset when it is complete (its counts go into the card; "
                        "exit status 1 when an item fails the audit)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _parse_tasks(text: str) -> tuple[str, ...]:
    if text.strip().lower() == "all":
        return paper_tasks()  # the paper's nine: a published "all" dataset keeps its meaning
    names = [resolve_task(t.strip()) for t in text.split(",") if t.strip()]
    if not names:
        raise ValueError(f"--task {text!r} names no task; give names or codes ({', '.join(task_names())}) or 'all'")
    return tuple(t for t in task_names() if t in names)


def _parse_task_params(text: str | None) -> dict[str, dict[str, Any]]:
    """``--task-params`` as {task: {parameter: value}}, every name and type checked."""
    if not text:
        return {}
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, RecursionError) as exc:
        msg = exc.msg if isinstance(exc, json.JSONDecodeError) else "nested too deeply"
        raise ValueError(f"--task-params is not valid JSON ({msg}): {text!r}") from None
    if not isinstance(raw, dict) or not all(isinstance(v, dict) for v in raw.values()):
        raise ValueError(f"--task-params must be a JSON object {{task: {{parameter: value}}}}, got {text!r}")
    params = {}
    for key, kw in raw.items():
        try:
            task = resolve_task(key)
        except ValueError as exc:
            raise ValueError(f"--task-params: {exc}") from None
        try:
            task_spec(task, kw)  # every name, type and range, as the task's spec checks them
        except ValueError as exc:
            raise ValueError(f"--task-params: {exc}") from None
        params[task] = kw
    return params


def main(argv: list[str] | None = None) -> int:
    """Run ``misi-gen``: parse and check the arguments, stage remote folders, then one
    :func:`~misi_tasks.engine.generate.generate_dataset` (or ``--check``); return the exit status."""
    from misi_tasks.engine._malloc import arrow_uses_malloc
    from misi_tasks.engine._threads import blas_threads_by_default

    arrow_uses_malloc()  # before pyarrow loads: this process and its workers allocate Arrow's buffers with malloc
    blas_threads_by_default()  # before numpy loads: one OpenBLAS thread here and in the workers
    parser = build_parser()
    args = parser.parse_args(argv)
    remote_in = args.input if is_url(args.input) else None
    remote_out = args.out if is_url(args.out) else None
    stage = stage_dir([u for u in (remote_in, remote_out) if u], args.stage) if remote_in or remote_out else None
    if args.out is not None:
        args.out = stage / "out" if remote_out else Path(args.out)
    try:
        tasks, params = _checked(args)
    except ValueError as exc:
        parser.error(str(exc))
    return run("misi-gen", lambda: _generate(args, tasks, params, remote_in, remote_out, stage),
               errors=(ValueError, OSError, BackendError),
               interrupted="interrupted; run the same command again to resume (work so far is kept)")


def _checked(args: argparse.Namespace) -> tuple[tuple[str, ...], dict[str, dict[str, Any]]]:
    """The tasks and task parameters; raise ValueError on any bad argument (before any work)."""
    tasks = _parse_tasks(args.task)
    params = _parse_task_params(args.task_params)
    if args.out is not None and args.out.exists() and not args.out.is_dir():
        raise ValueError(f"--out {args.out}: is a file, not a folder")
    if args.size < 64:
        raise ValueError(f"--size must be at least 64 pixels, got {args.size}")
    if args.workers < 1:
        raise ValueError(f"--workers must be at least 1, got {args.workers}")
    if args.ray_address is not None and args.backend != "ray":
        raise ValueError("--ray-address needs --backend ray")
    if args.backend == "ray" and importlib.util.find_spec("ray") is None:
        raise ValueError('--backend ray needs Ray: pip install "misi[ray]"')
    if args.limit is not None and args.limit < 1:
        raise ValueError(f"--limit must be at least 1, got {args.limit}")
    if args.poses is not None and args.poses < 1:
        raise ValueError(f"--poses must be at least 1, got {args.poses}")
    if args.group_size < 1:
        raise ValueError(f"--group-size must be at least 1, got {args.group_size}")
    if args.out is None and not args.check:
        raise ValueError("--out is required (or --check to validate the input only)")
    return tasks, params


def _config(args: argparse.Namespace, input_dir: Path, tasks: tuple[str, ...],
            params: dict[str, dict[str, Any]], input_version: str | None = None) -> "GenerateConfig":
    """The run's :class:`~misi_tasks.engine.generate.GenerateConfig` from the checked arguments."""
    from misi_tasks.engine.generate import GenerateConfig

    return GenerateConfig(
        input_dir=input_dir, out_dir=args.out, tasks=tasks, split=args.split, seed=args.seed, size=args.size,
        projection=args.projection, style=args.style, workers=args.workers, limit=args.limit, tiny=args.tiny,
        task_params=params, ligand=args.ligand, smiles=args.smiles, poses=args.poses, backend=args.backend,
        ray_address=args.ray_address, overwrite=args.overwrite, input_version=input_version,
        group_size=args.group_size,
    )


def _generate(args: argparse.Namespace, tasks: tuple[str, ...], params: dict[str, dict[str, Any]],
              remote_in: str | None, remote_out: str | None, stage: Path | None) -> int:
    """The body of ``misi-gen``: stage the input, then check it or generate (audit, upload)."""
    input_dir, input_version = _staged_input(args, remote_in, remote_out, stage)
    if args.check:
        return _check(input_dir, args)
    cfg = _config(args, input_dir, tasks, params, input_version)
    _run_generation(cfg, quiet=args.quiet)
    audit_status = _audit(cfg, args) if args.audit else 0  # before an upload, so the card carries its counts
    _publish(cfg.out_dir, remote_out, overwrite=args.overwrite)
    return audit_status


def _staged_input(args: argparse.Namespace, remote_in: str | None, remote_out: str | None,
                  stage: Path | None) -> tuple[Path, str | None]:
    """The input folder (downloaded into ``stage`` when remote; the bundled samples by default) and
    the remote input's version; checks a remote output address before any work."""
    from misi_geom.samples import sample_root

    try:
        if remote_out:
            check_url(remote_out)
        input_dir = (download_input(remote_in, stage / "input") if remote_in and stage
                     else Path(args.input) if args.input else sample_root())
        input_version = staged_version(remote_in, stage / "input") if remote_in and stage else None
    except (RemoteError, OSError) as exc:
        raise CliError(" ".join(str(exc).split())) from None
    return input_dir, input_version


def _run_generation(cfg: "GenerateConfig", quiet: bool) -> None:
    """:func:`~misi_tasks.engine.generate.generate_dataset` and its summary, failures as :class:`CliError`."""
    from misi_tasks.engine.generate import TINY_PER_TASK, NoComplexLoaded, generate_dataset
    from misi_tasks.engine.worker import become_image_maker

    if cfg.workers == 1 and cfg.backend == "local":  # the images are made in this process
        become_image_maker()
    try:
        summary = generate_dataset(cfg, progress=not quiet)
    except NoComplexLoaded as exc:  # the usual summary, with every complex's reason, then the error
        print(exc.summary.format())
        raise CliError(str(exc), status=EXIT_FAILED) from None
    except OSError as exc:
        raise CliError(_os_error(exc, cfg.out_dir)) from None
    print(summary.format())
    if cfg.tiny:
        for (task, split), n in sorted(summary.items.items()):
            if n < TINY_PER_TASK:
                print(f"note: --tiny: only {n} {task} items exist in the {split} split (fewer than {TINY_PER_TASK})")


def _publish(out_dir: Path, remote_out: str | None, overwrite: bool) -> None:
    """Say where the dataset is, after uploading it to ``remote_out`` if given."""
    if not remote_out:
        print(f"dataset written to {out_dir}")
        return
    try:
        files = upload_output(out_dir, remote_out, overwrite=overwrite)
    except (RemoteError, OSError) as exc:
        raise CliError(f"{' '.join(str(exc).split())} (the dataset is complete in {out_dir}; rerun to upload)") from None
    print(f"dataset written to {out_dir} and uploaded to {remote_out} ({len(files)} files)")


def _audit(cfg, args: argparse.Namespace) -> int:
    """``--audit``: :func:`misi_tasks.audit.cli.run_audit` on the finished dataset and its input."""
    from misi_tasks.audit.cli import run_audit

    workers = cfg.workers if cfg.backend == "local" else 1
    return run_audit(cfg.out_dir, cfg.input_dir, quiet=args.quiet, workers=workers, prog="misi-gen --audit",
                     ligand=args.ligand, smiles=args.smiles, poses=args.poses)


def _os_error(exc: OSError, out: Path) -> str:
    """One line for a failed read or write: the file and why; for a full disk, what to do."""
    where = exc.filename or out
    if exc.errno == errno.ENOSPC:
        return (f"{where}: no space left on the device; free some space (or choose another --out) and run the "
                "same command again: it resumes, the work so far is kept")
    return f"{where}: {exc.strerror}" if exc.strerror else " ".join(str(exc).split())


def _check(path: Path, args: argparse.Namespace) -> int:
    """``--check``: print the table of :func:`misi_tasks.inputs.check_inputs`; 0 if all load, else 1."""
    from misi_tasks.inputs import check_inputs, discover_inputs, format_check_table

    plan = discover_inputs(path, ligand=args.ligand, smiles=args.smiles, poses=args.poses)  # errors: main's run
    rows = check_inputs(plan.limited(args.limit), args.split, progress=not args.quiet)
    print(format_check_table(rows))
    return 0 if rows and all(r.ok for r in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
