"""Metal coordination: a pocket metal ion and a ligand atom of a coordinating group."""

from __future__ import annotations

import numpy as np

from misi_geom.interactions.base import Interaction, Threshold
from misi_geom.interactions.measure import distance

__all__ = ["MetalCoordination", "PLIP_TARGETS"]

#: The ligand groups PLIP 3.0.1 can bind to a metal (alcohol O is in its list but never matches: a bug).
PLIP_TARGETS = ("carboxylate", "phosphoryl", "phenolate", "imidazole/pyrrole", "thiolate")


class MetalCoordination(Interaction):
    """Ion to target atom closer than ``distance``.  Targets: PLIP's groups plus alcohol O (PLIP lists
    alcohols too, but its test never matches); ``MetalCoordination(targets=PLIP_TARGETS)`` gives
    PLIP's behaviour.  Unlike PLIP no coordination geometry is fitted (PLIP may drop a target that
    does not fit it), and no LINK record is needed."""

    name = "metal"
    roles = ("metal", "metal_target")
    distance = Threshold(3.0, "Å", "ion to coordinating atom, below", plip="METAL_DIST_MAX")
    reach = "distance"

    def __init__(self, targets: tuple[str, ...] = PLIP_TARGETS + ("alcohol",), **thresholds: float) -> None:
        super().__init__(**thresholds)
        self.targets = tuple(targets)

    def measure(self, p, l):
        return {"distance": distance(p.point, l.point), "target_group": l.kind}

    def criteria(self, m):
        return [("target_group", np.isin(m["target_group"], self.targets)),
                ("distance", m["distance"] < self.distance)]

    def geometry(self, m, k, p, l):
        return {"distance": round(float(m["distance"][k]), 3), "metal": str(p.kind[k]),
                "target_group": str(m["target_group"][k])}
