"""Hand-built geometries that must, or must not, form H-bonds (limits from Mills & Dean 1996 as
used by ChimeraX ``hbonds``; relaxed = +0.4 Å / -20°).

Every scene is a tiny pocket residue + ligand built from explicit coordinates, so each test pins
one criterion: a heavy-atom distance limit, an H..A distance limit, the D-H..A angle, donor/acceptor
typing (thioether sulfur does not accept) and inferred hydrogens (a hydroxyl without explicit H).
The distance-limit, bad-angle, salt-bridge and metal scenes were checked against the real ChimeraX
(``data/oracle_scenes.py``): same answers, relaxed and precise.
"""

from __future__ import annotations

import numpy as np
import pytest

from misi_geom import Complex, assign_hbond_types, find_hbonds
from ..hbond_text import format_t4, format_t9


def _polar(r: float, deg: float) -> np.ndarray:
    a = np.radians(deg)
    return np.array([r * np.cos(a), r * np.sin(a), 0.0])


def _ketone_ligand(o_pos, axis_deg: float) -> Complex:
    """Acetone whose C=O points from C towards ``o_pos`` along direction ``axis_deg`` (xy-plane)."""
    o = np.asarray(o_pos, float)
    c = o - _polar(1.23, axis_deg)
    m1 = c + _polar(1.51, axis_deg + 180 - 120)
    m2 = c + _polar(1.51, axis_deg + 180 + 120)
    coord = [o, c, m1, m2]
    names = ["O1", "C1", "C2", "C3"]
    bonds = [(0, 1), (1, 2), (1, 3)]
    orders = [2, 1, 1]
    for k, m in enumerate((m1, m2)):  # methyl hydrogens
        for j, off in enumerate(([0.6, 0.6, 0.6], [-0.6, 0.6, -0.6], [0.6, -0.6, -0.6])):
            coord.append(m + np.array(off))
            names.append(f"H{k}{j}")
            bonds.append((2 + k, len(coord) - 1))
            orders.append(1)
    el = ["O", "C", "C", "C"] + ["H"] * 6
    return Complex.from_atoms(np.array(coord), el, names, bonds=bonds, bond_order=orders, res_name="LIG")


def _serine_donor(d: float, h_towards: bool = True) -> Complex:
    """Ser OG at (d, 0, 0) with HG pointing at the origin (or away), CB at 109.5 deg."""
    og = np.array([d, 0.0, 0.0])
    hg = og + (np.array([-0.96, 0, 0]) if h_towards else np.array([0.96, 0, 0]))
    cb = og + _polar(1.43, 180 - 109.5)
    return Complex.from_atoms(np.array([cb, og, hg]), ["C", "O", "H"], ["CB", "OG", "HG"], res_name="SER",
                              res_id=70, chain_id="A", is_ligand=False, bonds=[(0, 1), (1, 2)])


def _scene(pocket: Complex, ligand: Complex) -> Complex:
    return Complex.concatenate([pocket, ligand])


# Hydroxyl donor -> ketone O: the hydroxyl's limit against a planar O is 3.17 Å (the ketone's own
# limit, 3.30 Å, is looser), relaxed 3.57 Å.
@pytest.mark.parametrize(
    "d, relax, bonded",
    [(3.15, False, True), (3.20, False, False), (3.55, True, True), (3.60, True, False), (2.70, False, True)],
)
def test_hydroxyl_to_ketone_distance_limit(d, relax, bonded):
    c = _scene(_serine_donor(d), _ketone_ligand([0, 0, 0], 0.0))
    got = format_t9(find_hbonds(c, relax=relax), c)
    assert got == ("SER 70 OG A, O1" if bonded else "")


def test_bad_angle_breaks_the_bond():
    good = _scene(_serine_donor(2.8, h_towards=True), _ketone_ligand([0, 0, 0], 0.0))
    bad = _scene(_serine_donor(2.8, h_towards=False), _ketone_ligand([0, 0, 0], 0.0))
    assert format_t9(find_hbonds(good), good) == "SER 70 OG A, O1"
    assert find_hbonds(bad) == []


def _backbone_nh(h_a: float) -> tuple[Complex, float]:
    """Gly 1 C=O / Ala 2 N-H with H pointing +y; returns the pocket and the N..O distance."""
    n = np.zeros(3)
    h = np.array([0.0, 1.01, 0.0])
    c = n + _polar(1.33, 210)
    o = c + _polar(1.23, 270)
    ca1 = c + _polar(1.52, 150)
    ca2 = n + _polar(1.46, 330)
    pocket = Complex.from_atoms(
        np.array([ca1, c, o, n, h, ca2]), ["C", "C", "O", "N", "H", "C"], ["CA", "C", "O", "N", "H", "CA"],
        res_name=["GLY", "GLY", "GLY", "ALA", "ALA", "ALA"], res_id=[1, 1, 1, 2, 2, 2],
        res_index=[0, 0, 0, 1, 1, 1], chain_id="", is_ligand=False,
        bonds=[(0, 1), (1, 2), (1, 3), (3, 4), (3, 5)],
    )
    return pocket, h_a + 1.01


