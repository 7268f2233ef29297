"""The audit's own geometry and pixel tests, against the spec and against misi's independent code.

The audit must not reuse the generator's geometry; these tests check that the two independent
implementations agree (motions, views, projection), and that the audit's pieces behave (occlusion,
symmetric RMSD, colour classes)."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from misi_geom import CameraFrame, view_rotation
from misi_render.screen import project
from misi_tasks.audit.geometry import Camera, apply, motion_of, symmetric_rmsd, view_matrix
from misi_tasks.audit.pixels import Pixels, atom_classes, seen, unhidden
from misi_tasks.definitions.answers import Move, Roll
from misi_tasks.tasks.commands import sequence_motion

command = st.one_of(
    st.builds(lambda a, d: Move(a, d), st.sampled_from("xyz"), st.integers(-9, 9).filter(bool)),
    st.builds(lambda a, v: Roll(a, v), st.sampled_from("xyz"), st.integers(-6, 6).filter(bool).map(lambda k: 15 * k)),
)
points = st.lists(st.tuples(*[st.floats(-30, 30)] * 3), min_size=1, max_size=8).map(np.array)


@given(st.lists(command, min_size=1, max_size=4), points, st.tuples(*[st.floats(-5, 5)] * 3))
def test_motions_agree_with_the_generators(cmds, pts, centre):
    text = ", ".join(str(c) for c in cmds)
    mine = apply(motion_of(text, centre), pts)
    theirs = sequence_motion(cmds, center=np.array(centre)).apply(pts)
    np.testing.assert_allclose(mine, theirs, atol=1e-9)


@given(st.sampled_from("xyz"), st.integers(-12, 12).map(lambda k: 15 * k), points)
def test_a_roll_and_its_inverse_cancel_and_keep_lengths(axis, angle, pts):
    m = motion_of(f"roll {axis} {angle}")
    r = m[:3, :3]
    np.testing.assert_allclose(r @ r.T, np.eye(3), atol=1e-12)
    assert abs(np.linalg.det(r) - 1) < 1e-12
    back = apply(motion_of(f"roll {axis} {-angle}"), apply(m, pts))
    np.testing.assert_allclose(back, pts, atol=1e-9)


def test_views_show_the_faces_the_spec_names():
    toward_viewer = {"front": (0, 0, 1), "left": (-1, 0, 0), "top": (0, 1, 0), "back": (0, 0, -1),
                     "right": (1, 0, 0), "bottom": (0, -1, 0)}
    for view, face in toward_viewer.items():
        np.testing.assert_allclose(view_matrix(view) @ np.array(face, float), [0, 0, 1], atol=1e-12)
        np.testing.assert_allclose(view_matrix(view), view_rotation(view), atol=1e-12)


@given(points, st.floats(5, 30), st.sampled_from(["orthographic", "perspective"]), st.floats(0, 0.9),
       st.sampled_from([64, 256, 1024]))
def test_projection_agrees_with_the_renderers(pts, radius, projection, zoom_share, size):
    distance = CameraFrame(center=np.zeros(3), radius=radius).distance
    zoom = zoom_share * (distance - 2.0) if projection == "orthographic" else 0.0  # never at the camera
    frame = CameraFrame(center=np.zeros(3), radius=radius, zoom_z=zoom)
    rec = {"center": [0, 0, 0], "distance": frame.distance, "scale_px_per_A": size / (2 * radius), "size": size,
           "projection": projection, "zoom_z": frame.zoom_z}
    pts = pts * np.array([1, 1, 0.5])  # in front of the camera
    x, y, k = Camera.from_record(rec).pixels(pts)
    s = project(frame, pts, size, projection)
    np.testing.assert_allclose(x, s.x_px, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(y, s.y_px, rtol=1e-9, atol=1e-7)
    np.testing.assert_allclose(k, s.px_per_A, rtol=1e-9)


@given(st.permutations(range(6)), st.lists(st.tuples(*[st.floats(-5, 5)] * 3), min_size=6, max_size=6))
def test_symmetric_rmsd_ignores_which_twin_is_which(perm, xyz):
    a = np.array(xyz)
    el = np.array(["O", "O", "O", "N", "N", "N"])
    same = [p for p in perm if p < 3] + [p for p in perm if p >= 3]  # permute within each element
    assert symmetric_rmsd(a, a[same], el) < 1e-9
    assert symmetric_rmsd(a + [0.0, 0.0, 2.0], a, el) <= 2.0 + 1e-9


def test_occlusion_is_by_the_nearer_ball_only():
    x = np.array([10.0, 10.5, 40.0])
    y = np.array([10.0, 10.0, 10.0])
    depth = np.array([0.0, 20.0, 0.0])  # atom 1 sits in front of atom 0; atom 2 stands apart
    r = np.array([5.0, 5.0, 5.0])
    assert unhidden(x, y, depth, r).tolist() == [False, True, True]
    assert unhidden(x, y, np.array([20.0, 0.0, 0.0]), r).tolist() == [True, False, True]


def test_colour_classes_follow_the_spec_palette():
    img = np.zeros((1, 6, 3), np.uint8)
    shade = 0.6  # lighting scales a colour; the class must survive it
    for i, hexcode in enumerate(["FF0D0D", "3050F8", "909090", "BF99F2", "F2B366", "FFFF30"]):
        img[0, i] = [round(int(hexcode[j:j + 2], 16) * shade) for j in (0, 2, 4)]
    cls = atom_classes(["O", "N", "C", "C", "C", "S"], [0, 0, 1, 0, 0, 0], [0, 0, 0, 2, 3, 0])
    x = np.arange(6) + 0.5
    assert seen(Pixels(img), x, np.full(6, 0.5), cls).all()
    assert not seen(Pixels(img), x, np.full(6, 0.5), np.roll(cls, 1)).any()


def test_shard_cache_keys_by_exact_values():
    """Views and images are shared only when their values are equal, and only within one cache."""
    import io

    from PIL import Image

    from misi_tasks.audit.views import AuditCache, visible_atoms

    cam = Camera(np.zeros(3), 40.0, 10.0, 64, "orthographic")
    pts, radii = np.array([[0.0, 0.0, 0.0], [0.1, 0.0, -3.0], [1.5, 1.5, 0.0]]), np.full(3, 1.0)
    cache = AuditCache()
    first = cache.visible(cam, pts, radii)
    assert cache.visible(cam, pts.copy(), radii.copy()) is first  # equal values: one entry
    moved = pts.copy()
    moved[1, 2] = 3.0  # now in front of atom 0, which it hides
    other = cache.visible(cam, moved, radii)
    assert other is not first
    assert first[2].tolist() == [True, False, True] and other[2].tolist() == [False, True, True]
    assert all((a == b).all() for a, b in zip(other, visible_atoms(cam, moved, radii)))
    assert AuditCache().visible(cam, pts, radii) is not first  # each shard owns its own

    def png(colour):
        buf = io.BytesIO()
        Image.new("RGB", (8, 8), colour).save(buf, format="PNG")
        return buf.getvalue()

    red, blue = png((255, 13, 13)), png((48, 80, 248))
    assert cache.pixels(red) is cache.pixels(bytes(bytearray(red)))
    assert cache.pixels(red).classes[0, 0] != cache.pixels(blue).classes[0, 0]
    small = AuditCache(max_images=1)
    a = small.pixels(red)
    small.pixels(blue)
    assert small.pixels(red) is not a  # the oldest image was dropped, then decoded again


def test_lazy_pixels_classify_as_the_full_image():
    """misi's PNGs are decoded as their lit band and classified where read: every read (points, strided
    grids, the full map) equals classifying the whole image decoded by PIL."""
    import io

    from PIL import Image

    from misi_render.png import encode_png
    from misi_tasks.audit.pixels import _fast_pixels, class_map, classify

    rng = np.random.default_rng(3)
    img = np.zeros((96, 96, 3), np.uint8)
    img[20:50, 30:70] = rng.integers(0, 256, (30, 40, 3))  # a lit band; the rows below it are black
    img[60:70, 10:20] = (255, 13, 13)  # and a second patch: the band spans both
    data = encode_png(img)
    assert _fast_pixels(data) is not None  # misi's PNGs take the fast path, not PIL
    ref = classify(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")))
    assert (ref == classify(img)).all()
    ys, xs = rng.integers(0, 96, (40, 7)), rng.integers(0, 96, (40, 7))
    assert (class_map(data).at(ys, xs) == ref[ys, xs]).all()
    for stride in (1, 3, 4):
        assert (class_map(data).strided(stride) == ref[stride // 2::stride, stride // 2::stride]).all()
    assert (class_map(data).classes == ref).all()
    assert (class_map(encode_png(np.zeros((8, 8, 3), np.uint8))).classes == -1).all()


@given(st.integers(1, 70), st.integers(1, 9), st.integers(0, 2**32 - 1))
def test_undoing_the_up_filter_is_a_running_sum_modulo_256(rows, cols, seed):
    from misi_tasks.audit.pixels import _up_sum

    a = np.random.default_rng(seed).integers(0, 256, (rows, cols), dtype=np.uint8)
    want = a.copy()
    for i in range(1, rows):
        want[i] = want[i - 1] + a[i]  # uint8 wraps
    assert (_up_sum(a) == want).all()
