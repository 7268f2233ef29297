"""Pocket–ligand hydrogen bonds, computed the way ChimeraX ``hbonds`` defines them.

The detector in layers, one module each:

=======================  ===================================================================
``typing``               donors and acceptors with their geometric classes (Mills & Dean 1996):
                         residue templates for the pocket, IDATM chemistry for the ligand
                         (helpers ``_idatm``, ``_rings``, ``_groups``)
``limits``               each criterion family's limits as a named frozen dataclass, every
                         field declared a distance or an angle; ``relaxed()`` applies the slop
``geometry``             pure primitives: vectorised angles, ideal H / lone-pair positions,
                         the vectorised (k, 3) donor/H/acceptor measurement
``criteria``             the acceptor-side and donor-side tests of every criterion family,
                         vectorised over (k,) donor/acceptor rows: an int8 code per row naming
                         the first failing test (kernels in ``_kernels``; per-atom neighbour,
                         hydrogen, lone-pair and tau tables in ``_context``)
``search``               :func:`find_hbonds` (input checks, KD-tree pruning, the tests) and its
                         results: :class:`HBond`, :func:`hbond_pairs`, :func:`bonded_pairs`
``explain``              :func:`explain`: why one atom pair passed or failed, test by test
=======================  ===================================================================
"""

from misi_geom.hbonds.explain import DirectionVerdict, PairVerdict, explain
from misi_geom.hbonds.search import ANGLE_SLOP, DIST_SLOP, HBond, bonded_pairs, find_hbonds, hbond_pairs
from misi_geom.hbonds.donor_acceptor import AcceptorClass, DonorClass, HBondTyping, assign_hbond_types

__all__ = [
    "ANGLE_SLOP",
    "DIST_SLOP",
    "AcceptorClass",
    "DirectionVerdict",
    "DonorClass",
    "HBond",
    "HBondTyping",
    "PairVerdict",
    "assign_hbond_types",
    "bonded_pairs",
    "explain",
    "find_hbonds",
    "hbond_pairs",
]
