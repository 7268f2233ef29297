"""All 50 development complexes load (skipped where /work/shared/data/pdbbind_dev is absent, e.g. CI)."""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest

from misi_geom import find_complex_dirs, load_complexes

DEV = Path("/work/shared/data/pdbbind_dev")

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
        assert len(np.unique(c.res_index[~c.is_ligand])) == int(row["pocket_residues"]), c.pdb_id
        assert not np.isin(c.res_name, ["HOH", "WAT"]).any()
        assert np.isfinite(c.coord).all() and len(c.bonds) > len(c) // 2
