"""T5 translation + rotation and T6 rotation + rotation: multiple choice between four front views.

T5: a move (x or y) then a roll are shown on complex c1; the options show c2's front view after
candidate pairs; the correct one is the same pair applied to c2 (another complex of the same split).
T6: two rolls about different axes are shown; the correct option applies the same two rolls once
more to the already rotated complex.  Rolls turn about the object's current centre.
Decoys: :mod:`misi_tasks.tasks.decoys`.
"""

from __future__ import annotations

import numpy as np

from misi_geom import THREE_VIEWS, SE3
from misi_tasks.definitions.answers import Command, Move, Roll, format_commands
from misi_tasks.definitions.items import Item, Renders
from misi_tasks.tasks.commands import sequence_motion
from misi_tasks.tasks.decoys import SsimThumb, grey_thumbnail, t5t6_decoy, thumbnail_similarity
from misi_tasks.tasks.prompts import VIEWS3
from misi_tasks.tasks.base import GenContext, TaskGenerator, TaskSkipped
from misi_tasks.tasks.scene import Scene

__all__ = ["PairChoiceTask", "TranslationRotationTask", "RotationRotationTask"]

_MAX_REDRAWS = 12


class PairChoiceTask(TaskGenerator):
    """Shared machinery: a true pair (f1, f2), three decoys by scheme, option images checked by SSIM.

    Value ranges and the SSIM limit are the task's spec (:mod:`misi_tasks.definitions.choice`)."""

    @property
    def margin_A(self) -> float:
        """Frame margin (Å) so that every atom stays in frame after the largest move (T5: 4 Å)."""
        return float(max(self.spec.distances(), default=0))

    def sample_pair(self, rng: np.random.Generator) -> tuple[Command, Command]:
        raise NotImplementedError

    def option_motion(self, pair: tuple[Command, Command], base: SE3) -> SE3:
        """The motion an option image shows, after ``base`` (what the query image already shows)."""
        return base.then(sequence_motion(pair, center=base.apply(np.zeros(3))))

    def choose_options(self, query: Scene, base: SE3, pair, rng, shown: np.ndarray | None = None):
        """(options as pairs, their renders) with the correct pair first, or raise TaskSkipped.

        Every decoy image differs visibly (SSIM below ``ssim_max``) from the correct option, from
        the decoys chosen before it and from ``shown`` (the item's image 4, when it shows the query
        complex), so no two options and no option and image 4 look the same.
        """
        frame = query.frame_for(margin_A=self.margin_A)
        (correct,) = query.render(["front"], frame=frame, motion=self.option_motion(pair, base))
        thumbs = [SsimThumb(grey_thumbnail(correct.image))]  # filtered once, compared often
        if shown is not None:
            thumbs.append(SsimThumb(grey_thumbnail(shown)))
            if thumbnail_similarity(thumbs[0], thumbs[1]) >= self.spec.ssim_max:
                raise TaskSkipped(f"the correct option of {format_commands(pair)} looks like image 4")
        chosen, renders = [pair], [correct]
        motions = [self.option_motion(pair, base)]
        for scheme in (1, 2, 3):
            for _ in range(_MAX_REDRAWS):
                cand = t5t6_decoy(scheme, *pair, rng, moves=self.spec.distances(), rolls=self.spec.angles())
                m = self.option_motion(cand, base)
                if cand in chosen or any(m.allclose(x, atol=1e-6) for x in motions):
                    continue
                (rv,) = query.render(["front"], frame=frame, motion=m)
                thumb = SsimThumb(grey_thumbnail(rv.image))
                if any(thumbnail_similarity(thumb, t) >= self.spec.ssim_max for t in thumbs):
                    continue
                chosen.append(cand)
                renders.append(rv)
                motions.append(m)
                thumbs.append(thumb)
                break
            else:
                raise TaskSkipped(f"no visibly different decoy by scheme {scheme} for {format_commands(pair)}")
        return chosen, renders

    def describe(self, scene: Scene, ctx: GenContext, rng) -> tuple[Scene, Scene, dict]:
        """(demo scene, query scene, prompt fields)."""
        raise NotImplementedError

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        items, seen = [], set()
        for k in range(self.count(ctx.split)):
            demo, query, fields = self.describe(scene, ctx, rng)
            for attempt in range(_MAX_REDRAWS):
                pair = self.sample_pair(rng)
                if pair in seen and attempt < _MAX_REDRAWS - 1:
                    continue
                seen.add(pair)
                demo_motion = sequence_motion(pair)
                (demo_after,) = demo.render(["front"], frame=demo.frame_for(margin_A=self.margin_A), motion=demo_motion)
                query_base = SE3.identity() if query is not demo else demo_motion
                shown = demo_after.image if query is demo else None
                try:
                    options, option_renders = self.choose_options(query, query_base, pair, rng, shown)
                    break
                except TaskSkipped:  # no fair option set for this pair: draw another pair
                    if attempt == _MAX_REDRAWS - 1:
                        raise
            images = demo.pngs(demo.base_views(THREE_VIEWS, self.margin_A)) + [demo.png(demo_after)]
            roles = ["c1 front", "c1 left", "c1 top", "c1 front after"]
            if query is not demo:
                images += query.pngs(query.base_views(THREE_VIEWS, self.margin_A))
                roles += ["c2 front", "c2 left", "c2 top"]
            item = self.new_item(
                scene, ctx, k,
                question=self.prompt(**fields),
                images=images,
                image_roles=roles,
                answer="A",
                options=["" for _ in options],
                option_images=[query.png(rv) for rv in option_renders],
                metadata={
                    "f1": pair[0].to_dict(), "f2": pair[1].to_dict(),
                    "options_canonical": [format_commands(o) for o in options],
                    "demo_complex": demo.pdb_id, "query_complex": query.pdb_id,
                    "demo_motion": demo_motion.to_list(),
                    "option_motions": [self.option_motion(o, query_base).to_list() for o in options],
                    "camera": demo.camera_dict(demo.frame_for(margin_A=self.margin_A)),
                    "query_camera": query.camera_dict(query.frame_for(margin_A=self.margin_A)),
                },
            )
            shown_views = (demo.base_views(THREE_VIEWS, self.margin_A) + [demo_after]
                           + ([] if query is demo else query.base_views(THREE_VIEWS, self.margin_A)))
            item.renders = Renders(images=shown_views, options=option_renders, extra={"demo_after": demo_after})
            items.append(item)
        return items


