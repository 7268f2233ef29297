"""T7 ligand docking: undo a roll of the ligand about its own centre and a move along x.

The ligand is displaced **once, in the front camera frame**: turned about its own centroid by one
roll, then moved along x to the far left or right by a whole number of Å drawn with the seed among
those that leave its x-extent between ``min_gap`` and ``max_gap`` Å from the pocket's in the front
view (so the move's size cannot be read off image 7 by a fixed rule); ``gap_A`` in the metadata is
that gap as drawn.  The displaced
ligand is then a moved :class:`misi_geom.Complex` in model coordinates, and each of its images is
that view of the one displaced 3-D ligand (its left view is the front-frame displaced ligand
turned +90° about Y, its top view +90° about X).  All seven images share one camera frame about the
complex's centre whose sphere holds the pocket and the displaced ligand in every view
(:meth:`Scene.frame_for` of the displaced complex).

The answer undoes the displacement: the inverse roll about the displaced ligand's centre, then the
move back (``roll x -75, move x -14`` for a ligand turned by +75° about x and moved by +14 Å).
For small or symmetric ligands other allowed answers dock almost as well: every allowed answer
(roll axis, angle in 15° steps, integer move) whose pose is strictly within
:data:`EQUIVALENT_RMSD_A` heavy-atom RMSD of the bound pose is recorded in the item's metadata as
``equivalent_answers`` and scores as the exact answer (:mod:`misi_tasks.eval.score`).
"""

from __future__ import annotations

import numpy as np

from misi_geom import THREE_VIEWS, Complex
from misi_tasks.definitions.answers import Docking, Move, Roll
from misi_tasks.definitions.docking import EQUIVALENT_RMSD_A
from misi_tasks.definitions.items import Item, Renders
from misi_tasks.tasks.commands import command_motion
from misi_tasks.tasks.base import GenContext, TaskGenerator
from misi_tasks.tasks.scene import Scene

__all__ = ["DockingTask", "displacement", "equivalent_answers", "EQUIVALENT_RMSD_A"]


def displacement(lig_xyz: np.ndarray, pocket_xyz: np.ndarray, roll: Roll, side: int, min_gap: float,
                 max_gap: float, u: float):
    """The displacing move for front-frame ligand and pocket heavy-atom coordinates.

    The move is a whole number of Å along x that leaves the rolled ligand's x-extent between
    ``min_gap`` and ``max_gap`` Å from the pocket's on ``side`` (+1 right, -1 left); ``u`` in [0, 1)
    picks one of those moves uniformly.  At least one fits when ``max_gap >= min_gap + 1`` (the
    spec checks it); otherwise the gap is the smallest one above ``min_gap``.

    Returns ``(move, motion, gap)``: the move, the full displacement motion (front camera frame) and
    the gap drawn (Å), the one the images show.
    """
    center = lig_xyz.mean(axis=0)
    rolled = command_motion(roll, center).apply(lig_xyz)
    if side > 0:  # gap = rolled min + d - pocket max
        base = float(rolled[:, 0].min() - pocket_xyz[:, 0].max())
        lo, hi = int(np.ceil(min_gap - base)), int(np.floor(max_gap - base))
    else:  # gap = pocket min - (rolled max + d)
        base = float(pocket_xyz[:, 0].min() - rolled[:, 0].max())
        lo, hi = int(np.ceil(base - max_gap)), int(np.floor(base - min_gap))
    moves = list(range(lo, hi + 1)) or [lo if side > 0 else hi]
    d = moves[min(int(u * len(moves)), len(moves) - 1)]
    move = Move("x", d)
    gap = base + d if side > 0 else base - d
    return move, command_motion(roll, center).then(command_motion(move)), gap


def equivalent_answers(
    displaced: np.ndarray, bound: np.ndarray, angles: np.ndarray, max_rmsd: float = EQUIVALENT_RMSD_A
) -> list[tuple[str, float]]:
    """Every allowed answer whose docked pose is within ``max_rmsd`` Å RMSD of the bound pose.

    Parameters
    ----------
    displaced, bound : ndarray, dtype=float64, shape=(n, 3)
        Front-frame heavy-atom coordinates of the displaced and of the bound ligand.
    angles : ndarray of int
        The allowed roll angles (degrees); axes are x, y and z, moves any integer along x.

    Returns
    -------
    list of (answer text, rmsd Å)
        Sorted by RMSD, then text; the exact answer (RMSD 0) is among them.
    """
    center = displaced.mean(axis=0)
    out = []
    for axis in ("x", "y", "z"):
        for angle in angles:
            rolled = command_motion(Roll(axis, int(angle)), center).apply(displaced)
            diff = bound - rolled
            # RMSD^2(d) = mean |diff - d e_x|^2, minimised at d = mean(diff_x); test the integers nearby
            base = float(np.mean(np.sum(diff[:, 1:] ** 2, axis=1)))
            mx = float(diff[:, 0].mean())
            for d in range(int(np.floor(mx)) - 1, int(np.ceil(mx)) + 2):
                rmsd = float(np.sqrt(base + np.mean((diff[:, 0] - d) ** 2)))
                if rmsd < max_rmsd - 1e-9 and d != 0:
                    out.append((str(Docking(Roll(axis, int(angle)), Move("x", d))), round(rmsd, 4)))
    return sorted(out, key=lambda t: (t[1], t[0]))


