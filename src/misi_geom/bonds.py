"""Covalent bonds of pocket residues from covalent radii.

Two atoms are bonded when their distance is below the sum of their covalent radii plus
``tolerance`` (0.45 Å by default, as common in structure viewers) and above ``min_distance``,
and they belong to the same residue, or form a peptide bond (C of one residue to N of another) or a
disulfide (SG–SG).  Metal ions are never bonded this way (their contacts are coordination, not
covalent bonds), nor are two hydrogens.

>>> import numpy as np
>>> from misi_geom.complex import Complex
>>> c = Complex.from_atoms([[0, 0, 0], [1.5, 0, 0], [3.0, 0, 0]], ["C", "C", "C"], res_name="ALA",
...                        is_ligand=False)
>>> covalent_bonds(c).tolist()
[[0, 1], [1, 2]]
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from misi_geom.complex import Complex
from misi_geom.elements import METALS, covalent_radii

__all__ = ["covalent_bonds", "DEFAULT_BOND_TOLERANCE"]

#: Å added to the sum of covalent radii.
DEFAULT_BOND_TOLERANCE = 0.45
_MAX_COVALENT = 2.6  # Å, longest pair we ever consider (S–S, P–S with tolerance)


def covalent_bonds(
    c: Complex, *, tolerance: float = DEFAULT_BOND_TOLERANCE, min_distance: float = 0.4
) -> np.ndarray:
    """Bonds (int32, shape (B, 2), i < j, sorted) between atoms of ``c`` by the rule above."""
    if len(c) < 2:
        return np.zeros((0, 2), dtype=np.int32)
    pairs = cKDTree(c.coord).query_pairs(_MAX_COVALENT, output_type="ndarray")
    if len(pairs) == 0:
        return np.zeros((0, 2), dtype=np.int32)
    i, j = pairs[:, 0], pairs[:, 1]
    rad = covalent_radii(c.element)
    d = np.linalg.norm(c.coord[i] - c.coord[j], axis=1)
    ok = (d < rad[i] + rad[j] + tolerance) & (d > min_distance)
    ok &= ~(c.is_hydrogen[i] & c.is_hydrogen[j])
    metal = np.isin(c.element, list(METALS))
    ok &= ~(metal[i] | metal[j])
    same_res = c.res_index[i] == c.res_index[j]
    name_i, name_j = c.atom_name[i], c.atom_name[j]
    peptide = ((name_i == "C") & (name_j == "N")) | ((name_i == "N") & (name_j == "C"))
    disulfide = (name_i == "SG") & (name_j == "SG")
    ok &= same_res | peptide | disulfide
    out = np.sort(pairs[ok], axis=1).astype(np.int32)
    return out[np.lexsort((out[:, 1], out[:, 0]))]
