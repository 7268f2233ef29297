"""Distinct chain letters for the copies of a blank chain (two monomers of a dimer without chain ids).

Some pocket files (PDBbind's HIV-protease-like homodimers, e.g. 2p3a and 2pv2) hold two protein
copies with BLANK chain ids and no TER record: both copies have an ``ASP 25``, so a residue label
(or an answer such as ``ASP 25 OD2``) would name two residues.  gemmi merges such same-numbered
residues into one; the order of the file's lines still separates the copies.

The rule (documented in ``docs/loading.md``):

- walk the blank-chain atom lines in file order; a residue is a run of atoms with the
  same number, insertion code and name; a new copy begins at a residue whose number and insertion
  code already occurred in the current copy -- or, if the numbering went down since that earlier
  occurrence, at the residue after the last such drop (where the numbering restarted);
- solvent residues (waters) are ignored: they are removed later and never start a copy;
- if the blank chain holds a single copy nothing changes (its chain id stays blank, drawn ``?``);
- otherwise every copy, the first included, gets a letter: the first letters ``A``-``Z``, then
  ``a``-``z``, then ``0``-``9`` not used as a chain id anywhere in the file, in file order.

The pocket then spans several chains and has chain ids in its labels and prompts like any multi-chain pocket
(``ASP 25 A`` / ``ASP 25 B``).  PLIP's clean-up writes ``A`` into every blank-chain ATOM line, so its
two copies would still share numbers; here each copy gets its own letter.
"""

from __future__ import annotations

import string
from pathlib import Path
from typing import Sequence

#: Letters handed to the copies of a blank chain, in order (those used by other chains are skipped).
CHAIN_LETTERS: str = string.ascii_uppercase + string.ascii_lowercase + string.digits


def blank_copies(path: Path, solvent: frozenset[str]) -> dict[tuple, list[tuple[int, int]]]:
    """Copy number and position of every blank-chain atom line of the PDB file ``path`` (first
    model), by residue: ``{(number, insertion code, name): [(copy, position) of its 1st line, ...]}``;
    positions count the blank-chain lines kept in file order.

    Empty when the blank chain holds one copy, for mmCIF files and for lines that cannot be read
    (gemmi reports those).  gemmi merges same-numbered residues of a chain into one residue whose
    atoms keep file order, so its k-th atom is the k-th line of that key.
    """
    if ".cif" in path.name.lower() or ".mmcif" in path.name.lower():
        return {}
    rows = []
    try:
        with open(path, "rb") as fh:
            for raw in fh:
                if raw.startswith(b"ENDMDL"):
                    break
                if raw.startswith((b"ATOM", b"HETATM")) and raw[21:22] in (b" ", b""):
                    line = raw.decode("utf-8")
                    name = line[17:20].strip()
                    if name.upper() not in solvent:
                        rows.append(("", int(line[22:26]), line[26:27].strip(), name))
    except (OSError, ValueError):
        return {}
    copy_of = _copies(rows)
    if len(set(copy_of)) < 2:
        return {}
    out: dict[tuple, list[tuple[int, int]]] = {}
    for line_no, (r, cp) in enumerate(zip(rows, copy_of)):
        out.setdefault(r[1:], []).append((cp, line_no))
    return out


def copy_letters(n_copies: int, used: set[str]) -> list[str] | None:
    """Letters for ``n_copies`` copies: the first of :data:`CHAIN_LETTERS` not in ``used``; None if
    too few are left (the blank chain is then left as it is)."""
    letters = [c for c in CHAIN_LETTERS if c not in used]
    return letters[:n_copies] if len(letters) >= n_copies else None


def _copies(rows: Sequence[tuple]) -> list[int]:
    """Copy number (0, 1, ...) of each row, rows in file order.

    A residue (a run of rows with the same number, insertion code and name) whose number and
    insertion code already occurred in the current copy starts a new copy -- or, if the numbering
    went down between that earlier occurrence and it, the residue after the last such drop does
    (``452 PRO, 74 ARG, 75 GLY`` with an earlier ``75``: the second copy begins at ``74 ARG``).
    """
    runs: list[tuple[int, tuple]] = []  # (first row, (number, insertion code)) of each residue
    last = None
    for k, r in enumerate(rows):
        if (r[1], r[2], r[3]) != last:
            runs.append((k, (r[1], r[2])))
            last = (r[1], r[2], r[3])
    copy_of_run: list[int] = []
    copy, seen = 0, {}  # seen: (number, icode) -> run index, for runs of the current copy
    for j, (_, key) in enumerate(runs):
        if key in seen:
            drops = [t for t in range(seen[key] + 1, j + 1) if runs[t][1][0] < runs[t - 1][1][0]]
            begin = drops[-1] if drops else j
            copy += 1
            copy_of_run[begin:] = [copy] * (j - begin)
            seen = {runs[t][1]: t for t in range(begin, j)}
        seen[key] = j
        copy_of_run.append(copy)
    out: list[int] = []
    bounds = [k for k, _ in runs] + [len(rows)]
    for j, cp in enumerate(copy_of_run):
        out += [cp] * (bounds[j + 1] - bounds[j])
    return out
