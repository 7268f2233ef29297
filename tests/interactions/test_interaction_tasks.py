"""X1 interaction type and X3 ring stacking: answers equal the interaction layer's contacts, decoys
follow the rules, and the suite stays outside the paper's nine."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from misi_geom.complex import Complex
from misi_geom.interactions import find_interactions, possible_types
from misi_render import RenderOptions
from misi_tasks.definitions.registry import paper_average_columns, paper_tasks, report_columns
from misi_tasks.engine.generate import generate_items
from misi_tasks.tasks.base import TaskSkipped
from misi_tasks.tasks.interaction_options import TYPE_WORDS, residue_types, type_set_text
from misi_tasks.tasks.interactions import RingStackingTask, stacking_options
from misi_tasks.tasks.scene import Scene

from interaction_scenes import join, phe, pocket_residue, ring_coords


WORD_TYPE = {w: t for t, w in TYPE_WORDS.items()}


def test_the_suite_is_outside_the_papers_nine():
    assert "interaction-type" not in paper_tasks() and "ring-stacking" not in paper_tasks()
    assert len(paper_tasks()) == 9
    assert {"X1", "X3"} <= set(report_columns()) and not {"X1", "X3"} & set(paper_average_columns())


@pytest.fixture(scope="module")
def scenes() -> dict[str, Scene]:
    """The bundled samples at 256 px."""
    from misi_geom import load_complex
    from misi_geom.samples import sample_dirs

    return {d.name: Scene(load_complex(d), RenderOptions(size=256)) for d in sample_dirs()}


@pytest.fixture(scope="module")
def x1_items(scenes):
    return {pdb: generate_items(s, ["interaction-type"], seed=3, split="train")["interaction-type"]
            for pdb, s in scenes.items()}


def test_x1_answer_is_the_residues_types(x1_items, scenes):
    n = 0
    for pdb, items in x1_items.items():
        c = scenes[pdb].complex
        by_res = residue_types(find_interactions(c), c)
        for item in items:
            res = item.metadata["res_index"]
            truth = type_set_text(by_res[res])
            assert item.options[item.metadata["options_canonical"].index(truth)] == truth
            assert item.options["ABCD".index(item.answer)] == truth
            assert len(set(item.options)) == 4
            assert item.metadata["residue"] in item.question
            name_number = item.metadata["residue"].split()[:2]  # the label adds the chain only when needed
            assert {tuple(r["residue"].split()[:2]) for r in item.metadata["interactions"]} == {tuple(name_number)}
            assert sorted({r["type"] for r in item.metadata["interactions"]}) == item.metadata["types"]
            # every option is a set of types this residue could make (no pi-stacking without a ring)
            possible = possible_types(c, res)
            assert item.metadata["possible_types"] == sorted(possible)
            for option in item.options:
                assert {WORD_TYPE[w] for w in option.split(" and ")} <= possible, (item.metadata["residue"], option)
            n += 1
    assert n >= 8  # two residues per sample complex (train split)
    # residues making a rarer type come first: 2pyy's salt-bridging ARGs, 3pvu's halogen/cation-pi
    assert any("salt_bridge" in i.metadata["types"] for i in x1_items["2pyy"])


def test_stacking_options_never_offer_another_stack():
    p = [((1, 2, 3, 4, 5, 6), np.zeros(3)), ((7, 8, 9, 10, 11, 12), np.array([0, 5.0, 0])),
         ((13, 14, 15, 16, 17), np.array([5.0, 0, 0]))]
    lig = [((100, 101, 102, 103, 104, 105), np.array([0, 0, 3.5])), ((106, 107, 108, 109, 110, 111),
                                                                     np.array([4.0, 0, 3.5]))]
    stacks = {(p[0][0], lig[0][0]), (p[1][0], lig[1][0])}
    rng = np.random.default_rng(0)
    opts = stacking_options(p, lig, stacks, (p[0][0], lig[0][0]), rng)
    assert opts[0] == (p[0][0], lig[0][0]) and len(set(opts)) == 4
    assert not set(opts[1:]) & stacks
    assert stacking_options(p[:1], lig[:1], {(p[0][0], lig[0][0])}, (p[0][0], lig[0][0]), rng) is None


def _stack_scene() -> Scene:
    """A biphenyl-like ligand (rings A at the origin and B 4.3 Å along x, both in the xy plane), PHE 10
    stacked 3.6 Å over ring A, PHE 20 6.5 Å under ring B, TYR 30 6.5 Å under ring A (no stacks)."""
    def aromatic(name: str, centre, res_id: int) -> Complex:
        ring = ring_coords(centre, (0, 0, 1))
        names = ["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]
        atoms = {"CB": tuple(ring[0] + (ring[0] - np.asarray(centre)) / 1.39 * 1.5)}
        atoms.update({n: tuple(p) for n, p in zip(names, ring)})
        return pocket_residue(name, atoms, res_id)

    a, b = ring_coords((0, 0, 0), (0, 0, 1)), ring_coords((4.3, 0, 0), (0, 0, 1))
    xyz = np.vstack([a, b])
    bonds = [(k, (k + 1) % 6) for k in range(6)] + [(6 + k, 6 + (k + 1) % 6) for k in range(6)]
    bonds.append((int(np.argmax(a[:, 0])), 6 + int(np.argmin(b[:, 0]))))
    lig = Complex.from_atoms(xyz, ["C"] * 12, [f"C{k + 1}" for k in range(12)], bonds=bonds,
                             bond_order=[1.5] * 12 + [1.0], res_name="LIG", res_id=900)
    c = join(phe((0, 0, 3.6), (0, 0, 1)), aromatic("PHE", (4.3, 0, -6.5), 20), aromatic("TYR", (0, 0, -6.5), 30),
             lig)
    return Scene(c, RenderOptions(size=128))


def test_x3_on_a_hand_made_stack():
    scene = _stack_scene()
    (x,) = find_interactions(scene.complex, ["pi_stacking"])["pi_stacking"]
    items = generate_items(scene, ["ring-stacking"], seed=1, split="test")["ring-stacking"]
    (item,) = items
    truth = item.options["ABCD".index(item.answer)]
    assert truth == "PHE 10 ring, ligand ring C1 C2 C3 C4 C5 C6"
    assert len(set(item.options)) == 4
    assert "PHE 10 ring, ligand ring C7 C8 C9 C10 C11 C12" in item.options  # same residue, other ring
    assert item.metadata["interactions"][0]["type"] == "pi_stacking"


def test_x3_skips_a_complex_without_stacks(scenes):
    with pytest.raises(TaskSkipped, match="no pi-stacking"):
        RingStackingTask().make_items(scenes["2pyy"], None, np.random.default_rng(0))


def test_generate_items_raises_or_gives_no_items_for_a_skipped_task(scenes):
    """The notebook helper raises as the engine's worker sees it, or lists the task with no items."""
    with pytest.raises(TaskSkipped, match="no pi-stacking"):
        generate_items(scenes["2pyy"], ["ring-stacking"], seed=1)
    got = generate_items(scenes["2pyy"], ["ring-stacking", "translation"], seed=1, skipped_empty=True)
    assert got["ring-stacking"] == [] and got["translation"]


