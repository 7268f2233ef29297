"""Regression against ChimeraX on the bundled sample complexes, and invariance under rigid motion.

Expected answers are copies of the ChimeraX oracle fixtures (``data/expected_hbonds.json``, see
``data/README.md``); the tests never read /work/shared.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_geom import SE3, Complex, assign_hbond_types, find_hbonds, load_complex
from ..hbond_text import format_t9
from misi_geom.samples import SAMPLE_IDS, sample_dirs

EXPECTED = json.loads((Path(__file__).parent / "data" / "expected_hbonds.json").read_text())["complexes"]


@pytest.fixture(scope="module")
def complexes() -> dict[str, Complex]:
    return {d.name: load_complex(d) for d in sample_dirs()}


def _pairs(answer: str) -> set[str]:
    return {e for e in answer.split("; ") if e}


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
@pytest.mark.parametrize("mode", ["relaxed", "precise"])
def test_matches_chimerax(complexes, pdb_id, mode):
    c = complexes[pdb_id]
    got = format_t9(find_hbonds(c, relax=mode == "relaxed"), c)
    want = EXPECTED[pdb_id][mode]["misi_answer"]
    assert _pairs(got) == _pairs(want)
    assert got == want  # same order too


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_donor_acceptor_roles_and_distances(complexes, pdb_id):
    """Each ChimeraX bond is found with the same donor side, hydrogen and D..A distance."""
    c = complexes[pdb_id]
    def label(i):
        return (str(c.atom_name[i]), None if c.is_ligand[i] else int(c.res_id[i]))

    def fx_label(a):
        return (a["atom"], None if a["side"] == "ligand" else a["resnum"])

    found = {(label(b.donor), label(b.acceptor)): b for b in find_hbonds(c)}
    for hb in EXPECTED[pdb_id]["relaxed"]["hbonds"]:
        key = (fx_label(hb["donor"]), fx_label(hb["acceptor"]))
        assert key in found, key
        b = found[key]
        assert b.da_distance == pytest.approx(hb["da_dist"], abs=2e-3)
        if hb["hydrogen"] is not None:
            assert str(c.atom_name[b.hydrogen]) == hb["hydrogen"]


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_typing_of_bonded_atoms(complexes, pdb_id):
    """The IDATM types of every atom in a ChimeraX H-bond agree with ChimeraX's."""
    c = complexes[pdb_id]
    t = assign_hbond_types(c)
    for hb in EXPECTED[pdb_id]["relaxed"]["hbonds"]:
        for role in ("donor", "acceptor"):
            a = hb[role]
            side = c.is_ligand if a["side"] == "ligand" else ~c.is_ligand
            rows = np.flatnonzero(side & (c.atom_name == a["atom"]) & (c.res_id == a["resnum"] if a["side"] == "pocket"
                                                                        else side))
            assert any(str(t.idatm[i]) == a["idatm"] for i in rows), (a, [str(t.idatm[i]) for i in rows])


def test_ligand_typing_agreement(complexes):
    """At least 90% of the ligand heavy atoms of the samples get ChimeraX's IDATM type (known
    differences: ChimeraX's ring bond-order perception in 3pvu, residue templates applied by name to
    the peptide ligand of 2w9r)."""
    agree = total = 0
    for pdb_id, c in complexes.items():
        t = assign_hbond_types(c)
        want = EXPECTED[pdb_id]["relaxed"]["ligand_idatm"]
        seen = set()
        for i in np.flatnonzero(c.is_ligand & ~c.is_hydrogen):
            name = str(c.atom_name[i])
            if name in seen or name not in want:
                continue
            seen.add(name)
            total += 1
            agree += str(t.idatm[i]) == want[name]
    assert total > 50 and agree / total >= 0.9


_angles = st.floats(-np.pi, np.pi, allow_nan=False)


@settings(max_examples=15)
@given(ax=_angles, ay=_angles, az=_angles, shift=st.tuples(*[st.floats(-50, 50, allow_nan=False)] * 3))
def test_rigid_motion_keeps_the_hbond_set(complexes, ax, ay, az, shift):
    c = complexes["2pyy"]
    base = {(b.donor, b.acceptor) for b in find_hbonds(c)}
    rot = SE3.rotation("x", np.degrees(ax)).then(SE3.rotation("y", np.degrees(ay))).then(
        SE3.rotation("z", np.degrees(az))).then(SE3.translation(shift))
    moved = Complex(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "coord": rot.apply(c.coord)})
    assert {(b.donor, b.acceptor) for b in find_hbonds(moved)} == base
