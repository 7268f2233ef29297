"""Agreement of misi's interaction types with PLIP 3.0.1 (the ``plip_oracle`` output).

For each data set -- the dev complexes as given (``dev``), their H-free copies (``strip_h``:
``strip_hydrogens.py`` copies loaded the normal way, against PLIP run with ``--strip-h``) and
moved-ligand copies (``perturbed``: ``perturb_poses.py --copies 3 --seed 0``, new geometry) and
their H-free copies (``perturbed_strip_h``, against PLIP ``--strip-h`` on the moved copies), and a
second, later set of moved copies (``fresh`` / ``fresh_strip_h``: copies m3 and m4 with seed 1, made
after the rules were written; its figures were taken once and nothing was tuned on it) -- prints per
type, for the complexes used while tuning (``tune``) and those held out (``holdout``: ids whose
SHA-256 is odd):

- precision, recall and F1 of the (type, residue) pairs, pooled over complexes;
- atom-set agreement: F1 of (type, residue, pocket atom set, ligand atom set) tuples, i.e. of whole
  contacts (for hydrophobic contacts: after PLIP's thinning);
- the (type, residue) F1 without the pairs of departures 1 and 4 of ``docs/interactions.md``
  (PLIP's answer changes with hydrogens; PLIP merges two residues), and how many pairs that removes;
- with ``--mismatches``: every (type, residue) pair found by one side only, with its departure.

misi's labels of blank-chain copies (``docs/loading.md``) are compared as the oracle writes them
(``?``), since PLIP merges the copies.

H-bonds are left out (PLIP's H-bonds are not the project's reference: ChimeraX is, see
``hbond_agreement.py``).  PLIP's output is read from gzipped JSON fixtures in ``benchmarks/fixtures``
(``plip_<set>.json.gz``; the command that made each is in ``fixtures/PLIP.md``).  Usage::

    python benchmarks/interaction_agreement.py [--dev /work/shared/data/pdbbind_dev] [--sets dev,strip_h,...]
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

import numpy as np

from misi_geom import load_complex
from misi_geom.interactions import find_interactions, to_records
from misi_geom.interactions.records import residue_label

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")
FIXTURES = Path(__file__).with_name("fixtures")
TYPES = ("salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal", "hydrophobic")
SETS = ("dev", "strip_h", "perturbed", "perturbed_strip_h", "fresh", "fresh_strip_h")
#: Moved-ligand copies: set -> (seed, copy numbers) of ``perturb_poses.perturb_complex`` (20°, 0.8 Å).
#: ``perturbed`` is ``perturb_poses.py --copies 3 --seed 0``; ``fresh`` (copies m3, m4, seed 1) was
#: made after the rules were written and its figures taken once, without tuning on it.
MOTIONS = {"perturbed": (0, (0, 1, 2)), "fresh": (1, (3, 4))}
#: The PLIP run on the same complexes with the other hydrogen treatment (for departure 1).
PARTNER = {"dev": "strip_h", "strip_h": "dev", "perturbed": "perturbed_strip_h",
           "perturbed_strip_h": "perturbed", "fresh": "fresh_strip_h", "fresh_strip_h": "fresh"}
#: Types whose PLIP answer uses group centres, which PLIP averages over merged residues (departure 4).
CENTRE_TYPES = ("salt_bridge", "pi_stacking", "cation_pi")


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
    elif kind.endswith("_strip_h"):
        src = prepare(kind[: -len("_strip_h")], dev, tmp)
    else:
        src = None
    dirs = sorted(p for p in (src or dev).iterdir() if p.is_dir() and any(p.glob(f"{p.name}_ligand.*")))
    if src is not None:
        strip = _bench_module("strip_hydrogens")
        for d in dirs:
            strip.strip_complex(d, out)
    else:
        pert = _bench_module("perturb_poses")
        seed, copies = MOTIONS[kind]
        for d in dirs:
            for k in copies:
                pert.perturb_complex(d, out, k, seed, 20.0, 0.8)
    return out


def file_chains(folder: Path) -> set[str]:
    """The chain ids written in the complex's pocket file (blank excluded)."""
    out = set()
    for path in folder.glob(f"{folder.name}_pocket.pdb"):
        with open(path, "rb") as fh:
            out |= {line[21:22].decode().strip() for line in fh if line.startswith((b"ATOM", b"HETATM"))}
    return out - {""}