# Amide N-H donor: H..A limit 2.23 Å against a planar O (relaxed 2.63 Å); ketone D..A 3.30/3.70 Å.
@pytest.mark.parametrize("h_a, relax, bonded", [(2.21, False, True), (2.25, False, False),
                                                 (2.61, True, True), (2.65, True, False)])
def test_backbone_nh_to_carbonyl(h_a, relax, bonded):
    pocket, d = _backbone_nh(h_a)
    c = _scene(pocket, _ketone_ligand([0, d, 0], 270.0))
    bonds = find_hbonds(c, relax=relax)
    assert format_t9(bonds, c) == ("ALA 2 N ?, O1" if bonded else "")
    if bonded:
        (b,) = bonds
        assert c.atom_name[b.hydrogen] == "H" and b.ha_distance == pytest.approx(h_a, abs=1e-6)
        assert format_t4(bonds, c) == "ALA N, O1"


def _arginine_acetate() -> Complex:
    cz = np.zeros(3)
    nh1, nh2, ne = _polar(1.33, 30), _polar(1.33, 150), _polar(1.33, 270)
    atoms = {
        "CZ": cz, "NH1": nh1, "NH2": nh2, "NE": ne,
        "HH11": nh1 + _polar(1.01, -30), "HH12": nh1 + _polar(1.01, 90),
        "HH21": nh2 + _polar(1.01, 210), "HH22": nh2 + _polar(1.01, 90),
        "CD": ne + _polar(1.46, 210), "HE": ne + _polar(1.01, 330),
    }
    names = list(atoms)
    idx = {n: k for k, n in enumerate(names)}
    pb = [("CZ", "NH1"), ("CZ", "NH2"), ("CZ", "NE"), ("NH1", "HH11"), ("NH1", "HH12"), ("NH2", "HH21"),
          ("NH2", "HH22"), ("NE", "CD"), ("NE", "HE")]
    pocket = Complex.from_atoms(np.array(list(atoms.values())), [n[0] for n in names], names, res_name="ARG",
                                res_id=75, chain_id="B", is_ligand=False,
                                bonds=[(idx[a], idx[b]) for a, b in pb])
    o1, o2 = nh1 + np.array([0, 2.9, 0]), nh2 + np.array([0, 2.9, 0])
    cac = np.array([0.0, o1[1] + np.sqrt(1.25**2 - o1[0] ** 2), 0.0])
    cm = cac + np.array([0, 1.51, 0])
    hs = [cm + np.array(v) for v in ([0.9, 0.4, 0.3], [-0.9, 0.4, 0.3], [0.0, 0.4, -0.95])]
    lig = Complex.from_atoms(np.array([o1, o2, cac, cm, *hs]), ["O", "O", "C", "C", "H", "H", "H"],
                             ["O1", "O2", "C1", "C2", "H1", "H2", "H3"],
                             bonds=[(0, 2), (1, 2), (2, 3), (3, 4), (3, 5), (3, 6)],
                             bond_order=[1.5, 1.5, 1, 1, 1, 1], formal_charge=[-1, 0, 0, 0, 0, 0, 0])
    return _scene(pocket, lig)


@pytest.mark.parametrize("relax", [True, False])
def test_arginine_carboxylate_salt_bridge(relax):
    c = _arginine_acetate()
    t = assign_hbond_types(c)
    assert [str(t.idatm[i]) for i in range(4)] == ["C2", "Ng+", "Ng+", "Ng+"]
    lig_o = [i for i in range(len(c)) if c.is_ligand[i] and c.element[i] == "O"]
    assert {t.acceptor[i].name for i in lig_o} == {"carboxylate"}
    assert format_t9(find_hbonds(c, relax=relax), c) == "ARG 75 NH1 B, O1; ARG 75 NH2 B, O2"


def test_hydroxyl_without_explicit_hydrogen_donates():
    """Ligand C-O (no H on O): the O3 donor has no fixed H position, so only distance and upsilon
    are tested, and it donates to a backbone carbonyl along the C=O axis."""
    pocket, _ = _backbone_nh(2.0)
    c_pos, o_pos = pocket.coord[1], pocket.coord[2]
    axis = (o_pos - c_pos) / np.linalg.norm(o_pos - c_pos)
    o1 = o_pos + 2.8 * axis
    back = -axis
    perp = np.array([1.0, 0.0, 0.0]) - (np.array([1.0, 0.0, 0.0]) @ back) * back
    perp /= np.linalg.norm(perp)
    c1 = o1 + 1.43 * (np.cos(np.radians(109.5)) * back + np.sin(np.radians(109.5)) * perp)
    hs = [c1 + np.array(v) for v in ([0.0, 0.0, 1.0], [0.0, 0.95, -0.3], [0.5, -0.5, -0.7])]
    lig = Complex.from_atoms(np.array([o1, c1, *hs]), ["O", "C", "H", "H", "H"], ["O1", "C1", "H1", "H2", "H3"],
                             bonds=[(0, 1), (1, 2), (1, 3), (1, 4)])
    c = _scene(pocket, lig)
    bonds = find_hbonds(c)
    assert format_t9(bonds, c) == "GLY 1 O ?, O1"
    assert bonds[0].donor_is_ligand and bonds[0].hydrogen is None


