"""Pocket–ligand interactions, each type one declaration (PLIP's definitions; H-bonds ChimeraX's).

==================  ==============================================================================
``base``            :class:`Interaction` (roles, named :class:`Threshold` s, vectorised measure and
                    criteria, ``explain``), :class:`Contact` (the one result form), the shared
                    KD-tree pruning :func:`candidate_pairs`
``groups``          :class:`Perception`: rings, charged groups, hydrophobic carbons, halogen donors
                    and acceptors, metal ions and their targets, with or without explicit H
``measure``         vectorised distances, angles, plane offsets
``types/<name>.py`` one declaration per type: ``hbond``, ``salt_bridge``, ``pi_stacking``,
                    ``cation_pi``, ``halogen_bond``, ``metal``, ``hydrophobic``
``profile``         :func:`find_interactions`: every type on one perception
``records``         JSON records and the text table of ``misi-interactions``
==================  ==============================================================================

>>> from misi_geom import load_complex
>>> from misi_geom.samples import sample_dirs
>>> c = load_complex(sample_dirs()[0])
>>> found = find_interactions(c, ["salt_bridge", "pi_stacking"])
>>> list(found)
['salt_bridge', 'pi_stacking']
"""

from misi_geom.interactions.types import load_all as _load_all

_load_all()

from misi_geom.interactions.base import (  # noqa: E402
    MIN_DIST,
    INTERACTION_TYPES,
    Contact,
    Criterion,
    Interaction,
    Threshold,
    Verdict,
    candidate_pairs,
)
from misi_geom.interactions.groups import GroupSet, Perception  # noqa: E402
from misi_geom.interactions.profile import find_interactions, interaction_types, possible_types  # noqa: E402
from misi_geom.interactions.records import format_table, residue_label, to_records  # noqa: E402
from misi_geom.interactions.types.cation_pi import CationPi  # noqa: E402
from misi_geom.interactions.types.halogen_bond import HalogenBond  # noqa: E402
from misi_geom.interactions.types.hbond import HBondInteraction  # noqa: E402
from misi_geom.interactions.types.hydrophobic import Hydrophobic  # noqa: E402
from misi_geom.interactions.types.metal import PLIP_TARGETS, MetalCoordination  # noqa: E402
from misi_geom.interactions.types.pi_stacking import PiStacking  # noqa: E402
from misi_geom.interactions.types.salt_bridge import SaltBridge  # noqa: E402

__all__ = [
    "MIN_DIST", "INTERACTION_TYPES", "Contact", "Criterion", "Interaction", "Threshold", "Verdict", "candidate_pairs",
    "GroupSet", "Perception", "find_interactions", "interaction_types", "possible_types", "format_table",
    "residue_label", "to_records", "CationPi", "HalogenBond", "HBondInteraction", "Hydrophobic", "PLIP_TARGETS",
    "MetalCoordination", "PiStacking", "SaltBridge",
]