class DockingTask(TaskGenerator):
    """T7 (:class:`misi_tasks.definitions.docking.DockingSpec`): ``count`` items per complex, distinct
    (axis, angle, side)."""

    name = "docking"

    shows = "a protein pocket and its ligand, which has been taken out of the pocket"

    def image_descriptions(self, **fields):
        return ["the pocket alone, front view", "the pocket alone, left view", "the pocket alone, top view",
                "the displaced ligand alone, front view", "the displaced ligand alone, left view",
                "the displaced ligand alone, top view", "pocket and displaced ligand together, front view"]

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        c = scene.complex
        lig_mask = c.is_ligand
        heavy = ~c.is_hydrogen
        q = scene.camera_frame("front")  # front camera frame: model axes about the scene centre
        lig_xyz, pocket_xyz = q[lig_mask & heavy], q[~lig_mask & heavy]
        pocket = c[~lig_mask]
        angles = np.array(self.spec.angles())
        combos = [(a, int(v), s) for a in ("x", "y", "z") for v in angles for s in (-1, 1)]
        picks = rng.choice(len(combos), min(self.count(ctx.split), len(combos)), replace=False)
        items = []
        for k, pick in enumerate(picks):
            axis, angle, side = combos[pick]
            roll = Roll(axis, angle)
            move, motion, gap = displacement(lig_xyz, pocket_xyz, roll, side, self.spec.min_gap, self.spec.max_gap,
                                             float(rng.uniform()))
            moved_lig = motion.apply(lig_xyz)
            # the one displaced 3-D state, as a complex in model coordinates: every view turns it
            moved = c.with_coord(np.where(lig_mask[:, None], motion.apply(q) + scene.frame.center, c.coord))
            # one frame for all seven images: the pocket and the displaced ligand, about the scene centre
            frame = scene.frame_for(motion=motion, motion_mask=lig_mask)
            pocket_views = scene.render(THREE_VIEWS, complex_=pocket, frame=frame)
            ligand_views = scene.render(THREE_VIEWS, complex_=moved[lig_mask], frame=frame)
            (together,) = scene.render(["front"], complex_=moved, frame=frame)
            undo_roll = Roll(axis, -angle)
            undo_move = Move("x", -move.dist_A)
            answer = str(Docking(undo_roll, undo_move))
            equivalents = equivalent_answers(moved_lig, lig_xyz, angles)
            item = self.new_item(
                scene, ctx, k,
                question=self.prompt(pdb_id=scene.pdb_id, **scene.label_fields()),
                images=scene.pngs(pocket_views + ligand_views + [together]),
                image_roles=["pocket front", "pocket left", "pocket top",
                             "ligand front", "ligand left", "ligand top", "pocket and ligand front"],
                answer=answer,
                metadata={
                    "displacement": [roll.to_dict(), move.to_dict()],
                    "displacement_frame": "front camera frame (model axes about camera.center)",
                    "gap_A": round(gap, 4),
                    "answer_commands": [undo_roll.to_dict(), undo_move.to_dict()],
                    "equivalent_answers": [a for a, _ in equivalents if a != answer],
                    "equivalent_rmsd_A": {a: r for a, r in equivalents},
                    "equivalent_max_rmsd_A": EQUIVALENT_RMSD_A,
                    "ligand_motion": motion.to_list(),
                    "ligand_center": np.round(lig_xyz.mean(axis=0), 4).tolist(),
                    "pocket_x_range": [round(float(pocket_xyz[:, 0].min()), 3), round(float(pocket_xyz[:, 0].max()), 3)],
                    "ligand_x_range": [round(float(moved_lig[:, 0].min()), 3), round(float(moved_lig[:, 0].max()), 3)],
                    "camera": scene.camera_dict(frame),
                },
            )
            item.renders = Renders(images=pocket_views + ligand_views + [together],
                                   extra={"together": together, "ligand": ligand_views, "pocket": pocket_views,
                                          "motion": motion, "frame": frame, "complex": moved})
            items.append(item)
        return items
