"""X1 interaction type, X2 interaction list and X3 ring stacking (:mod:`misi_tasks.definitions.interactions`).

Ground truth is :func:`misi_geom.interactions.find_interactions` on the whole complex (PLIP's
definitions; H-bonds the detector of T4/T9); the options and decoys are
:mod:`misi_tasks.tasks.interaction_options`'s.  Images: the six views of the residue and the ligand,
every residue atom labelled (as T4).  Single-atom residues (metal ions) are never asked about.
Each item's ``metadata.interactions`` lists the residue's contacts in the ``misi-interactions`` JSON
form.

X2 (:class:`InteractionListTask`) draws the six views of the whole pocket as T9 does, and as T9
checks that every residue and every ligand atom its answer names has a legible label and every
atom it names is visible in some image (``label_check``), laying the labels out again with the
named atoms as key atoms when not; a type whose contacts fail both layouts is not asked.  A type
is asked as ``No`` only when it has no near miss either (:func:`near_misses`: its test with the
spec's ``none_margin_A`` / ``none_margin_deg`` added to the limits; for metals any ligand N, O or S).
X3's decoy ring pairs likewise fail the stacking test widened by ``decoy_margin_A`` /
``decoy_margin_deg`` (:func:`near_stacks`).
"""

from __future__ import annotations

import numpy as np

from misi_geom import SIX_VIEWS
from misi_geom.interactions import (CationPi, HalogenBond, Interaction, MetalCoordination, Perception, PiStacking,
                                    SaltBridge, find_interactions, possible_types, to_records)
from misi_geom.residues import residue_number
from misi_tasks.definitions.answers import ContactList, contact_text
from misi_tasks.definitions.interactions import LIST_TYPES
from misi_tasks.definitions.items import Renders
from misi_tasks.tasks.base import TaskGenerator, TaskSkipped
from misi_tasks.tasks.fairness import LabelNeed, checked_render, equivalent_atoms
from misi_tasks.tasks.interaction_options import enough_decoys, residue_types, type_decoys, type_set_text
from misi_tasks.tasks.prompts import VIEWS6, one_residue_preamble

__all__ = ["InteractionListTask", "InteractionTypeTask", "RingStackingTask", "near_misses", "near_stacks",
           "relaxed", "stacking_options"]

_COMMON = frozenset({"hbond", "hydrophobic"})


