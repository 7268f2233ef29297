"""Agreement of misi's interaction types with PLIP 3.0.1 (the ``plip_oracle`` output).

For each data set -- the dev complexes as given (``dev``), their H-free copies (``strip_h``:
``strip_hydrogens.py`` copies loaded the normal way, against PLIP run with ``--strip-h``) and
moved-ligand copies (``perturbed``: ``perturb_poses.py --copies 3 --seed 0``, new geometry) and
their H-free copies (``perturbed_strip_h``, against PLIP ``--strip-h`` on the moved copies) --
prints per type, for the complexes used while tuning (``tune``) and those held out (``holdout``:
ids whose SHA-256 is odd; never looked at while tuning):

- precision, recall and F1 of the (type, residue) pairs, pooled over complexes;
- atom-set agreement: F1 of (type, residue, pocket atom set, ligand atom set) tuples, i.e. of whole
  contacts (for hydrophobic contacts: after PLIP's thinning);
- with ``--mismatches``: every (type, residue) pair found by one side only.

H-bonds are left out (PLIP's H-bonds are not the project's reference: ChimeraX is, see
``hbond_agreement.py``).  PLIP's output is read from gzipped JSON fixtures in ``benchmarks/fixtures``
(``plip_<set>.json.gz``; the command that made each is in ``fixtures/PLIP.md``).  Usage::

    python benchmarks/interaction_agreement.py [--dev /work/shared/data/pdbbind_dev] [--sets dev,strip_h,perturbed,perturbed_strip_h]
        [--mismatches] [--split tune|holdout|all]
    python benchmarks/interaction_agreement.py --plip ORACLE.json[.gz] --complexes DIR
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import importlib.util
import json
import sys
import tempfile
import warnings
from collections import defaultdict
from pathlib import Path

from misi_geom import load_complex
from misi_geom.interactions import find_interactions, to_records

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")
FIXTURES = Path(__file__).with_name("fixtures")
TYPES = ("salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal", "hydrophobic")
SETS = ("dev", "strip_h", "perturbed", "perturbed_strip_h")
#: Moved-ligand copies per dev complex (``perturb_poses.py --copies 3 --seed 0``).
COPIES = 3


def split_of(cid: str) -> str:
    """``holdout`` for ids whose SHA-256 is odd, else ``tune`` (perturbed copies follow their source)."""
    base = cid[:-2] if cid[-2:-1] == "m" and cid[-1].isdigit() else cid
    return "holdout" if int(hashlib.sha256(base.encode()).hexdigest(), 16) % 2 else "tune"


def read_oracle(path: Path) -> dict:
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as fh:
        return json.load(fh)


def _bench_module(name: str):
    spec = importlib.util.spec_from_file_location(f"misi_{name}", Path(__file__).with_name(f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def prepare(kind: str, dev: Path, tmp: Path) -> Path:
    """The complexes folder of data set ``kind`` (copies written under ``tmp``)."""
    if kind == "dev":
        return dev
    out = tmp / kind
    if out.is_dir():
        return out
    out.mkdir(parents=True)
    if kind == "strip_h":
        src = dev
    elif kind == "perturbed_strip_h":
        src = prepare("perturbed", dev, tmp)
    else:
        src = None
    dirs = sorted(p for p in (src or dev).iterdir() if p.is_dir() and any(p.glob(f"{p.name}_ligand.*")))
    if src is not None:
        strip = _bench_module("strip_hydrogens")
        for d in dirs:
            strip.strip_complex(d, out)
    else:
        pert = _bench_module("perturb_poses")
        for d in dirs:
            for k in range(COPIES):
                pert.perturb_complex(d, out, k, 0, 20.0, 0.8)
    return out


def misi_records(folder: Path) -> list[dict]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = load_complex(folder)
    return to_records(c, find_interactions(c, [t for t in ("pi_stacking",) + TYPES]))


def _keys(records: list[dict], atoms: bool) -> set:
    out = set()
    for r in records:
        if r["type"] not in TYPES:
            continue
        key = (r["type"], r["residue"])
        if atoms:
            key += (frozenset(r["pocket_atoms"]), frozenset(r["ligand_atoms"]))
        out.add(key)
    return out


def _prf(tp: int, fp: int, fn: int) -> tuple[float, float, float]:
    p = tp / (tp + fp) if tp + fp else 1.0
    r = tp / (tp + fn) if tp + fn else 1.0
    f = 2 * p * r / (p + r) if p + r else 0.0
    return p, r, f


def compare(oracle: dict, folder: Path, split: str) -> tuple[dict, list[str]]:
    """Counts per (split, type, level) -> [tp, fp, fn], and the mismatch lines."""
    counts: dict = defaultdict(lambda: [0, 0, 0])
    notes = []
    for cid, entry in sorted(oracle["complexes"].items()):
        if entry.get("status") != "ok" or not (folder / cid).is_dir():
            continue
        s = split_of(cid)
        if split != "all" and s != split:
            continue
        mine = misi_records(folder / cid)
        for level, atoms in (("residue", False), ("atoms", True)):
            a, b = _keys(mine, atoms), _keys(entry["interactions"], atoms)
            for t in TYPES:
                at, bt = {k for k in a if k[0] == t}, {k for k in b if k[0] == t}
                for sp in (s, "all"):
                    c = counts[(sp, t, level)]
                    c[0] += len(at & bt)
                    c[1] += len(at - bt)
                    c[2] += len(bt - at)
                if level == "residue":
                    notes += [f"{cid} [{s}] misi only: {k[0]} {k[1]}" for k in sorted(at - bt)]
                    notes += [f"{cid} [{s}] PLIP only: {k[0]} {k[1]}" for k in sorted(bt - at)]
    return counts, notes


def table(name: str, counts: dict) -> str:
    lines = [f"== {name}", f"{'type':<13}{'split':<9}{'tp':>5}{'fp':>5}{'fn':>5}  {'P':>6}{'R':>6}{'F1':>6}"
             f"   atom-set F1"]
    for t in TYPES:
        for s in ("tune", "holdout", "all"):
            if (s, t, "residue") not in counts:
                continue
            tp, fp, fn = counts[(s, t, "residue")]
            p, r, f = _prf(tp, fp, fn)
            af = _prf(*counts[(s, t, "atoms")])[2]
            lines.append(f"{t:<13}{s:<9}{tp:>5}{fp:>5}{fn:>5}  {p:>6.3f}{r:>6.3f}{f:>6.3f}   {af:.3f}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV)
    ap.add_argument("--sets", default=",".join(SETS))
    ap.add_argument("--plip", type=Path, help="an oracle JSON (.gz) to compare with --complexes instead")
    ap.add_argument("--complexes", type=Path)
    ap.add_argument("--split", choices=("tune", "holdout", "all"), default="all")
    ap.add_argument("--mismatches", action="store_true")
    args = ap.parse_args(argv)
    if args.plip:
        if not args.complexes:
            ap.error("--plip needs --complexes")
        runs = [(args.plip.name, read_oracle(args.plip), lambda tmp: args.complexes)]
    else:
        if not args.dev.is_dir():
            print(f"skipped: no dev set at {args.dev}")
            return 0
        runs = [(k, read_oracle(FIXTURES / f"plip_{k}.json.gz"), lambda tmp, k=k: prepare(k, args.dev, tmp))
                for k in args.sets.split(",")]
    with tempfile.TemporaryDirectory() as tmp:
        for name, oracle, folder in runs:
            counts, notes = compare(oracle, folder(Path(tmp)), args.split)
            print(table(name, counts))
            if args.mismatches:
                print("\n".join(notes) or "(no mismatches)")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
