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
components, each leaving the bond's midpoint at least ``decoy_margin_A`` (0.5 Å) farther from the
centre than the answer does (redrawn when not; a bond without such decoys is not asked).
T9 asks one item per complex with at least one H-bond.
"""

from __future__ import annotations

import numpy as np
from scipy.spatial import cKDTree

from misi_geom import SIX_VIEWS, hbond_pairs
from misi_geom.residues import residue_label, residue_number
from misi_tasks.definitions.answers import Move, format_commands
from misi_tasks.definitions.items import Renders
from misi_tasks.tasks.hbond_answers import t4_bonds, t9_bonds
from misi_tasks.definitions.equivalence import side_chain_siblings
from misi_tasks.tasks.fairness import LabelNeed, checked_render, equivalent_atoms
from misi_tasks.tasks.prompts import VIEWS6, one_residue_preamble
from misi_tasks.tasks.base import TaskGenerator, TaskSkipped
from misi_tasks.tasks.scene import Scene

__all__ = ["ResidueLigandTask", "InteractionLocationTask", "PocketLigandTask", "t8_decoys"]


def _t9_atom(c, i: int) -> str:
    """A pocket atom as T9 answers (and T8 prompts) write it: ``"ASP 29 OD1 A"``."""
    return f"{c.res_name[i]} {residue_number(c, i)} {c.atom_name[i]} {str(c.chain_id[i]) or '?'}"


def _t4_atom(c, i: int) -> str:
    """A pocket atom as T4 answers write it: ``"ASP OD1"``."""
    return f"{c.res_name[i]} {c.atom_name[i]}"


def _bond_needs(scene: Scene, pairs) -> tuple[list[LabelNeed], dict[str, int]]:
    """The labels (each bonded residue, each ligand atom) and visible atoms (both ends) of ``pairs``."""
    c = scene.complex
    labels: dict[str, LabelNeed] = {}
    visible: dict[str, int] = {}
    for i, j in pairs:
        res = scene.residue_label(i)
        labels.setdefault(res, LabelNeed(res, "residue", int(i)))
        labels.setdefault(str(c.atom_name[j]), LabelNeed(str(c.atom_name[j]), "ligand", int(j)))
        visible.setdefault(_t9_atom(c, i), int(i))
        visible.setdefault(str(c.atom_name[j]), int(j))
    return list(labels.values()), visible


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
        return one_residue_preamble(pdb_id, residue, lab)

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
        queue = [[(int(r), "positive") for r in rng.permutation(positives)],
                 [(int(r), "negative") for r in rng.permutation(negatives)]]
        if not positives and not negatives:
            raise TaskSkipped("no pocket residue to ask about")
        items = []
        for res, label in (pick for picks in queue for pick in picks):
            if sum(it.metadata["label"] == label for it in items) == n:
                continue
            mask = (c.res_index == res) | c.is_ligand
            sub = c[mask]
            rows = np.cumsum(mask) - 1  # scene row -> row of the slice
            frame = scene.frame_for(sub, centre="atoms")
            res_pairs = [(i, j) for i, j in pairs if c.res_index[i] == res]
            first = int(np.flatnonzero(c.res_index == res)[0])
            residue = scene.residue_label(first)
            # the residue, each of its atoms and each ligand atom the answer names: labelled, and visible
            pocket_atoms = list(dict.fromkeys(int(i) for i, _ in res_pairs))
            ligand_atoms = list(dict.fromkeys(int(j) for _, j in res_pairs))
            needs = ([LabelNeed(residue, "residue", int(rows[first]))]
                     + [LabelNeed(_t4_atom(c, i), "atom", int(rows[i])) for i in pocket_atoms]
                     + [LabelNeed(str(c.atom_name[j]), "ligand", int(rows[j])) for j in ligand_atoms])
            visible = {**{_t4_atom(c, i): int(rows[i]) for i in pocket_atoms},
                       **{str(c.atom_name[j]): int(rows[j]) for j in ligand_atoms}}

            def draw(key, sub=sub, frame=frame, res=res):
                return scene.render(SIX_VIEWS, complex_=sub, frame=frame, atom_label_residue=res, key_atoms=key)

            # the residue's atoms are what the question is about: no other label may hide them
            checked = checked_render(draw, sub, needs, visible, sub.res_index == res)
            if checked is None:  # no layout shows every named atom legibly: ask about another residue
                continue
            views, check, relaid = checked
            answer = str(t4_bonds([b for b in scene.hbonds if c.res_index[b.pair[0]] == res], c))
            named = [a for pair in res_pairs for a in pair]
            item = self.new_item(
                scene, ctx, len(items),
                question=self.prompt(pdb_id=scene.pdb_id, residue=residue, **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer=answer,
                metadata={"label": label, "residue": residue, "res_index": res,
                          "chain": str(c.chain_id[first]) or "?", "hbonds": _pairs_metadata(c, res_pairs),
                          "hard_negatives": bool(self.spec.hard_negatives),
                          "negative_pool": pool if label == "negative" else None, "camera": scene.camera_dict(frame),
                          "equivalent_atoms": equivalent_atoms(c, named, scene.ligand_classes, lambda r: _t4_atom(c, r)),
                          "label_check": check.record(relaid)},
            )
            item.renders = Renders(images=views, extra={"views": views, "complex": sub})
            items.append(item)
        if not items:
            raise TaskSkipped("no residue whose named atoms are legibly labelled")
        return items


def _move_text(dx: int, dy: int) -> str:
    """A T8 option: ``"move x 7, move y 5"``."""
    return format_commands([Move("x", dx), Move("y", dy)])


def t8_decoys(dx: int, dy: int, rng: np.random.Generator, *, max_step: int = 3,
              attempts: int = 50, avoid=frozenset(), midpoint: tuple[float, float] | None = None,
              margin: float = 0.0) -> list[tuple[int, int]]:
    """Three distinct decoy moves: (1) a sign flip, (2) a magnitude change by 1 .. ``max_step``,
    (3) both; each drawn up to ``attempts`` times (``max_step``: the T8 spec's ``decoy_max_step``);
    none in ``avoid`` (the moves of the bonds between symmetry-equivalent atoms, which mean the same bond).
    With ``midpoint`` (the bond's midpoint in the front view, Å) every decoy leaves it at least ``margin``
    Å farther from the centre than the answer does (the spec's ``decoy_margin_A``).
    Raises :class:`TaskSkipped` when a scheme finds no such decoy."""
    def miss(v) -> float:
        return float(np.hypot(midpoint[0] + v[0], midpoint[1] + v[1]))

    def far_enough(v) -> bool:
        return midpoint is None or miss(v) >= miss((dx, dy)) + margin

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
            if (cand != truth and cand != (0, 0) and cand not in decoys and cand not in avoid
                    and far_enough(cand)):
                decoys.append(cand)
                break
        else:  # a tiny move whose variants are exhausted, or none clearly worse than the answer
            raise TaskSkipped(f"no distinct decoys at least {margin} Å worse than {_move_text(dx, dy)}")
    return decoys


class InteractionLocationTask(TaskGenerator):
    """T8: which move brings the midpoint of a named H-bond to the screen centre (front view)."""

    name = "interaction-location"

    def image_descriptions(self, **fields):
        return VIEWS6

    def _sibling_moves(self, scene: Scene, front, i: int, j: int) -> set[tuple[int, int]]:
        """The answers the question would have for a symmetry-equivalent pocket or ligand atom."""
        c = scene.complex
        names = side_chain_siblings(str(c.res_name[i]), str(c.atom_name[i]))
        same_res = np.flatnonzero((c.res_index == c.res_index[i]) & ~c.is_hydrogen)
        pocket = {int(r) for r in same_res if str(c.atom_name[r]) in names} | {i}
        cls = scene.ligand_classes
        ligand = set(np.flatnonzero(cls == cls[j]).tolist()) if cls[j] >= 0 else {j}
        return {(-int(np.round((front.x_A[a] + front.x_A[b]) / 2)), -int(np.round((front.y_A[a] + front.y_A[b]) / 2)))
                for a in pocket for b in ligand if (a, b) != (i, j)}

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
            # the bond's two atoms: their labels first, and no other label may hide them
            key = np.zeros(len(c), dtype=bool)
            key[[i, j]] = True
            needs, visible = _bond_needs(scene, [(i, j)])
            checked = checked_render(lambda k: scene.render(SIX_VIEWS, key_atoms=k), c, needs, visible, key)
            if checked is None:  # the bond's residue or ligand atom has no legible label: ask another bond
                continue
            views, check, relaid = checked
            siblings = self._sibling_moves(scene, front, int(i), int(j))
            try:  # decoys clearly worse than the answer, or another bond
                decoys = t8_decoys(dx, dy, rng, max_step=self.spec.decoy_max_step, avoid=frozenset(siblings),
                                   midpoint=(float(cx), float(cy)), margin=self.spec.decoy_margin_A)
            except TaskSkipped:
                continue
            answers.add((dx, dy))
            chain = str(c.chain_id[i])
            bond = (f"atom {c.atom_name[i]} of {residue_label(c.res_name[i], residue_number(c, i))} "
                    f"({'chain ' + chain if chain else 'no chain id'}) and ligand atom {c.atom_name[j]}")
            options = [_move_text(dx, dy)] + [_move_text(*d) for d in decoys]
            item = self.new_item(
                scene, ctx, len(items),
                question=self.prompt(pdb_id=scene.pdb_id, bond=bond, scales=[(views[0].scale, None)],
                                     perspective=scene.options.projection == "perspective", **scene.label_fields()),
                images=scene.pngs(views),
                image_roles=list(SIX_VIEWS),
                answer="A",
                options=options,
                metadata={"hbond": _pairs_metadata(c, [(i, j)])[0], "options_canonical": options,
                          "bond_midpoint_A": [round(float(cx), 4), round(float(cy), 4)],
                          "bond_midpoint_px": [round(float((front.x_px[i] + front.x_px[j]) / 2), 3),
                                               round(float((front.y_px[i] + front.y_px[j]) / 2), 3)],
                          "move": [dx, dy], "decoy_margin_A": self.spec.decoy_margin_A,
                          "camera": scene.camera_dict(),
                          "equivalent_atoms": equivalent_atoms(c, [i, j], scene.ligand_classes, lambda r: _t9_atom(c, r)),
                          "label_check": check.record(relaid)},
            )
            item.renders = Renders(images=views, extra={"front": views[0], "views": views, "key_atoms": key})
            items.append(item)
            if len(items) == self.count(ctx.split):
                break
        if not items:
            raise TaskSkipped("every H-bond midpoint is already at the screen centre, or its labels are not legible, "
                              "or it has no decoys clearly worse than its answer")
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
        pairs = hbond_pairs(scene.hbonds, c)
        needs, visible = _bond_needs(scene, pairs)

        def draw(key):  # the scene's shared views, or a layout with the named atoms as key atoms
            return scene.base_views(SIX_VIEWS) if key is None else scene.render(SIX_VIEWS, key_atoms=key)

        checked = checked_render(draw, c, needs, visible, None)
        if checked is None:
            raise TaskSkipped("an atom or residue the answer names has no legible label in any image")
        views, check, relaid = checked
        item = self.new_item(
            scene, ctx, 0,
            question=self.prompt(pdb_id=scene.pdb_id, chain=scene.pocket_chain, **scene.label_fields()),
            images=scene.pngs(views),
            image_roles=list(SIX_VIEWS),
            answer=str(truth),
            metadata={"hbonds": _pairs_metadata(c, pairs), "camera": scene.camera_dict(),
                      "equivalent_atoms": equivalent_atoms(c, [a for p in pairs for a in p], scene.ligand_classes,
                                                           lambda r: _t9_atom(c, r)),
                      "label_check": check.record(relaid)},
        )
        item.renders = Renders(images=views, extra={"views": views})
        return [item]