class InteractionTypeTask(TaskGenerator):
    """X1: which interaction types one residue drawn with the ligand makes."""

    name = "interaction-type"

    def preamble(self, *, pdb_id: str, residue: str, **lab) -> str:
        return one_residue_preamble(pdb_id, residue, lab)

    def image_descriptions(self, **fields):
        return VIEWS6

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        found = find_interactions(c)
        by_res = residue_types(found, c)
        heavy = ~c.is_hydrogen & ~c.is_ligand
        res_ids, n_heavy = np.unique(c.res_index[heavy], return_counts=True)
        askable = {int(r) for r, n in zip(res_ids, n_heavy) if n > 1}
        possible = {r: possible_types(c, r) for r in by_res if r in askable}
        # decoys are types the residue could make; GLY/SER/CYS (H-bond, halogen bond only) have too few
        by_res = {r: t for r, t in by_res.items() if r in possible and enough_decoys(t, possible[r])}
        if not by_res:
            raise TaskSkipped("no pocket residue interacts with the ligand and has three plausible decoys")
        rare = [r for r, t in by_res.items() if t - _COMMON]
        common = [r for r in by_res if r not in rare]
        order = [int(r) for r in rng.permutation(rare)] + [int(r) for r in rng.permutation(common)]
        items = []
        for k, res in enumerate(order[: self.count(ctx.split)]):
            truth = by_res[res]
            others = frozenset().union(*[t for r, t in by_res.items() if r != res])
            decoys = type_decoys(truth, others, rng, possible[res])
            options = [type_set_text(truth)] + [type_set_text(d) for d in decoys]
            sub = c[(c.res_index == res) | c.is_ligand]
            frame = scene.frame_for(sub, centre="atoms")
            views = scene.render(SIX_VIEWS, complex_=sub, frame=frame, atom_label_residue=res,
                                 key_atoms=sub.res_index == res)
            first = int(np.flatnonzero(c.res_index == res)[0])
            residue = scene.residue_label(first)
            mine = {kind: [x for x in xs if int(c.res_index[x.pocket_atoms[0]]) == res] for kind, xs in found.items()}
            item = self.new_item(
                scene, ctx, k,
                question=self.prompt(pdb_id=scene.pdb_id, residue=residue, **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer="A",
                options=options,
                metadata={"residue": residue, "res_index": res, "chain": str(c.chain_id[first]) or "?",
                          "types": sorted(truth), "possible_types": sorted(possible[res]),
                          "options_canonical": options,
                          "interactions": to_records(c, mine), "camera": scene.camera_dict(frame)},
            )
            item.renders = Renders(images=views, extra={"views": views, "complex": sub})
            items.append(item)
        return items


#: Per type, (its distance limits, its angle limits or windows) that a fairness margin widens.
_MARGIN_LIMITS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "salt_bridge": (("distance",), ()),
    "pi_stacking": (("distance", "offset"), ("angle_dev",)),
    "cation_pi": (("distance", "offset"), ("amine_angle",)),
    "halogen_bond": (("distance",), ("angle_dev",)),
    "metal": (("distance",), ()),
}
_DECLARATIONS: dict[str, type[Interaction]] = {
    "salt_bridge": SaltBridge, "pi_stacking": PiStacking, "cation_pi": CationPi, "halogen_bond": HalogenBond,
    "metal": MetalCoordination,
}


def relaxed(kind: str, margin_A: float, margin_deg: float) -> Interaction:
    """The declaration of ``kind`` (one of X2's five types) with every distance limit raised by
    ``margin_A`` Å and every angle limit or window widened by ``margin_deg`` degrees.

    >>> d = relaxed("pi_stacking", 0.5, 10)
    >>> d.distance, d.offset, d.angle_dev
    (6.0, 2.5, 40.0)
    """
    cls = _DECLARATIONS[kind]
    dist, ang = _MARGIN_LIMITS[kind]
    return cls(**{k: cls.thresholds[k].value + margin_A for k in dist},
               **{k: cls.thresholds[k].value + margin_deg for k in ang})


