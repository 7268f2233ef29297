"""The declaration base: thresholds as keywords, mirror roles, the registry, explain, pruning."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from misi_geom.interactions import (
    INTERACTION_TYPES,
    Interaction,
    SaltBridge,
    Threshold,
    candidate_pairs,
    find_interactions,
    interaction_types,
)

from interaction_scenes import join, ligand, pocket_residue


def test_every_issue_type_is_declared_in_order():
    assert interaction_types() == ("hbond", "salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal",
                                   "hydrophobic")


def test_every_threshold_has_a_unit_and_meaning():
    for cls in INTERACTION_TYPES.values():
        for name, t in cls.thresholds.items():
            assert t.unit in ("Å", "°") and t.doc, (cls.name, name)


def test_thresholds_are_keywords_and_unknown_ones_fail():
    assert SaltBridge().distance == 5.5
    assert SaltBridge(distance=4.0).distance == 4.0
    with pytest.raises(TypeError, match="no threshold 'dist'"):
        SaltBridge(dist=4.0)
    with pytest.raises(ValueError, match="unit"):
        Threshold(1.0, "nm", "x")


def test_a_second_declaration_of_a_name_is_refused():
    with pytest.raises(ValueError, match="declared twice"):
        type("Other", (Interaction,), {"name": "salt_bridge"})


@given(st.lists(st.tuples(st.floats(-8, 8), st.floats(-8, 8), st.floats(-8, 8)), min_size=1, max_size=12),
       st.lists(st.tuples(st.floats(-8, 8), st.floats(-8, 8), st.floats(-8, 8)), min_size=1, max_size=12),
       st.floats(0.5, 10))
def test_pruning_finds_exactly_the_pairs_within_reach(a, b, reach):
    a, b = np.array(a), np.array(b)
    ia, ib = candidate_pairs(a, b, reach)
    d = np.linalg.norm(a[:, None] - b[None], axis=2)
    expect = {(i, j) for i, j in zip(*np.nonzero(d <= reach))}
    assert set(zip(ia.tolist(), ib.tolist())) == expect
    assert list(zip(ia.tolist(), ib.tolist())) == sorted(expect)


def _lys_and_acetate(gap: float):
    """LYS NZ at the origin; an acetate whose carboxylate O pair is centred ``gap`` Å along x."""
    lys = pocket_residue("LYS", {"CE": (-1.5, 0, 0), "NZ": (0, 0, 0)})
    acetate = ligand([("C", (gap + 1.2, 0, 0)), ("O", (gap, 1.1, 0)), ("O", (gap, -1.1, 0)),
                      ("C", (gap + 2.7, 0, 0))], [(0, 1, 2.0), (0, 2, 1.0), (0, 3, 1.0)])
    return join(lys, acetate)


@given(st.floats(1.0, 8.0))
def test_mirror_roles_are_derived_and_named(gap):
    c = _lys_and_acetate(gap)
    found = find_interactions(c, ["salt_bridge"])["salt_bridge"]
    assert bool(found) == (gap < 5.5)
    if found:
        (x,) = found
        assert x.geometry["pocket_role"] == "cation" and x.geometry["ligand_role"] == "anion"
        assert [str(c.atom_name[i]) for i in x.ligand_atoms] == ["O2", "O3"]
        assert x.geometry["distance"] == pytest.approx(gap, abs=1e-3)


def test_explain_names_the_failing_criterion():
    c = _lys_and_acetate(6.0)
    lig = int(np.flatnonzero(c.is_ligand)[1])
    v = SaltBridge().explain(c, [1], [lig])
    assert not v.passed and v.failed == ("distance",)
    assert "distance 6.00 fails" in str(v)
    assert SaltBridge(distance=6.5).explain(c, [1], [lig]).passed
    assert "no cation/anion groups" in str(SaltBridge().explain(c, [0], [lig]))


def test_unknown_type_is_a_clear_error():
    with pytest.raises(ValueError, match="unknown interaction type 'ionic'"):
        find_interactions(_lys_and_acetate(4.0), ["ionic"])
