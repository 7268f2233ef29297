"""Hydrophobic contact: two carbons bonded only to carbon or hydrogen, one on each side."""

from __future__ import annotations

from misi_geom.interactions.base import MIN_DIST, Interaction, Threshold
from misi_geom.interactions.measure import distance

__all__ = ["Hydrophobic"]


class Hydrophobic(Interaction):
    """C···C closer than ``distance``, then PLIP's thinning: (1) none between two rings that
    π-stack; (2) per ligand atom and residue the closest; (3) per pocket atom, of ligand atoms bonded
    to each other (a patch) the closest -- a ligand atom bonded to none of the others is dropped, as
    PLIP does, when the pocket atom has several contacts.  Step (2) keys residues by chain, number and insertion
    code (PLIP by number alone, which merges residues with insertion codes)."""

    name = "hydrophobic"
    roles = ("hydrophobic", "hydrophobic")
    distance = Threshold(4.0, "Å", "carbon to carbon, below", plip="HYDROPH_DIST_MAX")
    reach = "distance"
    after = ("pi_stacking",)

    def measure(self, p, l):
        return {"distance": distance(p.point, l.point)}

    def criteria(self, m):
        return [("distance", (m["distance"] > MIN_DIST) & (m["distance"] < self.distance))]

    def refine(self, contacts, perception, earlier):
        c = perception.c
        stacked = {(a, b) for s in earlier.get("pi_stacking", []) for a in s.pocket_atoms for b in s.ligand_atoms}
        kept = [x for x in contacts if (x.pocket_atoms[0], x.ligand_atoms[0]) not in stacked]
        best: dict[tuple, object] = {}
        for x in kept:  # (2) per ligand atom and residue: the closest
            key = (x.ligand_atoms[0], int(c.res_index[x.pocket_atoms[0]]))
            if key not in best or x.geometry["distance"] < best[key].geometry["distance"]:
                best[key] = x
        by_pocket: dict[int, list] = {}
        for x in best.values():
            by_pocket.setdefault(x.pocket_atoms[0], []).append(x)
        out = []
        for group in by_pocket.values():  # (3) per pocket atom: the closest of each bonded patch
            for patch in _patches(group, perception):
                if len(patch) > 1 or len(group) == 1:  # PLIP drops lone atoms of a multi-contact atom
                    out.append(min(patch, key=lambda x: x.geometry["distance"]))
        return out


def _patches(group: list, perception) -> list[list]:
    """Contacts of one pocket atom split into patches of bonded ligand atoms."""
    atom = {x.ligand_atoms[0]: x for x in group}
    seen: set[int] = set()
    out = []
    for start in sorted(atom):
        if start in seen:
            continue
        stack, patch = [start], []
        seen.add(start)
        while stack:
            a = stack.pop()
            patch.append(atom[a])
            for b in perception.nbrs[a]:
                if b in atom and b not in seen:
                    seen.add(b)
                    stack.append(b)
        out.append(patch)
    return out
