"""Atom colours and radii (spec section 2).

Colours follow the spec exactly: O red and N blue (their Jmol CPK colours), ligand carbon grey
(Jmol's carbon, ``#909090``), pocket carbon alternating ``#BF99F2`` (purple, ``res_index`` even)
and ``#F2B366`` (orange, ``res_index`` odd), every other element its Jmol CPK colour, unknown
elements Jmol's fallback pink.  Because ``res_index`` survives slicing, a residue keeps its carbon
colour in any sub-complex.

Radii: van der Waals radii (Å, :data:`misi_geom.elements.VDW_RADIUS`, the project's one table).
Ball-and-stick draws pocket atoms at :data:`BALL_SCALE` (0.25) and ligand atoms at :data:`LIGAND_BALL_SCALE` (0.30) times that
radius, and bonds as sticks of radius :data:`STICK_RADIUS` (0.15 Å; ligand-ligand bonds
:data:`LIGAND_STICK_RADIUS`, 0.20 Å), so the ligand stands out inside its pocket; every stick is
thinner than the balls it joins.  Space-filling draws the full radius.

>>> import numpy as np
>>> from misi_geom import Complex
>>> c = Complex.from_atoms(np.zeros((3, 3)), ["C", "C", "O"], res_index=[0, 1, 1], is_ligand=False)
>>> [hex_color(rgb) for rgb in atom_colors(c)]
['#bf99f2', '#f2b366', '#ff0d0d']
"""

from __future__ import annotations

import numpy as np

from misi_geom import Complex
from misi_geom.elements import DEFAULT_VDW_RADIUS, VDW_RADIUS

__all__ = [
    "BALL_SCALE",
    "LIGAND_BALL_SCALE",
    "LIGAND_STICK_RADIUS",
    "STICK_RADIUS",
    "CARBON_EVEN",
    "CARBON_ODD",
    "LIGAND_CARBON",
    "JMOL_COLORS",
    "atom_colors",
    "atom_radii",
    "element_color",
    "hex_color",
    "stick_radii",
]

#: Pocket ball radius as a fraction of the van der Waals radius in ball-and-stick style.
BALL_SCALE = 0.25
#: Ligand ball radius as a fraction of the van der Waals radius in ball-and-stick style.
LIGAND_BALL_SCALE = 0.30
#: Stick (bond cylinder) radius in Å; below every ball radius, so stick ends hide inside balls.
STICK_RADIUS = 0.15
#: Stick radius in Å for bonds between two ligand atoms.
LIGAND_STICK_RADIUS = 0.20

CARBON_EVEN = "#BF99F2"
CARBON_ODD = "#F2B366"
LIGAND_CARBON = "#909090"
_UNKNOWN = "#FF1493"

#: Jmol CPK colours by element symbol.
JMOL_COLORS: dict[str, str] = {
    "H": "#FFFFFF", "He": "#D9FFFF", "Li": "#CC80FF", "Be": "#C2FF00", "B": "#FFB5B5",
    "C": "#909090", "N": "#3050F8", "O": "#FF0D0D", "F": "#90E050", "Ne": "#B3E3F5",
    "Na": "#AB5CF2", "Mg": "#8AFF00", "Al": "#BFA6A6", "Si": "#F0C8A0", "P": "#FF8000",
    "S": "#FFFF30", "Cl": "#1FF01F", "Ar": "#80D1E3", "K": "#8F40D4", "Ca": "#3DFF00",
    "Sc": "#E6E6E6", "Ti": "#BFC2C7", "V": "#A6A6AB", "Cr": "#8A99C7", "Mn": "#9C7AC7",
    "Fe": "#E06633", "Co": "#F090A0", "Ni": "#50D050", "Cu": "#C88033", "Zn": "#7D80B0",
    "Ga": "#C28F8F", "Ge": "#668F8F", "As": "#BD80E3", "Se": "#FFA100", "Br": "#A62929",
    "Kr": "#5CB8D1", "Rb": "#702EB0", "Sr": "#00FF00", "Y": "#94FFFF", "Zr": "#94E0E0",
    "Nb": "#73C2C9", "Mo": "#54B5B5", "Tc": "#3B9E9E", "Ru": "#248F8F", "Rh": "#0A7D8C",
    "Pd": "#006985", "Ag": "#C0C0C0", "Cd": "#FFD98F", "In": "#A67573", "Sn": "#668080",
    "Sb": "#9E63B5", "Te": "#D47A00", "I": "#940094", "Xe": "#429EB0", "Cs": "#57178F",
    "Ba": "#00C900", "La": "#70D4FF", "Gd": "#45FFC7", "Yb": "#00BF38", "Lu": "#00AB24",
    "Hf": "#4DC2FF", "Ta": "#4DA6FF", "W": "#2194D6", "Re": "#267DAB", "Os": "#266696",
    "Ir": "#175487", "Pt": "#D0D0E0", "Au": "#FFD123", "Hg": "#B8B8D0", "Tl": "#A6544D",
    "Pb": "#575961", "Bi": "#9E4FB5", "U": "#008FFF",
}  # fmt: skip