def test_thioether_does_not_accept():
    sd = np.zeros(3)
    cg, ce = _polar(1.81, 130), _polar(1.81, 230)
    pocket = Complex.from_atoms(np.array([cg, sd, ce]), ["C", "S", "C"], ["CG", "SD", "CE"], res_name="MET",
                                res_id=40, is_ligand=False, bonds=[(0, 1), (1, 2)])
    o = np.array([3.2, 0.0, 0.0])
    h = o - np.array([0.96, 0, 0])
    c1 = o + _polar(1.43, 70)
    lig = Complex.from_atoms(np.array([o, h, c1]), ["O", "H", "C"], ["O1", "H1", "C1"], bonds=[(0, 1), (0, 2)])
    c = _scene(pocket, lig)
    t = assign_hbond_types(c)
    assert str(t.idatm[1]) == "S3" and 1 not in t.acceptor
    assert find_hbonds(c) == []


def test_no_hydrogens_warns():
    c = _scene(_serine_donor(2.8), _ketone_ligand([0, 0, 0], 0.0))
    with pytest.warns(UserWarning, match="no hydrogens"):
        find_hbonds(c[~c.is_hydrogen])


def test_rejects_non_complex():
    with pytest.raises(TypeError):
        find_hbonds(np.zeros((3, 3)))


def test_truncated_side_chain_atom_is_skipped():
    """Arg NE without CZ (side chain truncated in the crystal structure) neither donates nor accepts."""
    c = _arginine_acetate()
    keep = ~np.isin(c.atom_name, ["CZ", "NH1", "NH2", "HH11", "HH12", "HH21", "HH22"]) | c.is_ligand
    t = assign_hbond_types(c[keep])
    ne = int(np.flatnonzero(c[keep].atom_name == "NE")[0])
    assert ne not in t.donor and ne not in t.acceptor


def test_ligand_named_like_an_amino_acid_uses_its_template():
    """ChimeraX types a ligand residue called e.g. LEU by the LEU template: an atom named CG is C3
    whatever its chemistry, so the acetate's oxygens on it are plain O2, not carboxylate O2-."""
    c = _arginine_acetate()
    lig = c.is_ligand
    plain = assign_hbond_types(c)
    names = c.atom_name.copy()
    names[np.flatnonzero(lig & (c.atom_name == "C1"))] = "CG"
    renamed = Complex(**{**{f: getattr(c, f) for f in c.__dataclass_fields__}, "atom_name": names,
                         "res_name": np.where(lig, "LEU", c.res_name)})
    t = assign_hbond_types(renamed)
    cg = int(np.flatnonzero(lig & (names == "CG"))[0])
    assert str(plain.idatm[cg]) == "Cac" and str(t.idatm[cg]) == "C3"
    o = np.flatnonzero(lig & (c.element == "O"))
    assert {str(t.idatm[i]) for i in o} == {"O2"}


def _serine_zinc_scene(zn_deg: float) -> Complex:
    """Ser OG accepting from a ligand O-H at 70 deg; a Zn ion 2.0 Å from OG at ``zn_deg``."""
    og, cb, hg = np.zeros(3), _polar(1.43, 180), _polar(0.96, -70)
    zn = _polar(2.0, zn_deg)
    pocket = Complex.from_atoms(np.array([cb, og, hg, zn]), ["C", "O", "H", "Zn"], ["CB", "OG", "HG", "ZN"],
                                res_name=["SER", "SER", "SER", "ZN"], res_id=[70, 70, 70, 301],
                                res_index=[0, 0, 0, 1], chain_id="A", is_ligand=False, bonds=[(0, 1), (1, 2)])
    o1 = _polar(2.8, 70)
    h1 = o1 - _polar(0.96, 70)
    c1 = o1 + _polar(1.43, 70 - 180 + 109.5)
    lig = Complex.from_atoms(np.array([o1, h1, c1]), ["O", "H", "C"], ["O1", "H1", "C1"], bonds=[(0, 1), (0, 2)])
    return _scene(pocket, lig)


@pytest.mark.parametrize("zn_deg, bonded", [(60.0, False), (-60.0, True)])
def test_metal_coordination_blocks_acceptor_on_the_metal_side(zn_deg, bonded):
    """An acceptor within 4 Å of a metal cannot accept from a donor within 45 deg of the metal."""
    c = _serine_zinc_scene(zn_deg)
    assert format_t9(find_hbonds(c), c) == ("SER 70 OG A, O1" if bonded else "")
    assert format_t9(find_hbonds(c, metal_rule=False), c) == "SER 70 OG A, O1"
