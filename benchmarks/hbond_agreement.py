"""Agreement of misi's H-bond detector with ChimeraX ``hbonds`` on the dev fixtures.

For each fixture mode -- relaxed (``hbonds_chimerax.json``, relax on), precise
(``hbonds_chimerax_precise.json``, ``relax=False``) and, with ``--strip-h``, hydrogens removed
(``hbonds_chimerax_strip_h.json``) -- prints the figures below.  Hydrogens are removed from the
files (``strip_hydrogens.py`` writes H-free copies into a temporary folder, which misi then loads
the normal way, so reading an H-free mol2/SDF is measured too: mode ``strip_h``) and, for
comparison, from the loaded complex (mode ``strip_h_loaded``).  ``--fixture FILE --complexes DIR``
compares with any other oracle output instead (e.g. on ``perturb_poses.py`` or ``swap_ligands.py``
copies; add ``--precise`` for a ``--no-relax`` fixture, and ``--fixture-hfree`` for the oracle's
``--strip-h`` run on the same complexes, compared on H-free copies: with and without hydrogens).  Figures:

- unordered pocket-ligand atom-pair precision, recall and F1 over all complexes;
- the share of complexes whose whole T9 answer matches exactly (same pairs);
- IDATM typing agreement for ligand heavy atoms and pocket N/O/S (atoms whose key is ambiguous --
  a repeated ligand atom name, or two pocket residues with the same chain, number and insertion
  code -- are skipped);
- every mismatching pair with the likely cause (a typing difference, or which side's test decided);
- time per complex of ``find_hbonds`` (median and max over complexes of the median of
  ``--repeat`` runs, after one warm-up run; loading excluded).

Skips gracefully (exit 0) when the fixture folder is absent.

``--mol2-residue-names`` gives the ligand rows the residue names of their mol2 substructures (as
ChimeraX names them) before the search, which lets the typing apply residue templates to peptide
ligands named like amino acids, as ChimeraX does; without it the loader's ligand residue name is used.

Usage::

    python benchmarks/hbond_agreement.py [--dev /work/shared/data/pdbbind_dev] [--repeat 5] [--strip-h]
        [--mol2-residue-names]
    python benchmarks/hbond_agreement.py --fixture ORACLE.json --complexes DIR [--precise]
        [--fixture-hfree ORACLE_STRIP_H.json]
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

from misi_geom import Complex, MisiInputError, assign_hbond_types, explain, find_hbonds, load_complex

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # hbond_text: the T9 answer as one string
from hbond_text import format_t9  # noqa: E402

DEFAULT_DEV = Path("/work/shared/data/pdbbind_dev")
MODES = {
    "relaxed": ("hbonds_chimerax.json", dict(relax=True)),
    "precise": ("hbonds_chimerax_precise.json", dict(relax=False)),
    "strip_h": ("hbonds_chimerax_strip_h.json", dict(relax=True)),
    "strip_h_loaded": ("hbonds_chimerax_strip_h.json", dict(relax=True)),
}


def hydrogen_free_copies(dev: Path, ids: list[str], out: Path) -> Path:
    """H-free copies of the complexes ``ids`` of ``dev`` under ``out`` (``strip_hydrogens.py``)."""
    spec = importlib.util.spec_from_file_location("misi_strip_hydrogens", Path(__file__).with_name("strip_hydrogens.py"))
    strip = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(strip)
    for cid in ids:
        strip.strip_complex(dev / cid, out)
    return out


def mol2_residue_names(c: Complex, folder: Path) -> Complex:
    """``c`` with its ligand rows renamed after their mol2 substructures (unchanged if unreadable)."""
    path = folder / f"{folder.name}_ligand.mol2"
    if not path.is_file():
        return c
    section, subst, atom_subst = "", {}, []
    for line in path.read_text(errors="replace").splitlines():
        if line.startswith("@<TRIPOS>"):
            if section == "@<TRIPOS>SUBSTRUCTURE" or (atom_subst and line.strip() == "@<TRIPOS>MOLECULE"):
                break
            section = line.strip()
            continue
        parts = line.split()
        if section == "@<TRIPOS>ATOM" and len(parts) >= 7:
            atom_subst.append(parts[6])
        elif section == "@<TRIPOS>SUBSTRUCTURE" and len(parts) >= 2:
            subst[parts[0]] = parts[1]
    lig = np.flatnonzero(c.is_ligand)
    if len(atom_subst) != len(lig):
        return c
    names = []
    for sid in atom_subst:
        name = subst.get(sid, "UNL")
        stem = name.rstrip("0123456789")
        names.append((stem if stem and stem != name else name)[:5])
    res = c.res_name.copy()
    res[lig] = names
    return Complex(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "res_name": res})


def _pairs(answer: str) -> set[str]:
    return {e for e in answer.split("; ") if e}


def _find_atoms(c: Complex, entry: str) -> tuple[int | None, int | None]:
    """Pocket and ligand rows named by a T9 entry ``RES NUM ATOM CHAIN, LIG``."""
    left, lig_name = entry.split(", ")
    res, num, atom, chain = left.split(" ")
    chain = "" if chain == "?" else chain
    p = np.flatnonzero(~c.is_ligand & (c.res_name == res) & (c.atom_name == atom) & (c.chain_id == chain)
                       & np.array([f"{r}{i}" == num for r, i in zip(c.res_id, c.ins_code)]))
    lig = np.flatnonzero(c.is_ligand & (c.atom_name == lig_name))
    if not len(p) or not len(lig):
        return None, None
    # ligand names can repeat (peptide ligands): take the one closest to the pocket atom
    j = lig[np.argmin(np.linalg.norm(c.coord[lig] - c.coord[p[0]], axis=1))]
    return int(p[0]), int(j)


def _explain(c: Complex, typing, fx_types: dict, entry: str, relax: bool) -> str:
    p, lig = _find_atoms(c, entry)
    if p is None or lig is None:
        return "atom not found in misi's complex"
    notes = []
    for i in (p, lig):
        key = _key(c, i)
        want = fx_types.get(key)
        if want is not None and want != str(typing.idatm[i]):
            notes.append(f"typing {c.atom_name[i]}: misi {typing.idatm[i]} vs ChimeraX {want}")
    verdict = explain(c, p, lig, relax=relax, typing=typing)
    for v in verdict.directions:
        notes.append(f"{c.atom_name[v.donor]}->{c.atom_name[v.acceptor]} D..A {v.da_distance:.2f}: "
                     f"donor '{v.donor_class}' {'ok' if v.donor_ok else 'fails'}, "
                     f"acceptor '{v.acceptor_class}' {'ok' if v.acceptor_ok else 'fails'}")
    return "; ".join(notes) or "neither atom is typed as donor/acceptor toward the other"


def _key(c: Complex, i: int) -> str:
    if c.is_ligand[i]:
        return str(c.atom_name[i])
    return f"{c.chain_id[i]}/{c.res_id[i]}/{c.ins_code[i]}/{c.atom_name[i]}"


def _typing_agreement(c: Complex, typing, rec: dict) -> tuple[int, int, int, int]:
    lig_ok = lig_n = poc_ok = poc_n = 0
    seen: set[str] = set()
    for i in np.flatnonzero(c.is_ligand & ~c.is_hydrogen):
        name = str(c.atom_name[i])
        if name in seen:
            continue
        seen.add(name)
        want = rec["ligand_idatm"].get(name)
        if want is not None:
            lig_n += 1
            lig_ok += want == str(typing.idatm[i])
    rows = np.flatnonzero(~c.is_ligand & np.isin(c.element, ["N", "O", "S"]))
    keys = [_key(c, i) for i in rows]
    dup = {k for k in keys if keys.count(k) > 1}  # e.g. two blank-chain residues with one number
    for i, k in zip(rows, keys):
        want = None if k in dup else rec["pocket_idatm"].get(k)
        if want is not None:
            poc_n += 1
            poc_ok += want == str(typing.idatm[i])
    return lig_ok, lig_n, poc_ok, poc_n


def run_mode(dev: Path, mode: str, repeat: int, residue_names: bool = False, fixture: Path | None = None,
             relax: bool = True) -> dict | None:
    fname, kw = MODES.get(mode, (None, dict(relax=relax)))
    path = fixture or dev / fname
    if not path.is_file():
        print(f"[{mode}] {path} not found: skipped")
        return None
    fx = json.loads(path.read_text())["complexes"]
    if mode == "strip_h" or mode.startswith("strip_h:"):
        tmp = tempfile.TemporaryDirectory(prefix="misi_hfree_")
        dev = hydrogen_free_copies(dev, [c for c in sorted(fx) if fx[c].get("status") == "ok"], Path(tmp.name))
    tp = fp = fn = exact = 0
    lig_ok = lig_n = poc_ok = poc_n = 0
    times, lines = [], []
    n_failed = 0
    for cid in sorted(fx):
        rec = fx[cid]
        if rec.get("status") != "ok":
            continue
        try:
            c = load_complex(dev / cid)
        except MisiInputError as exc:
            lines.append(f"  {cid} NOT LOADED: {exc}")
            n_failed += 1
            continue
        if residue_names:
            c = mol2_residue_names(c, dev / cid)
        if mode == "strip_h_loaded":
            c = c[~c.is_hydrogen]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            find_hbonds(c, **kw)  # warm-up
            runs = []
            for _ in range(repeat):
                t0 = time.perf_counter()
                bonds = find_hbonds(c, **kw)
                runs.append(time.perf_counter() - t0)
        times.append((statistics.median(runs) * 1000, cid, len(c)))
        got, want = _pairs(format_t9(bonds, c)), _pairs(rec["misi_answer"])
        tp, fp, fn = tp + len(got & want), fp + len(got - want), fn + len(want - got)
        exact += got == want
        typing = assign_hbond_types(c)
        a, b, p, q = _typing_agreement(c, typing, rec)
        lig_ok, lig_n, poc_ok, poc_n = lig_ok + a, lig_n + b, poc_ok + p, poc_n + q
        for e in sorted(want - got):
            lines.append(f"  {cid} MISSING {e}  <- {_explain(c, typing, _types(c, rec), e, kw['relax'])}")
        for e in sorted(got - want):
            lines.append(f"  {cid} EXTRA   {e}  <- {_explain(c, typing, _types(c, rec), e, kw['relax'])}")
    n = sum(1 for r in fx.values() if r.get("status") == "ok") - n_failed
    prec = tp / (tp + fp) if tp + fp else 1.0
    rec_ = tp / (tp + fn) if tp + fn else 1.0
    f1 = 2 * prec * rec_ / (prec + rec_) if prec + rec_ else 0.0
    ms = [t for t, _, _ in times]
    slow = max(times)
    print(f"[{mode}{', mol2 residue names' if residue_names else ''}] {n} complexes, {tp + fn} ChimeraX pairs, {tp + fp} misi pairs"
          + (f" ({n_failed} not loaded, listed below)" if n_failed else ""))
    print(f"  pairs: precision {prec:.3f}  recall {rec_:.3f}  F1 {f1:.3f}   (tp {tp}, fp {fp}, fn {fn})")
    print(f"  exact whole-complex answers: {exact}/{n} = {exact / n:.1%}")
    print(f"  IDATM typing: ligand heavy atoms {lig_ok}/{lig_n} = {lig_ok / max(lig_n, 1):.1%}; "
          f"pocket N/O/S {poc_ok}/{poc_n} = {poc_ok / max(poc_n, 1):.1%}")
    print(f"  find_hbonds ms/complex: median {statistics.median(ms):.1f}, max {slow[0]:.1f} "
          f"({slow[1]}, {slow[2]} atoms)")
    print("  mismatches:" if lines else "  mismatches: none")
    for line in lines:
        print(line)
    return {"f1": f1, "exact": exact / n}


def _types(c: Complex, rec: dict) -> dict:
    out = dict(rec["pocket_idatm"])
    out.update(rec["ligand_idatm"])
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dev", type=Path, default=DEFAULT_DEV, help="folder with the complexes and fixtures")
    ap.add_argument("--repeat", type=int, default=5, help="timed runs per complex (median taken)")
    ap.add_argument("--strip-h", action="store_true", help="also compare with all hydrogens removed")
    ap.add_argument("--mol2-residue-names", action="store_true",
                    help="rename ligand rows after their mol2 substructures first (see module docs)")
    ap.add_argument("--fixture", type=Path, help="compare with this oracle JSON instead (needs --complexes)")
    ap.add_argument("--complexes", type=Path, help="folder of the complexes --fixture was made from")
    ap.add_argument("--fixture-hfree", type=Path,
                    help="with --fixture: also compare H-free copies of --complexes with this oracle JSON "
                         "(made with --strip-h)")
    ap.add_argument("--precise", action="store_true", help="with --fixture: it was made with --no-relax")
    args = ap.parse_args(argv)
    if args.fixture is not None:
        if args.complexes is None or not args.fixture.is_file():
            print("--fixture needs an existing oracle JSON and --complexes (skipped)")
            return 0
        run_mode(args.complexes, f"{args.fixture.name}", args.repeat, args.mol2_residue_names,
                 fixture=args.fixture, relax=not args.precise)
        if args.fixture_hfree is not None:  # the same complexes with every hydrogen stripped
            run_mode(args.complexes, f"strip_h:{args.fixture_hfree.name}", args.repeat, args.mol2_residue_names,
                     fixture=args.fixture_hfree, relax=not args.precise)
        return 0
    if not args.dev.is_dir():
        print(f"{args.dev} not found: nothing to compare (skipped)")
        return 0
    modes = ["relaxed", "precise"] + (["strip_h", "strip_h_loaded"] if args.strip_h else [])
    for mode in modes:
        run_mode(args.dev, mode, args.repeat, args.mol2_residue_names)
    return 0


if __name__ == "__main__":
    sys.exit(main())