def _rgb(hex_code: str) -> tuple[float, float, float]:
    h = hex_code.lstrip("#")
    return (int(h[0:2], 16) / 255.0, int(h[2:4], 16) / 255.0, int(h[4:6], 16) / 255.0)


def hex_color(rgb) -> str:
    """``(r, g, b)`` floats in [0, 1] -> ``"#rrggbb"``."""
    return "#" + "".join(f"{int(round(float(v) * 255)):02x}" for v in rgb)


def _canonical(symbol: str) -> str:
    s = str(symbol).strip()
    return s[:1].upper() + s[1:].lower()


def element_color(symbol: str) -> tuple[float, float, float]:
    """Jmol CPK colour of an element as ``(r, g, b)`` floats in [0, 1]."""
    return _rgb(JMOL_COLORS.get(_canonical(symbol), _UNKNOWN))


def atom_colors(c: Complex) -> np.ndarray:
    """Per-atom colours of a complex.

    Returns
    -------
    colors : ndarray, dtype=float64, shape=(N, 3)
        RGB in [0, 1], following the scheme in the module docstring.
    """
    uniq, inv = np.unique(c.element, return_inverse=True)
    out = np.array([element_color(e) for e in uniq], dtype=np.float64).reshape(-1, 3)[inv.reshape(-1)]
    carbon = np.array([_canonical(e) == "C" for e in uniq], dtype=bool)[inv.reshape(-1)]
    pocket_c = carbon & ~c.is_ligand
    even = (c.res_index % 2) == 0
    out[pocket_c & even] = _rgb(CARBON_EVEN)
    out[pocket_c & ~even] = _rgb(CARBON_ODD)
    out[carbon & c.is_ligand] = _rgb(LIGAND_CARBON)
    return out


def atom_radii(c: Complex, style: str = "ball-and-stick") -> np.ndarray:
    """Per-atom drawing radii in Å.

    Returns
    -------
    radii : ndarray, dtype=float64, shape=(N,)
        ``BALL_SCALE * vdW`` (ligand: ``LIGAND_BALL_SCALE * vdW``) for ``"ball-and-stick"``, the
        full vdW radius for ``"spacefill"``.
    """
    uniq, inv = np.unique(c.element, return_inverse=True)
    vdw = np.array([VDW_RADIUS.get(_canonical(e), DEFAULT_VDW_RADIUS) for e in uniq], dtype=np.float64)[inv.reshape(-1)]
    if style == "spacefill":
        return vdw
    if style == "ball-and-stick":
        return vdw * np.where(c.is_ligand, LIGAND_BALL_SCALE, BALL_SCALE)
    raise ValueError(f"style must be 'ball-and-stick' or 'spacefill', got {style!r}")


def stick_radii(c: Complex, bonds: np.ndarray) -> np.ndarray:
    """Stick radius in Å per bond (rows of ``bonds``, atom index pairs), float64 (B,)."""
    b = np.asarray(bonds, dtype=np.int64).reshape(-1, 2)
    both_ligand = c.is_ligand[b[:, 0]] & c.is_ligand[b[:, 1]]
    return np.where(both_ligand, LIGAND_STICK_RADIUS, STICK_RADIUS).astype(np.float64)
