"""Every image of every item shows the state its prompt describes.

Every registered task is generated on the five bundled samples (a task with nothing to ask about a
sample, as ring-stacking without a stack, has no items there).  For each image, the state the prompt
and the answer describe is rebuilt here from the loaded coordinates with plain SE(3) algebra (not
with the generators' code) and compared with the coordinates the image was drawn from; the PNG
written is the image drawn; and every heavy atom (its whole drawn disc) is inside the frame,
except after a zoom (T3), which magnifies 2.5-9x by design and keeps at least 10 atoms inside.
"""

from __future__ import annotations

import io
import re

import numpy as np
import pytest
from PIL import Image

from misi_geom import SE3, SIX_VIEWS, THREE_VIEWS, view_rotation
from misi_render import atom_radii
from misi_tasks.engine.generate import generate_items
from misi_tasks.definitions.registry import TASK_NAMES, paper_tasks

SAMPLES = ["1h1d", "2pyy", "2w9r", "3pvu", "4cjq"]
ATOL = 1e-8


@pytest.fixture(scope="module")
def generated(scenes):
    out = {}
    for pdb in SAMPLES:
        partners = {k: v for k, v in scenes.items() if k != pdb}
        # every registered task; one may have nothing to ask about a sample (ring-stacking needs a stack)
        out[pdb] = generate_items(scenes[pdb], TASK_NAMES, seed=7, partners=partners, skipped_empty=True)
    return out


def _frame(rv) -> np.ndarray:
    return np.column_stack([rv.screen.x_A, rv.screen.y_A, rv.screen.depth])


