"""What a residue could make (``possible_types``): the types whose pocket role it holds, whatever the
ligand.  X1 draws its decoys from these, so a ring-less residue is never offered pi-stacking."""

from __future__ import annotations

import numpy as np
import pytest

from misi_geom import load_complex
from misi_geom.interactions import find_interactions, possible_types
from misi_geom.interactions.groups import residue_kinds
from misi_geom.samples import sample_dirs
from misi_tasks.tasks.interaction_options import residue_types

from interaction_scenes import benzene_ligand, join, phe, pocket_residue

RINGED = {"PHE", "TYR", "TRP", "HIS"}
CHARGED = {"ARG", "LYS", "HIS", "ASP", "GLU"}


@pytest.fixture(scope="module")
def samples():
    return [load_complex(d) for d in sample_dirs()]


def _residues(c):
    for r in np.unique(c.res_index[~c.is_ligand]).tolist():
        yield r, str(c.res_name[np.flatnonzero(c.res_index == r)[0]])


def test_possible_types_follow_the_residue_chemistry(samples):
    names = set()
    for c in samples:
        for r, name in _residues(c):
            p = possible_types(c, r)
            names.add(name)
            if name in ("HOH",):
                continue
            if name in ("ZN", "MG", "CA", "MN", "NA", "K"):
                assert "metal" in p
                continue
            if name not in RINGED | CHARGED | {"GLY", "SER", "CYS", "ALA", "VAL", "LEU", "ILE", "MET", "PRO",
                                               "THR", "ASN", "GLN"}:
                continue  # cofactors, modified residues: not receptor
            assert "hbond" in p and "halogen_bond" in p  # backbone N/O
            assert ("pi_stacking" in p) == (name in RINGED)
            assert ("salt_bridge" in p) == (name in CHARGED)
            assert ("cation_pi" in p) == (name in RINGED | {"ARG", "LYS"})
            assert ("hydrophobic" in p) == (name not in ("GLY", "SER", "CYS"))
            assert "metal" not in p  # the ion is the pocket partner of a metal contact
    assert {"GLY", "SER", "ALA", "PHE"} <= names  # the samples exercise ring-less and ringed residues


def test_every_contact_is_a_possible_type(samples):
    """The types a residue makes are among those it could make (the two rules agree)."""
    n = 0
    for c in samples:
        for r, types in residue_types(find_interactions(c), c).items():
            assert types <= possible_types(c, r), (c.pdb_id, r, sorted(types - possible_types(c, r)))
            n += 1
    assert n >= 20


def test_a_ring_less_residue_cannot_stack_however_close():
    ala = pocket_residue("ALA", {"N": (0.0, 0.0, 3.5), "CA": (1.45, 0.0, 3.5), "CB": (2.0, 1.4, 3.5),
                                 "C": (2.0, -1.4, 3.5), "O": (3.2, -1.5, 3.5)}, res_id=5)
    ring = phe((6.0, 0.0, 3.6), (0, 0, 1), res_id=6)
    c = join(ala, ring, benzene_ligand((6.0, 0.0, 0.0), (0, 0, 1)))
    assert sorted(residue_kinds(c, 0)) == ["donor/acceptor", "halogen_acceptor", "hydrophobic"]
    assert "pi_stacking" not in possible_types(c, 0)
    assert {"pi_stacking", "cation_pi"} <= possible_types(c, 1)
    assert find_interactions(c, ["pi_stacking"])["pi_stacking"]  # the PHE above the ring does stack
