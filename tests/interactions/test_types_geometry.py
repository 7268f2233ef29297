"""Each type's criteria on hand-made scenes whose geometry is known exactly."""

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from misi_geom.interactions import HalogenBond, MetalCoordination, PLIP_TARGETS, find_interactions

from interaction_scenes import benzene_ligand, join, ligand, phe, pocket_residue, ring_coords


def _rot_x(deg: float) -> np.ndarray:
    t = np.radians(deg)
    return np.array([0.0, -np.sin(t), np.cos(t)])  # z rotated about x by deg


@given(st.floats(0.0, 90.0), st.floats(3.0, 6.5), st.floats(0.0, 3.0))
def test_pi_stacking_angle_distance_and_offset(angle, height, shift):
    """PHE ring in the xy plane at the origin; a benzene tilted by ``angle`` about x, its centre at
    (shift, 0, height): offset = min of the two projections, known in closed form."""
    assume(min(abs(angle - a) for a in (30.0, 60.0)) > 0.05)
    centre = np.array([shift, 0.0, height])
    n2 = _rot_x(angle)
    c = join(phe((0, 0, 0), (0, 0, 1)), benzene_ligand(centre, n2))
    found = find_interactions(c, ["pi_stacking"])["pi_stacking"]
    d = float(np.linalg.norm(centre))
    off1 = shift  # ligand centre projected onto the PHE plane
    w = -centre  # PHE centre seen from the ligand ring
    off2 = float(np.linalg.norm(w - np.dot(w, n2) * n2))
    offset = min(off1, off2)
    assume(abs(d - 5.5) > 1e-3 and abs(offset - 2.0) > 1e-3)
    kind = "P" if angle < 30 else "T" if 60 < angle < 120 else None
    expect = d < 5.5 and offset < 2.0 and kind is not None
    assert bool(found) == expect
    if found:
        (x,) = found
        assert x.geometry["stack_type"] == kind
        assert x.geometry["angle"] == pytest.approx(angle, abs=1e-3)
        assert x.geometry["offset"] == pytest.approx(offset, abs=1e-3)
        assert len(x.pocket_atoms) == 6 and len(x.ligand_atoms) == 6


@given(st.floats(2.0, 7.0), st.floats(0.0, 3.0))
def test_cation_pi_with_the_cation_on_the_pocket_side(height, shift):
    lys = pocket_residue("LYS", {"CE": (shift - 1.5, 0, height), "NZ": (shift, 0, height)})
    c = join(lys, benzene_ligand((0, 0, 0), (0, 0, 1)))
    found = find_interactions(c, ["cation_pi"])["cation_pi"]
    d = float(np.hypot(height, shift))
    assume(abs(d - 6.0) > 1e-3 and abs(shift - 2.0) > 1e-3)
    assert bool(found) == (d < 6.0 and shift < 2.0)
    if found:
        assert found[0].geometry["pocket_role"] == "cation"


def _amine_over_phe(tilt: float) -> object:
    """Trimethylamine-like tertiary N 4 Å over a PHE ring, its three C neighbours' plane tilted."""
    n = np.array([0, 0, 4.0])
    normal = _rot_x(tilt)
    subs = ring_coords(n + 0.5 * normal, normal, radius=1.4, n=3)
    lig = ligand([("N", tuple(n))] + [("C", tuple(p)) for p in subs], [(0, 1, 1.0), (0, 2, 1.0), (0, 3, 1.0)])
    return join(phe((0, 0, 0), (0, 0, 1)), lig)


@given(st.floats(0.0, 90.0))
def test_cation_pi_ligand_tertiary_amine_needs_its_plane_facing_the_ring(tilt):
    assume(abs(tilt - 30.0) > 0.05)
    found = find_interactions(_amine_over_phe(tilt), ["cation_pi"])["cation_pi"]
    assert bool(found) == (tilt <= 30.0)


