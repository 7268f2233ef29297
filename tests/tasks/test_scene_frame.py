"""``Scene.frame_for``: the one place an item's camera frame comes from.

Whatever it is asked to hold (the whole complex, a residue and the ligand, the complex after a
motion of some atoms, with or without a margin), every given heavy atom lies inside the image in
every canonical view, and only the documented centre is used.
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import misi_tasks
from misi_geom import SE3, VIEW_NAMES
from misi_render import moved_front_frame

SAMPLES = ["1h1d", "2pyy", "2w9r", "3pvu", "4cjq"]


@st.composite
def motions(draw):
    m = SE3.identity()
    for _ in range(draw(st.integers(0, 2))):
        m = m.then(SE3.rotation(draw(st.sampled_from("xyz")), draw(st.floats(-180, 180)),
                                center=draw(st.lists(st.floats(-5, 5), min_size=3, max_size=3))))
    return m.then(SE3.translation(draw(st.lists(st.floats(-15, 15), min_size=3, max_size=3))))


@settings(max_examples=40, deadline=None)
@given(pdb_id=st.sampled_from(SAMPLES), data=st.data(), centre=st.sampled_from(["scene", "atoms"]),
       moved=st.booleans(), margin=st.sampled_from([0.0, 2.5, 4.0]))
def test_frame_holds_every_given_atom_in_every_view(scenes, pdb_id, data, centre, moved, margin):
    scene = scenes[pdb_id]
    c = scene.complex
    pocket_res = np.unique(c.res_index[~c.is_ligand & ~c.is_hydrogen])
    res = data.draw(st.sampled_from(pocket_res.tolist()) | st.none())
    atoms = c if res is None else c[(c.res_index == res) | c.is_ligand]
    motion = data.draw(motions()) if moved else None
    mask = atoms.is_ligand if moved and data.draw(st.booleans()) else None
    frame = scene.frame_for(None if res is None else atoms, motion=motion, motion_mask=mask, centre=centre,
                            margin_A=margin)
    front = moved_front_frame(atoms.coord, scene.frame, motion, mask)  # as render_views moves them
    heavy = ~atoms.is_hydrogen
    model = front[heavy] + scene.frame.center
    if centre == "scene":
        assert np.array_equal(frame.center, scene.frame.center)
    else:
        np.testing.assert_allclose(frame.center, model.mean(axis=0), atol=1e-9)
    for view in VIEW_NAMES:
        q = frame.to_camera_frame(model, view)
        assert np.all(np.hypot(q[:, 0], q[:, 1]) <= frame.radius - margin + 1e-9)
        s = scene.options.project(frame, q)
        assert scene.options.in_image(s).all()
    # a margin leaves room for a move of that much along x or y
    if margin:
        shifted = frame.to_camera_frame(model) + [margin, -margin, 0.0]
        assert scene.options.in_image(scene.options.project(frame, shifted)).all()


def test_whole_complex_without_motion_is_the_scene_frame(scenes):
    scene = scenes["2pyy"]
    assert scene.frame_for() is scene.frame
    assert scene.frame_for(margin_A=4.0).radius == pytest.approx(scene.frame.radius + 4.0)
    with pytest.raises(ValueError, match="centre"):
        scene.frame_for(scene.complex, centre="ligand")


def test_no_task_fits_a_camera_frame_by_hand():
    """Generators get frames from ``Scene.frame_for``: no other module of ``misi_tasks`` builds one."""
    root = Path(misi_tasks.__file__).parent
    for path in root.rglob("*.py"):
        if path.name == "scene.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call):
                name = getattr(node.func, "id", getattr(node.func, "attr", ""))
                assert name not in ("fit_frame", "CameraFrame"), f"{path.relative_to(root)}:{node.lineno}"
