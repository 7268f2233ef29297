"""Cation–π: a positive charge centre over a ring's face, the cation on either side."""

from __future__ import annotations

import numpy as np

from misi_geom.interactions.base import MIN_DIST, Interaction, Threshold
from misi_geom.interactions.measure import distance, normal_angle, plane_offset

__all__ = ["CationPi"]


class CationPi(Interaction):
    """Charge centre within ``distance`` of the ring centroid and projecting within ``offset`` of it; a
    ligand tertiary amine also needs its plane within ``amine_angle`` of the ring's (PLIP's test that
    the N's free side faces the ring).  A HIS contact is dropped where that HIS ring also stacks with
    the same ligand ring (PLIP's refinement)."""

    name = "cation_pi"
    roles = ("ring", "cation")
    mirror = True
    distance = Threshold(6.0, "Å", "ring centroid to charge centre, below", plip="PICATION_DIST_MAX")
    offset = Threshold(2.0, "Å", "charge centre projected onto the ring plane to centroid, below",
                       plip="PISTACK_OFFSET_MAX")
    amine_angle = Threshold(30.0, "°", "ligand tertiary amine plane to ring plane, at most")
    reach = "distance"
    after = ("pi_stacking",)

    def measure(self, p, l):
        ring, cat = (p, l) if p.role == "ring" else (l, p)
        m = {"distance": distance(ring.point, cat.point), "offset": plane_offset(ring.point, ring.normal, cat.point)}
        amine = (cat.kind == "tertamine") & (cat is l)  # the ligand's tertiary amines only
        m["amine_angle"] = np.where(amine, normal_angle(ring.normal, cat.normal), 0.0)
        return m

    def criteria(self, m):
        return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance)),
                ("offset", m["offset"] < self.offset),
                ("amine_angle", m["amine_angle"] <= self.amine_angle)]

    def geometry(self, m, k, p, l):
        out = super().geometry(m, k, p, l)
        if l.role != "cation" or l.kind[k] != "tertamine":
            out.pop("amine_angle")
        return out

    def refine(self, contacts, perception, earlier):
        stacks = {(s.pocket_atoms, s.ligand_atoms) for s in earlier.get("pi_stacking", [])}
        c = perception.c
        keep = []
        for x in contacts:
            name = str(c.res_name[x.pocket_atoms[0]])
            his = x.geometry.get("pocket_role") == "cation" and name.startswith(("HI", "HS"))
            if his and any(l == x.ligand_atoms and c.res_index[p[0]] == c.res_index[x.pocket_atoms[0]]
                           for p, l in stacks):
                continue
            keep.append(x)
        return keep

