"""Label text, style and glyphs: what a label says, its colour and size, and its pixels.

Labels (spec section 2): each pocket residue ``"ASN 460"`` next to one of its visible atoms (with
the chain, ``"ASP 29 A"``, when the pocket spans more than one chain: :func:`pocket_has_chains`;
the text is :func:`misi_geom.residues.atom_residue_label`, the one prompts and answers use), each
visible ligand heavy atom by its atom name, and optionally every visible heavy atom of one chosen
residue by its atom name.  Only atoms flagged visible by the rasterizer get labels, so a label never
points at an atom hidden behind another one.

Ligand atom names are made unique by :func:`with_unique_ligand_labels` (rule:
:data:`LIGAND_LABEL_RULE`); the task layer applies it once to the complex it both draws and answers
from, so an answer never names an atom differently from its image.

Text is the bundled DejaVu Sans Bold, light coloured (:data:`RESIDUE_FILL`, :data:`LIGAND_FILL`,
:data:`ATOM_FILL`) with a black outline, sized in proportion to the image (:func:`font_px`; 17 px
residue labels and 14 px atom names at 1024 px); :func:`ink_box` and :func:`render_patch` give a
text's box and pixels.  Choosing, placing, dropping and drawing the labels of a view is
:func:`misi_render.view_labels.label_view`.
"""

from __future__ import annotations

import itertools
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from misi_geom import Complex
from misi_render._glyph_stamps import STAMPED_CHARACTERS, stamped_masks

__all__ = [
    "ATOM_FILL", "FREETYPE_LOCK", "LABEL_KINDS", "LIGAND_FILL", "LIGAND_LABEL_RULE", "PlacedLabel", "RESIDUE_FILL",
    "font_path", "font_px", "get_font", "ink_box", "pocket_has_chains", "render_patch", "unique_ligand_labels",
    "with_unique_ligand_labels",
]

#: How drawn ligand atoms are labelled (stated in the prompts).
LIGAND_LABEL_RULE = (
    "a name that the ligand file gives to more than one drawn atom is numbered in file order with an "
    "underscore (N_1, N_2, N_3)"
)


def unique_ligand_labels(c: Complex) -> np.ndarray:
    """Atom names with every drawn (heavy) ligand atom's name made unique.

    Rule (:data:`LIGAND_LABEL_RULE`): a name that is unique among the ligand's heavy atoms is kept;
    a name shared by k > 1 of them becomes ``<name>_1`` ... ``<name>_k`` in file order.  Should that
    collide with another name, or pass the 8-character limit, the name part is shortened and
    primes are appended until the label is unique (in the rare case that is not enough, the next
    free number is used).  Pocket atoms and hydrogens keep their names.

    Returns
    -------
    ndarray, dtype='<U8', shape=(N,)

    Examples
    --------
    >>> c = Complex.from_atoms([[0.0, 0, 0]] * 4, ["N", "C", "N", "O"], atom_name=["N", "CA", "N", "O1"],
    ...                        is_ligand=[True] * 4)
    >>> unique_ligand_labels(c).tolist()
    ['N_1', 'CA', 'N_2', 'O1']
    """
    names = np.array(c.atom_name, dtype="<U8", copy=True)
    rows = np.flatnonzero(c.is_ligand & ~c.is_hydrogen)
    counts: dict[str, int] = {}
    for i in rows:
        counts[str(names[i])] = counts.get(str(names[i]), 0) + 1
    taken = {str(names[i]) for i in rows if counts[str(names[i])] == 1}
    seen: dict[str, int] = {}
    for i in rows:
        name = str(names[i])
        if counts[name] == 1:
            continue
        seen[name] = seen.get(name, 0) + 1
        label = _free_label(name, seen[name], taken)
        taken.add(label)
        names[i] = label
    return names


def _free_label(name: str, number: int, taken: set[str]) -> str:
    """``<name>_<number>`` cut to 8 characters, else with primes, else with the next free number.

    Every candidate is distinct (its number and its count of trailing primes differ), and there
    are more candidates than ``taken`` holds, so this always ends.
    """
    for k in itertools.count(number):
        for primes in range(8 - len(f"_{k}") + 1):
            tail = f"_{k}" + "'" * primes
            label = name[: 8 - len(tail)] + tail
            if label not in taken:
                return label
    raise AssertionError("unreachable")  # pragma: no cover


def with_unique_ligand_labels(c: Complex) -> Complex:
    """``c`` with :func:`unique_ligand_labels` as its atom names (a copy; ``c`` is untouched)."""
    from dataclasses import replace

    return replace(c, atom_name=unique_ligand_labels(c))


def pocket_has_chains(c: Complex) -> bool:
    """Whether the pocket (non-ligand heavy atoms) spans more than one chain id."""
    pocket = ~c.is_ligand & ~c.is_hydrogen
    return len(np.unique(c.chain_id[pocket])) > 1


#: Text colours (RGB 0-255) of residue labels, ligand atom names and chosen-residue atom names.
RESIDUE_FILL = (255, 255, 255)
LIGAND_FILL = (255, 236, 140)
ATOM_FILL = (160, 232, 255)

_RESIDUE_FRACTION = 0.0165  # residue label height / image size
_ATOM_FRACTION = 0.0135  # atom-name label height / image size


