"""Colours, labels and PNG output."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from misi_geom import CameraFrame, Complex
from misi_render import RenderOptions, atom_colors, encode_png, render_views, save_png
from misi_render.labels import font_path, font_px
from misi_render.palette import hex_color

from .reference_labels import Label, draw_labels, label_requests, place_labels
from .scenes import load_sample


# --- colours ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "element, is_ligand, res_index, expected",
    [
        ("O", False, 0, "#ff0d0d"),
        ("O", True, 7, "#ff0d0d"),
        ("N", False, 3, "#3050f8"),
        ("C", True, 8, "#909090"),
        ("C", False, 0, "#bf99f2"),
        ("C", False, 1, "#f2b366"),
        ("C", False, 14, "#bf99f2"),
        ("S", False, 2, "#ffff30"),
        ("Zn", False, 5, "#7d80b0"),
        ("CL", True, 8, "#1ff01f"),  # upper-case symbols from some files
        ("Xx", False, 0, "#ff1493"),  # unknown element: Jmol's fallback
    ],
)
def test_atom_colours(element, is_ligand, res_index, expected):
    c = Complex.from_atoms([[0.0, 0, 0]], [element], is_ligand=is_ligand, res_index=[res_index])
    assert hex_color(atom_colors(c)[0]) == expected


def test_pocket_carbon_colours_survive_slicing():
    c = load_sample("2pyy")
    full = atom_colors(c)
    keep = np.flatnonzero(c.res_index % 3 == 1)  # every third residue: neighbours in the slice change
    assert np.array_equal(atom_colors(c[keep]), full[keep])


# --- labels -----------------------------------------------------------------------------------
def test_font_and_licence_are_shipped():
    path = Path(font_path())
    assert path.name == "DejaVuSans-Bold.ttf" and path.stat().st_size > 100_000
    assert "Bitstream" in (path.parent / "LICENSE-DejaVu.txt").read_text()


def test_font_size_scales_with_image_size():
    assert font_px(512) < font_px(1024) < font_px(2048)
    assert font_px(1024, "atom") < font_px(1024, "residue")
    assert font_px(64) >= 8


def test_labels_only_for_visible_atoms_and_the_right_texts():
    c = load_sample("2w9r")
    (v,) = render_views(c, options=RenderOptions(size=512, residue_labels=False, ligand_labels=False))
    radius = np.full(len(c), 3.0)
    res_idx = int(c.res_index[~c.is_ligand][0])
    reqs = label_requests(c, v.screen, v.visible, radius, 512, atom_label_residue=res_idx)
    texts = [r.text for r in reqs]
    residue = c[~c.is_ligand].residues()
    for res in residue:
        shown = v.visible[res.start : res.stop].any()
        assert (res.label in texts) == shown
    lig_visible = np.flatnonzero(v.visible & c.is_ligand)
    anchors = {(round(r.anchor[0], 6), round(r.anchor[1], 6)) for r in reqs}
    for i in np.flatnonzero(~v.visible):
        assert (round(v.screen.x_px[i], 6), round(v.screen.y_px[i], 6)) not in anchors
    # chosen-residue atom names come first, then ligand atom names
    n_res_atoms = int((v.visible & (c.res_index == res_idx)).sum())
    assert texts[:n_res_atoms] == list(c.atom_name[v.visible & (c.res_index == res_idx)])
    assert len(lig_visible) > 0 and texts[n_res_atoms] == c.atom_name[lig_visible[0]]


def test_label_text_has_insertion_code():
    c = Complex.from_atoms([[0.0, 0, 0]], ["C"], res_name="GLY", res_id=184, ins_code="A", is_ligand=False)
    (v,) = render_views(c, options=RenderOptions(size=64, residue_labels=False))
    reqs = label_requests(c, v.screen, v.visible, np.full(1, 2.0), 64)
    assert [r.text for r in reqs] == ["GLY 184A"]


def test_placement_keeps_labels_inside_and_apart():
    size = 256
    labels = [Label(f"ARG {i}", (128.0 + (i % 3), 128.0 + (i // 3)), 4.0, 12, (255, 255, 255)) for i in range(9)]
    labels.append(Label("EDGE 1", (255.0, 0.0), 4.0, 12, (255, 255, 255)))
    corners = place_labels(labels, size)
    img = draw_labels(np.zeros((size, size, 3), np.uint8), labels, corners)
    from misi_render.labels import ink_box

    boxes = []
    for lab, (x, y) in zip(labels, corners):
        b = ink_box(lab.text, lab.font_px)
        w, h = b[2] - b[0], b[3] - b[1]
        assert 0 <= x and x + w <= size and 0 <= y and y + h <= size
        boxes.append((x, y, x + w, y + h))
    for i in range(len(boxes)):
        for j in range(i):
            a, b = boxes[i], boxes[j]
            assert min(a[2], b[2]) <= max(a[0], b[0]) or min(a[3], b[3]) <= max(a[1], b[1]), (i, j)
    assert img.max() == 255  # white text with a dark outline
    assert (img.max(axis=2) > 0).sum() > 200


def test_labels_avoid_obstacles_when_possible():
    lab = [Label("LYS 12", (100.0, 100.0), 5.0, 12, (255, 255, 255))]
    free = place_labels(lab, 256)
    blocked = place_labels(lab, 256, obstacles=np.array([[free[0, 0] + 5, free[0, 1] + 5]]))
    assert not np.array_equal(free, blocked)


def test_labels_change_the_image_and_can_be_turned_off():
    c = load_sample("2pyy")
    plain, labelled = (
        render_views(c, options=RenderOptions(size=256, residue_labels=flag, ligand_labels=flag))[0].image for flag in (False, True)
    )
    assert (plain != labelled).any(axis=2).sum() > 500


def test_hidden_atom_gets_no_label():
    # atom 1 sits right behind atom 0: only atom 0 is labelled
    c = Complex.from_atoms([[0.0, 0, 2.0], [0.0, 0, 0.0]], ["O", "C"], atom_name=["OFRONT", "CBACK"])
    frame = CameraFrame(center=np.zeros(3), radius=8.0)
    (v,) = render_views(c, frame=frame, options=RenderOptions(size=128, style="spacefill"))
    reqs = label_requests(c, v.screen, v.visible, np.full(2, 10.0), 128)
    assert [r.text for r in reqs] == ["OFRONT"]


# --- PNG --------------------------------------------------------------------------------------
@pytest.mark.parametrize("shape", [(1, 1, 3), (7, 13, 3), (64, 64, 3)])
def test_png_round_trip(shape):
    a = np.random.default_rng(0).integers(0, 256, shape).astype(np.uint8)
    data = encode_png(a)
    assert data == encode_png(a)
    assert np.array_equal(np.asarray(Image.open(io.BytesIO(data)).convert("RGB")), a)


def test_png_rejects_wrong_images():
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((4, 4, 3), np.float32))
    with pytest.raises(ValueError, match="uint8"):
        encode_png(np.zeros((4, 4), np.uint8))


def test_save_png_is_atomic_and_complete(tmp_path):
    (v,) = render_views(Complex.from_atoms([[0.0, 0, 0]], ["N"]), options=RenderOptions(size=32))
    path = save_png(v.image, tmp_path / "a.png")
    assert path.read_bytes() == v.png_bytes() == encode_png(v.image)
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]  # no temporary files left behind
    save_png(v.image, tmp_path / "a.png")  # overwrite in place
    assert [p.name for p in tmp_path.iterdir()] == ["a.png"]
