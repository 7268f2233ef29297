"""Salt bridge: a cation and an anion, one on each side, with charge centres close together."""

from __future__ import annotations

from misi_geom.interactions.base import MIN_DIST, Interaction, Threshold
from misi_geom.interactions.measure import distance

__all__ = ["SaltBridge"]


class SaltBridge(Interaction):
    """Charge centres closer than ``distance`` (PLIP: ARG/LYS/HIS always positive, ASP/GLU negative;
    ligand charges by topology, see :mod:`misi_geom.interactions.groups`)."""

    name = "salt_bridge"
    roles = ("cation", "anion")
    mirror = True
    distance = Threshold(5.5, "Å", "charge centre to charge centre, below", plip="SALTBRIDGE_DIST_MAX")
    reach = "distance"

    def measure(self, p, l):
        return {"distance": distance(p.point, l.point)}

    def criteria(self, m):
        return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance))]
