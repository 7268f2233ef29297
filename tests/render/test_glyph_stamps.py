"""Labels stamped from cached characters (``misi_render._glyph_stamps``) are Pillow's pixels.

``render_patch`` puts a label together from one-character stamps instead of letting Pillow draw
the whole text; these tests compare the two masks byte for byte (outline pass and fill pass) on
every label the bundled complexes can show, at the font sizes of the common image sizes, and on
random texts and sizes, and check the cases the stamps must leave to Pillow.
"""

from __future__ import annotations

import string

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from misi_geom import residue_starts
from misi_geom.residues import atom_residue_label
from misi_render import labels as L
from misi_render._glyph_stamps import STAMPED_CHARACTERS, _blend_stamp

from .scenes import SAMPLE_IDS, load_sample

#: Font sizes of residue labels and atom names at 256, 384, 512, 1024 and 2048 px images.
SIZES = sorted({L.font_px(s, kind) for s in (256, 384, 512, 1024, 2048) for kind in ("residue", "atom")})


def _both(text: str, px: int) -> tuple[tuple[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]:
    box = L.ink_box(text, px)
    return L._stamped_masks(text, px, box), L._pillow_masks(text, px, box)


def _same(text: str, px: int) -> bool:
    (so, sf), (po, pf) = _both(text, px)
    return so.shape == po.shape and np.array_equal(so, po) and np.array_equal(sf, pf)


def _sample_label_texts() -> list[str]:
    texts: set[str] = set()
    for pdb_id in SAMPLE_IDS:
        c = load_sample(pdb_id)
        for i in residue_starts(c):
            texts.add(atom_residue_label(c, int(i), False))
            texts.add(atom_residue_label(c, int(i), True))
        texts.update(str(n) for n in L.unique_ligand_labels(c))
    return sorted(texts)


def test_every_sample_label_is_stamped_as_pillow_draws_it():
    texts = _sample_label_texts()
    assert len(texts) > 100
    stamped = [t for t in texts if STAMPED_CHARACTERS.issuperset(t)]
    assert len(stamped) >= 0.95 * len(texts)  # residue labels and atom names are stamped
    bad = [(px, t) for px in SIZES for t in stamped if not _same(t, px)]
    assert bad == []


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=sorted(STAMPED_CHARACTERS), min_size=1, max_size=12), st.integers(6, 40))
def test_random_texts_and_sizes_are_stamped_as_pillow_draws_them(text, px):
    assert _same(text, px)


@pytest.mark.parametrize("px", SIZES)
def test_the_probes_agree_at_the_common_sizes(px):
    # if they did not, every label would quietly go back to Pillow (correct, but 6x slower)
    assert L._stamps_agree(px)


def test_ligatures_are_left_to_pillow():
    # DejaVu Sans Bold draws "fi" as one glyph: stamping f and i apart would give other pixels,
    # which is why a lowercase f is not a stamped character
    assert "f" not in STAMPED_CHARACTERS
    assert not _same("fi", 17)
    for text in ("fi", "Cf1", "é1", "N\u00b0"):
        keep, paint = L.render_patch(text, 17, L.LIGAND_FILL)
        outline, fill = L._pillow_masks(text, 17, L.ink_box(text, 17))
        a_out, a_fill = outline.reshape(-1) / np.float32(255.0), fill.reshape(-1) / np.float32(255.0)
        assert np.array_equal(keep, 1.0 - np.maximum(a_out.astype(np.float32), a_fill.astype(np.float32)))


def test_render_patch_takes_the_stamped_pixels():
    text, px = "TYR 1021 A", 17
    keep, paint = L.render_patch(text, px, L.RESIDUE_FILL)
    outline, fill = L._pillow_masks(text, px, L.ink_box(text, px))
    a_out = np.asarray(outline, dtype=np.float32).reshape(-1) / 255.0
    a_fill = np.asarray(fill, dtype=np.float32).reshape(-1) / 255.0
    assert np.array_equal(keep, 1.0 - np.maximum(a_out, a_fill))
    assert np.array_equal(paint, a_fill[:, None] * np.asarray(L.RESIDUE_FILL, dtype=np.float32))


def _blend_reference(target: np.ndarray, stamp: np.ndarray, x0: int, y0: int) -> None:
    for r in range(stamp.shape[0]):
        for c in range(stamp.shape[1]):
            y, x, s = y0 + r, x0 + c, int(stamp[r, c])
            if 0 <= y < target.shape[0] and 0 <= x < target.shape[1] and s > 0:
                t = int(target[y, x])
                if t > 0:
                    tmp = t * (255 - s) + 128
                    target[y, x] = min(255, s + (((tmp >> 8) + tmp) >> 8))
                else:
                    target[y, x] = s


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(-8, 14), st.integers(-8, 14))
def test_blend_is_pillows_over_with_clipping(seed, x0, y0):
    rng = np.random.default_rng(seed)
    target = rng.integers(0, 256, size=(9, 11)).astype(np.uint8)
    target[rng.random(target.shape) < 0.4] = 0
    stamp = rng.integers(0, 256, size=(6, 7)).astype(np.uint8)
    stamp[rng.random(stamp.shape) < 0.3] = 0
    expected = target.copy()
    _blend_reference(expected, stamp, x0, y0)
    _blend_stamp(target, stamp, x0, y0)
    assert np.array_equal(target, expected)


def test_over_blend_of_full_ink_is_full_ink():
    target = np.array([[0, 1, 128, 255]], dtype=np.uint8)
    _blend_stamp(target, np.full((1, 4), 255, dtype=np.uint8), 0, 0)
    assert target.tolist() == [[255, 255, 255, 255]]
    assert set(string.ascii_uppercase + string.digits + " _'") <= STAMPED_CHARACTERS
