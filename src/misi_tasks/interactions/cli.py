"""``misi-interactions``: every pocket–ligand interaction of one complex, as a table or JSON.

Usage::

    misi-interactions pdbbind/1abc                       # a PDBbind-layout folder
    misi-interactions 1abc.cif.gz --ligand ATP:A         # an entry and its ligand residue
    misi-interactions 1abc.pdb --ligand pose.sdf         # a protein and a ligand file
    misi-interactions complexes.csv --id 1abc --format json
    misi-interactions pdbbind/1abc --type salt_bridge,pi_stacking --explain "ARG 45 A" O1

INPUT is anything ``misi-gen --input`` takes; when it names several complexes (a folder of
folders, a manifest, a multi-pose SDF) ``--id`` picks one.  ``--format json`` prints a list of
``{"type", "residue", "pocket_atoms", "ligand_atoms", <geometry>}`` objects
(:mod:`misi_geom.interactions.records`).  ``--explain RESIDUE LIGAND_ATOM`` says, per type, which
criterion fails between that residue's groups and the ligand group holding the atom.
Exit status: 0 done, 2 bad arguments or input.
"""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from collections.abc import Sequence

from misi_geom.errors import MisiInputError
from misi_geom.interactions import INTERACTION_TYPES, find_interactions, format_table, residue_label, to_records
from misi_tasks._cli import new_parser, run

__all__ = ["build_parser", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``misi-interactions``."""
    p = new_parser("misi-interactions", "Profile the pocket-ligand interactions of one complex (PLIP's types; "
                                        "H-bonds by ChimeraX's criteria).")
    p.add_argument("input", help="a complex folder, a folder or manifest with --id, or a PDB/mmCIF file with --ligand")
    p.add_argument("--ligand", default=None, help="with a PDB/mmCIF input: RESNAME[:CHAIN[:RESNUM]] or a ligand file")
    p.add_argument("--smiles", default=None, help="with --ligand: SMILES whose bond orders the ligand takes")
    p.add_argument("--id", default=None, help="which complex, when INPUT names several")
    p.add_argument("--type", default=None, help=f"comma-separated types (default: all: {', '.join(INTERACTION_TYPES)})")
    p.add_argument("--format", choices=("table", "json"), default="table")
    p.add_argument("--explain", nargs=2, metavar=("RESIDUE", "LIGAND_ATOM"),
                   help='why a residue (as printed, e.g. "ARG 45 A") and a ligand atom do or do not interact')
    return p


def _load(args):
    from misi_tasks.inputs import discover_inputs

    plan = discover_inputs(args.input, ligand=args.ligand, smiles=args.smiles)
    if plan.failures and (args.id in plan.failures or not plan.sources):
        cid = args.id or next(iter(plan.failures))
        raise ValueError(f"{cid}: {plan.failures[cid]}")
    if not plan.sources:
        raise ValueError(f"{args.input}: no complex found")
    if args.id is not None:
        if args.id not in plan.sources:
            raise ValueError(f"{args.input}: no complex {args.id!r} (there are: {', '.join(list(plan.sources)[:10])})")
        source = plan.sources[args.id]
    elif len(plan.sources) > 1:
        raise ValueError(f"{args.input}: names {len(plan.sources)} complexes; pick one with --id "
                         f"({', '.join(list(plan.sources)[:5])}, ...)")
    else:
        source = next(iter(plan.sources.values()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return source.load().complex


def _explain(c, types, residue: str, atom: str) -> list[str]:
    pocket = [i for i in range(len(c)) if not c.is_ligand[i] and residue_label(c, i) == residue]
    lig = [i for i in range(len(c)) if c.is_ligand[i] and str(c.atom_name[i]) == atom]
    if not pocket:
        raise ValueError(f"no pocket residue {residue!r} (write it as printed, e.g. 'ARG 45 A'; '?' = blank chain)")
    if not lig:
        raise ValueError(f"no ligand atom named {atom!r}")
    lines = []
    for name in types:
        decl = INTERACTION_TYPES[name]()
        best = None
        for i in pocket:
            v = decl.explain(c, [i], lig[:1])
            if v.criteria and (best is None or v.passed or len(v.failed) < len(best.failed)):
                best = v
            if best is not None and best.passed:
                break
        lines.append(str(best) if best is not None else f"{name}: no groups of this type on one side")
    return lines


def _profile(args: argparse.Namespace) -> int:
    types = [t.strip() for t in args.type.split(",") if t.strip()] if args.type else list(INTERACTION_TYPES)
    unknown = [t for t in types if t not in INTERACTION_TYPES]
    if unknown:
        raise ValueError(f"unknown interaction type {unknown[0]!r} (known: {', '.join(INTERACTION_TYPES)})")
    c = _load(args)
    if args.explain:
        print("\n".join(_explain(c, types, *args.explain)))
        return 0
    records = to_records(c, find_interactions(c, types))
    if args.format == "json":
        rows = [json.dumps(r, ensure_ascii=False) for r in records]
        print("[\n " + ",\n ".join(rows) + "\n]" if rows else "[]")
    else:
        print(format_table(records) if records else "no interactions found")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``misi-interactions``; returns the exit status."""
    args = build_parser().parse_args(argv)
    return run("misi-interactions", lambda: _profile(args), errors=(ValueError, MisiInputError))


if __name__ == "__main__":
    sys.exit(main())
