"""X2 ``No`` items and X3 decoys keep the spec's fairness margins: read off generated rows and checked
with geometry written here (plain numpy on the complex) or with the detector's own declarations at
the widened limits, never with the generator's helpers."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from misi_geom import load_complex
from misi_geom.complex import Complex
from misi_geom.interactions import CationPi, HalogenBond, PiStacking, SaltBridge, find_interactions
from misi_geom.samples import sample_dirs
from misi_render import RenderOptions
from misi_tasks.definitions.registry import task_spec
from misi_tasks.engine.generate import generate_items
from misi_tasks.tasks.scene import Scene

from interaction_scenes import join, phe, pocket_residue, ring_coords

REAL = Path(__file__).with_name("data") / "4hlc"


def _meta(item) -> dict:
    """An item's metadata as its dataset row writes it."""
    return json.loads(json.dumps(item.metadata))


def _ring_geometry(c: Complex, rows) -> tuple[np.ndarray, np.ndarray]:
    """Centroid and unit normal of a ring (least-squares plane)."""
    xyz = c.coord[list(rows)]
    centre = xyz.mean(axis=0)
    return centre, np.linalg.svd(xyz - centre)[2][-1]


def _stack_measures(c: Complex, p, l) -> tuple[float, float, float]:
    """(centroid distance, angle between the ring planes 0-90°, smaller offset) of two rings."""
    (c1, n1), (c2, n2) = _ring_geometry(c, p), _ring_geometry(c, l)
    ang = float(np.degrees(np.arccos(min(1.0, abs(float(n1 @ n2))))))
    def off(c_a, n_a, q):
        v = q - c_a
        return float(np.linalg.norm(v - (v @ n_a) * n_a))
    return float(np.linalg.norm(c1 - c2)), ang, min(off(c1, n1, c2), off(c2, n2, c1))


def _near_miss(c: Complex, kind: str, margin_A: float, margin_deg: float) -> list:
    """Near misses of ``kind``: the detector's declarations at limits widened by the margins; metals:
    any ligand N, O or S within 3.0 Å + margin of an ion (plain numpy)."""
    if kind == "metal":
        ions = np.flatnonzero(~c.is_ligand & np.isin(c.element, ["Zn", "Mg", "Ca", "Mn", "Fe", "Co", "Ni", "Cu", "Na", "K"]))
        lig = np.flatnonzero(c.is_ligand & np.isin(c.element, ["N", "O", "S"]))
        d = np.linalg.norm(c.coord[ions][:, None] - c.coord[lig][None], axis=2)
        return [(int(ions[i]), int(lig[j])) for i, j in zip(*np.nonzero(d < 3.0 + margin_A))]
    decl = {"salt_bridge": SaltBridge(distance=5.5 + margin_A),
            "pi_stacking": PiStacking(distance=5.5 + margin_A, offset=2.0 + margin_A, angle_dev=30 + margin_deg),
            "cation_pi": CationPi(distance=6.0 + margin_A, offset=2.0 + margin_A, amine_angle=30 + margin_deg),
            "halogen_bond": HalogenBond(distance=4.0 + margin_A, angle_dev=30 + margin_deg)}[kind]
    return find_interactions(c, [decl])[kind]


# --- X2: a No item has no near miss ------------------------------------------------------------

def _hydroxamate_scene() -> Scene:
    """PHE 10 stacked 3.6 Å over a benzene ligand whose hydroxamate C(=O)N-OH has its OH 2.1 Å from
    ZN 300: PLIP's metal targets leave hydroxamate O out, so misi finds no metal contact, but the
    chelation is plain in the images."""
    ring = ring_coords((0, 0, 0), (0, 0, 1))
    x = ring[0] / np.linalg.norm(ring[0])
    c7 = ring[0] + 1.5 * x
    o8 = c7 + 1.23 * np.array([0, 0, -1.0])
    n9 = c7 + 1.33 * x
    o10 = n9 + 1.40 * x
    atoms = [("C", tuple(p)) for p in ring] + [("C", tuple(c7)), ("O", tuple(o8)), ("N", tuple(n9)), ("O", tuple(o10))]
    bonds = [(k, (k + 1) % 6, 1.5) for k in range(6)] + [(0, 6, 1.0), (6, 7, 2.0), (6, 8, 1.0), (8, 9, 1.0)]
    el = [a[0] for a in atoms]
    lig = Complex.from_atoms(np.array([a[1] for a in atoms]), el, [f"{e}{k + 1}" for k, e in enumerate(el)],
                             bonds=[b[:2] for b in bonds], bond_order=[b[2] for b in bonds], res_name="LIG", res_id=900)
    zn = pocket_residue("ZN", {"ZN": tuple(o10 + 2.1 * x)}, res_id=300, element="Zn")
    return Scene(join(phe((0, 0, 3.6), (0, 0, 1)), zn, lig), RenderOptions(size=256))


