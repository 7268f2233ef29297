"""T4 and T9 answer text from the pocket–ligand H-bond pairs misi_geom finds.

The geometry layer (:mod:`misi_geom.hbonds`) returns bonds and ordered (pocket atom, ligand atom)
pairs; the task answers are written here.  :func:`t9_bonds` (``ASN 460 ND2 A, O2; ...``) and
:func:`t4_bonds` (``ARG NH2, O1B; ...``) list each pair once in :func:`misi_geom.hbond_pairs`
order, written by the answer vocabulary (:mod:`misi_tasks.definitions.answers`).  A blank chain id is
written ``?`` (ChimeraX's ``/?``).

>>> import numpy as np
>>> from misi_geom import Complex, find_hbonds
>>> pocket = Complex.from_atoms([[0, 0, 0], [0.96, 0, 0], [-0.24, 0.93, 0]], ["O", "H", "H"],
...                             ["OG", "HG", "HB"], res_name="SER", res_id=7, chain_id="",
...                             is_ligand=False, bonds=[(0, 1), (0, 2)])
>>> lig = Complex.from_atoms([[2.8, 0, 0], [3.3, 0.8, 0.3]], ["O", "C"], ["O1", "C1"], bonds=[(0, 1)],
...                          bond_order=[2])
>>> c = Complex.concatenate([pocket, lig])
>>> t9_bonds(find_hbonds(c), c).bonds, t4_bonds(find_hbonds(c), c).bonds
(('SER 7 OG ?, O1',), ('SER OG, O1',))
"""

from __future__ import annotations

from typing import Sequence

from misi_geom import Complex, HBond, hbond_pairs
from misi_geom.residues import residue_number
from misi_tasks.definitions.answers import BondList, bond_t4, bond_t9

__all__ = ["t4_bonds", "t9_bonds"]


def t9_bonds(bonds: Sequence[HBond], c: Complex) -> BondList:
    """T9 answer: every pocket–ligand bond as :func:`~misi_tasks.definitions.answers.bond_t9` text."""
    return BondList(tuple(bond_t9(str(c.res_name[i]), residue_number(c, i), str(c.atom_name[i]),
                                  str(c.chain_id[i]), str(c.atom_name[j]))
                          for i, j in hbond_pairs(bonds, c)), with_yes=False)


def t4_bonds(bonds: Sequence[HBond], c: Complex) -> BondList:
    """T4 answer (``No`` or ``Yes: ...``) for the bonds of one residue (e.g. filtered by ``c.res_index``)."""
    return BondList(tuple(bond_t4(str(c.res_name[i]), str(c.atom_name[i]), str(c.atom_name[j]))
                          for i, j in hbond_pairs(bonds, c)), with_yes=True)

