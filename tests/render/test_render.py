"""render_views: geometry of the pixels, invariances, recorded coordinates, determinism, edge cases."""

from __future__ import annotations


import numba
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from skimage.registration import phase_cross_correlation

from misi_geom import SE3, CameraFrame, Complex, rotation_matrix, view_rotation
from misi_render import RenderOptions, atom_colors, atom_radii, render_views

from .scenes import load_sample

CAM = CameraFrame(center=np.zeros(3), radius=10.0)  # at 128 px: 6.4 px per Å, centre (64, 64)
BARE = dict(residue_labels=False, ligand_labels=False)


def ro(size=128, **kw) -> RenderOptions:
    """Render options at ``size`` px (default 128: :data:`CAM` then shows 6.4 px per Å)."""
    return RenderOptions(size=size, **kw)


def chroma(rgb) -> np.ndarray:
    """Colour with brightness divided out (shading and depth cue scale all channels alike)."""
    a = np.asarray(rgb, dtype=np.float64)
    return a / np.maximum(a.max(axis=-1, keepdims=True), 1e-9)


def nearest(pixels, palette) -> np.ndarray:
    """Index of the nearest palette colour (by chroma) for each pixel."""
    d = ((chroma(pixels)[..., None, :] - chroma(palette)) ** 2).sum(axis=-1)
    return d.argmin(axis=-1)


def atoms(coord, element, **kw) -> Complex:
    return Complex.from_atoms(np.asarray(coord, dtype=np.float64), element, **kw)


@pytest.fixture(scope="module")
def sample() -> Complex:
    return load_sample("2w9r")


# --- single primitives ------------------------------------------------------------------------
@pytest.mark.parametrize(
    "pos, element, style",
    [((2.0, -1.0, 0.0), "O", "spacefill"), ((-3.3, 2.2, 1.0), "N", "spacefill"), ((0.7, 0.4, -2.0), "S", "ball-and-stick")],
)
def test_single_atom_centre_radius_and_colour(pos, element, style):
    c = atoms([pos], [element])
    (v,) = render_views(c, frame=CAM, options=ro(style=style, ligand_labels=False))
    k = v.scale
    ex, ey = 64 + pos[0] * k, 64 - pos[1] * k
    assert v.screen.x_px[0] == pytest.approx(ex) and v.screen.y_px[0] == pytest.approx(ey)
    mask = v.image.max(axis=2) > 0
    yy, xx = np.nonzero(mask)
    assert xx.mean() + 0.5 == pytest.approx(ex, abs=0.35)
    assert yy.mean() + 0.5 == pytest.approx(ey, abs=0.35)
    r = atom_radii(c, style)[0] * k
    assert np.sqrt(mask.sum() / np.pi) == pytest.approx(r + 0.5, abs=0.6)
    centre = v.image[int(ey), int(ex)]
    want = atom_colors(c)[0]
    assert np.abs(chroma(centre / 255.0) - chroma(want)).max() < 0.12
    assert v.visible.tolist() == [True]


@pytest.mark.parametrize("front", [0, 1])
def test_nearer_atom_hides_the_farther_one(front):
    z = [3.0, 0.0] if front == 0 else [0.0, 3.0]
    c = atoms([[0.5, 0.5, z[0]], [0.5, 0.5, z[1]]], ["O", "N"])
    (v,) = render_views(c, frame=CAM, options=ro(style="spacefill", ligand_labels=False))
    palette = atom_colors(c)
    mask = v.image.max(axis=2) > 0
    # N is slightly larger than O: when O is in front a thin N rim may show, so check the core
    x, y = int(v.screen.x_px[0]), int(v.screen.y_px[0])
    core = v.image[y - 4 : y + 5, x - 4 : x + 5].reshape(-1, 3)
    assert set(nearest(core / 255.0, palette).tolist()) == {front}
    assert v.visible.tolist() == [front == 0, front == 1]
    assert mask.sum() > 0


@pytest.mark.parametrize("bonded", [True, False])
def test_stick_drawn_between_bonded_atoms_only(bonded):
    c = atoms([[-1.6, 0.3, 0.0], [1.6, 0.3, 0.0]], ["C", "N"], bonds=[(0, 1)] if bonded else [])
    (v,) = render_views(c, frame=CAM, options=ro(ligand_labels=False))
    y = int(v.screen.y_px[0])
    row = v.image[y]
    x0, x1 = v.screen.x_px
    between = row[int(x0) + 6 : int(x1) - 6]  # beyond the balls (radius ~3.3 px)
    if bonded:
        assert (between.max(axis=1) > 40).all()
        # each half takes its own atom's colour
        palette = atom_colors(c)
        mid = int((x0 + x1) / 2)
        assert nearest(row[mid - 3] / 255.0, palette) == 0 and nearest(row[mid + 3] / 255.0, palette) == 1
    else:
        assert between.max() == 0
    off_line = v.image[y + 6, int(x0) + 6 : int(x1) - 6]  # 6 px ~ 0.9 Å off the bond axis
    assert off_line.max() == 0


