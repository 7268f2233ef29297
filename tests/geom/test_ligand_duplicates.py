"""Ligand files with repeated atoms: an atom repeated exactly in a mol2 or an SDF is
dropped (as a repeated PDB line is), and a mol2 passed over for the SDF beside it (names not UTF-8)
is said in the complex's warnings."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from misi_geom import load_complex
from misi_geom.inputs import FileSource
from misi_geom.samples import sample_root


def _ligand(folder: Path):
    c = load_complex(folder)
    return c[c.is_ligand]


def _same_ligand(a, b) -> None:
    assert len(a) == len(b)
    np.testing.assert_array_equal(a.coord, b.coord)
    for field in ("element", "atom_name", "atom_type", "res_name", "formal_charge", "bonds", "bond_order"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field), err_msg=field)


def _copy(tmp_path: Path, cid: str, keep: tuple[str, ...]) -> Path:
    folder = tmp_path / cid
    folder.mkdir()
    for suffix in keep:
        shutil.copy(sample_root() / cid / f"{cid}{suffix}", folder)
    return folder


def _mol2_with_repeated_atom(text: str, k: int) -> str:
    """The mol2 with the line of atom ``k`` (1-based) repeated as a new last atom (no bonds of its own:
    a line written twice)."""
    lines = text.split("\n")
    start, bond = lines.index("@<TRIPOS>ATOM"), lines.index("@<TRIPOS>BOND")
    head = lines.index("@<TRIPOS>MOLECULE") + 2
    counts = lines[head].split()
    atom = lines[start + k].split()
    lines[head] = " ".join([str(int(counts[0]) + 1)] + counts[1:])
    return "\n".join(lines[:bond] + ["  ".join([str(int(counts[0]) + 1)] + atom[1:])] + lines[bond:])


@pytest.mark.parametrize("k", [1, 3, 12])
def test_a_repeated_mol2_atom_is_dropped(tmp_path, k):
    ref = _ligand(_copy(tmp_path, "2pyy", ("_ligand.mol2", "_pocket.pdb")))
    dup = tmp_path / "dup"
    dup.mkdir()
    folder = _copy(dup, "2pyy", ("_pocket.pdb",))
    text = (sample_root() / "2pyy" / "2pyy_ligand.mol2").read_text()
    (folder / "2pyy_ligand.mol2").write_text(_mol2_with_repeated_atom(text, k))
    _same_ligand(_ligand(folder), ref)


def test_a_repeated_sdf_atom_is_dropped(tmp_path):
    ref = _ligand(_copy(tmp_path, "2pyy", ("_ligand.sdf", "_pocket.pdb")))
    dup = tmp_path / "dup"
    dup.mkdir()
    folder = _copy(dup, "2pyy", ("_pocket.pdb",))
    lines = (sample_root() / "2pyy" / "2pyy_ligand.sdf").read_text().split("\n")
    head = next(i for i, line in enumerate(lines) if line.rstrip().endswith("V2000"))
    n_atoms, n_bonds = int(lines[head][:3]), int(lines[head][3:6])
    bonds = [line for line in lines[head + 1 + n_atoms: head + 1 + n_atoms + n_bonds] if int(line[:3]) == 2]
    extra = [f"{n_atoms + 1:3d}{line[3:]}" for line in bonds]  # the copy of atom 2 bonded as atom 2 is
    lines[head] = f"{n_atoms + 1:3d}{n_bonds + len(extra):3d}{lines[head][6:]}"
    lines = (lines[:head + 1 + n_atoms] + [lines[head + 2]] + lines[head + 1 + n_atoms: head + 1 + n_atoms + n_bonds]
             + extra + lines[head + 1 + n_atoms + n_bonds:])
    (folder / "2pyy_ligand.sdf").write_text("\n".join(lines))
    _same_ligand(_ligand(folder), ref)


def test_a_mol2_passed_over_for_its_sdf_is_in_the_warnings(tmp_path):
    folder = _copy(tmp_path, "2pyy", ("_ligand.sdf", "_pocket.pdb"))
    raw = (sample_root() / "2pyy" / "2pyy_ligand.mol2").read_bytes()
    (folder / "2pyy_ligand.mol2").write_bytes(raw.replace(b" CA ", b" C\xe9 ", 1))  # a Latin-1 name
    got = FileSource("2pyy", pocket=folder / "2pyy_pocket.pdb", ligand=folder / "2pyy_ligand.mol2").load()
    (warning,) = got.provenance["warnings"]
    assert warning.startswith("ligand read from 2pyy_ligand.sdf, not 2pyy_ligand.mol2:")
    assert "not UTF-8 text" in warning and "\n" not in warning
