"""Halogen bond: a ligand C–X (X = F, Cl, Br, I) pointing at a pocket O/N/S acceptor."""

from __future__ import annotations

import numpy as np

from misi_geom.interactions.base import MIN_DIST, Interaction, Threshold
from misi_geom.interactions.measure import angle_at, distance

__all__ = ["HalogenBond"]


class HalogenBond(Interaction):
    """X···A closer than ``distance``; the donor angle C–X···A within ``angle_dev`` of ``don_angle``
    and the acceptor angle Y–A···X within ``angle_dev`` of ``acc_angle`` (Y: the acceptor's one
    C/N/P/S neighbour).  Ligand donors and pocket acceptors only, as PLIP."""

    name = "halogen_bond"
    roles = ("halogen_acceptor", "halogen_donor")
    distance = Threshold(4.0, "Å", "halogen to acceptor, below", plip="HALOGEN_DIST_MAX")
    don_angle = Threshold(165.0, "°", "ideal C–X···A angle", plip="HALOGEN_DON_ANGLE")
    acc_angle = Threshold(120.0, "°", "ideal Y–A···X angle", plip="HALOGEN_ACC_ANGLE")
    angle_dev = Threshold(30.0, "°", "largest deviation from either ideal angle (exclusive)",
                          plip="HALOGEN_ANGLE_DEV")
    reach = "distance"

    def measure(self, p, l):
        return {"distance": distance(p.point, l.point),
                "don_angle": angle_at(l.point, l.partner, p.point),
                "acc_angle": angle_at(p.point, p.partner, l.point)}

    def criteria(self, m):
        return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance)),
                ("don_angle", np.abs(m["don_angle"] - self.don_angle) < self.angle_dev),
                ("acc_angle", np.abs(m["acc_angle"] - self.acc_angle) < self.angle_dev)]
