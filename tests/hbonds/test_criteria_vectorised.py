"""The vectorised criterion tests against the per-pair reference (``reference_criteria.py``).

Every donor/acceptor pair within 4.6 Å of the bundled samples and the 2nnk site fixture, with and
without hydrogens, relaxed and precise, goes through :func:`acceptor_failures` /
:func:`donor_failures` at once and through the reference one pair at a time; the name of the first
failing test (or a pass) must agree row by row.  Hypothesis moves the complexes rigidly (generic
coordinates), and hand-made scenes reach the rare outcomes.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.spatial import cKDTree

from misi_geom import SE3, Complex, assign_hbond_types, load_complex
from misi_geom.hbonds.criteria import FAILURES, Context, acceptor_failures, donor_failures
from misi_geom.hbonds.limits import relaxed
from misi_geom.samples import sample_dirs

from .reference_criteria import acceptor_ok, donor_ok, generic_donor_limits

SLOPS = [(0.4, 20.0), (0.0, 0.0)]


@pytest.fixture(scope="module")
def fixtures() -> dict[str, Complex]:
    out = {}
    for d in [*sample_dirs(), Path(__file__).parent / "data" / "sites" / "2nnk"]:
        c = load_complex(d)
        out[d.name] = c
        out[d.name + "-noH"] = c[~c.is_hydrogen]
    out["phosphate"] = _waters_around_phosphate()
    return out


def _waters_around_phosphate() -> Complex:
    """Methyl phosphate (its terminal O3- are generic acceptors) among Ser-like hydroxyls on a
    shell, each with one H towards the P and one away (hand-made)."""
    dirs = np.array([[1, 1, 1], [1, -1, -1], [-1, 1, -1], [-1, -1, 1]]) / np.sqrt(3)
    o = 1.52 * dirs
    coord = np.vstack([np.zeros(3), o, o[0] + 1.43 * dirs[0]])
    lig = Complex.from_atoms(coord, ["P", "O", "O", "O", "O", "C"], ["P1", "O1", "O2", "O3", "O4", "C1"],
                             bonds=[(0, 1), (0, 2), (0, 3), (0, 4), (1, 5)], bond_order=[1, 1, 1, 2, 1])
    rng = np.random.default_rng(7)
    parts = []
    for k, v in enumerate(rng.normal(size=(24, 3))):
        pos = v / np.linalg.norm(v) * rng.uniform(3.4, 4.6)
        toward = -pos / np.linalg.norm(pos)
        side = np.cross(toward, [0.0, 0.0, 1.0])
        parts.append(Complex.from_atoms([pos, pos + 0.96 * toward, pos + 0.96 * side / np.linalg.norm(side)],
                                        ["O", "H", "H"], ["OG", "HG", "HB"], res_name="SER", res_id=k + 1,
                                        chain_id="A", is_ligand=False, bonds=[(0, 1), (0, 2)]))
    return Complex.concatenate([*parts, lig])


def _close_pairs(c: Complex, typing, cutoff: float = 4.6) -> np.ndarray:
    don = np.array(sorted(typing.donor), dtype=np.int64)
    acc = np.array(sorted(typing.acceptor), dtype=np.int64)
    hits = cKDTree(c.coord[acc]).query_ball_point(c.coord[don], cutoff)
    rows = [(d, acc[j]) for d, js in zip(don.tolist(), hits) for j in js if d != acc[j]]
    return np.array(rows, dtype=np.int64).reshape(-1, 2)


def _reference(ctx: Context, typing, d: int, a: int, ds: float, da: float) -> tuple:
    """(acceptor-side, donor-side) name of the first failing test, None for a pass."""
    hyds = ctx.hyd_positions(d)
    acc, don = typing.acceptor[a], typing.donor[d]
    a_why: list[str] = []
    d_why: list[str] = []
    a_ok = acceptor_ok(ctx, d, hyds, a, acc, relaxed(acc.limits, ds, da), why=a_why)
    d_ok = donor_ok(ctx, d, hyds, a, don, relaxed(don.limits, ds, da), generic_donor_limits(ds, da), why=d_why)
    return (None if a_ok else a_why[0]), (None if d_ok else d_why[0])


def _compare(c: Complex, pairs: np.ndarray | None = None, slops=SLOPS) -> Counter:
    """Assert vectorised == reference on every pair; returns the outcomes seen, by family."""
    typing = assign_hbond_types(c)
    pairs = _close_pairs(c, typing) if pairs is None else pairs
    seen: Counter = Counter()
    for ds, da in slops:
        ctx = Context(c, typing)
        got_a = acceptor_failures(ctx, pairs[:, 0], pairs[:, 1], ds, da)
        got_d = donor_failures(ctx, pairs[:, 0], pairs[:, 1], ds, da)
        ref_ctx = Context(c, typing)
        for k, (d, a) in enumerate(pairs.tolist()):
            want = _reference(ref_ctx, typing, d, a, ds, da)
            assert (FAILURES[got_a[k]], FAILURES[got_d[k]]) == want, (d, a, ds, typing.acceptor[a].name,
                                                                     typing.donor[d].name)
            seen[(type(typing.acceptor[a].limits).__name__, want[0])] += 1
            seen[(type(typing.donor[d].limits).__name__, want[1])] += 1
    return seen


def test_every_close_pair_of_the_fixtures_matches_the_reference(fixtures):
    seen: Counter = Counter()
    for c in fixtures.values():
        seen += _compare(c)
    # the fixtures reach every family and most outcomes, so the comparison is not vacuous
    families = {f for f, _ in seen}
    assert families == {"SynAnti", "PhiPsi", "ThetaTau", "GenericAcceptor", "UpsilonTauDonor", "ThetaTauDonor",
                        "GenericDonor"}
    outcomes = {o for _, o in seen}
    assert {None, "D..A distance", "H..A distance", "phi", "theta (D-H..A)", "upsilon", "tau",
            "upsilon, theta and tau (no direction passes all)", "bonded-A..D angle"} <= outcomes


@settings(max_examples=15, deadline=None)
@given(st.sampled_from(["1h1d", "2pyy", "2w9r", "3pvu", "4cjq", "2nnk-noH", "3pvu-noH"]),
       st.floats(-180, 180), st.floats(-180, 180), st.floats(-180, 180),
       st.lists(st.floats(-50, 50), min_size=3, max_size=3))
def test_rigidly_moved_fixtures_match_the_reference(fixtures, name, rx, ry, rz, shift):
    c = fixtures[name]
    motion = SE3.rotation("x", rx).then(SE3.rotation("y", ry)).then(SE3.rotation("z", rz)).then(
        SE3.translation(shift))
    moved = Complex(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "coord": motion.apply(c.coord)})
    _compare(moved, slops=[SLOPS[0]])


# --- hand-made scenes for the rare outcomes ---------------------------------------------------------
def _ketone(o_pos) -> Complex:
    o = np.asarray(o_pos, dtype=float)
    return Complex.from_atoms([o, o + [0.5, 0.8, 0.3], o + [1.0, 1.9, 0.3], o + [1.1, 0.2, 1.0]],
                              ["O", "C", "C", "C"], ["O1", "C1", "C2", "C3"], bonds=[(0, 1), (1, 2), (1, 3)],
                              bond_order=[2, 1, 1])


def test_a_water_oxygen_without_hydrogens_has_no_hydrogen_position():
    water = Complex.from_atoms([[0.0, 0.0, 0.0]], ["O"], ["O"], res_name="HOH", res_id=1, chain_id="A",
                               is_ligand=False)
    c = Complex.concatenate([water, _ketone([2.8, 0, 0])])
    typing = assign_hbond_types(c)
    assert typing.donor[0].name == "water"
    seen = _compare(c, np.array([[0, 1]]))
    assert seen[("ThetaTauDonor", "no hydrogen position")] == len(SLOPS)


def test_empty_rows_give_empty_codes():
    c = Complex.concatenate([_ketone([0, 0, 0])])
    ctx = Context(c, assign_hbond_types(c))
    none = np.zeros(0, dtype=np.int64)
    assert acceptor_failures(ctx, none, none, 0.4, 20.0).shape == (0,)
    assert donor_failures(ctx, none, none, 0.4, 20.0).dtype == np.int8
