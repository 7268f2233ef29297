"""Distinct chain letters for the copies of a blank chain (two monomers of a dimer without chain ids).

Some pocket files (PDBbind's HIV-protease-like homodimers, e.g. 2p3a and 2pv2) hold two protein
copies with BLANK chain ids and no TER record: both copies have an ``ASP 25``, so a residue label
(or an answer such as ``ASP 25 OD2``) would name two residues.  gemmi merges such same-numbered
residues into one; the file order (atom serial numbers) still separates the copies.

The rule (documented in ``docs/loading.md``):

- walk the blank-chain atoms in file order (serial numbers); a residue is a run of atoms with the
  same number, insertion code and name; a new copy begins at a residue whose number and insertion
  code already occurred in the current copy -- or, if the numbering went down since that earlier
  occurrence, at the residue after the last such drop (where the numbering restarted);
- solvent residues (waters) are ignored: they are removed later and never start a copy;
- if the blank chain holds a single copy nothing changes (its chain id stays blank, drawn ``?``);
- otherwise every copy, the first included, gets a letter: the first letters ``A``-``Z``, then
  ``a``-``z``, then ``0``-``9`` not used as a chain id anywhere in the file, in file order.

A pocket with two chains then has chain ids in its labels and prompts like any multi-chain pocket
(``ASP 25 A`` / ``ASP 25 B``).  PLIP's clean-up writes ``A`` into every blank-chain ATOM line, so its
two copies would still share numbers; here each copy gets its own letter.
"""

from __future__ import annotations

import string
from typing import Sequence

#: Letters handed to the copies of a blank chain, in order (those used by other chains are skipped).
CHAIN_LETTERS: str = string.ascii_uppercase + string.ascii_lowercase + string.digits


def blank_copy_chains(rows: Sequence[tuple], serials: Sequence[int], solvent: frozenset[str]) -> list[tuple]:
    """``rows`` (atom rows whose first fields are chain, number, insertion code, residue name) with
    the copies of a blank chain given distinct letters (module docstring), in file order.

    ``serials`` are the atoms' serial numbers (their file order).  Rows are returned unchanged and
    in their order when no blank chain repeats a residue number.
    """
    blank = [k for k, r in enumerate(rows) if r[0] == "" and r[3].upper() not in solvent]
    order = sorted(blank, key=lambda k: serials[k])
    copy_of = _copies([rows[k] for k in order])
    if len(set(copy_of)) < 2:
        return list(rows)
    used = {r[0] for r in rows}
    letters = [c for c in CHAIN_LETTERS if c not in used]
    if len(letters) < max(copy_of) + 1:
        return list(rows)  # more copies than free letters: leave the file as it is
    # the blank-chain atoms fill their old places in file order, so each copy's residues are contiguous
    out = list(rows)
    for k, j, cp in zip(blank, order, copy_of):
        out[k] = (letters[cp],) + tuple(rows[j][1:])
    return out


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