def test_no_metal_item_beside_a_hydroxamate_zinc():
    scene = _hydroxamate_scene()
    c = scene.complex
    assert not find_interactions(c, ["metal"])["metal"]  # not PLIP's target: no contact recorded
    assert _near_miss(c, "metal", 0.0, 0.0)              # ... but an O within 3.0 Å of the ion
    none_types = set()
    for seed in range(12):
        for item in generate_items(scene, ["interaction-list"], seed=seed, split="train")["interaction-list"]:
            m = _meta(item)
            assert m["none_margin_A"] == 0.5 and m["none_margin_deg"] == 10.0
            if item.answer == "No":
                none_types.add(m["interaction_type"])
    assert none_types and "metal" not in none_types  # No items are asked, never the unfair metal one


@pytest.fixture(scope="module")
def x2_rows() -> list[tuple[Complex, object]]:
    """X2 items of every bundled sample and of 4hlc, several seeds, with their complexes."""
    out = []
    for d in [*sample_dirs(), REAL]:
        scene = Scene(load_complex(d), RenderOptions(size=256))
        for seed in (1, 2):
            for item in generate_items(scene, ["interaction-list"], seed=seed, split="train",
                                       skipped_empty=True)["interaction-list"]:
                out.append((scene.complex, item))
    return out


def test_every_no_item_keeps_its_recorded_margin(x2_rows):
    nones = [(c, item) for c, item in x2_rows if item.answer == "No"]
    assert len(nones) >= 3
    for c, item in nones:
        m = _meta(item)
        assert not _near_miss(c, m["interaction_type"], m["none_margin_A"], m["none_margin_deg"]), item.id


def test_a_wider_none_margin_reaches_the_rows(x2_wide):
    """none_margin_A 2.0 (task parameter): recorded, and the No items keep it."""
    c, items = x2_wide
    assert items and all(_meta(i)["none_margin_A"] == 2.0 and _meta(i)["task_params"] == {"none_margin_A": 2.0}
                         for i in items)
    for item in items:
        if item.answer == "No":
            assert not _near_miss(c, _meta(item)["interaction_type"], 2.0, 10.0)


@pytest.fixture(scope="module")
def x2_wide():
    from misi_tasks.tasks.base import GenContext, get_task

    scene = Scene(load_complex(REAL), RenderOptions(size=256))
    gen = get_task("interaction-list")(none_margin_A=2.0)
    items = []
    for seed in range(4):
        ctx = GenContext(seed=seed, split="train", options=scene.run_options)
        items += gen.generate(scene, ctx)
    return scene.complex, items


# --- X3: no decoy nearly stacks ----------------------------------------------------------------