# --- invariances ------------------------------------------------------------------------------
@settings(max_examples=6, deadline=None)
@given(dx=st.integers(-4, 4), dy=st.integers(-4, 4))
def test_translation_moves_the_image_by_d_times_scale(sample, dx, dy):
    frame = CameraFrame(center=sample.coord.mean(axis=0), radius=25.6)  # 3.125 px per Å at 160 px
    kw = dict(frame=frame, options=ro(160, **BARE))
    (a,) = render_views(sample, **kw)
    (b,) = render_views(sample, motion=SE3.translation([dx, dy, 0.0]), **kw)
    assert a.scale == 3.125
    shift, _, _ = phase_cross_correlation(b.image.mean(axis=2), a.image.mean(axis=2), upsample_factor=4)
    assert shift[0] == pytest.approx(-dy * a.scale, abs=0.3)
    assert shift[1] == pytest.approx(dx * a.scale, abs=0.3)
    assert np.allclose(b.screen.x_px - a.screen.x_px, dx * a.scale)


@settings(max_examples=8, deadline=None)
@given(axis=st.sampled_from("xyz"), angle=st.integers(-6, 6), dx=st.integers(-8, 8), mask_ligand=st.booleans())
def test_motion_is_in_the_front_frame_and_every_view_turns_the_moved_object(sample, axis, angle, dx, mask_ligand):
    """A motion moves the 3-D object once (front camera frame); each view then turns it."""
    cam = CameraFrame(center=sample.coord.mean(axis=0), radius=40.0)
    motion = SE3.rotation(axis, 15 * angle, center=[1.0, -2.0, 0.5]).then(SE3.translation([dx, 0.0, 0.0]))
    mask = sample.is_ligand if mask_ligand else None
    views = ["front", "left", "top", "back", "right", "bottom"]
    out = render_views(sample, views, frame=cam, options=ro(96, **BARE), motion=motion, motion_mask=mask)
    moved = sample.coord - cam.center
    sel = slice(None) if mask is None else mask
    moved[sel] = motion.apply(moved[sel])
    for rv, name in zip(out, views):
        turned = moved @ view_rotation(name).T
        assert np.allclose(np.column_stack([rv.screen.x_A, rv.screen.y_A, rv.screen.depth]), turned, atol=1e-9)
    # the same as rendering the moved complex without a motion
    plain = render_views(sample.with_coord(moved + cam.center), views, frame=cam, options=ro(96, **BARE))
    for a, b in zip(out, plain):
        assert np.allclose(a.screen.x_px, b.screen.x_px, atol=1e-9) and np.allclose(a.screen.y_px, b.screen.y_px, atol=1e-9)


def test_rotation_about_z_rotates_the_image(sample):
    kw = dict(frame=CameraFrame(center=sample.coord.mean(axis=0), radius=28.0), options=ro(160, **BARE))
    a, b = render_views(sample, ["front", rotation_matrix("z", 90)], **kw)
    assert b.name == "custom"
    rotated = np.rot90(a.image)  # +90° about z (toward the viewer) turns the picture counter-clockwise
    fa, fb = rotated.max(axis=2) > 0, b.image.max(axis=2) > 0
    assert (fa & fb).sum() / (fa | fb).sum() > 0.99
    # lighting stays fixed while the molecule turns, so compare colours by chroma class
    palette = np.unique(atom_colors(sample), axis=0)
    both = fa & fb & (rotated.max(axis=2) > 60)
    same = nearest(rotated[both] / 255.0, palette) == nearest(b.image[both] / 255.0, palette)
    assert same.mean() > 0.97


def test_recorded_coordinates_match_the_pixels(sample):
    (v,) = render_views(sample, options=ro(256, **BARE))
    palette, inv = np.unique(atom_colors(sample), axis=0, return_inverse=True)
    idx = np.flatnonzero(v.visible)
    assert len(idx) > 50 and not v.visible[sample.is_hydrogen].any()
    px = v.image[v.screen.y_px[idx].astype(int), v.screen.x_px[idx].astype(int)] / 255.0
    assert (nearest(px, palette) == inv.reshape(-1)[idx]).mean() > 0.98


def test_motion_mask_moves_only_the_ligand(sample):
    move = SE3.translation([3.0, 0.0, 0.0])
    a, = render_views(sample, options=ro(**BARE))
    b, = render_views(sample, frame=a.frame, options=a.options, motion=move, motion_mask=sample.is_ligand)
    d = b.screen.x_px - a.screen.x_px
    assert np.allclose(d[~sample.is_ligand], 0.0)
    assert np.allclose(d[sample.is_ligand], 3.0 * a.scale)


