"""The Complex model: one index slices everything, bonds stay valid, concatenation offsets bonds."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from misi_geom import Complex, heavy_mask, ligand_mask, pocket_mask, residue_mask, residue_starts
from misi_geom.samples import SAMPLE_IDS

PER_ATOM = ("coord", "element", "atom_name", "res_name", "res_id", "ins_code", "chain_id", "res_index",
            "is_ligand", "is_hydrogen", "formal_charge", "atom_type")


def _bond_set(c: Complex, atom_ids: np.ndarray) -> set[tuple[int, int, float]]:
    """Bonds as (original atom id, original atom id, order) so two slicings can be compared."""
    return {(*sorted((int(atom_ids[i]), int(atom_ids[j]))), float(o)) for (i, j), o in zip(c.bonds, c.bond_order)}


def _check_slice(c: Complex, index) -> None:
    ids = np.atleast_1d(np.arange(len(c))[index])
    sub = c[index]
    assert len(sub) == len(ids)
    for name in PER_ATOM:
        assert np.array_equal(getattr(sub, name), getattr(c, name)[ids]), name
    # bonds: valid, i < j, and exactly the original bonds whose two atoms survive
    assert sub.bonds.dtype == np.int32 and sub.bonds.shape == (len(sub.bond_order), 2)
    if len(sub.bonds):
        assert sub.bonds.min() >= 0 and sub.bonds.max() < len(sub)
        assert np.all(sub.bonds[:, 0] < sub.bonds[:, 1])
    kept = set(ids.tolist())
    expected = {(int(i), int(j), float(o)) for (i, j), o in zip(c.bonds, c.bond_order) if i in kept and j in kept}
    assert _bond_set(sub, ids) == expected
    assert sub.pdb_id == c.pdb_id


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
@given(data=st.data())
def test_random_mask_slicing_keeps_bonds_valid_and_res_index(samples, pdb_id, data):
    c = samples[pdb_id]
    seed = data.draw(st.integers(0, 2**32 - 1))
    keep_p = data.draw(st.floats(0.05, 1.0))
    mask = np.random.default_rng(seed).random(len(c)) < keep_p
    _check_slice(c, mask)


@pytest.mark.parametrize(
    "index",
    [slice(0, 50), slice(None, None, 3), slice(-40, None), np.array([5, 1, 3, 2, 4]), np.array([0]), 7],
    ids=["head", "step", "tail", "unsorted", "single", "int"],
)
def test_index_arrays_and_slices(samples, index):
    _check_slice(samples["1h1d"], index)


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_named_selections(samples, pdb_id):
    c = samples[pdb_id]
    assert np.array_equal(ligand_mask(c), c.is_ligand)
    assert np.array_equal(pocket_mask(c), ~c.is_ligand)
    assert np.array_equal(heavy_mask(c), ~c.is_hydrogen)
    assert len(c.ligand) + len(c.pocket) == len(c)
    assert not c.heavy.is_hydrogen.any() and len(c.heavy) == int((~c.is_hydrogen).sum())
    # ligand and pocket are separate: no bond between them
    lig = c.is_ligand
    assert not np.any(lig[c.bonds[:, 0]] != lig[c.bonds[:, 1]])
    # residue table over start indices
    starts = residue_starts(c)
    assert np.array_equal(starts, [r.start for r in c.residues()])
    for r in c.residues():
        m = residue_mask(c, r.res_index)
        assert np.array_equal(np.flatnonzero(m), np.arange(r.start, r.stop))


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_concatenate_round_trips_pocket_and_ligand(samples, pdb_id):
    c = samples[pdb_id]
    joined = Complex.concatenate([c.pocket, c.ligand])
    for name in PER_ATOM:
        assert np.array_equal(getattr(joined, name), getattr(c, name)), name
    assert np.array_equal(joined.bonds, c.bonds) and np.array_equal(joined.bond_order, c.bond_order)
    assert joined.pdb_id == pdb_id


def test_concatenate_offsets_bonds_and_takes_the_first_id():
    a = Complex.from_atoms([[0, 0, 0], [1.5, 0, 0]], ["C", "O"], bonds=[(0, 1)], bond_order=[2], pdb_id="aaaa")
    b = Complex.from_atoms([[0, 0, 0], [1, 0, 0], [2, 0, 0]], ["N", "C", "H"], bonds=[(1, 0), (1, 2)],
                           pdb_id="bbbb")
    j = Complex.concatenate([a, b, a])
    assert len(j) == 7
    assert j.bonds.tolist() == [[0, 1], [2, 3], [3, 4], [5, 6]]
    assert j.bond_order.tolist() == [2, 1, 1, 2]
    assert j.element.tolist() == ["C", "O", "N", "C", "H", "C", "O"]
    assert j.pdb_id == "aaaa" and Complex.concatenate([a, b], pdb_id="x").pdb_id == "x"
    with pytest.raises(ValueError):
        Complex.concatenate([])


def test_inconsistent_fields_are_rejected():
    c = Complex.from_atoms([[0, 0, 0], [1.5, 0, 0]], ["C", "O"])
    with pytest.raises(ValueError, match="rows"):
        Complex.from_atoms([[0, 0, 0], [1.5, 0, 0]], ["C"])
    with pytest.raises(ValueError, match="bond"):
        Complex.from_atoms([[0, 0, 0], [1.5, 0, 0]], ["C", "O"], bonds=[(0, 2)])
    with pytest.raises(ValueError, match="shape"):
        c.with_coord(np.zeros((3, 3)))


def test_with_coord_and_copy_do_not_touch_the_original(samples):
    c = samples["2pyy"]
    before = c.coord.copy()
    moved = c.with_coord(c.coord + 1.0)
    moved.coord[0] = 99.0
    cp = c.copy()
    cp.coord[1] = 99.0
    assert np.array_equal(c.coord, before)