#: What a :class:`PlacedLabel` names: a chosen residue's atom, a ligand atom, or a residue.
LABEL_KINDS = ("atom", "ligand", "residue")


@dataclass(frozen=True)
class PlacedLabel:
    """A drawn label: its text, whether it names a key atom, and its ink box (pixels, x0 <= x < x1).

    ``atom`` is the row of the atom it names (for a residue label, the atom it is anchored on) and
    ``kind`` one of :data:`LABEL_KINDS`; both are ``-1`` / ``""`` when unknown and are not
    compared.
    """

    text: str
    key: bool
    box: tuple[float, float, float, float]
    atom: int = field(default=-1, compare=False)
    kind: str = field(default="", compare=False)


def font_path() -> str:
    """Path of the bundled TrueType font (DejaVu Sans Bold, Bitstream Vera licence in ``fonts/``)."""
    return str(resources.files("misi_render").joinpath("fonts", "DejaVuSans-Bold.ttf"))


def font_px(size: int, kind: str = "residue") -> int:
    """Font size in pixels for an image of ``size`` pixels; ``kind`` is ``"residue"`` or ``"atom"``."""
    if kind == "residue":
        return max(8, int(round(size * _RESIDUE_FRACTION)))
    return max(7, int(round(size * _ATOM_FRACTION)))


@lru_cache(maxsize=32)
def get_font(px: int) -> ImageFont.FreeTypeFont:
    """The bundled font at ``px`` pixels (cached)."""
    return ImageFont.truetype(font_path(), int(px))


def _stroke(px: int) -> int:
    return max(1, int(round(px * 0.12)))


#: FreeType faces are not safe to use from two threads at once; every use of a font holds this.
FREETYPE_LOCK = threading.RLock()


@lru_cache(maxsize=8192)
def ink_box(text: str, px: int) -> tuple[int, int, int, int]:
    """The ink bounding box (left, top, right, bottom) of ``text`` at ``px`` with its outline."""
    with FREETYPE_LOCK:
        return get_font(px).getbbox(text, stroke_width=_stroke(px))


def _pillow_masks(text: str, px: int, b: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """The outline and fill masks (uint8, (h, w) of the ink box ``b``) of ``text``, drawn by Pillow."""
    size = (max(1, b[2] - b[0]), max(1, b[3] - b[1]))
    font, sw = get_font(px), _stroke(px)
    with FREETYPE_LOCK:
        outline = Image.new("L", size, 0)
        ImageDraw.Draw(outline).text((-b[0], -b[1]), text, font=font, fill=255, stroke_width=sw, stroke_fill=255)
        glyphs = Image.new("L", size, 0)
        ImageDraw.Draw(glyphs).text((-b[0], -b[1]), text, font=font, fill=255)
    return np.asarray(outline), np.asarray(glyphs)


#: Texts :func:`_stamps_agree` draws both ways before labels of a font size are stamped: kerned
#: pairs (AV, LT, TY, WA), outlines that overlap, digits, lower case, every punctuation mark allowed.
_STAMP_PROBES = ("ASN 460", "TYR 1021 A", "LYS 7", "AVA", "LT WAW", "C1'", "N_1", "O1B", "Cl1 Br2", "HOH-7?",
                 "(x*y+z) [#9]", "Tyr Val Trp")


@lru_cache(maxsize=64)
def _stamps_agree(px: int) -> bool:
    """Whether stamped text is byte-identical to Pillow's at ``px`` in this process (on
    :data:`_STAMP_PROBES`); False sends every label of that size to Pillow."""
    boxes = [ink_box(t, px) for t in _STAMP_PROBES]
    return all(np.array_equal(a, b) for t, box in zip(_STAMP_PROBES, boxes)
               for a, b in zip(_stamped_masks(t, px, box), _pillow_masks(t, px, box)))


def _stamped_masks(text: str, px: int, b: tuple[int, int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    with FREETYPE_LOCK:
        return stamped_masks(text, px, _stroke(px), get_font(px), b)


def render_patch(text: str, px: int, fill: tuple[int, int, int]) -> tuple[np.ndarray, np.ndarray]:
    """A label's pixels over its :func:`ink_box`: ``keep`` (h*w,) float32 = 1 - ink alpha and
    ``paint`` (h*w, 3) float32, the text colour times the glyph alpha (the outline is black).

    The text is put together from cached one-character stamps when it can be
    (:mod:`misi_render._glyph_stamps`: the same pixels, about 6x faster than Pillow drawing it
    whole); otherwise Pillow draws it.
    """
    b = ink_box(text, px)
    if text and STAMPED_CHARACTERS.issuperset(text) and _stamps_agree(px):
        outline, glyphs = _stamped_masks(text, px, b)
    else:
        outline, glyphs = _pillow_masks(text, px, b)
    a_out = np.asarray(outline, dtype=np.float32).reshape(-1) / 255.0
    a_fill = np.asarray(glyphs, dtype=np.float32).reshape(-1) / 255.0
    keep = 1.0 - np.maximum(a_out, a_fill)
    paint = a_fill[:, None] * np.asarray(fill, dtype=np.float32)
    return keep, paint
