"""T4 residue–ligand, T8 interaction location and T9 pocket–ligand hydrogen-bond tasks.

Ground truth is :func:`misi_geom.find_hbonds` on the whole complex (pocket–ligand, relaxed
ChimeraX criteria), as unique (pocket atom, ligand atom) pairs in :func:`misi_geom.hbond_pairs`
order, formatted by :func:`misi_tasks.tasks.hbond_answers.t4_bonds` / :func:`~misi_tasks.tasks.hbond_answers.t9_bonds`.

**Decisions** (the paper gives no per-complex counts for these tasks): T4 draws ``count`` residues
with H-bonds and ``count`` without per complex (test 1 + 1, train 2 + 2).  Negatives are by default *hard*: pocket residues with a heavy
atom within 4.5 Å of a ligand heavy atom but no H-bond to it, falling back to any non-bonded residue
when a complex has no such residue; ``hard_negatives=False`` keeps the paper's behaviour (any
non-bonded residue, so mostly far from the ligand and easy).  Each item's metadata records
``negative_pool``: ``"hard"``, ``"any (no hard negative)"`` or ``"any"``.  Single-atom
residues (metal ions) are never asked about.  T8 asks about ``count`` bonds with distinct answers
(test 1, train 2); its decoys flip the sign and/or change the magnitude of the true move's
components.  T9 asks one item per complex with at least one H-bond.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from misi_geom import SIX_VIEWS, hbond_pairs
from misi_geom.residues import residue_label, residue_number
from misi_tasks.definitions.answers import Move, format_commands
from misi_tasks.tasks.hbond_answers import t4_bonds, t9_bonds
from misi_tasks.tasks.prompts import VIEWS6, conventions, one_residue_labels_text
from misi_tasks.tasks.base import TaskGenerator, TaskSkipped
from misi_tasks.tasks.scene import Scene

__all__ = ["ResidueLigandTask", "InteractionLocationTask", "PocketLigandTask", "t8_decoys"]


def _pairs_metadata(c, pairs) -> list[dict]:
    return [
        {"pocket_atom": int(i), "ligand_atom": int(j), "res_name": str(c.res_name[i]),
         "res_id": residue_number(c, i), "chain": str(c.chain_id[i]) or "?",
         "pocket_atom_name": str(c.atom_name[i]), "ligand_atom_name": str(c.atom_name[j]),
         "distance": round(float(np.linalg.norm(c.coord[i] - c.coord[j])), 3)}
        for i, j in pairs
    ]


class ResidueLigandTask(TaskGenerator):
    """T4 (:class:`misi_tasks.definitions.hbonds.ResidueLigandSpec`): one residue drawn with the ligand."""

    name = "residue-ligand"

    def preamble(self, *, pdb_id: str, residue: str, **lab) -> str:
        labels = one_residue_labels_text(residue, bool(lab.get("chains")), bool(lab.get("numbered")))
        return conventions(pdb_id, what=f"the ligand and one pocket residue, {residue}", labels=labels)

    def image_descriptions(self, **fields):
        return VIEWS6

    def _candidates(self, scene: Scene):
        c = scene.complex
        heavy = ~c.is_hydrogen
        pocket_heavy = heavy & ~c.is_ligand
        res, n_heavy = np.unique(c.res_index[pocket_heavy], return_counts=True)
        residues = res[n_heavy > 1]
        bonded_pairs = hbond_pairs(scene.hbonds, c)
        bonded = {int(c.res_index[i]) for i, _ in bonded_pairs}
        positives = [int(r) for r in residues if r in bonded]
        negatives = [int(r) for r in residues if r not in bonded]
        pool = "any"
        if self.spec.hard_negatives:
            dist = cKDTree(c.coord[heavy & c.is_ligand]).query(c.coord, k=1)[0]
            near = set(np.unique(c.res_index[pocket_heavy & (dist <= self.spec.hard_negative_cutoff_A)]).tolist())
            hard = [r for r in negatives if r in near]
            negatives, pool = (hard, "hard") if hard else (negatives, "any (no hard negative)")
        return positives, negatives, bonded_pairs, pool

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        positives, negatives, pairs, pool = self._candidates(scene)
        n = self.count(ctx.split)
        chosen = [(int(r), "positive") for r in rng.permutation(positives)[:n]]
        chosen += [(int(r), "negative") for r in rng.permutation(negatives)[:n]]
        if not chosen:
            raise TaskSkipped("no pocket residue to ask about")
        items = []
        for k, (res, label) in enumerate(chosen):
            mask = (c.res_index == res) | c.is_ligand
            sub = c[mask]
            frame = scene.frame_for(sub, centre="atoms")
            # the residue's atoms are what the question is about: no other label may hide them
            views = scene.render(SIX_VIEWS, complex_=sub, frame=frame, atom_label_residue=res,
                                 key_atoms=sub.res_index == res)
            res_pairs = [(i, j) for i, j in pairs if c.res_index[i] == res]
            answer = str(t4_bonds([b for b in scene.hbonds if c.res_index[b.pair[0]] == res], c))
            first = int(np.flatnonzero(c.res_index == res)[0])
            residue = scene.residue_label(first)
            item = self.new_item(
                scene, ctx, k,
                question=self.prompt(pdb_id=scene.pdb_id, residue=residue, **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer=answer,
                metadata={"label": label, "residue": residue, "res_index": res,
                          "chain": str(c.chain_id[first]) or "?", "hbonds": _pairs_metadata(c, res_pairs),
                          "hard_negatives": bool(self.spec.hard_negatives),
                          "negative_pool": pool if label == "negative" else None, "camera": scene.camera_dict(frame)},
            )
            item.renders = {"views": views, "complex": sub, "images": views}
            items.append(item)
        return items


def _move_text(dx: int, dy: int) -> str:
    """A T8 option: ``"move x 7, move y 5"``."""
    return format_commands([Move("x", dx), Move("y", dy)])


def t8_decoys(dx: int, dy: int, rng: np.random.Generator, *, max_step: int = 3,
              attempts: int = 50) -> list[tuple[int, int]]:
    """Three distinct decoy moves: (1) a sign flip, (2) a magnitude change by 1 .. ``max_step``,
    (3) both; each drawn up to ``attempts`` times (``max_step``: the T8 spec's ``decoy_max_step``)."""
    def flip(v):
        comps = [k for k, x in enumerate(v) if x != 0]
        out = list(v)
        for k in rng.permutation(comps)[: rng.integers(1, len(comps) + 1)]:
            out[k] = -out[k]
        return tuple(out)

    def grow(v):
        out = list(v)
        k = int(rng.integers(2))
        step = int(rng.integers(1, max_step + 1)) * (1 if rng.random() < 0.5 or abs(out[k]) <= max_step else -1)
        out[k] = (out[k] + step * (1 if out[k] >= 0 else -1)) if out[k] else step * int(rng.choice([-1, 1]))
        return tuple(out)

    truth, decoys = (dx, dy), []
    for make in (flip, grow, lambda v: grow(flip(v))):
        for _ in range(attempts):
            cand = make(truth)
            if cand != truth and cand != (0, 0) and cand not in decoys:
                decoys.append(cand)
                break
        else:  # pragma: no cover - a tiny move whose variants are exhausted
            raise TaskSkipped(f"no distinct decoys for {_move_text(dx, dy)}")
    return decoys


class InteractionLocationTask(TaskGenerator):
    """T8: which move brings the midpoint of a named H-bond to the screen centre (front view)."""

    name = "interaction-location"

    def image_descriptions(self, **fields):
        return VIEWS6

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        pairs = hbond_pairs(scene.hbonds, c)
        if not pairs:
            raise TaskSkipped("no pocket-ligand H-bond")
        front = scene.base_views(["front"])[0].screen
        items, answers = [], set()
        for i, j in (pairs[k] for k in rng.permutation(len(pairs))):
            cx, cy = (front.x_A[i] + front.x_A[j]) / 2, (front.y_A[i] + front.y_A[j]) / 2
            dx, dy = -int(np.round(cx)), -int(np.round(cy))
            if (dx, dy) == (0, 0) or (dx, dy) in answers:
                continue
            answers.add((dx, dy))
            chain = str(c.chain_id[i])
            bond = (f"atom {c.atom_name[i]} of {residue_label(c.res_name[i], residue_number(c, i))} "
                    f"({'chain ' + chain if chain else 'no chain id'}) and ligand atom {c.atom_name[j]}")
            options = [_move_text(dx, dy)] + [_move_text(*d) for d in t8_decoys(
                dx, dy, rng, max_step=self.spec.decoy_max_step)]
            # the bond's two atoms: their labels first, and no other label may hide them
            key = np.zeros(len(c), dtype=bool)
            key[[i, j]] = True
            views = scene.render(SIX_VIEWS, key_atoms=key)
            item = self.new_item(
                scene, ctx, len(items),
                question=self.prompt(pdb_id=scene.pdb_id, bond=bond, **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer="A",
                options=options,
                metadata={"hbond": _pairs_metadata(c, [(i, j)])[0], "options_canonical": options,
                          "bond_midpoint_A": [round(float(cx), 4), round(float(cy), 4)],
                          "bond_midpoint_px": [round(float((front.x_px[i] + front.x_px[j]) / 2), 3),
                                               round(float((front.y_px[i] + front.y_px[j]) / 2), 3)],
                          "move": [dx, dy], "camera": scene.camera_dict()},
            )
            item.renders = {"front": views[0], "views": views, "key_atoms": key, "images": views}
            items.append(item)
            if len(items) == self.count(ctx.split):
                break
        if not items:
            raise TaskSkipped("every H-bond midpoint is already at the screen centre")
        return items


class PocketLigandTask(TaskGenerator):
    """T9: every pocket–ligand H-bond, ``ASN 460 ND2 A, O2; GLU 537 OE1 A, O2``."""

    name = "pocket-ligand"

    def image_descriptions(self, **fields):
        return VIEWS6

    def make_items(self, scene, ctx, rng):
        c = scene.complex
        truth = t9_bonds(scene.hbonds, c)
        if not truth.bonds:
            raise TaskSkipped("no pocket-ligand H-bond")
        views = scene.base_views(SIX_VIEWS)
        item = self.new_item(
            scene, ctx, 0,
            question=self.prompt(pdb_id=scene.pdb_id, **scene.label_fields()),
            images=scene.pngs(views),
            image_roles=list(SIX_VIEWS),
            answer=str(truth),
            metadata={"hbonds": _pairs_metadata(c, hbond_pairs(scene.hbonds, c)), "camera": scene.camera_dict()},
        )
        item.renders = {"views": views, "images": views}
        return [item]
