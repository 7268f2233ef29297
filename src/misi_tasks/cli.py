"""``misi-gen``: turn a folder of complexes into MiSI-style benchmark items.

Examples::

    misi-gen --task all --out misi_out                 # the bundled sample complexes
    misi-gen --task docking --input pdbbind/ --out out --split test --workers 2
    misi-gen --task T4 --task-params '{"residue-ligand": {"hard_negatives": false}}' --out out
    misi-gen --input complexes.csv --check                 # validate a manifest, render nothing
    misi-gen --input 1abc.cif.gz --ligand ATP:A --smiles '...' --out out
    misi-gen --task all --input pdbbind/ --out /shared/out --backend ray --ray-address auto
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
from pathlib import Path

from misi_tasks.backends import BACKEND_NAMES, BackendError
from misi_tasks.names import TASK_NAMES, resolve_task

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="misi-gen",
        description="Generate MiSI-Bench-style images, questions and answers from protein-ligand complexes "
                    "(PDBbind folders, manifests, PDB/mmCIF entries, multi-pose SDFs).",
    )
    p.add_argument("--task", default="all",
                   help=f"task name or code, comma-separated, or 'all' (names: {', '.join(TASK_NAMES)})")
    p.add_argument("--input", type=Path, default=None,
                   help="folder of complexes (<id>/<id>_pocket.pdb, <id>_ligand.mol2|sdf), a manifest (.csv, .yaml) "
                        "or a PDB/mmCIF file (with --ligand); default: bundled samples")
    p.add_argument("--ligand", default=None,
                   help="with a PDB/mmCIF --input: the ligand residue RESNAME[:CHAIN[:RESNUM]], or a ligand file "
                        "(SDF/mol2; one complex per pose)")
    p.add_argument("--smiles", default=None, help="with --ligand: SMILES whose bond orders the ligand takes")
    p.add_argument("--poses", type=int, default=None, help="use only the first N poses of a multi-molecule SDF")
    p.add_argument("--check", action="store_true",
                   help="load every complex of --input without rendering, print a table and exit (1 if any fails)")
    p.add_argument("--out", type=Path, default=None, help="output dataset folder (required unless --check)")
    p.add_argument("--split", choices=["auto", "train", "test"], default="auto",
                   help="put every complex in this split, or 'auto': by a hash of its id (default)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--size", type=int, default=1024, help="image width = height in pixels (default 1024)")
    p.add_argument("--projection", choices=["orthographic", "perspective"], default="orthographic")
    p.add_argument("--style", choices=["ball-and-stick", "spacefill"], default="ball-and-stick")
    p.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                   help="worker processes (default: all cores), or the CPUs of the Ray instance that "
                        "--backend ray starts here; results do not depend on it")
    p.add_argument("--backend", choices=BACKEND_NAMES, default="local",
                   help="where complexes are processed: 'local' process pool (default) or 'ray' "
                        '(pip install "misi[ray]"); results do not depend on it')
    p.add_argument("--ray-address", default=None, metavar="ADDRESS",
                   help="with --backend ray: 'auto' (cluster started by `ray start` here, or $RAY_ADDRESS), "
                        "ray://host:port (Ray Client); default: $RAY_ADDRESS, else a Ray instance on this machine")
    p.add_argument("--limit", type=int, default=None, help="use only the first N complexes (sorted by id)")
    p.add_argument("--tiny", action="store_true", help="draw 50 items per task from the test split")
    p.add_argument("--task-params", default=None,
                   help='JSON overrides per task, e.g. \'{"residue-ligand": {"hard_negatives": false}}\'')
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    return p


def _parse_tasks(text: str) -> tuple[str, ...]:
    if text.strip().lower() == "all":
        return TASK_NAMES
    names = [resolve_task(t) for t in text.split(",") if t.strip()]
    return tuple(t for t in TASK_NAMES if t in names)


def main(argv: list[str] | None = None) -> int:
    from misi_tasks.generate import GenerateConfig, generate_dataset
    from misi_tasks.samples import sample_root

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        tasks = _parse_tasks(args.task)
        params = json.loads(args.task_params) if args.task_params else {}
        if not isinstance(params, dict):
            raise ValueError("--task-params must be a JSON object {task: {parameter: value}}")
        params = {resolve_task(k): v for k, v in params.items()}
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
        if args.out is None and not args.check:
            raise ValueError("--out is required (or --check to validate the input only)")
        from misi_tasks.registry import get_task

        for t, kw in params.items():
            get_task(t)(**kw)  # unknown parameters fail here, before any work
    except (ValueError, json.JSONDecodeError) as exc:
        parser.error(str(exc))
    if args.check:
        return _check(args.input or sample_root(), args)
    cfg = GenerateConfig(
        input_dir=args.input or sample_root(),
        out_dir=args.out,
        tasks=tasks,
        split=args.split,
        seed=args.seed,
        size=args.size,
        projection=args.projection,
        style=args.style,
        workers=args.workers,
        limit=args.limit,
        tiny=args.tiny,
        task_params=params,
        ligand=args.ligand,
        smiles=args.smiles,
        poses=args.poses,
        backend=args.backend,
        ray_address=args.ray_address,
    )
    try:
        summary = generate_dataset(cfg, progress=not args.quiet)
    except (ValueError, OSError, BackendError) as exc:
        print(f"misi-gen: error: {exc}", file=sys.stderr)
        return 2
    print(summary.format())
    print(f"dataset written to {cfg.out_dir}")
    return 0


def _check(path: Path, args: argparse.Namespace) -> int:
    """``--check``: print the table of :func:`misi_tasks.inputs.check_inputs`; 0 if all load, else 1."""
    from misi_tasks.inputs import check_inputs, discover_inputs, format_check_table

    try:
        plan = discover_inputs(path, ligand=args.ligand, smiles=args.smiles, poses=args.poses)
    except (ValueError, OSError) as exc:
        print(f"misi-gen: error: {exc}", file=sys.stderr)
        return 2
    rows = check_inputs(plan, args.split)
    print(format_check_table(rows))
    return 0 if rows and all(r.ok for r in rows) else 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
