"""T7 ligand docking: undo a roll of the ligand about its own centre and a move along x.

The ligand is turned about its own centroid by one roll, then moved along x to the far left or
right so that, in the front view, its x-extent and the pocket's are at least ``gap`` Å apart.  All
seven images share one camera whose sphere holds the pocket and the displaced ligand.  The answer
undoes the displacement: the inverse roll about the displaced ligand's centre, then the move back
(``roll x -75, move x -14`` for a ligand turned by +75° about x and moved by +14 Å).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from misi_geom import THREE_VIEWS, fit_camera
from misi_tasks.commands import Move, Roll, format_commands
from misi_tasks.items import Item
from misi_tasks.prompts import PROMPTS
from misi_tasks.registry import GenContext, TaskGenerator
from misi_tasks.scene import Scene
from misi_tasks.tasks.motion import angle_choices

__all__ = ["DockingTask", "displacement"]


def displacement(lig_xyz: np.ndarray, pocket_xyz: np.ndarray, roll: Roll, side: int, gap: float):
    """The displacing move for camera-frame ligand and pocket heavy-atom coordinates.

    Returns ``(move, motion)``: the integer x move that separates the rolled ligand from the pocket
    by at least ``gap`` Å on ``side`` (+1 right, -1 left), and the full displacement motion.
    """
    center = lig_xyz.mean(axis=0)
    rolled = roll.motion(center).apply(lig_xyz)
    if side > 0:
        d = int(np.ceil(pocket_xyz[:, 0].max() + gap - rolled[:, 0].min()))
    else:
        d = int(np.floor(pocket_xyz[:, 0].min() - gap - rolled[:, 0].max()))
    move = Move("x", d)
    return move, roll.motion(center).then(move.motion())


class DockingTask(TaskGenerator):
    """T7: ``roll x 75, move x -14``; ``count`` items per complex, distinct (axis, angle, side)."""

    name = "docking"
    counts = {"train": 6, "test": 3}
    defaults = {"gap": 2.0, "max_angle": 90, "step": 15}

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        c = scene.complex
        lig_mask = c.is_ligand
        heavy = ~c.is_hydrogen
        q = scene.camera_frame("front")
        lig_xyz, pocket_xyz = q[lig_mask & heavy], q[~lig_mask & heavy]
        pocket, ligand = c[~lig_mask], c[lig_mask]
        angles = angle_choices(self.params["max_angle"], self.params["step"])
        combos = [(a, int(v), s) for a in ("x", "y", "z") for v in angles for s in (-1, 1)]
        picks = rng.choice(len(combos), min(self.count(ctx.split), len(combos)), replace=False)
        items = []
        for k, pick in enumerate(picks):
            axis, angle, side = combos[pick]
            roll = Roll(axis, angle)
            move, motion = displacement(lig_xyz, pocket_xyz, roll, side, self.params["gap"])
            moved_lig = motion.apply(lig_xyz)
            # one camera for all seven images: the pocket and the displaced ligand, about the scene centre
            cam = fit_camera(np.vstack([pocket_xyz, moved_lig]), scene.settings.size, center=np.zeros(3),
                             projection=scene.settings.projection)
            cam = replace(cam, center=scene.camera.center)
            pocket_views = scene.render(THREE_VIEWS, complex_=pocket, camera=cam)
            ligand_views = scene.render(THREE_VIEWS, complex_=ligand, camera=cam, motion=motion)
            (together,) = scene.render(["front"], camera=cam, motion=motion, motion_mask=lig_mask)
            undo_roll = Roll(axis, -angle)
            undo_move = Move("x", -move.distance)
            answer = format_commands([undo_roll, undo_move])
            item = self.new_item(
                scene, ctx, k,
                question=PROMPTS[self.name](scene.pdb_id),
                images=scene.pngs(pocket_views + ligand_views + [together]),
                image_roles=["pocket front", "pocket left", "pocket top",
                             "ligand front", "ligand left", "ligand top", "pocket and ligand front"],
                answer=answer,
                metadata={
                    "displacement": [roll.to_dict(), move.to_dict()],
                    "answer_commands": [undo_roll.to_dict(), undo_move.to_dict()],
                    "ligand_motion": motion.to_list(),
                    "ligand_center": np.round(lig_xyz.mean(axis=0), 4).tolist(),
                    "pocket_x_range": [round(float(pocket_xyz[:, 0].min()), 3), round(float(pocket_xyz[:, 0].max()), 3)],
                    "ligand_x_range": [round(float(moved_lig[:, 0].min()), 3), round(float(moved_lig[:, 0].max()), 3)],
                    "camera": cam.to_dict(),
                },
            )
            item.renders = {"together": together, "motion": motion, "camera": cam}
            items.append(item)
        return items
