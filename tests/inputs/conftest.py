"""Fixtures of the input tests: the 4CWB files in ``data/`` (see ``data/PROVENANCE.md``)."""

from __future__ import annotations

from pathlib import Path

import pytest

DATA = Path(__file__).resolve().parent / "data"
#: RDKit canonical SMILES of the 4cwb ligand as PDBbind protonates it (from its mol2).
SMILES_4CWB = "[NH2+]=c1[nH]c(=O)c2[nH]c(SCC(=O)c3ccc(-c4ccccc4)cc3)nc2[nH]1"


@pytest.fixture(scope="session")
def data() -> Path:
    return DATA


@pytest.fixture(scope="session")
def smiles_4cwb() -> str:
    return SMILES_4CWB
