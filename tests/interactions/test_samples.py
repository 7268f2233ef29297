"""The interaction layer on the bundled samples: the H-bond declaration is the detector, PLIP's
reference interactions are found (recorded fixtures, no PLIP needed), and H-free input gives the
same contacts."""

from __future__ import annotations

import importlib.util
import json
import warnings
from pathlib import Path

import pytest

from misi_geom import bonded_pairs, find_hbonds, load_complex
from misi_geom.interactions import HBondInteraction, find_interactions, to_records
from misi_geom.samples import sample_dirs

FIXTURES = Path(__file__).with_name("fixtures")
NON_HBOND = ("salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal", "hydrophobic")
# Departures from PLIP, each explained in docs/interactions.md: with H present Open Babel does not
# call 1h1d's catechol ring aromatic, so PLIP misses its two Mg-"phenolate" contacts (it finds them
# on the H-free copy).
DEPARTURES = {("plip_samples", "1h1d", "metal", "MG 1 ?")}


def _load(d: Path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return load_complex(d)


@pytest.fixture(scope="module")
def samples():
    return {d.name: _load(d) for d in sample_dirs()}


def _keys(records, atoms: bool = False) -> set:
    return {(r["type"], r["residue"]) + ((frozenset(r["pocket_atoms"]), frozenset(r["ligand_atoms"])) if atoms else ())
            for r in records if r["type"] in NON_HBOND}


def test_the_hbond_declaration_gives_the_detectors_pairs(samples):
    for c in samples.values():
        got = [(x.pocket_atoms[0], x.ligand_atoms[0]) for x in HBondInteraction().find(c)]
        assert got == [tuple(p) for p in bonded_pairs(find_hbonds(c), c).tolist()]


@pytest.mark.parametrize("fixture", ["plip_samples", "plip_samples_strip_h"])
def test_plip_reference_interactions_are_found(samples, fixture):
    oracle = json.loads((FIXTURES / f"{fixture}.json").read_text())
    assert oracle["versions"]["plip"] == "3.0.1"
    total = 0
    for cid, entry in oracle["complexes"].items():
        mine = to_records(samples[cid], find_interactions(samples[cid]))
        ref = _keys(entry["interactions"])
        expected = {k for k in ref}
        got = {k for k in _keys(mine) if (fixture, cid) + k not in DEPARTURES}
        assert got == expected, cid
        assert _keys(mine, atoms=True) >= _keys(entry["interactions"], atoms=True), cid
        total += len(ref)
    assert total >= 15  # salt bridges, cation-pi, a halogen bond, hydrophobic contacts


def _strip_module():
    spec = importlib.util.spec_from_file_location(
        "misi_strip_hydrogens", Path(__file__).resolve().parents[2] / "benchmarks" / "strip_hydrogens.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_hydrogen_free_files_give_the_same_contacts(samples, tmp_path):
    strip = _strip_module()
    for cid, c in samples.items():
        bare = _load(strip.strip_complex(next(d for d in sample_dirs() if d.name == cid), tmp_path))
        assert not bare.is_hydrogen.any()
        a = to_records(c, find_interactions(c, NON_HBOND))
        b = to_records(bare, find_interactions(bare, NON_HBOND))
        assert a == b, cid