def _png(data: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _in_frame(rv, c) -> np.ndarray:
    heavy = ~c.is_hydrogen
    r = atom_radii(c, "ball-and-stick")[heavy] * rv.screen.px_per_A[heavy]
    x, y, size = rv.screen.x_px[heavy], rv.screen.y_px[heavy], rv.size
    return (x - r >= 0) & (x + r <= size) & (y - r >= 0) & (y + r <= size)


def _views(expected: np.ndarray, views) -> list[np.ndarray]:
    return [expected @ view_rotation(v).T for v in views]


def _commands(text: str) -> SE3:
    """``move x 2, roll z 30``: each roll about the object's current centre (the moved origin)."""
    total = SE3.identity()
    for op, axis, value in re.findall(r"(move|roll) ([xyz]) (-?\d+)", text):
        centre = total.apply(np.zeros(3))
        step = SE3.move(axis, int(value)) if op == "move" else SE3.rotation(axis, int(value), center=centre)
        total = total.then(step)
    return total


def _expected_states(item, scene, scenes):
    """[(expected camera-frame coords, complex drawn, may leave frame)] per image, then per option."""
    c = scene.complex
    q = c.coord - scene.frame.center
    task, ans = item.task, item.answer
    if task in ("translation", "rotation", "zooming"):
        before = [(e, c, False) for e in _views(q, THREE_VIEWS)]
        if task == "zooming":
            d = int(re.fullmatch(r"move z (\d+)", ans)[1])
            return before + [(q + [0.0, 0.0, d], c, True)], []
        return before + [(_commands(ans).apply(q), c, False)], []
    if task == "residue-ligand":
        m = re.search(r"Does (\S+) (-?\d+)([A-Z]?)(?: ([A-Z?]))? form", item.question)
        res = ((c.res_name == m[1]) & (c.res_id == int(m[2])) & (c.ins_code == m[3]) & ~c.is_ligand)
        if m[4]:
            res &= c.chain_id == ("" if m[4] == "?" else m[4])
        assert len(np.unique(c.res_index[res])) == 1, m[0]
        sub = c[res | c.is_ligand]
        frame = item.renders.images[0].frame
        return [(e, sub, False) for e in _views(sub.coord - frame.center, SIX_VIEWS)], []
    if task == "interaction-type":  # one residue and the ligand, as residue-ligand
        sub = c[(c.res_index == item.metadata["res_index"]) | c.is_ligand]
        frame = item.renders.images[0].frame
        return [(e, sub, False) for e in _views(sub.coord - frame.center, SIX_VIEWS)], []
    if task in ("interaction-location", "pocket-ligand", "ring-stacking", "interaction-list"):
        return [(e, c, False) for e in _views(q, SIX_VIEWS)], []
    if task in ("translation-rotation", "rotation-rotation"):
        opts = item.metadata["options_canonical"]  # canonical order: the correct option first
        shown = _commands(opts[0]).apply(q)
        states = [(e, c, False) for e in _views(q, THREE_VIEWS)] + [(shown, c, False)]
        if task == "translation-rotation":
            other = scenes[re.search(r"A second complex, (\w+),", item.question)[1].lower()]
            q2 = other.complex.coord - other.frame.center
            states += [(e, other.complex, False) for e in _views(q2, THREE_VIEWS)]
            return states, [(_commands(o).apply(q2), other.complex, False) for o in opts]
        # T6: the same two rolls again, about the centre, on the complex as image 4 shows it
        return states, [(_commands(o).apply(shown), c, False) for o in opts]
    if task == "docking":
        m = re.fullmatch(r"roll ([xyz]) (-?\d+), move x (-?\d+)", ans)
        lig, heavy = c.is_ligand, ~c.is_hydrogen
        centre = q[lig & heavy].mean(axis=0)
        # the answer undoes the displacement: roll back about the ligand's centre, then move back
        displaced = SE3.rotation(m[1], -int(m[2]), center=centre).apply(q[lig]) - [int(m[3]), 0.0, 0.0]
        together = q.copy()
        together[lig] = displaced
        return ([(e, c[~lig], False) for e in _views(q[~lig], THREE_VIEWS)]
                + [(e, c[lig], False) for e in _views(displaced, THREE_VIEWS)]
                + [(together, c, False)]), []
    raise AssertionError(task)


@pytest.mark.parametrize("pdb_id", SAMPLES)
def test_every_image_shows_the_described_state_with_every_atom_in_frame(generated, scenes, pdb_id):
    scene = scenes[pdb_id]
    # every paper task has items on every sample (ring-stacking needs a stack: the samples have none)
    assert all(generated[pdb_id][t] for t in paper_tasks())
    for task, items in generated[pdb_id].items():
        for item in items:
            states, option_states = _expected_states(item, scene, scenes)
            rvs = item.renders.images
            assert len(rvs) == len(item.images) == len(states) == len(item.image_roles), item.id
            pairs = list(zip(rvs, item.images, states))
            if option_states:
                assert len(item.renders.options) == len(item.option_images) == len(option_states) == 4
                pairs += list(zip(item.renders.options, item.option_images, option_states))
            for k, (rv, png, (expected, drawn, may_leave)) in enumerate(pairs):
                where = f"{item.id} image {k + 1}"
                np.testing.assert_allclose(_frame(rv), expected, atol=ATOL, err_msg=where)
                assert np.array_equal(_png(png), rv.image), where
                inside = _in_frame(rv, drawn)
                assert inside.all() if not may_leave else inside.sum() >= 10, where
            if task == "zooming":  # the magnification is D/(D-d) with the D the prompt states
                D = float(re.search(r"D = (\d+\.\d) Å", item.question)[1])
                d = int(item.answer.split()[-1])
                before, after = rvs[0].screen, rvs[3].screen
                half = rvs[0].size / 2
                np.testing.assert_allclose(after.x_px - half, (before.x_px - half) * D / (D - d), rtol=1e-9)
            if task == "interaction-location":  # the correct move centres the named bond's midpoint
                m = re.search(r"between atom (\S+) of (\S+) (-?\d+)\S* \((?:chain (\S+)|no chain id)\) and ligand atom (\S+)\.",
                              item.question)
                c = scene.complex
                i = np.flatnonzero((c.atom_name == m[1]) & (c.res_name == m[2]) & (c.res_id == int(m[3]))
                                   & (c.chain_id == (m[4] or "")) & ~c.is_ligand)
                j = np.flatnonzero((c.atom_name == m[5]) & c.is_ligand)
                assert len(i) == 1 and len(j) == 1, m[0]  # the prompt names exactly one atom each
                dx, dy = (int(v) for v in re.findall(r"-?\d+", item.options[0]))
                front = rvs[0].screen
                mid = np.array([front.x_A[i[0]] + front.x_A[j[0]], front.y_A[i[0]] + front.y_A[j[0]]]) / 2
                assert np.all(np.abs(mid + [dx, dy]) <= 0.5)
