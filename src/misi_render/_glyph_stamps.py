"""Label text put together from cached one-character stamps: Pillow's pixels, without its FreeType
stroker running for every new label.

Pillow draws a line of text (``ImageDraw.text`` -> ``FreeTypeFont.getmask2`` -> ``font_render`` in
``_imagingft.c``) one glyph at a time: every glyph is rendered on its own at a whole-pixel origin
(stroked with ``FT_Glyph_StrokeBorder`` when a stroke is asked for), placed at the pen position
rounded to a pixel (``PIXEL(x) = (x + 32) >> 6`` in 26.6 fixed point; the pen moves by each
glyph's advance, which the shaper has adjusted for kerning), and blended into the line's mask with
"over" (``t > 0 ? s + t * (255 - s) / 255 : s``, integer rounding).  A glyph's bitmap therefore
does not depend on the text around it, only its position does, so a label can be drawn from
stamps: each character drawn alone by Pillow (the same calls, the same font, size and stroke),
cached, and blended in at the pen position Pillow would use.  The positions come from
``FreeTypeFont.getlength`` (exact multiples of 1/64 px): a character's advance alone, and the
kerning of each pair as ``getlength(a + b) - getlength(a) - getlength(b)``, the adjustment Pillow's
documentation of ``getlength`` describes.

This holds when one character is one glyph and kerning works on pairs, which is the case for the
characters of :data:`STAMPED_CHARACTERS` in the bundled DejaVu Sans Bold (not for a lowercase
``f``, which starts the ligatures fi, fl, ff).  :func:`misi_render.labels.render_patch` uses the
stamps only for texts of those characters, and only at a font size where a set of probe texts
(kerned pairs, overlapping outlines, every kind of character) came out identical to Pillow's own
drawing in this process; otherwise it lets Pillow draw the text.  ``tests/render/test_glyph_stamps.py``
compares the two on every label of the bundled and dev complexes and on random strings.

Callers hold :data:`misi_render.labels.FREETYPE_LOCK` (FreeType faces are not thread-safe).
"""

from __future__ import annotations

import string

import numba as nb
import numpy as np
from PIL import Image, ImageDraw, ImageFont

__all__ = ["STAMPED_CHARACTERS", "stamped_masks"]

_JIT = dict(cache=True, nogil=True, error_model="numpy")

#: Characters a label can be stamped from: each is one glyph with pair kerning only.
STAMPED_CHARACTERS: frozenset[str] = frozenset(string.ascii_letters + string.digits + " _'-?*+#()[]") - {"f"}

#: (character, font px, stroke px) -> (stamp uint8 (h, w), x offset, y offset) from the pen origin
_STAMPS: dict[tuple[str, int, int], tuple[np.ndarray, int, int]] = {}
#: (text of one or two characters, font px) -> getlength in 1/64 px
_LENGTHS: dict[tuple[str, int], int] = {}


@nb.njit(**_JIT)
def _blend_stamp(target, stamp, x0, y0):
    """Blend ``stamp`` into ``target`` at column ``x0``, row ``y0`` (clipped) the way Pillow blends
    a glyph into a line of text: "over" in integer arithmetic, zero stamp pixels left out."""
    h, w = target.shape
    sh, sw = stamp.shape
    for r in range(max(0, -y0), min(sh, h - y0)):
        y = y0 + r
        for c in range(max(0, -x0), min(sw, w - x0)):
            s = np.int32(stamp[r, c])
            if s > 0:
                t = np.int32(target[y, x0 + c])
                if t > 0:
                    tmp = t * (255 - s) + 128
                    target[y, x0 + c] = min(255, s + (((tmp >> 8) + tmp) >> 8))
                else:
                    target[y, x0 + c] = s


def _stamp(ch: str, px: int, stroke: int, font: ImageFont.FreeTypeFont) -> tuple[np.ndarray, int, int]:
    """``ch`` alone as Pillow draws it (``stroke`` > 0: the outline pass), over the extent of its
    mask, and that extent's offset from the pen origin."""
    key = (ch, px, stroke)
    hit = _STAMPS.get(key)
    if hit is None:
        mask, (ox, oy) = font.getmask2(ch, "L", None, None, None, stroke, "la", 255, (0.0, 0.0), stroke_filled=True)
        image = Image.new("L", mask.size, 0)
        if stroke:
            ImageDraw.Draw(image).text((-ox, -oy), ch, font=font, fill=255, stroke_width=stroke, stroke_fill=255)
        else:
            ImageDraw.Draw(image).text((-ox, -oy), ch, font=font, fill=255)
        hit = _STAMPS[key] = (np.array(image, dtype=np.uint8).reshape(mask.size[1], mask.size[0]), ox, oy)
    return hit


def _length64(text: str, px: int, font: ImageFont.FreeTypeFont) -> int:
    key = (text, px)
    hit = _LENGTHS.get(key)
    if hit is None:
        hit = _LENGTHS[key] = round(64 * font.getlength(text))
    return hit


def stamped_masks(text: str, px: int, stroke: int, font: ImageFont.FreeTypeFont,
                  box: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The outline and fill masks (uint8, shape (h, w) of ``box``) of ``text`` drawn at
    ``(-box[0], -box[1])``, as ``ImageDraw.text`` draws them with and without a ``stroke`` px
    outline; ``text`` must be made of :data:`STAMPED_CHARACTERS` (the caller checks)."""
    w, h = max(1, box[2] - box[0]), max(1, box[3] - box[1])
    outline = np.zeros((h, w), dtype=np.uint8)
    fill = np.zeros((h, w), dtype=np.uint8)
    pen = 0  # 1/64 px
    prev = ""
    for ch in text:
        if prev:
            pen += _length64(prev + ch, px, font) - _length64(ch, px, font)  # prev's advance + the pair's kerning
        x = ((pen + 32) >> 6) - box[0]
        for target, stamp_px in ((outline, stroke), (fill, 0)):
            stamp, ox, oy = _stamp(ch, px, stamp_px, font)
            _blend_stamp(target, stamp, x + ox, oy - box[1])
        prev = ch
    return outline, fill