def _aromatic(name: str, centre, res_id: int, normal=(0, 0, 1)) -> Complex:
    ring = ring_coords(centre, normal)
    names = ["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]
    atoms = {"CB": tuple(ring[0] + (ring[0] - np.asarray(centre)) / 1.39 * 1.5)}
    atoms.update({n: tuple(p) for n, p in zip(names, ring)})
    return pocket_residue(name, atoms, res_id)


def _near_stack_scene() -> Scene:
    """Biphenyl-like ligand (ring A at the origin, ring B 4.3 Å along x); PHE 10 stacks 3.6 Å over A;
    TYR 30 lies 5.8 Å under A, parallel (0.3 Å beyond the 5.5 Å limit: a near stack); PHE 40 6.6 Å
    from A along y (clear)."""
    a, b = ring_coords((0, 0, 0), (0, 0, 1)), ring_coords((4.3, 0, 0), (0, 0, 1))
    bonds = [(k, (k + 1) % 6) for k in range(6)] + [(6 + k, 6 + (k + 1) % 6) for k in range(6)]
    bonds.append((int(np.argmax(a[:, 0])), 6 + int(np.argmin(b[:, 0]))))
    lig = Complex.from_atoms(np.vstack([a, b]), ["C"] * 12, [f"C{k + 1}" for k in range(12)], bonds=bonds,
                             bond_order=[1.5] * 12 + [1.0], res_name="LIG", res_id=900)
    c = join(phe((0, 0, 3.6), (0, 0, 1)), _aromatic("TYR", (0, 0, -5.8), 30), _aromatic("PHE", (0, 6.6, 0), 40), lig)
    return Scene(c, RenderOptions(size=128))


def _options(items) -> list[str]:
    return [o for it in items for k, o in enumerate(it.options) if k != "ABCD".index(it.answer)]


def test_x3_never_offers_a_near_stack_as_decoy():
    from misi_tasks.tasks.base import GenContext, get_task

    scene = _near_stack_scene()
    near = "TYR 30 ring, ligand ring C1 C2 C3 C4 C5 C6"
    default, no_margin = [], []
    for seed in range(10):
        ctx = GenContext(seed=seed, split="train", options=scene.run_options)
        default += get_task("ring-stacking")().generate(scene, ctx)
        no_margin += get_task("ring-stacking")(decoy_margin_A=0.0, decoy_margin_deg=0.0).generate(scene, ctx)
    assert default and all(_meta(i)["decoy_margin_A"] == 0.5 and _meta(i)["decoy_margin_deg"] == 10.0 for i in default)
    assert near not in _options(default)
    assert near in _options(no_margin)  # without the margin the near stack is a decoy (the rule matters)


def test_x3_decoys_of_a_real_complex_keep_the_margin():
    """4hlc: every decoy ring pair fails the stacking test widened by the recorded margins."""
    scene = Scene(load_complex(REAL), RenderOptions(size=128))
    c = scene.complex
    items = [i for s in range(4) for i in generate_items(scene, ["ring-stacking"], seed=s, split="train")["ring-stacking"]]
    assert items
    spec = task_spec("ring-stacking")
    for item in items:
        m = _meta(item)
        assert (m["decoy_margin_A"], m["decoy_margin_deg"]) == (spec.decoy_margin_A, spec.decoy_margin_deg)
        for k, option in enumerate(item.options):
            if k == "ABCD".index(item.answer):
                continue
            residue, _, lig = option.partition(" ring, ligand ring ")
            name, num = residue.split()[:2]
            rows = np.flatnonzero((c.res_name == name) & (c.atom_name != "CB") & ~c.is_ligand
                                  & np.isin(c.atom_name, ["CG", "CD1", "CD2", "CE1", "CE2", "CZ", "ND1", "NE2",
                                                          "NE1", "CE3", "CZ2", "CZ3", "CH2"]))
            rows = [i for i in rows if str(c.res_id[i]) == num]
            if name == "TRP":  # the option names the ring by size
                six = "six-membered" in residue
                keep = {"CD2", "CE2", "CE3", "CZ2", "CZ3", "CH2"} if six else {"CG", "CD1", "NE1", "CE2", "CD2"}
                rows = [i for i in rows if c.atom_name[i] in keep]
            lrows = [int(np.flatnonzero(c.is_ligand & (c.atom_name == a))[0]) for a in lig.split()]
            d, ang, off = _stack_measures(c, rows, lrows)
            mA, mdeg = m["decoy_margin_A"], m["decoy_margin_deg"]
            # the detector's planes come from three ring atoms, these from a fit: a hair of slack
            near = d < 5.5 + mA - 0.02 and off < 2.0 + mA - 0.1 and (ang < 30 + mdeg - 2 or ang > 60 - mdeg + 2)
            assert not near, (item.id, option, d, ang, off)
