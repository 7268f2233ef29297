"""The recipe of docs/interactions.md holds: one declaration is a new type that the profile, the JSON
form and ``misi-interactions`` pick up with no edit elsewhere."""

from __future__ import annotations

import json

import numpy as np
import pytest

from misi_geom import load_complex
from misi_geom.interactions import INTERACTION_TYPES, MIN_DIST, Interaction, Threshold, find_interactions
from misi_geom.interactions.measure import distance
from misi_geom.samples import sample_dirs
from misi_tasks.interactions.cli import main


@pytest.fixture
def close_carbons():
    """A toy type declared inside the test (and removed after it): two hydrophobic carbons closer
    than 3.6 Å, without PLIP's thinning."""

    class CloseCarbons(Interaction):
        name = "close_carbons"
        roles = ("hydrophobic", "hydrophobic")
        distance = Threshold(3.6, "Å", "carbon to carbon, below")
        reach = "distance"

        def measure(self, p, l):
            return {"distance": distance(p.point, l.point)}

        def criteria(self, m):
            return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance))]

    yield CloseCarbons
    del INTERACTION_TYPES["close_carbons"]


def test_a_declared_type_is_profiled_and_printed(close_carbons, capsys):
    folder = next(d for d in sample_dirs() if d.name == "3pvu")
    c = load_complex(folder)
    found = find_interactions(c)
    assert list(found)[-1] == "close_carbons"
    pairs = [(x.pocket_atoms[0], x.ligand_atoms[0]) for x in found["close_carbons"]]
    assert pairs and all(np.linalg.norm(c.coord[i] - c.coord[j]) < 3.6 for i, j in pairs)
    assert main([str(folder), "--type", "close_carbons", "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    assert len(records) == len(pairs) and {r["type"] for r in records} == {"close_carbons"}
    assert main([str(folder), "--type", "close_carbons", "--explain", records[0]["residue"],
                 records[0]["ligand_atoms"][0]]) == 0
    assert capsys.readouterr().out.startswith("close_carbons: distance")