def _halogen_scene(don_angle: float, acc_angle: float, dist: float = 3.2):
    """Pocket SER OG (acceptor) at the origin with CB along -x; a ligand C-Cl with Cl at ``dist`` from
    OG making the two angles (C-Cl..O at Cl, CB-O..Cl at O) in the xy plane."""
    a = np.radians(acc_angle)
    cl = dist * np.array([np.cos(np.pi - a), np.sin(np.pi - a), 0.0])
    to_o = -cl / np.linalg.norm(cl)
    b = np.radians(180.0 - don_angle)
    perp = np.array([-to_o[1], to_o[0], 0.0])
    c_dir = -(np.cos(b) * to_o + np.sin(b) * perp)
    ccl = cl + 1.75 * c_dir
    ser = pocket_residue("SER", {"CB": (-1.43, 0, 0), "OG": (0, 0, 0)})
    lig = ligand([("Cl", tuple(cl)), ("C", tuple(ccl))], [(0, 1, 1.0)])
    return join(ser, lig)


@given(st.floats(100.0, 180.0), st.floats(60.0, 180.0))
def test_halogen_bond_angles(don, acc):
    assume(abs(don - 135.0) > 0.05 and abs(acc - 90.0) > 0.05 and abs(acc - 150.0) > 0.05)
    c = _halogen_scene(don, acc)
    found = find_interactions(c, ["halogen_bond"])["halogen_bond"]
    assert bool(found) == (don > 135.0 and 90.0 < acc < 150.0)
    v = HalogenBond().explain(c, [1], [len(c) - 2])
    assert v.criteria[1].value == pytest.approx(don, abs=1e-3)
    assert v.criteria[2].value == pytest.approx(acc, abs=1e-3)


def _zinc_and(group: str, dist: float):
    zn = pocket_residue("ZN", {"ZN": (0, 0, 0)}, res_id=300, element="Zn")
    if group == "carboxylate":
        lig = ligand([("O", (dist, 0, 0)), ("C", (dist + 1.25, 0, 0)), ("O", (dist + 1.9, 1.1, 0)),
                      ("C", (dist + 2.0, -1.3, 0))], [(0, 1, 1.5), (1, 2, 1.5), (1, 3, 1.0)])
    elif group == "alcohol":
        lig = ligand([("O", (dist, 0, 0)), ("C", (dist + 1.43, 0, 0))], [(0, 1, 1.0)])
    else:  # sulfonamide N: S(=O)(=O)N, not a PLIP target group
        lig = ligand([("N", (dist, 0, 0)), ("S", (dist + 1.6, 0, 0)), ("O", (dist + 2.1, 1.4, 0)),
                      ("O", (dist + 2.1, -1.4, 0)), ("C", (dist + 3.4, 0, 0))],
                     [(0, 1, 1.0), (1, 2, 2.0), (1, 3, 2.0), (1, 4, 1.0)])
    return join(zn, lig)


@pytest.mark.parametrize("group", ["carboxylate", "alcohol", "sulfonamide"])
@pytest.mark.parametrize("dist", [2.0, 2.9, 3.1])
def test_metal_targets_and_distance(group, dist):
    c = _zinc_and(group, dist)
    found = find_interactions(c, ["metal"])["metal"]
    assert bool(found) == (group != "sulfonamide" and dist < 3.0)
    plip = MetalCoordination(targets=PLIP_TARGETS).find(c)
    assert bool(plip) == (group == "carboxylate" and dist < 3.0)  # PLIP's alcohol test never matches
    if found:
        assert found[0].geometry["target_group"] == group and found[0].geometry["metal"] == "Zn"


def test_hydrophobic_thinning_keeps_the_closest_of_a_bonded_patch():
    """A LEU CD1 3.5 Å from an ethyl's two carbons (bonded: one patch) and a third, unbonded methyl
    carbon: one contact per patch, the closest; a lone ligand atom of a multi-contact pocket atom
    is dropped, as PLIP does."""
    leu = pocket_residue("LEU", {"CG": (-1.5, 0, 0), "CD1": (0, 0, 0)})
    lig = ligand([("C", (3.4, 0.6, 0)), ("C", (3.5, -0.9, 0)), ("C", (0, 3.6, 0)), ("O", (0, 5.0, 0))],
                 [(0, 1, 1.0), (2, 3, 1.0)])
    c = join(leu, lig)
    found = find_interactions(c, ["pi_stacking", "hydrophobic"])["hydrophobic"]
    assert [(str(c.atom_name[x.pocket_atoms[0]]), str(c.atom_name[x.ligand_atoms[0]])) for x in found] == \
        [("CD1", "C1")]