def near_misses(c, kind: str, margin_A: float, margin_deg: float) -> list[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(pocket atoms, ligand atoms) of every near miss of ``kind`` in complex ``c``: a contact by
    :func:`relaxed`'s test, and for ``metal`` also any ligand N, O or S within the raised distance of
    a metal ion whatever its group (PLIP's targets leave out e.g. hydroxamate O).  Empty: a ``No``
    for ``kind`` is clear-cut."""
    found = [(x.pocket_atoms, x.ligand_atoms) for x in find_interactions(c, [relaxed(kind, margin_A, margin_deg)])[kind]]
    if kind == "metal":
        ions = Perception(c).groups("metal", ligand=False)
        lig = np.flatnonzero(c.is_ligand & ~c.is_hydrogen)
        lig = lig[np.isin(np.char.upper(c.element[lig].astype(str)), ["N", "O", "S"])]
        limit = MetalCoordination.thresholds["distance"].value + margin_A
        for atoms, point in zip(ions.atoms, ions.point):
            d = np.linalg.norm(c.coord[lig] - point, axis=1)
            found += [(tuple(atoms), (int(j),)) for j in lig[d < limit].tolist()]
    return sorted(set(found))


def near_stacks(c, margin_A: float, margin_deg: float) -> set[tuple[tuple[int, ...], tuple[int, ...]]]:
    """(pocket ring, ligand ring) pairs that stack by the pi-stacking test widened by the margins
    (a superset of the stacks): what an X3 decoy must not be."""
    return set(near_misses(c, "pi_stacking", margin_A, margin_deg))


def _ring_text(scene, ring: tuple[int, ...], ligand: bool) -> str:
    """``"ligand ring C1 C2 C3 C4 C5 C6"`` (ligand atoms are labelled in the images) or, for a residue,
    ``"PHE 120 ring"`` (TRP: ``"TRP 84 six-membered ring"`` / ``"five-membered ring"``)."""
    c = scene.complex
    if ligand:
        return "ligand ring " + " ".join(str(c.atom_name[i]) for i in ring)
    size = {5: "five-membered ", 6: "six-membered "}[len(ring)] if str(c.res_name[ring[0]]) == "TRP" else ""
    return f"{scene.residue_label(ring[0])} {size}ring"


def stacking_options(pocket_rings, ligand_rings, stacks: set, target: tuple, rng, near: float = 7.0):
    """The true (pocket ring, ligand ring) pair ``target`` and three decoys: the same residue ring with
    another ligand ring, another residue ring near the ligand ring with the true ligand ring, and both
    changed; never a pair of ``stacks``.  Rings are (atoms, centroid) pairs; returns atom-tuple pairs,
    or None when three decoys cannot be found."""
    p_true, l_true = target
    centre = dict(ligand_rings)[l_true]
    others_p = [p for p, x in sorted(pocket_rings, key=lambda r: float(np.linalg.norm(r[1] - centre)))
                if p != p_true and float(np.linalg.norm(x - centre)) <= near]
    others_l = [l for l, _ in ligand_rings if l != l_true]
    pools = [[(p_true, l) for l in others_l], [(p, l_true) for p in others_p],
             [(p, l) for p in others_p for l in others_l]]
    decoys: list[tuple] = []
    for pool in pools:
        pool = [x for x in pool if x not in stacks and x not in decoys]
        if pool:
            decoys.append(pool[int(rng.integers(len(pool)))])
    rest = [x for pool in pools for x in pool if x not in stacks and x not in decoys]
    while len(decoys) < 3 and rest:
        decoys.append(rest.pop(int(rng.integers(len(rest)))))
    return [target] + decoys if len(decoys) == 3 else None


class RingStackingTask(TaskGenerator):
    """X3: which residue ring and ligand ring pi-stack (options name both rings by their atoms)."""

    name = "ring-stacking"

    def image_descriptions(self, **fields):
        return VIEWS6

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        per = Perception(c)
        stacks_found = find_interactions(c, ["pi_stacking"])["pi_stacking"]
        if not stacks_found:
            raise TaskSkipped("no pi-stacking")
        pocket = per.groups("ring", ligand=False)
        ligand = per.groups("ring", ligand=True)
        p_rings = list(zip(pocket.atoms, pocket.point))
        l_rings = list(zip(ligand.atoms, ligand.point))
        stacks = {(x.pocket_atoms, x.ligand_atoms) for x in stacks_found}
        margins = {"decoy_margin_A": self.spec.decoy_margin_A, "decoy_margin_deg": self.spec.decoy_margin_deg}
        stacks |= near_stacks(c, self.spec.decoy_margin_A, self.spec.decoy_margin_deg)  # no decoy nearly stacks
        items = []
        for k in rng.permutation(len(stacks_found)).tolist():
            x = stacks_found[k]
            pairs = stacking_options(p_rings, l_rings, stacks, (x.pocket_atoms, x.ligand_atoms), rng)
            if pairs is None:
                continue
            options = [f"{_ring_text(scene, p, False)}, {_ring_text(scene, l, True)}" for p, l in pairs]
            key = np.zeros(len(c), dtype=bool)
            key[[i for p, l in pairs for i in p + l]] = True
            views = scene.render(SIX_VIEWS, key_atoms=key)
            item = self.new_item(
                scene, ctx, len(items),
                question=self.prompt(pdb_id=scene.pdb_id, **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer="A",
                options=options,
                metadata={"options_canonical": options, "interactions": to_records(c, {"pi_stacking": [x]}),
                          **margins, "camera": scene.camera_dict()},
            )
            item.renders = Renders(images=views, extra={"views": views, "key_atoms": key})
            items.append(item)
            if len(items) == self.count(ctx.split):
                break
        if not items:
            raise TaskSkipped("no stacking pair with three decoy ring pairs")
        return items


def _pocket_id(c, i: int) -> str:
    """A pocket atom as T9 and X2 answers write it: ``"ASP 29 OD1 A"``."""
    return f"{c.res_name[i]} {residue_number(c, i)} {c.atom_name[i]} {str(c.chain_id[i]) or '?'}"


class InteractionListTask(TaskGenerator):
    """X2: every contact of one interaction type between pocket and ligand, or ``No``."""

    name = "interaction-list"

    def image_descriptions(self, **fields):
        return VIEWS6

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        found = find_interactions(c, list(LIST_TYPES))
        present = [t for t in LIST_TYPES if found[t]]
        margin_A, margin_deg = self.spec.none_margin_A, self.spec.none_margin_deg
        # a type is asked as No only when not even a near miss of it exists (answering No is clear-cut)
        absent = [t for t in LIST_TYPES if not found[t] and not near_misses(c, t, margin_A, margin_deg)]
        if not present:
            raise TaskSkipped("no salt bridge, pi-stacking, cation-pi, halogen bond or metal coordination")
        asked = [present[k] for k in sorted(rng.permutation(len(present))[: self.count(ctx.split)].tolist())]
        n_none = min(len(absent), self.spec.none_items(len(asked), float(rng.random())))
        asked += [absent[k] for k in rng.permutation(len(absent))[:n_none].tolist()]
        items = []
        for kind in (t for t in LIST_TYPES if t in asked):
            contacts = found[kind]
            records = to_records(c, {kind: contacts})
            truth = ContactList(tuple(
                contact_text(str(c.res_name[x.pocket_atoms[0]]), residue_number(c, x.pocket_atoms[0]),
                             r["pocket_atoms"], str(c.chain_id[x.pocket_atoms[0]]), r["ligand_atoms"])
                for x, r in zip(contacts, records)))
            needs: dict[str, LabelNeed] = {}
            visible: dict[str, int] = {}
            for x in contacts:
                res = scene.residue_label(x.pocket_atoms[0])
                needs.setdefault(res, LabelNeed(res, "residue", int(x.pocket_atoms[0])))
                for j in x.ligand_atoms:
                    needs.setdefault(str(c.atom_name[j]), LabelNeed(str(c.atom_name[j]), "ligand", int(j)))
                    visible.setdefault(str(c.atom_name[j]), int(j))
                for i in x.pocket_atoms:
                    visible.setdefault(_pocket_id(c, i), int(i))

            def draw(key):  # the scene's shared views, or a layout with the named atoms as key atoms
                return scene.base_views(SIX_VIEWS) if key is None else scene.render(SIX_VIEWS, key_atoms=key)

            checked = checked_render(draw, c, list(needs.values()), visible, None)
            if checked is None:  # a named residue or atom has no legible label or is hidden: not asked
                continue
            views, check, relaid = checked
            named = [int(a) for x in contacts for a in (*x.pocket_atoms, *x.ligand_atoms)]
            item = self.new_item(
                scene, ctx, len(items),
                question=self.prompt(pdb_id=scene.pdb_id, interaction=kind, chain=scene.pocket_chain,
                                     scales=[(views[0].scale, None)],
                                     perspective=scene.options.projection == "perspective", **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer=str(truth),
                metadata={"interaction_type": kind, "label": "positive" if contacts else "none",
                          "interactions": records, "none_margin_A": margin_A, "none_margin_deg": margin_deg,
                          "camera": scene.camera_dict(),
                          "equivalent_atoms": equivalent_atoms(c, named, scene.ligand_classes,
                                                               lambda r: _pocket_id(c, r)),
                          "label_check": check.record(relaid)},
            )
            item.renders = Renders(images=views, extra={"views": views})
            items.append(item)
        if not items:
            raise TaskSkipped("no interaction type whose contacts are all labelled legibly and visible")
        return items