# --- determinism and edge cases -----------------------------------------------------------------
def test_byte_identical_across_runs_and_thread_counts(sample):
    from misi_render import render as R

    first = render_views(sample, ("front", "top"), options=ro(256))
    again = render_views(sample, ("front", "top"), options=ro(256))
    for a, b in zip(first, again):
        assert a.png_bytes() == b.png_bytes()
    frame, opts, scene = first[0].frame, first[0].options, R._prepare(sample, "ball-and-stick")
    screen = first[0].screen
    serial = R.draw_scene(scene, screen, frame, opts, parallel=False)
    old = numba.get_num_threads()
    try:
        for threads in sorted({1, numba.config.NUMBA_NUM_THREADS}):
            numba.set_num_threads(threads)
            par = R.draw_scene(scene, screen, frame, opts, parallel=True)
            assert np.array_equal(par[0], serial[0]) and np.array_equal(par[1], serial[1])
    finally:
        numba.set_num_threads(old)


def test_one_atom_and_twenty_thousand_atoms():
    (one,) = render_views(atoms([[1.0, 2.0, 3.0]], ["C"]), options=ro(64))
    assert one.visible.tolist() == [True] and one.image.max() > 0
    rng = np.random.default_rng(0)
    n = 20_000
    big = atoms(rng.uniform(-30, 30, (n, 3)), rng.choice(["C", "N", "O"], n), is_ligand=False)
    (v,) = render_views(big, options=ro(256, residue_labels=False))
    assert v.image.shape == (256, 256, 3) and len(v.visible) == n and 0 < v.visible.sum() < n


def test_all_atoms_outside_the_frame_gives_a_black_image():
    c = atoms([[0.0, 0, 0], [1.5, 0, 0]], ["C", "O"], bonds=[(0, 1)])
    far = CameraFrame(center=np.array([500.0, 0.0, 0.0]), radius=10.0)
    (v,) = render_views(c, frame=far, options=ro(64))
    assert v.image.max() == 0 and not v.visible.any()
    assert (v.screen.x_px < 0).all()


def test_hydrogens_are_never_drawn():
    c = atoms([[0.0, 0, 0], [0.0, 0, 1.0]], ["C", "H"], bonds=[(0, 1)])  # H in front of C
    (v,) = render_views(c, frame=CAM, options=ro(style="spacefill", ligand_labels=False))
    assert v.visible.tolist() == [True, False]
    assert nearest(v.image[64, 64] / 255.0, atom_colors(c)[:1]) == 0


def test_perspective_draws_nearer_atoms_larger():
    c = atoms([[-3.0, 0, 6.0], [3.0, 0, -6.0]], ["C", "C"])
    (v,) = render_views(c, options=ro(projection="perspective", style="spacefill", ligand_labels=False))
    assert v.options.projection == "perspective"
    assert v.screen.px_per_A[0] > v.screen.px_per_A[1]
    mask = v.image.max(axis=2) > 0
    left, right = mask[:, :64].sum(), mask[:, 64:].sum()
    assert left > right


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(views=("sideways",)), "unknown view"),
        (dict(views=(np.eye(3) * 2,)), "proper rotation"),
        (dict(motion_mask=np.ones(3, bool)), "motion_mask"),
        (dict(atom_label_residue=99), "atom_label_residue"),
    ],
)
def test_bad_arguments_raise_clear_errors(kwargs, message):
    c = atoms([[0.0, 0, 0], [1.5, 0, 0]], ["C", "O"])
    with pytest.raises(ValueError, match=message):
        render_views(c, **kwargs)


def test_nothing_to_draw_raises():
    with pytest.raises(ValueError, match="no heavy atoms"):
        render_views(atoms([[0.0, 0, 0]], ["H"]))
    with pytest.raises(TypeError):
        render_views(np.zeros((3, 3)))
    with pytest.raises(TypeError, match="RenderOptions"):
        render_views(atoms([[0.0, 0, 0]], ["C"]), options={"size": 64})
    with pytest.raises(ValueError, match="style"):
        RenderOptions(style="cartoon")


def test_orthographic_zoom_magnifies_about_the_centre():
    c = atoms([[2.0, 0.0, 0.0], [-2.0, 1.0, 0.5]], ["C", "N"])
    (a,) = render_views(c, frame=CAM, options=ro(style="spacefill", ligand_labels=False))
    zoomed = CAM.zoomed(20.0)
    (b,) = render_views(c, frame=zoomed, options=ro(style="spacefill", ligand_labels=False))
    m = zoomed.magnification
    assert np.allclose(b.screen.x_px - 64, (a.screen.x_px - 64) * m)
    area_a, area_b = ((v.image.max(axis=2) > 0).sum() for v in (a, b))
    assert area_b / area_a == pytest.approx(m**2, rel=0.1)


def test_warm_up_runs():
    from misi_render import warm_up

    warm_up()


def test_concurrent_python_threads_give_the_same_images(sample):
    from concurrent.futures import ThreadPoolExecutor

    views = ("front", "left", "top", "back")
    serial = [v.png_bytes() for v in render_views(sample, views, options=ro(192))]
    with ThreadPoolExecutor(4) as pool:
        threaded = list(pool.map(lambda name: render_views(sample, (name,), options=ro(192))[0].png_bytes(), views))
    assert threaded == serial