class TranslationRotationTask(PairChoiceTask):
    """T5: f1 a move along x or y, f2 a roll; shown on c1, asked on c2."""

    name = "translation-rotation"

    def preamble(self, *, other_id: str, **fields) -> str:
        return f"{super().preamble(**fields)} A second complex, {other_id.upper()}, is drawn with the same conventions."

    def image_descriptions(self, *, pdb_id: str, other_id: str, **fields):
        return ([f"{pdb_id.upper()} {v}" for v in VIEWS3]
                + [f"{pdb_id.upper()} front view after a move (along x or y) followed by a roll about its centre"]
                + [f"{other_id.upper()} {v}" for v in VIEWS3]
                + ["option A", "option B", "option C", "option D (front views)"])

    def sample_pair(self, rng):
        d = int(rng.choice(list(self.spec.distances())))
        move = Move(str(rng.choice(["x", "y"])), d)
        return move, Roll(str(rng.choice(["x", "y", "z"])), int(rng.choice(np.array(self.spec.angles()))))

    def describe(self, scene, ctx, rng):
        if not ctx.partner_ids or ctx.partner is None:
            raise TaskSkipped("needs a second complex in the same split")
        other = ctx.partner(str(rng.choice(list(ctx.partner_ids))))
        chains = scene.residue_chain if scene.residue_chain == other.residue_chain else None
        c1, c2 = (round(s.options.scale(s.frame_for(margin_A=self.margin_A)), 1) for s in (scene, other))
        scales = [(c1, None)] if c1 == c2 else [(c1, "images 1-4"), (c2, "images 5-11")]
        return scene, other, {"pdb_id": scene.pdb_id, "other_id": other.pdb_id, "chains": chains,
                              "numbered": scene.numbered_ligand or other.numbered_ligand, "scales": scales,
                              "perspective": scene.options.projection == "perspective"}


class RotationRotationTask(PairChoiceTask):
    """T6: f1, f2 rolls about different axes; the answer applies them again to the rotated complex."""

    name = "rotation-rotation"

    def image_descriptions(self, **fields):
        return VIEWS3 + ["the front view after two rolls about different axes through the centre, one after the other",
                         "option A", "option B", "option C", "option D (front views)"]

    def sample_pair(self, rng):
        a1, a2 = rng.choice(["x", "y", "z"], size=2, replace=False)
        v1, v2 = rng.choice(np.array(self.spec.angles()), size=2)
        return Roll(str(a1), int(v1)), Roll(str(a2), int(v2))

    def describe(self, scene, ctx, rng):
        return scene, scene, {"pdb_id": scene.pdb_id, **scene.label_fields()}
