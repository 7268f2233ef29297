"""π-stacking: two rings face to face (P, parallel) or edge to face (T, perpendicular)."""

from __future__ import annotations

import numpy as np

from misi_geom.interactions.base import MIN_DIST, Interaction, Threshold
from misi_geom.interactions.measure import distance, normal_angle, plane_offset

__all__ = ["PiStacking"]


class PiStacking(Interaction):
    """Ring centroids closer than ``distance``; the angle between the ring normals within
    ``angle_dev`` of 0° (face to face, ``stack_type`` P) or of 90° (edge to face, T); the offset --
    the smaller of the two centroid-to-projected-centroid distances -- below ``offset``."""

    name = "pi_stacking"
    roles = ("ring", "ring")
    distance = Threshold(5.5, "Å", "centroid to centroid, below", plip="PISTACK_DIST_MAX")
    angle_dev = Threshold(30.0, "°", "deviation of the normals' angle from 0° (P) or 90° (T), below",
                          plip="PISTACK_ANG_DEV")
    offset = Threshold(2.0, "Å", "centroid offset (smaller of the two projections), below",
                       plip="PISTACK_OFFSET_MAX")
    reach = "distance"

    def measure(self, p, l):
        off = np.minimum(plane_offset(l.point, l.normal, p.point), plane_offset(p.point, p.normal, l.point))
        return {"distance": distance(p.point, l.point), "angle": normal_angle(p.normal, l.normal), "offset": off}

    def criteria(self, m):
        a = m["angle"]
        parallel = a < self.angle_dev  # PLIP: 0 < a, which misses exactly parallel rings
        tshape = (a > 90 - self.angle_dev) & (a < 90 + self.angle_dev)
        return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance)),
                ("angle", parallel | tshape),
                ("offset", m["offset"] < self.offset)]

    def geometry(self, m, k, p, l):
        out = super().geometry(m, k, p, l)
        out["stack_type"] = "P" if m["angle"][k] < self.angle_dev else "T"
        return out
