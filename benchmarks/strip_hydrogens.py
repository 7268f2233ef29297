"""Write hydrogen-free copies of PDBbind-layout complexes (pocket/protein PDB, ligand mol2 and SDF).

Most PDB entries, most docking outputs and many exported ligands carry no hydrogens.  This makes
such inputs from complexes that have them, editing the files as text so everything else stays as
the source wrote it (atom names, residue fields, bond orders, charges, SYBYL types):

- PDB: ATOM/HETATM records whose element (columns 77-78, else the atom name) is H or D are
  dropped, with their ANISOU records; CONECT records are renumbered to the remaining serials
  (a bond to a removed atom is dropped);
- mol2: hydrogen atoms (SYBYL type ``H``/``H.*`` or element column H/D) are dropped from
  ``@<TRIPOS>ATOM``; atoms and bonds are renumbered, bonds to removed atoms dropped and the
  MOLECULE counts line updated (first two numbers);
- SDF (V2000): hydrogen atom lines are dropped, the counts line and bond block renumbered, and
  ``M  CHG`` / ``M  ISO`` / ``M  RAD`` entries on removed atoms dropped; every record of a
  multi-record file is processed.

The dev-set benchmark (``hbond_agreement.py --strip-h``) runs it on the dev complexes; the test
suite runs it on the bundled samples.  Usage::

    python benchmarks/strip_hydrogens.py SRC_COMPLEX_DIR [...] --out DEST_ROOT
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

__all__ = ["strip_pdb", "strip_mol2", "strip_sdf", "strip_complex"]

_H = ("H", "D")


def _pdb_is_h(line: str) -> bool:
    el = line[76:78].strip().upper()
    if not el:
        name = line[12:16].strip().lstrip("0123456789")
        el = name[:1].upper()
    return el in _H


def strip_pdb(text: str) -> str:
    """A PDB file's text without its hydrogen/deuterium atoms (CONECT renumbered)."""
    out, removed = [], set()
    lines = text.splitlines()
    for line in lines:
        rec = line[:6]
        if rec in ("ATOM  ", "HETATM") and _pdb_is_h(line):
            removed.add(line[6:11].strip())
    for line in lines:
        rec = line[:6]
        if rec in ("ATOM  ", "HETATM", "ANISOU") and line[6:11].strip() in removed:
            continue
        if rec == "CONECT":
            fields = [line[k:k + 5].strip() for k in range(6, len(line), 5)]
            if not fields or fields[0] in removed:
                continue
            kept = [f for f in fields[1:] if f and f not in removed]
            if not kept:
                continue
            line = "CONECT" + "".join(f"{f:>5s}" for f in [fields[0]] + kept)
        out.append(line)
    return "\n".join(out) + "\n"


def _mol2_is_h(parts: list[str]) -> bool:
    typ = parts[5].split(".")[0].upper() if len(parts) > 5 else ""
    return typ in _H


def strip_mol2(text: str) -> str:
    """A mol2 file's text without hydrogen atoms (atoms, bonds and counts renumbered)."""
    lines = text.splitlines()
    out, section, new_id, n_atoms, n_bonds, counts_at = [], "", {}, 0, 0, []
    mol_line = -1
    for line in lines:
        s = line.strip()
        if s.startswith("@<TRIPOS>"):
            section = s
            if s == "@<TRIPOS>MOLECULE":
                mol_line = 0
                new_id, n_atoms, n_bonds = {}, 0, 0
            out.append(line)
            continue
        if section == "@<TRIPOS>MOLECULE":
            mol_line += 1
            if mol_line == 2:  # counts line: atoms bonds [subst feat sets]
                counts_at.append((len(out), line))
            out.append(line)
            continue
        parts = line.split()
        if section == "@<TRIPOS>ATOM" and len(parts) >= 6:
            if _mol2_is_h(parts):
                continue
            n_atoms += 1
            new_id[parts[0]] = str(n_atoms)
            out.append(_replace_field(line, 0, str(n_atoms)))
            _set_counts(out, counts_at, n_atoms, n_bonds)
            continue
        if section == "@<TRIPOS>BOND" and len(parts) >= 4:
            if parts[1] not in new_id or parts[2] not in new_id:
                continue
            n_bonds += 1
            line = _replace_field(line, 0, str(n_bonds))
            line = _replace_field(line, 1, new_id[parts[1]])
            line = _replace_field(line, 2, new_id[parts[2]])
            out.append(line)
            _set_counts(out, counts_at, n_atoms, n_bonds)
            continue
        out.append(line)
    return "\n".join(out) + "\n"