REAL = Path(__file__).with_name("data") / "4hlc"
PLIP_DEV = Path(__file__).parents[2] / "benchmarks" / "fixtures" / "plip_dev.json.gz"


def test_x1_and_x3_on_a_real_complex_with_stacks():
    """4hlc (tests/interactions/data): X3's answer is a stack PLIP reports too; X1's options are
    types the asked residue could make."""
    from misi_geom import load_complex

    scene = Scene(load_complex(REAL), RenderOptions(size=128))
    c = scene.complex
    plip = json.loads(gzip.open(PLIP_DEV, "rt").read())["complexes"]["4hlc"]["interactions"]
    plip_stacks = {(r["residue"].split()[0] + " " + r["residue"].split()[1], frozenset(r["ligand_atoms"]))
                   for r in plip if r["type"] == "pi_stacking"}
    items = generate_items(scene, ["ring-stacking", "interaction-type"], seed=2, split="train")
    assert items["ring-stacking"]
    for item in items["ring-stacking"]:
        truth = item.options["ABCD".index(item.answer)]
        residue, _, ring = truth.partition(" ring, ligand ring ")
        assert (residue, frozenset(ring.split())) in plip_stacks
        assert len(set(item.options)) == 4
    for item in items["interaction-type"]:
        possible = possible_types(c, item.metadata["res_index"])
        for option in item.options:
            assert {WORD_TYPE[w] for w in option.split(" and ")} <= possible
