"""Write copies of complexes whose repeated blank chain carries the chain letters misi gives it.

misi gives the copies of a blank chain (a homodimer written without chain ids) their own letters
(``docs/loading.md``, :mod:`misi_geom.blank_chains`); PLIP, through Open Babel, merges the two
copies' same-numbered residues into one.  Running the PLIP oracle on these copies measures what the
merge alone changes (departure 4 of ``docs/interactions.md``): only column 22 (the chain id) of the
pocket's blank-chain, non-solvent ATOM/HETATM lines is rewritten; every other byte and file is
copied as it is.  Complexes without a repeated blank chain are skipped.  Usage::

    python benchmarks/letter_blank_chains.py COMPLEX_DIR... --out DEST_ROOT
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from misi_geom.blank_chains import blank_copies, copy_letters
from misi_geom.io import SOLVENT_NAMES

__all__ = ["letter_complex"]


def letter_complex(src: Path, dest_root: Path) -> Path | None:
    """Write ``dest_root/<id>/`` with the pocket's blank-chain copies lettered; None if nothing to do."""
    pocket = src / f"{src.name}_pocket.pdb"
    copies = blank_copies(pocket, SOLVENT_NAMES)
    if not copies:
        return None
    lines = pocket.read_bytes().split(b"\n")
    used = {ln[21:22].decode() for ln in lines if ln.startswith((b"ATOM", b"HETATM"))} - {" ", ""}
    letters = copy_letters(1 + max(cp for v in copies.values() for cp, _ in v), used)
    if letters is None:
        return None
    copy_at = {pos: cp for v in copies.values() for cp, pos in v}
    out, pos, last_copy = [], 0, 0
    for ln in lines:
        if ln.startswith((b"ATOM", b"HETATM")) and ln[21:22] in (b" ", b""):
            if ln[17:20].decode().strip().upper() not in SOLVENT_NAMES:
                last_copy = copy_at.get(pos, last_copy)  # blank_copies lists each residue's first lines
                ln = ln[:21].ljust(21) + letters[last_copy].encode() + ln[22:]
                pos += 1
        out.append(ln)
    dest = dest_root / src.name
    dest.mkdir(parents=True, exist_ok=True)
    for f in src.iterdir():
        if f.is_file() and f != pocket:
            shutil.copy(f, dest / f.name)
    (dest / pocket.name).write_bytes(b"\n".join(out))
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("complexes", nargs="+", type=Path, help="complex folders, or one folder of them")
    ap.add_argument("--out", type=Path, required=True)
    args = ap.parse_args(argv)
    dirs = args.complexes
    if len(dirs) == 1 and not (dirs[0] / f"{dirs[0].name}_pocket.pdb").is_file():
        dirs = sorted(p for p in dirs[0].iterdir() if p.is_dir())
    done = [d.name for d in dirs if letter_complex(d, args.out)]
    print(f"{len(done)} complexes with lettered blank-chain copies: {' '.join(done)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
