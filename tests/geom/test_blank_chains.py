"""Copies of a blank chain (a homodimer without chain ids) get distinct chain letters."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_geom.blank_chains import _copies
from misi_geom.io import read_structure
from misi_geom.residues import atom_residue_label

FIXTURE = Path(__file__).parent / "data" / "blank_dimer" / "2p3a" / "2p3a_pocket.pdb"
RESIDUES = ["LEU 24", "ASP 25", "THR 26", "GLY 27"]


def _atom_lines() -> list[str]:
    return [ln for ln in FIXTURE.read_text().splitlines() if ln.startswith(("ATOM", "HETATM"))]


def _residues(c) -> list[tuple[str, str]]:
    """(label with chain, chain) of each residue, in res_index order."""
    first = [int(np.flatnonzero(c.res_index == r)[0]) for r in np.unique(c.res_index)]
    return [(atom_residue_label(c, i, with_chain=True), str(c.chain_id[i])) for i in first]


def _first_copy_len(lines: list[str]) -> int:
    """Number of atom lines of the first copy (up to where the first residue's number recurs)."""
    return next(k for k in range(1, len(lines))
                if lines[k][22:26] == lines[0][22:26] and lines[k - 1][22:26] != lines[0][22:26])


def _set_chain(line: str, chain: str) -> str:
    return line[:21] + chain + line[22:]


def test_blank_dimer_copies_get_first_letters_in_file_order():
    c = read_structure(FIXTURE)
    labels = [lab for lab, _ in _residues(c)]
    assert labels == [f"{r} A" for r in RESIDUES] + [f"{r} B" for r in RESIDUES]
    # copy A is the file's first run LEU 24 .. GLY 27, atom for atom
    lines = _atom_lines()
    n_first = _first_copy_len(lines)
    a_xyz = np.array([[float(ln[30:38]), float(ln[38:46]), float(ln[46:54])] for ln in lines[:n_first]])
    assert np.allclose(c.coord[c.chain_id == "A"], a_xyz, atol=1e-3)
    # the two ASP 25 OD2 atoms are two atoms of two residues, no longer one label for both
    od2 = np.flatnonzero((c.res_id == 25) & (c.atom_name == "OD2"))
    assert len(od2) == 2 and len({atom_residue_label(c, int(i), with_chain=True) for i in od2}) == 2


def test_letters_used_by_named_chains_are_skipped(tmp_path):
    lines = _atom_lines()
    hoh = [k for k, ln in enumerate(lines) if ln[17:20] == "HOH"]
    ion = _set_chain(lines[hoh[0]], "A")  # a sodium ion in chain A: the copies must skip letter A
    lines.append(ion[:12] + " NA  NA " + ion[20:76] + "NA")
    lines = [ln for k, ln in enumerate(lines) if k not in hoh]
    p = tmp_path / "p.pdb"
    p.write_text("\n".join(lines) + "\nEND\n")
    c = read_structure(p)
    chains = [ch for _, ch in _residues(c)]
    assert chains == ["B"] * 4 + ["C"] * 4 + ["A"]


def test_single_blank_copy_keeps_its_blank_chain(tmp_path):
    lines = _atom_lines()
    n_first = _first_copy_len(lines)
    p = tmp_path / "p.pdb"
    p.write_text("\n".join(lines[:n_first] + [ln for ln in lines if ln[17:20] == "HOH"]) + "\nEND\n")
    c = read_structure(p)
    assert set(c.chain_id.tolist()) == {""}
    assert [lab for lab, _ in _residues(c)] == [f"{r} ?" for r in RESIDUES]


def test_named_chains_with_the_same_numbers_are_left_alone(tmp_path):
    lines = _atom_lines()
    n_first = _first_copy_len(lines)
    named = [_set_chain(ln, "P" if k < n_first else "Q") if ln[17:20] != "HOH" else ln for k, ln in enumerate(lines)]
    p = tmp_path / "p.pdb"
    p.write_text("\n".join(named) + "\nEND\n")
    assert [ch for _, ch in _residues(read_structure(p))] == ["P"] * 4 + ["Q"] * 4


def test_a_copy_begins_where_the_numbering_restarts_before_the_repeat():
    # 3gzn's blank pocket: ... 452 PRO, then the other chain's 74 ARG, 75 GLY (75 seen before)
    numbers = [22, 75, 76, 452, 74, 75, 76]
    rows = [("", n, "", "X") for n in numbers]
    assert _copies(rows) == [0, 0, 0, 0, 1, 1, 1]
    # without a drop in numbering the repeated residue itself begins the copy
    assert _copies([("", n, "", "X") for n in [5, 6, 7, 6, 7]]) == [0, 0, 0, 1, 1]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(1, 12), st.integers(1, 3)), min_size=1, max_size=30))
def test_copies_give_each_residue_run_a_distinct_identity(runs):
    """Any file order of residue runs (number, atom count): within a copy no number names two runs,
    copies count up from 0 in steps of one, and a copy begins either at a number of the copy before
    or where the numbering goes down, and it holds a number of the copy before (so a file without
    repeats stays one copy)."""
    runs = [r for k, r in enumerate(runs) if k == 0 or r[0] != runs[k - 1][0]]  # adjacent equal = one run
    rows = [("", n, "", "ALA") for n, count in runs for _ in range(count)]
    got = _copies(rows)
    starts = np.cumsum([0] + [count for _, count in runs])[:-1]
    run_copy = [got[k] for k in starts]
    assert all(len(set(got[k:k + count])) == 1 for k, (_, count) in zip(starts, runs))
    assert run_copy[0] == 0 and all(b - a in (0, 1) for a, b in zip(run_copy, run_copy[1:]))
    by_copy: dict[int, list[int]] = {}
    for (n, _), cp in zip(runs, run_copy):
        by_copy.setdefault(cp, []).append(n)
    assert all(len(ns) == len(set(ns)) for ns in by_copy.values())
    first = {cp: k for k, cp in reversed(list(enumerate(run_copy)))}
    for cp in range(1, len(by_copy)):
        k = first[cp]
        assert by_copy[cp][0] in by_copy[cp - 1] or runs[k][0] < runs[k - 1][0]
        assert set(by_copy[cp]) & set(by_copy[cp - 1])
    if len({n for n, _ in runs}) == len(runs):
        assert set(got) == {0}
