"""Hydrogen bond: misi's ChimeraX-style detector (:mod:`misi_geom.hbonds`) as a declaration.

The criteria, typing and pruning are the detector's own (``find_hbonds``, relaxed by 0.4 Å / 20°,
the answers of the paper's tasks); this declaration only gives its bonds the common result form:
one contact per (pocket atom, ligand atom) pair, in the detector's answer order.
"""

from __future__ import annotations

from misi_geom.hbonds import explain, find_hbonds, hbond_pairs
from misi_geom.hbonds.search import ANGLE_SLOP, DIST_SLOP
from misi_geom.interactions.base import Contact, Criterion, Interaction, Threshold, Verdict
from misi_geom.interactions.groups import Perception

__all__ = ["HBondInteraction"]


class HBondInteraction(Interaction):
    """Pocket–ligand H-bonds by ChimeraX's criteria (Mills & Dean 1996 limits per donor/acceptor
    class, relaxed by ``dist_slop`` and ``angle_slop``).  PLIP's own H-bond rule is not used: ChimeraX
    is the project's H-bond reference."""

    name = "hbond"
    roles = ("donor/acceptor", "donor/acceptor")
    dist_slop = Threshold(DIST_SLOP, "Å", "relaxation of every class's distance limits")
    angle_slop = Threshold(ANGLE_SLOP, "°", "relaxation of every class's angle limits")

    def find(self, c, perception=None, earlier=None):
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # H-free input: inferred H, said by the CLI
            bonds = find_hbonds(c, dist_slop=self.dist_slop, angle_slop=self.angle_slop)
        best: dict[tuple[int, int], object] = {}
        for b in bonds:
            if b.donor_is_ligand != b.acceptor_is_ligand and b.pair not in best:
                best[b.pair] = b
        out = []
        for p, l in hbond_pairs(bonds, c):
            b = best[(p, l)]
            geo = {"donor": "ligand" if b.donor_is_ligand else "pocket", "distance_ad": round(b.da_distance, 3)}
            if b.ha_distance is not None:
                geo["distance_ah"] = round(b.ha_distance, 3)
            out.append(Contact(self.name, (p,), (l,), geo))
        return out

    def explain(self, c, pocket_atoms, ligand_atoms, perception: Perception | None = None) -> Verdict:
        if len(pocket_atoms) != 1 or len(ligand_atoms) != 1:
            return Verdict(self.name, (), "an H-bond joins one pocket atom and one ligand atom")
        v = explain(c, int(pocket_atoms[0]), int(ligand_atoms[0]), dist_slop=self.dist_slop,
                    angle_slop=self.angle_slop)
        crit = []
        for d in v.directions:
            label = "ligand donor" if c.is_ligand[d.donor] else "pocket donor"
            failed = f" [{', '.join(d.failed_tests)}]" if d.failed_tests else ""
            value = f"{d.donor_class}->{d.acceptor_class}{failed}"
            crit.append(Criterion(label, value, d.passed))
        if not crit:
            return Verdict(self.name, (), "neither direction has a typed donor and acceptor")
        if any(x.passed for x in crit):  # one direction suffices
            crit = [x for x in crit if x.passed]
        return Verdict(self.name, tuple(crit))
