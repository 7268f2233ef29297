"""``benchmarks/strip_hydrogens.py`` removes every hydrogen and keeps everything else of the files."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from rdkit import Chem

from misi_geom import load_complex
from misi_geom.io import read_ligand, read_structure
from misi_geom.samples import sample_dirs

_spec = importlib.util.spec_from_file_location(
    "misi_strip_hydrogens", Path(__file__).resolve().parents[2] / "benchmarks" / "strip_hydrogens.py")
strip = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(strip)


@pytest.mark.parametrize("src", sample_dirs(), ids=lambda d: d.name)
def test_stripped_files_keep_every_heavy_atom(tmp_path, src):
    dest = strip.strip_complex(src, tmp_path)
    pid = src.name
    before, after = read_structure(src / f"{pid}_pocket.pdb"), read_structure(dest / f"{pid}_pocket.pdb")
    assert not after.is_hydrogen.any()
    heavy = before[~before.is_hydrogen]
    assert np.array_equal(after.coord, heavy.coord) and np.array_equal(after.atom_name, heavy.atom_name)
    for ext in ("mol2", "sdf"):
        a, _ = read_ligand(src / f"{pid}_ligand.{ext}", sanitize=False)
        b, _ = read_ligand(dest / f"{pid}_ligand.{ext}", sanitize=False)
        keep = ~a.is_hydrogen
        assert not b.is_hydrogen.any()
        assert np.allclose(b.coord, a.coord[keep]) and list(b.element) == list(a.element[keep])
        assert list(b.atom_name) == list(a[keep].atom_name)
        heavy_bonds = {tuple(sorted(x)) for x in a[keep].bonds.tolist()}
        assert {tuple(sorted(x)) for x in b.bonds.tolist()} == heavy_bonds
    c = load_complex(dest)
    assert not c.is_hydrogen.any() and c.is_ligand.sum() == (~load_complex(src).is_hydrogen & load_complex(src).is_ligand).sum()


def test_sdf_charges_and_counts_are_renumbered():
    sdf = "\n".join([
        "acetate", "  hand-made", "",
        "  5  4  0  0  0  0  0  0  0  0999 V2000",
        "    0.0000    0.0000    0.0000 C   0  0  0  0  0  0  0  0  0  0  0  0",
        "    1.0900    0.0000    0.0000 H   0  0  0  0  0  0  0  0  0  0  0  0",
        "   -0.7500    1.2000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0",
        "   -0.7500   -1.2000    0.0000 O   0  0  0  0  0  0  0  0  0  0  0  0",
        "    1.0000    1.0000    1.0000 H   0  0  0  0  0  0  0  0  0  0  0  0",
        "  1  2  1  0", "  1  3  2  0", "  1  4  1  0", "  3  5  1  0",
        "M  CHG  2   4  -1   5   1", "M  END", "$$$$", ""])
    out = strip.strip_sdf(sdf)
    mol = Chem.MolFromMolBlock(out.split("$$$$")[0], sanitize=False, removeHs=False)
    assert [a.GetSymbol() for a in mol.GetAtoms()] == ["C", "O", "O"]
    assert [(b.GetBeginAtomIdx(), b.GetEndAtomIdx()) for b in mol.GetBonds()] == [(0, 1), (0, 2)]
    assert [a.GetFormalCharge() for a in mol.GetAtoms()] == [0, 0, -1]


def test_pdb_conect_records_follow_the_kept_atoms():
    pdb = "\n".join([
        "HETATM    1  O   MOH A   1       0.000   0.000   0.000  1.00  0.00           O",
        "HETATM    2  C   MOH A   1       1.430   0.000   0.000  1.00  0.00           C",
        "HETATM    3  HO  MOH A   1      -0.300   0.900   0.000  1.00  0.00           H",
        "CONECT    1    2    3", "CONECT    3    1", "END"])
    out = strip.strip_pdb(pdb).splitlines()
    assert out == [pdb.splitlines()[0], pdb.splitlines()[1], "CONECT    1    2", "END"]


def test_multi_record_sdf_with_empty_titles():
    """RDKit writes an empty first (title) line; every record of a multi-record file is stripped."""
    from rdkit.Chem import AllChem

    blocks = []
    for smi in ("CO", "OCC(=O)O"):
        mol = Chem.AddHs(Chem.MolFromSmiles(smi))
        AllChem.EmbedMolecule(mol, randomSeed=1)
        blocks.append(Chem.MolToMolBlock(mol) + "$$$$\n")
    assert blocks[0].startswith("\n")
    out = strip.strip_sdf("".join(blocks))
    supplier = Chem.SDMolSupplier()
    supplier.SetData(out, sanitize=False, removeHs=False)
    assert [[a.GetSymbol() for a in m.GetAtoms()] for m in supplier] == [["C", "O"], ["O", "C", "C", "O", "O"]]
