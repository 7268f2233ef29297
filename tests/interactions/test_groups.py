"""Ligand group perception follows PLIP's definitions, the same with and without hydrogens."""

from __future__ import annotations

import pytest
from rdkit import Chem
from rdkit.Chem import AllChem

from misi_geom.interactions import Perception
from misi_geom.io import read_ligand


def _ligand(smiles: str, with_h: bool, tmp_path):
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    assert AllChem.EmbedMolecule(mol, randomSeed=7) == 0
    AllChem.MMFFOptimizeMolecule(mol)
    if not with_h:
        mol = Chem.RemoveHs(mol)
    path = tmp_path / f"lig_{with_h}.sdf"
    Chem.MolToMolFile(mol, str(path))
    return read_ligand(path)[0]


def _kinds(smiles: str, role: str, with_h: bool, tmp_path) -> list[str]:
    c = _ligand(smiles, with_h, tmp_path)
    return sorted(Perception(c).groups(role, ligand=True).kind.tolist())


CASES = [
    # (SMILES, role, kinds): PLIP 3.0.1's groups, by heavy-atom topology
    ("CN(C)CCc1ccccc1", "cation", ["tertamine"]),
    ("CN1CCCCC1", "cation", ["tertamine"]),
    ("C1CCNCC1", "cation", []),                     # secondary amine: not charged in PLIP
    ("CCN", "cation", []),                          # primary amine
    ("CC(=O)N(C)C", "cation", []),                  # amide N is sp2
    ("CN(C)c1ccccc1", "cation", []),                # aniline N is sp2
    ("C[N+](C)(C)C", "cation", ["quartamine"]),
    ("CCNC(=N)N", "cation", ["guanidine"]),
    ("NC(=N)c1ccccc1", "cation", []),               # benzamidine: not charged in PLIP
    ("CS(C)=O", "cation", ["sulfonium"]),           # PLIP: any S with 3 heavy neighbours
    ("CS(=O)(=O)N(C)C", "cation", ["tertamine"]),   # PLIP: a tertiary sulfonamide N is sp3
    ("c1ccc2[nH]ccc2c1", "cation", []),
    ("CC(=O)O", "anion", ["carboxylate"]),
    ("CC(=O)[O-]", "anion", ["carboxylate"]),
    ("COP(=O)(O)O", "anion", ["phosphate"]),
    ("CS(=O)(=O)O", "anion", ["sulfonate"]),
    ("COS(=O)(=O)O", "anion", ["sulfate"]),
    ("c1ccc(-c2nn[nH]n2)cc1", "anion", []),        # tetrazole: not charged in PLIP
    ("Oc1ccccc1", "metal_target", ["phenolate"]),
    ("CCO", "metal_target", ["alcohol"]),
    ("CC(=O)O", "metal_target", ["carboxylate", "carboxylate"]),
    ("c1cc[nH]c1", "metal_target", ["imidazole/pyrrole"]),
    ("CC(=O)NO", "metal_target", []),               # hydroxamate: not a PLIP target
    ("CSc1ccccc1", "metal_target", ["thiolate"]),
    ("CS(=O)(=O)c1ccccc1", "metal_target", []),     # sulfonyl S is no target
    ("Clc1ccccc1", "halogen_donor", ["Cl"]),
    ("CC(F)(F)F", "halogen_donor", ["F", "F", "F"]),
    ("c1ccccc1", "ring", ["6-ring"]),
    ("c1ccc2ccccc2c1", "ring", ["6-ring", "6-ring"]),
    ("C1CCCCC1", "ring", []),                       # a chair is neither aromatic nor planar
    ("CC", "hydrophobic", ["carbon", "carbon"]),
    ("CCO", "hydrophobic", ["carbon"]),
]


@pytest.mark.parametrize("with_h", [True, False], ids=["with H", "H-free"])
@pytest.mark.parametrize("smiles,role,kinds", CASES)
def test_ligand_groups(smiles, role, kinds, with_h, tmp_path):
    assert _kinds(smiles, role, with_h, tmp_path) == kinds
