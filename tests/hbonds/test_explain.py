"""The public explanation and array results of the H-bond detector, relaxation by field, and the
vectorised family tests against per-pair references.

``explain`` must agree with ``find_hbonds`` on every close pocket–ligand pair of the bundled samples
(it re-runs the same tests one pair at a time), and name the test that failed on hand-made scenes.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from misi_geom import Complex, assign_hbond_types, bonded_pairs, explain, find_hbonds, hbond_pairs, load_complex
from misi_geom.hbonds.criteria import FAILURES, Context, acceptor_failures
from misi_geom.hbonds.geometry import angles_deg
from misi_geom.hbonds.limits import GenericAcceptor, ThetaTau, UpsilonTauDonor, donor_limits, relaxed
from misi_geom.samples import SAMPLE_IDS, sample_root

from .reference_criteria import angle_deg


@pytest.fixture(scope="module")
def samples() -> dict[str, Complex]:
    return {pdb_id: load_complex(sample_root() / pdb_id) for pdb_id in SAMPLE_IDS}


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
@pytest.mark.parametrize("relax", [True, False])
def test_explain_agrees_with_find_hbonds(samples, pdb_id, relax):
    c = samples[pdb_id]
    bonds = find_hbonds(c, relax=relax)
    found = {tuple(p) for p in bonded_pairs(bonds, c).tolist()}
    directed = {(b.donor, b.acceptor) for b in bonds}
    typing = assign_hbond_types(c)
    heavy = ~c.is_hydrogen
    poc, lig = np.flatnonzero(~c.is_ligand & heavy), np.flatnonzero(c.is_ligand & heavy)
    near = cKDTree(c.coord[lig]).query_ball_point(c.coord[poc], 4.5)
    checked = 0
    for i, js in zip(poc.tolist(), near):
        for j in lig[js].tolist():
            v = explain(c, i, j, relax=relax, typing=typing)
            assert v.bonded == ((i, j) in found), (pdb_id, str(v))
            assert {(d.donor, d.acceptor) for d in v.directions if d.passed} == \
                {p for p in directed if set(p) == {i, j}}
            for d in v.directions:  # a failing side names its test
                assert d.acceptor_ok == (d.acceptor_failed is None) and d.acceptor_failed != "unknown"
                assert d.donor_ok == (d.donor_failed is None) and d.donor_failed != "unknown"
            checked += 1
    assert checked > len(found) > 0


def _water_scene(o_pos, h_towards: bool = True) -> Complex:
    """Ser-like O with two H (one pointing at +x or away), and a ketone-like ligand O=C at ``o_pos``."""
    h = [0.96, 0, 0] if h_towards else [-0.96, 0, 0]
    pocket = Complex.from_atoms([[0, 0, 0], h, [-0.24, 0.93, 0]], ["O", "H", "H"], ["OG", "HG", "HB"],
                                res_name="SER", res_id=7, chain_id="A", is_ligand=False, bonds=[(0, 1), (0, 2)])
    o = np.asarray(o_pos, dtype=float)
    lig = Complex.from_atoms([o, o + [0.5, 0.8, 0.3]], ["O", "C"], ["O1", "C1"], bonds=[(0, 1)], bond_order=[2])
    return Complex.concatenate([pocket, lig])


@pytest.mark.parametrize(
    "o_pos, h_towards, failed",
    [
        ([2.8, 0, 0], True, ()),
        ([4.2, 0, 0], True, ("distance",)),
        ([2.8, 0, 0], False, ("acceptor",)),
    ],
)
def test_explain_names_the_failing_test(o_pos, h_towards, failed):
    c = _water_scene(o_pos, h_towards)
    v = explain(c, 0, 3)
    (direction,) = v.directions  # the ketone O only accepts
    assert (direction.donor, direction.acceptor) == (0, 3)
    assert set(failed) <= set(direction.failed_tests)
    assert v.bonded == (not failed) == (bonded_pairs(find_hbonds(c), c).tolist() == [[0, 3]])
    if "distance" in failed:
        assert direction.da_distance > direction.reach and "beyond reach" in str(v)
    if failed == ("acceptor",):  # H pointing away: the D-H..A angle is the one that fails
        assert direction.acceptor_failed == "theta (D-H..A)" and "fails (theta (D-H..A))" in str(v)
    if not failed:
        assert direction.acceptor_failed is None and direction.donor_failed is None


def test_explain_untyped_pair_and_bad_rows():
    c = _water_scene([2.8, 0, 0])
    v = explain(c, 0, 4)  # the ligand carbon neither donates nor accepts
    assert v.directions == () and not v.bonded and "neither atom" in str(v)
    with pytest.raises(ValueError):
        explain(c, 1, 1)
    with pytest.raises(ValueError):
        explain(c, 0, len(c))


def test_bonded_pairs_is_the_int_array_of_hbond_pairs(samples):
    for c in samples.values():
        bonds = find_hbonds(c)
        arr = bonded_pairs(bonds, c)
        assert arr.dtype == np.int64 and arr.shape == (len(hbond_pairs(bonds, c)), 2)
        assert [tuple(p) for p in arr.tolist()] == hbond_pairs(bonds, c)
        assert not c.is_ligand[arr[:, 0]].any() and c.is_ligand[arr[:, 1]].all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert bonded_pairs([], _water_scene([2.8, 0, 0])).shape == (0, 2)


def test_limits_relax_by_declared_field_not_by_value():
    # a distance beyond 7.5 Å and an angle below 7.5 degrees: the value would have misled a guess
    r = relaxed(GenericAcceptor(dist=8.0, min_angle=5.0), 0.4, 20.0)
    assert r.dist == pytest.approx(8.4 ** 2) and r.min_angle == 0.0
    t = relaxed(ThetaTau(dist=3.03, upsilon_low=100, upsilon_high=-161, theta=145), 0.4, 20.0)
    assert (t.dist, t.upsilon_low, t.upsilon_high, t.theta) == pytest.approx((3.43 ** 2, 80, -180, 125))
    u = relaxed(donor_limits("upsilon_tau", (3.17, 90, -141, 130, None, 3.03, 90, -141, 135, None, 140,
                                             3.03, 100, -132, 145, None, 150)), 0.0, 0.0)
    assert u.sp2o.tau is None and u.sp2o.dist == pytest.approx(3.17 ** 2) and u.sp3n.upsilon_high == -132
    assert isinstance(u, UpsilonTauDonor) and (u.sp3o_phi, u.sp3n_lone_pair_angle) == (140, 150)
    r = relaxed(donor_limits("upsilon_tau", (3.17, 90, -141, 130, -30, 3.03, 90, -141, 135, 25, 140,
                                             3.03, 100, -132, 145, None, 150)), 0.4, 20.0)
    # nested targets relax field by field too: a negative tau is an upper limit, a positive one a lower
    assert (r.sp2o.tau, r.sp3o.tau, r.sp3n.tau, r.sp3o.dist) == pytest.approx((-50, 5, None, 3.43 ** 2))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(-10, 10, allow_nan=False, width=32), min_size=9, max_size=9))
def test_vectorised_angles_match_the_scalar_angle(xs):
    a, b, c = (np.array(xs[k:k + 3], dtype=np.float64) for k in (0, 3, 6))
    # arccos turns a one-ulp difference in the cosine of a near-0 or near-180 degree angle into
    # ~1e-8 / sin(angle) degrees (hypothesis found 5e-5 degree angles off by 2e-9), hence 1e-6
    assert angles_deg(a[None], b[None], c[None])[0] == pytest.approx(angle_deg(a, b, c), abs=1e-6)


def _methyl_phosphate() -> Complex:
    """Methyl phosphate dianion: O3 and O4 (terminal O3- on a tetrahedral P) are generic acceptors."""
    dirs = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]) / np.sqrt(3)
    o = 1.52 * dirs
    coord = np.vstack([np.zeros(3), o, o[0] + 1.43 * dirs[0]])
    return Complex.from_atoms(coord, ["P", "O", "O", "O", "O", "C"], ["P1", "O1", "O2", "O3", "O4", "C1"],
                              bonds=[(0, 1), (0, 2), (0, 3), (0, 4), (1, 5)], bond_order=[1, 1, 1, 2, 1])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(-4.5, 4.5, allow_nan=False), min_size=3, max_size=3),
       st.sampled_from(["O", "S"]), st.floats(0.0, 0.6))
def test_generic_acceptor_mask_matches_a_per_pair_reference(pos, element, slop):
    """The vectorised generic-family test against a plain loop over the same pairs."""
    d_pos = np.array(pos)
    pocket = Complex.from_atoms([d_pos, d_pos + [0.96, 0, 0], d_pos + [-0.24, 0.93, 0]], [element, "H", "H"],
                                [element + "G", "HG", "HB"], res_name="SER", res_id=7, chain_id="A",
                                is_ligand=False, bonds=[(0, 1), (0, 2)])
    c = Complex.concatenate([pocket, _methyl_phosphate()])
    typing = assign_hbond_types(c)
    ctx = Context(c, typing)
    acc = np.array(sorted(typing.acceptor), dtype=np.int64)
    acc = acc[c.is_ligand[acc]]
    donors = np.zeros(len(acc), dtype=np.int64)
    limits = [relaxed(typing.acceptor[a].limits, slop, 20.0) for a in acc.tolist()]
    got = acceptor_failures(ctx, donors, acc, slop, 20.0)
    generic = [k for k, p in enumerate(limits) if isinstance(p, GenericAcceptor)]
    assert len(generic) == 2
    for k in generic:
        a, p = int(acc[k]), limits[k]
        r2 = (np.sqrt(p.dist) + 0.35) ** 2 if element == "S" else p.dist
        near = float(np.sum((c.coord[0] - c.coord[a]) ** 2)) <= r2
        wide = all(angle_deg(c.coord[b], c.coord[a], c.coord[0]) >= p.min_angle for b in typing.graph.nbrs[a])
        assert FAILURES[got[k]] == (None if near and wide else "D..A distance" if not near else "bonded-A..D angle")