def _set_counts(out: list[str], counts_at: list, n_atoms: int, n_bonds: int) -> None:
    if not counts_at:
        return
    k, orig = counts_at[-1]
    parts = orig.split()
    out[k] = " ".join([f"{n_atoms:5d}", f"{n_bonds:5d}"] + [f"{p:>5s}" for p in parts[2:]])


def _replace_field(line: str, index: int, value: str) -> str:
    """``line`` with its ``index``-th whitespace-separated field replaced (right-aligned in the old
    field's width when it fits, so column layouts survive)."""
    start, end = [m.span() for m in re.finditer(r"\S+", line)][index]
    text = value.rjust(end - start) if len(value) <= end - start else value
    return line[:start] + text + line[end:]


def strip_sdf(text: str) -> str:
    """An SDF (V2000) file's text without hydrogen atoms, every record processed."""
    records = text.split("$$$$")
    out = []
    for k, rec in enumerate(records):
        if not rec.strip():
            out.append(rec)
            continue
        # after a "$$$$" the record starts with that line's newline; the first record's title
        # line itself may be empty, so only later records drop one leading newline
        lead = "\n" if k > 0 and rec.startswith("\n") else ""
        out.append(lead + _strip_molblock(rec[len(lead):]))
    return "$$$$".join(out)


def _strip_molblock(rec: str) -> str:
    lines = rec.split("\n")
    c = 3
    counts = lines[c]
    if "V3000" in counts:
        raise ValueError("V3000 molfiles are not supported")
    na, nb = int(counts[0:3]), int(counts[3:6])
    atoms = lines[c + 1:c + 1 + na]
    bonds = lines[c + 1 + na:c + 1 + na + nb]
    rest = lines[c + 1 + na + nb:]
    new_id, kept_atoms = {}, []
    for k, line in enumerate(atoms, start=1):
        if line[31:34].strip() in _H:
            continue
        new_id[k] = len(kept_atoms) + 1
        kept_atoms.append(line)
    kept_bonds = []
    for line in bonds:
        i, j = int(line[0:3]), int(line[3:6])
        if i in new_id and j in new_id:
            kept_bonds.append(f"{new_id[i]:3d}{new_id[j]:3d}" + line[6:])
    new_rest = []
    for line in rest:
        if line.startswith(("M  CHG", "M  ISO", "M  RAD")):
            vals = line[9:].split()
            pairs = [(int(vals[k]), vals[k + 1]) for k in range(0, len(vals) - 1, 2)]
            pairs = [(new_id[a], v) for a, v in pairs if a in new_id]
            if not pairs:
                continue
            line = line[:6] + f"{len(pairs):3d}" + "".join(f" {a:3d} {int(v):3d}" for a, v in pairs)
        new_rest.append(line)
    counts = f"{len(kept_atoms):3d}{len(kept_bonds):3d}" + counts[6:]
    return "\n".join(lines[:c] + [counts] + kept_atoms + kept_bonds + new_rest)


def strip_complex(src: str | Path, dest_root: str | Path) -> Path:
    """Write an H-free copy of complex folder ``src`` as ``dest_root/<id>/`` and return it.

    Every ``*.pdb``, ``*.mol2`` and ``*.sdf`` file of ``src`` is stripped; other files are skipped.
    """
    src = Path(src)
    dest = Path(dest_root) / src.name
    dest.mkdir(parents=True, exist_ok=True)
    strip = {".pdb": strip_pdb, ".mol2": strip_mol2, ".sdf": strip_sdf}
    for f in sorted(src.iterdir()):
        fn = strip.get(f.suffix.lower())
        if fn is not None and f.is_file():
            (dest / f.name).write_text(fn(f.read_text(errors="replace")))
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("complexes", nargs="+", type=Path, help="complex folders (<id>/ with pocket and ligand files)")
    ap.add_argument("--out", type=Path, required=True, help="folder to write the H-free copies into")
    args = ap.parse_args(argv)
    for d in args.complexes:
        print(strip_complex(d, args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