def misi_records(folder: Path) -> tuple[list[dict], set[str]]:
    """misi's records for one complex, residues labelled as the PLIP oracle labels them.

    misi gives the copies of a repeated blank chain their own letters (``docs/loading.md``); PLIP
    (through Open Babel) merges them into one blank-chain residue, written ``?`` by the oracle.  A
    chain letter that the pocket file does not contain is such a copy and is written ``?`` here, so
    ``HIS 178 A`` and ``HIS 178 B`` both compare as PLIP's ``HIS 178 ?`` (departure 4 of
    ``docs/interactions.md`` measures what the merge itself changes).  Returns the records and the
    labels that stand for two or more misi residues (residues PLIP merges).
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = load_complex(folder)
    recs = to_records(c, find_interactions(c, [t for t in ("pi_stacking",) + TYPES]))
    chains = file_chains(folder)
    copies: dict[str, set[str]] = defaultdict(set)
    for i in np.flatnonzero(~c.is_ligand):
        ch = str(c.chain_id[i])
        if ch and ch not in chains:
            name_num = residue_label(c, i).rpartition(" ")[0]
            copies[f"{name_num} ?"].add(ch)
    for r in recs:
        name_num, _, chain = r["residue"].rpartition(" ")
        if chain != "?" and chain not in chains:
            r["residue"] = f"{name_num} ?"
    return recs, {label for label, chs in copies.items() if len(chs) > 1}


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


def _pairs(entry: dict) -> set:
    return _keys(entry.get("interactions", []), False) if entry.get("status") == "ok" else set()


def compare(oracle: dict, folder: Path, split: str, partner: dict | None = None) -> tuple[dict, list[str]]:
    """Counts per (split, type, level) -> [tp, fp, fn], and the mismatch lines.

    Level ``residue`` counts (type, residue) pairs, ``atoms`` whole contacts, and ``adjusted``
    (type, residue) pairs without those of two documented departures (``docs/interactions.md``),
    taken out of both sides: (1) pairs that PLIP reports in only one of its runs with and without
    hydrogens on the same complex (``partner``: Open Babel's aromaticity and bond orders change with
    hydrogens), (4) pairs of a type in :data:`CENTRE_TYPES` on a residue label that stands for two
    misi residues (PLIP merges them and averages their group centres).  Level ``excluded`` counts
    the pairs taken out: [by departure 1, by departure 4, 0].
    """
    counts: dict = defaultdict(lambda: [0, 0, 0])
    notes = []
    for cid, entry in sorted(oracle["complexes"].items()):
        if entry.get("status") != "ok" or not (folder / cid).is_dir():
            continue
        s = split_of(cid)
        if split != "all" and s != split:
            continue
        mine, merged = misi_records(folder / cid)
        other = partner["complexes"].get(cid, {}) if partner else {}
        flips = (_pairs(entry) ^ _pairs(other)) if other.get("status") == "ok" else set()
        for level, atoms in (("residue", False), ("atoms", True), ("adjusted", False)):
            a, b = _keys(mine, atoms), _keys(entry["interactions"], atoms)
            if level == "adjusted":
                d1 = flips & (a | b)
                d4 = {k for k in a | b if k[0] in CENTRE_TYPES and k[1] in merged} - d1
                a, b = a - d1 - d4, b - d1 - d4
                for t in TYPES:
                    for sp in (s, "all"):
                        ex = counts[(sp, t, "excluded")]
                        ex[0] += sum(k[0] == t for k in d1)
                        ex[1] += sum(k[0] == t for k in d4)
            for t in TYPES:
                at, bt = {k for k in a if k[0] == t}, {k for k in b if k[0] == t}
                for sp in (s, "all"):
                    c = counts[(sp, t, level)]
                    c[0] += len(at & bt)
                    c[1] += len(at - bt)
                    c[2] += len(bt - at)
                if level == "residue":
                    def why(k):
                        if k in flips:
                            return " (departure 1: PLIP's other H run differs)"
                        return " (departure 4: merged residue)" if k[0] in CENTRE_TYPES and k[1] in merged else ""
                    notes += [f"{cid} [{s}] misi only: {k[0]} {k[1]}{why(k)}" for k in sorted(at - bt)]
                    notes += [f"{cid} [{s}] PLIP only: {k[0]} {k[1]}{why(k)}" for k in sorted(bt - at)]
    return counts, notes


def table(name: str, counts: dict) -> str:
    """One line per type and split: pairs, P/R/F1, atom-set F1, F1 without departures 1 and 4."""
    lines = [f"== {name}", f"{'type':<13}{'split':<9}{'tp':>5}{'fp':>5}{'fn':>5}  {'P':>6}{'R':>6}{'F1':>6}"
             f"   atom-set F1   F1 w/o dep. 1, 4 (pairs out: 1, 4)"]
    for t in TYPES:
        for s in ("tune", "holdout", "all"):
            if (s, t, "residue") not in counts:
                continue
            tp, fp, fn = counts[(s, t, "residue")]
            p, r, f = _prf(tp, fp, fn)
            af = _prf(*counts[(s, t, "atoms")])[2]
            adj = _prf(*counts[(s, t, "adjusted")])[2]
            e1, e4, _ = counts[(s, t, "excluded")]
            lines.append(f"{t:<13}{s:<9}{tp:>5}{fp:>5}{fn:>5}  {p:>6.3f}{r:>6.3f}{f:>6.3f}   {af:.3f}"
                         f"         {adj:.3f} ({e1}, {e4})")
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
            partner = FIXTURES / f"plip_{PARTNER[name]}.json.gz" if name in PARTNER else None
            partner = read_oracle(partner) if partner and partner.is_file() else None
            counts, notes = compare(oracle, folder(Path(tmp)), args.split, partner)
            print(table(name, counts))
            if args.mismatches:
                print("\n".join(notes) or "(no mismatches)")
            print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
