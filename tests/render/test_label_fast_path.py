"""The labelling fast path (``view_labels.label_view``, used by ``render_views``) draws exactly what
the reference chain of public functions draws: same labels, boxes and image bytes.

The reference is the code ``render_views`` ran before the fast path (label_requests -> place_labels
-> drop_labels_over -> draw_labels -> placed_labels), kept in ``reference_labels.py``.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_geom import SIX_VIEWS, fit_frame
from misi_render import RenderOptions
from misi_render import render as _render
from misi_render import view_labels as _view_labels
from misi_render.labels import pocket_has_chains, with_unique_ligand_labels

from . import reference_labels as _labels
from .scenes import SAMPLE_IDS, load_sample


def _reference(c, scene, screen, visible, size, image, *, atom_label_residue, key_atoms, **opts):
    radius_px = np.where(scene.drawn, scene.radius_A * np.nan_to_num(screen.px_per_A), 0.0)
    reqs = _labels.label_requests(c, screen, visible, radius_px, size,
                                  atom_label_residue=atom_label_residue, key_atoms=key_atoms, **opts)
    if not reqs:
        return image, ()
    key = np.zeros(len(c), dtype=bool) if key_atoms is None else key_atoms & scene.drawn & screen.in_front
    avoid = key | (visible & (c.is_ligand | (c.res_index == (-1 if atom_label_residue is None else atom_label_residue))))
    obstacles = np.column_stack([screen.x_px[avoid], screen.y_px[avoid]])
    corners = _labels.place_labels(reqs, size, obstacles)
    discs = np.column_stack([screen.x_px[key], screen.y_px[key]])
    reqs, corners = _labels.drop_labels_over(reqs, corners, discs, radius_px[key])
    return _labels.draw_labels(image, reqs, corners), _labels.placed_labels(reqs, corners)


def _options(c, rng):
    pocket_res = np.unique(c.res_index[~c.is_ligand & ~c.is_hydrogen])
    key = np.zeros(len(c), dtype=bool)
    key[rng.choice(np.flatnonzero(~c.is_hydrogen), 6, replace=False)] = True
    yield dict(residue_labels=True, ligand_labels=True, atom_label_residue=None, residue_chain=False, key_atoms=None)
    yield dict(residue_labels=True, ligand_labels=True, atom_label_residue=int(rng.choice(pocket_res)),
               residue_chain=True, key_atoms=key)
    yield dict(residue_labels=False, ligand_labels=True, atom_label_residue=None, residue_chain=False, key_atoms=key)
    yield dict(residue_labels=True, ligand_labels=False, atom_label_residue=int(c.res_index[c.is_ligand][0]),
               residue_chain=False, key_atoms=None)
    yield dict(residue_labels=False, ligand_labels=False, atom_label_residue=None, residue_chain=False, key_atoms=None)


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
@pytest.mark.parametrize("size,projection", [(1024, "orthographic"), (384, "orthographic"), (96, "perspective")])
def test_fast_path_draws_the_reference_bytes(pdb_id, size, projection):
    c = with_unique_ligand_labels(load_sample(pdb_id))
    rng = np.random.default_rng(size)
    frame, px = fit_frame(c.coord[~c.is_hydrogen]), RenderOptions(size=size, projection=projection)
    scene = _render._prepare(c, "ball-and-stick")
    views = SIX_VIEWS if size != 1024 else SIX_VIEWS[:2]
    for opts in _options(c, rng):
        for name in views:
            screen = px.project(frame, frame.to_camera_frame(c.coord, name))
            image, visible = _render.draw_scene(scene, screen, frame, px)
            want_img, want_placed = _reference(c, scene, screen, visible, size, image.copy(), **opts)
            got_img, got_placed = _render._draw_view_labels(c, scene, screen, visible, size, image.copy(), **opts)
            assert tuple(got_placed) == want_placed, (pdb_id, name, opts)
            assert np.array_equal(got_img, want_img), (pdb_id, name, opts)


def test_atlas_restarts_when_full_and_keeps_drawing_the_same(monkeypatch):
    c = load_sample("2pyy")
    frame, px = fit_frame(c.coord[~c.is_hydrogen]), RenderOptions(size=256)
    scene = _render._prepare(c, "ball-and-stick")
    screen = px.project(frame, frame.to_camera_frame(c.coord, "front"))
    image, visible = _render.draw_scene(scene, screen, frame, px)
    opts = dict(residue_labels=True, ligand_labels=True, atom_label_residue=None, residue_chain=False, key_atoms=None)
    want, _ = _reference(c, scene, screen, visible, 256, image.copy(), **opts)
    monkeypatch.setattr(_view_labels._Atlas, "MAX_PIXELS", 0)  # every lookup with a new text starts over
    monkeypatch.setattr(_view_labels, "_ATLAS", _view_labels._Atlas())
    for chain in (False, True, False):
        got, _ = _render._draw_view_labels(c, scene, screen, visible, 256, image.copy(), **{**opts, "residue_chain": chain})
    assert np.array_equal(got, want)


def test_row_kernel_blends_like_the_reference_kernel():
    """composite_rows == composite on random patches (transparent, opaque and partial pixels),
    random backgrounds and positions partly or wholly outside the frame."""
    from misi_render._layout import composite, composite_rows

    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(1, 30))
        ws, hs = rng.integers(1, 40, n), rng.integers(1, 25, n)
        starts = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(ws * hs, out=starts[1:])
        a = rng.random(starts[-1]).astype(np.float32)
        a[rng.random(starts[-1]) < 0.3] = 0.0
        a[rng.random(starts[-1]) < 0.4] = 1.0
        fill = rng.random(starts[-1]).astype(np.float32) * a
        keep = (1.0 - a).astype(np.float32)
        paint = (fill[:, None] * rng.integers(0, 256, 3).astype(np.float32)).astype(np.float32)
        size = int(rng.integers(8, 120))
        xs, ys = rng.integers(-45, size + 5, n), rng.integers(-30, size + 5, n)
        image = rng.integers(0, 256, (size, size, 3), dtype=np.uint8)
        want, got = image.copy(), image.copy()
        composite(want, keep, paint, starts, ws, hs, xs, ys)
        composite_rows(got, keep, paint, starts, ws, hs, xs, ys)
        assert np.array_equal(got, want)


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_residue_anchors_kernel_matches_numpy(data):
    """_layout.residue_anchors picks the atoms reference_labels.residue_anchors (numpy bincount + lexsort)
    picks, on random residues, masks and positions, ties (repeated positions) included."""
    from misi_geom import Complex, residue_starts
    from misi_render._layout import residue_anchors
    from misi_render.screen import ScreenCoords

    n = data.draw(st.integers(1, 60))
    res_index = np.cumsum(data.draw(st.lists(st.booleans(), min_size=n, max_size=n))).astype(np.int64)
    grid = st.sampled_from([0.0, 0.5, 1.0, 3.25, 7.0, 1e-3, 1023.9])  # few values: many ties
    coord = st.one_of(grid, st.floats(-50.0, 1100.0, allow_nan=False))
    x = np.array(data.draw(st.lists(coord, min_size=n, max_size=n)))
    y = np.array(data.draw(st.lists(coord, min_size=n, max_size=n)))
    mask = np.array(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    c = Complex.from_atoms(np.zeros((n, 3)), ["C"] * n, res_index=res_index)
    screen = ScreenCoords(x_px=x, y_px=y, x_A=x, y_A=y, depth=np.zeros(n), px_per_A=np.ones(n), in_front=np.ones(n, bool))
    want = _labels.residue_anchors(c, screen, mask)
    starts = residue_starts(c)
    atom_res = (np.searchsorted(starts, np.arange(n), side="right") - 1).astype(np.int64)
    got = residue_anchors(mask, atom_res, x, y, len(starts))
    assert got.tolist() == want.tolist()


def test_rendered_view_builds_its_labels_on_read():
    """render_views keeps a view's labels as arrays; .labels is the tuple of what label_view gives,
    built on first read, also after a pickle round trip (the arrays are pickled, not the tuple)."""
    import pickle

    from misi_render import render_views
    from misi_render.labels import PlacedLabel

    c = load_sample("2pyy")
    opts = RenderOptions(size=256)
    view, = render_views(c, ("left",), options=opts)
    assert isinstance(view.__dict__["_labels"], _view_labels.DrawnLabels)
    again = pickle.loads(pickle.dumps(view))
    frame = fit_frame(c.coord[~c.is_hydrogen])
    scene = _render._prepare(c, "ball-and-stick")
    screen = opts.project(frame, frame.to_camera_frame(c.coord, "left"))
    image, visible = _render.draw_scene(scene, screen, frame, opts)
    radius_px = np.where(scene.drawn, scene.radius_A * np.nan_to_num(screen.px_per_A), 0.0)
    want = tuple(_view_labels.label_view(c, screen, visible, scene.drawn, radius_px, 256, image, residue_chain=pocket_has_chains(c)))
    assert isinstance(view.labels, tuple) and len(view.labels) > 0
    assert all(isinstance(p, PlacedLabel) for p in view.labels)
    assert view.labels == want == again.labels
    assert view.labels is view.labels  # built once
    assert np.array_equal(image, view.image)


def test_label_arrays_name_the_atoms_the_labels_show():
    """``label_arrays`` (from the arrays, or from the tuple once read) gives each label's box, atom and
    kind; a ligand label's text is its atom's name, a residue label's is its atom's residue."""
    from misi_render import render_views
    from misi_render.labels import LABEL_KINDS
    from misi_geom.residues import atom_residue_label as residue_label

    c = load_sample("2pyy")
    view, = render_views(c, ("front",), options=RenderOptions(size=512))
    boxes, atom, kind = view.label_arrays()  # before the tuple exists
    placed = view.labels
    assert boxes.tolist() == [list(p.box) for p in placed]
    assert [LABEL_KINDS[k] for k in kind] == [p.kind for p in placed] and atom.tolist() == [p.atom for p in placed]
    assert {"ligand", "residue"} <= set(p.kind for p in placed)
    for p in placed:
        assert view.visible[p.atom]
        want = str(c.atom_name[p.atom]) if p.kind == "ligand" else residue_label(c, p.atom)
        assert p.text == want
    again = view.label_arrays()  # from the tuple now
    assert all(np.array_equal(a, b) for a, b in zip(again, (boxes, atom, kind)))
