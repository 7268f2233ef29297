"""Per-element data: covalent and van der Waals radii (Å) and the metal set.

Covalent radii: Cordero et al. (2008); van der Waals radii: Bondi (1964) with Alvarez (2013)
for elements Bondi lacks.  Values are looked up by capitalised symbol ("C", "Zn").
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "COVALENT_RADIUS",
    "DEFAULT_VDW_RADIUS",
    "VDW_RADIUS",
    "METALS",
    "KNOWN_ELEMENTS",
    "normalize_element",
    "covalent_radii",
]

COVALENT_RADIUS: dict[str, float] = {
    "H": 0.31, "D": 0.31, "He": 0.28, "Li": 1.28, "Be": 0.96, "B": 0.84, "C": 0.76, "N": 0.71,
    "O": 0.66, "F": 0.57, "Ne": 0.58, "Na": 1.66, "Mg": 1.41, "Al": 1.21, "Si": 1.11, "P": 1.07,
    "S": 1.05, "Cl": 1.02, "Ar": 1.06, "K": 2.03, "Ca": 1.76, "Sc": 1.70, "Ti": 1.60, "V": 1.53,
    "Cr": 1.39, "Mn": 1.39, "Fe": 1.32, "Co": 1.26, "Ni": 1.24, "Cu": 1.32, "Zn": 1.22, "Ga": 1.22,
    "Ge": 1.20, "As": 1.19, "Se": 1.20, "Br": 1.20, "Kr": 1.16, "Rb": 2.20, "Sr": 1.95, "Y": 1.90,
    "Zr": 1.75, "Mo": 1.54, "Ru": 1.46, "Rh": 1.42, "Pd": 1.39, "Ag": 1.45, "Cd": 1.44, "In": 1.42,
    "Sn": 1.39, "Sb": 1.39, "Te": 1.38, "I": 1.39, "Xe": 1.40, "Cs": 2.44, "Ba": 2.15, "La": 2.07,
    "Gd": 1.96, "Yb": 1.87, "W": 1.62, "Re": 1.51, "Os": 1.44, "Ir": 1.41, "Pt": 1.36, "Au": 1.36,
    "Hg": 1.32, "Tl": 1.45, "Pb": 1.46, "Bi": 1.48, "U": 1.96,
}

#: Van der Waals radii in Å (Bondi / Alvarez values as Jmol tabulates them), the one table of the
#: whole project: the renderer's balls and any geometry that needs contact radii.  Elements not
#: listed use :data:`DEFAULT_VDW_RADIUS`.
VDW_RADIUS: dict[str, float] = {
    "H": 1.20, "D": 1.20, "He": 1.40, "Li": 1.82, "Be": 1.53, "B": 1.92, "C": 1.70, "N": 1.55,
    "O": 1.52, "F": 1.47, "Ne": 1.54, "Na": 2.27, "Mg": 1.73, "Al": 1.84, "Si": 2.10, "P": 1.80,
    "S": 1.80, "Cl": 1.75, "Ar": 1.88, "K": 2.75, "Ca": 2.31, "Sc": 2.15, "Ti": 2.11, "V": 2.07,
    "Cr": 2.06, "Mn": 1.97, "Fe": 1.94, "Co": 1.92, "Ni": 1.63, "Cu": 1.40, "Zn": 1.39, "Ga": 1.87,
    "Ge": 2.11, "As": 1.85, "Se": 1.90, "Br": 1.85, "Kr": 2.02, "Rb": 3.03, "Sr": 2.49, "Y": 2.32,
    "Zr": 2.23, "Mo": 2.17, "Ru": 2.13, "Rh": 2.10, "Pd": 1.63, "Ag": 1.72, "Cd": 1.58, "In": 1.93,
    "Sn": 2.17, "Sb": 2.06, "Te": 2.06, "I": 1.98, "Xe": 2.16, "Cs": 3.43, "Ba": 2.68, "La": 2.43,
    "Gd": 2.37, "Yb": 2.26, "W": 2.18, "Re": 2.16, "Os": 2.16, "Ir": 2.13, "Pt": 1.75, "Au": 1.66,
    "Hg": 1.55, "Tl": 1.96, "Pb": 2.02, "Bi": 2.07, "U": 1.86,
}
#: Van der Waals radius (Å) of an element :data:`VDW_RADIUS` does not list.
DEFAULT_VDW_RADIUS = 1.80

#: Metal and metal-ion elements, as ChimeraX lists them: kept in pockets, never bonded by the
#: covalent-radius rule (their contacts are coordination), never H-bond donors or acceptors.
METALS: frozenset[str] = frozenset(
    "Li Be Na Mg Al K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb "
    "Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po Fr Ra Ac "
    "Th Pa U Np Pu Am Cm Bk Cf Es".split()
)

KNOWN_ELEMENTS: frozenset[str] = frozenset(COVALENT_RADIUS)


def normalize_element(symbol: str) -> str:
    """``"ZN"`` / ``"zn"`` -> ``"Zn"``; returns ``""`` for blanks.

    >>> normalize_element("CL"), normalize_element(" n ")
    ('Cl', 'N')
    """
    s = symbol.strip()
    return s[:1].upper() + s[1:].lower()


def covalent_radii(elements: np.ndarray) -> np.ndarray:
    """Covalent radius (Å, float64) per element symbol; unknown elements get 0.77."""
    return np.array([COVALENT_RADIUS.get(str(e), 0.77) for e in elements], dtype=np.float64)
