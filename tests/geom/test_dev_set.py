"""All 50 development complexes load (skipped where /work/shared/data/pdbbind_dev is absent, e.g. CI)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from misi_geom import find_complex_dirs, load_complexes

DEV = Path("/work/shared/data/pdbbind_dev")
#: pockets whose blank chain id covers parts of two protein chains with repeated residue numbers
#: (1hte, 2p3a, 2pv2 are HIV-protease-like homodimers)
BLANK_COPIES = {"1hte", "2b1i", "2p3a", "2pv2", "2w8w", "2y2k", "3gzn", "3mg6"}

pytestmark = pytest.mark.skipif(not DEV.is_dir(), reason=f"{DEV} not present")


def test_all_dev_complexes_load_and_match_the_index():
    dirs = find_complex_dirs(DEV)
    assert len(dirs) == 50
    ok, failed = load_complexes(dirs)
    assert failed == []
    index = {row["id"]: row for row in csv.DictReader((DEV / "index.csv").open())}
    assert sorted(c.pdb_id for c in ok) == sorted(index)
    for c in ok:
        row = index[c.pdb_id]
        assert int((c.is_ligand & ~c.is_hydrogen).sum()) == int(row["ligand_heavy_atoms"]), c.pdb_id
        pocket = ~c.is_ligand
        n_res = len(np.unique(c.res_index[pocket]))
        if c.pdb_id in BLANK_COPIES:
            # the index counts gemmi's residues, which merge the two blank-chain copies' same-numbered
            # residues; misi names the copies A, B, ... (docs/loading.md), each residue one identity
            assert set(c.chain_id[pocket].tolist()) == {"A", "B"}, c.pdb_id
            merged = set(zip(c.res_id[pocket].tolist(), c.ins_code[pocket].tolist(), c.res_name[pocket].tolist()))
            assert len(merged) == int(row["pocket_residues"]) < n_res, c.pdb_id
            keys = set(zip(c.chain_id[pocket].tolist(), c.res_id[pocket].tolist(), c.ins_code[pocket].tolist()))
            assert len(keys) == n_res, c.pdb_id
        else:
            assert n_res == int(row["pocket_residues"]), c.pdb_id
        assert not np.isin(c.res_name, ["HOH", "WAT"]).any()
        assert np.isfinite(c.coord).all() and len(c.bonds) > len(c) // 2
