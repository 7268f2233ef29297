"""T1 translation, T2 rotation, T3 zooming: one motion between two front views.

Images: the unmoved complex's front, left and top views, then the front view after the motion,
all drawn in one camera frame (the zoom only changes the frame's ``zoom_z``, i.e. the magnification
``D / (D - d)``), so the change between image 1 and image 4 is the motion and nothing else.

T3 is answerable only through the camera distance D, so its prompt states D to 0.1 Å and its images
are drawn with exactly that D (the field of view that fixes D is adjusted by < 0.01°; orthographic
images at zoom 0 do not depend on it).  A zoom is asked only when it is *visibly* different from
its neighbours d - 1 and d + 1 (the other allowed answers nearest to it): some heavy atom inside
both after-images must land at least ``min_separation`` x image size pixels apart in them
(:func:`zoom_separation_px`; 5 px at 1024 px).  Since magnification grows monotonically with d, any
other allowed answer differs at least as much.
"""

from __future__ import annotations

import numpy as np

from misi_geom import THREE_VIEWS, CameraFrame
from misi_render import RenderOptions
from misi_tasks.definitions.answers import Command, Move, Roll
from misi_tasks.definitions.items import Item, Renders
from misi_tasks.tasks.commands import command_motion
from misi_tasks.tasks.prompts import VIEWS3
from misi_tasks.tasks.base import GenContext, TaskGenerator, TaskSkipped
from misi_tasks.tasks.scene import Scene

__all__ = ["SingleMotionTask", "TranslationTask", "RotationTask", "ZoomingTask", "zoom_frame", "zoom_separation_px"]


class SingleMotionTask(TaskGenerator):
    """Shared machinery: sample commands, draw before/after, record the transform."""

    def sample_commands(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Command]:
        raise NotImplementedError

    def frame(self, scene: Scene) -> CameraFrame:
        """The camera frame of the item's images before the motion."""
        return scene.frame_for()

    def after_frame(self, scene: Scene, cmd: Command) -> CameraFrame:
        return self.frame(scene)

    def before_views(self, scene: Scene) -> list:
        """Images 1-3, drawn in :meth:`frame` (the scene's shared renders where they agree)."""
        return scene.base_views(THREE_VIEWS)

    def prompt_fields(self, scene: Scene) -> dict:
        return {"pdb_id": scene.pdb_id, **scene.label_fields()}

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        frame = self.frame(scene)
        before = self.before_views(scene)
        items = []
        for k, cmd in enumerate(self.sample_commands(scene, ctx, rng)):
            motion = command_motion(cmd, center=np.zeros(3))  # rolls turn about the complex's centroid
            after_frame = self.after_frame(scene, cmd)
            (after,) = scene.render(["front"], frame=after_frame, motion=motion)
            item = self.new_item(
                scene, ctx, k,
                question=self.prompt(**self.prompt_fields(scene)),
                images=scene.pngs(before) + [scene.png(after)],
                image_roles=["front", "left", "top", "front after"],
                answer=str(cmd),
                metadata={
                    "command": cmd.to_dict(),
                    "motion": motion.to_list(),
                    "camera": scene.camera_dict(frame),
                    "camera_after": scene.camera_dict(after_frame),
                },
            )
            item.renders = Renders(images=list(before) + [after], extra={"before": before, "after": after, "motion": motion})
            items.append(item)
        return items


class TranslationTask(SingleMotionTask):
    """T1 (:class:`misi_tasks.definitions.motion.TranslationSpec`): ``count`` items per axis."""

    name = "translation"

    def image_descriptions(self, **fields):
        return VIEWS3 + ["the front view after the complex was moved along one axis"]

    def prompt_fields(self, scene: Scene) -> dict:
        return {**super().prompt_fields(scene), "scales": [(scene.options.scale(self.frame(scene)), None)],
                "perspective": scene.options.projection == "perspective"}

    def frame(self, scene):  # room for the largest move: every atom stays in frame after it
        return scene.frame_for(margin_A=self.spec.max_distance)

    def before_views(self, scene):
        return scene.base_views(THREE_VIEWS, margin_A=self.spec.max_distance)

    def sample_commands(self, scene, ctx, rng):
        values = np.array(self.spec.distances())
        n = min(self.count(ctx.split), len(values))
        return [Move(axis, int(d)) for axis in self.spec.axes for d in rng.choice(values, n, replace=False)]


class RotationTask(SingleMotionTask):
    """T2 (:class:`misi_tasks.definitions.motion.RotationSpec`): ``count`` items per axis."""

    name = "rotation"

    def image_descriptions(self, **fields):
        return VIEWS3 + ["the front view after the complex was turned about one axis through its centre"]

    def sample_commands(self, scene, ctx, rng):
        values = np.array(self.spec.angles())
        n = min(self.count(ctx.split), len(values))
        return [Roll(axis, int(a)) for axis in self.spec.axes for a in rng.choice(values, n, replace=False)]


def zoom_frame(frame: CameraFrame) -> CameraFrame:
    """``frame`` with its nominal distance D rounded to 0.1 Å (the value a T3 prompt states).

    Only the field of view changes (by < 0.01°); the radius, scale and centre are kept.
    """
    return frame.at_distance(round(frame.distance, 1))


def zoom_separation_px(frame: CameraFrame, options: RenderOptions, cam_points: np.ndarray, d1: float, d2: float) -> float:
    """How far apart (px) the farthest-moving point lands in the front views after ``move z d1``
    and after ``move z d2``, over the points inside both frames (0 if there is none).

    ``cam_points`` are front-frame heavy-atom coordinates (Å) of the unmoved complex.
    """
    shots = []
    for d in (d1, d2):
        s = options.project(frame.zoomed(d), command_motion(Move("z", d)).apply(cam_points))
        shots.append((s.x_px, s.y_px, options.in_image(s)))
    both = shots[0][2] & shots[1][2]
    if not both.any():
        return 0.0
    return float(np.hypot(shots[0][0] - shots[1][0], shots[0][1] - shots[1][1])[both].max())


class ZoomingTask(SingleMotionTask):
    """T3 (:class:`misi_tasks.definitions.motion.ZoomingSpec`): the prompt states D (0.1 Å).

    A zoom is not asked when it would bring the centre within ``min_gap`` Å of the camera, leave
    fewer than ``min_atoms_in_frame`` heavy atoms inside the after image, or look the same as a
    neighbouring answer (d ± 1) to within ``min_separation`` x image size pixels.
    """

    name = "zooming"

    def frame(self, scene: Scene) -> CameraFrame:
        return zoom_frame(scene.frame_for())

    def before_views(self, scene: Scene) -> list:
        if scene.options.projection == "orthographic":  # at zoom 0 the field of view changes nothing
            return scene.base_views(THREE_VIEWS)
        return scene.render(THREE_VIEWS, frame=self.frame(scene))

    def prompt_fields(self, scene: Scene) -> dict:
        return {"pdb_id": scene.pdb_id, "distance_A": round(scene.frame.distance, 1), **scene.label_fields()}

    def image_descriptions(self, **fields):
        return VIEWS3 + ["the front view after the complex was moved toward you along Z"]

    def _allowed(self, scene: Scene, d: int) -> bool:
        p = self.spec
        frame, opts = self.frame(scene), scene.options
        if frame.distance - d < p.min_gap:
            return False
        heavy = scene.camera_frame("front")[~scene.complex.is_hydrogen]
        s = opts.project(frame.zoomed(d), command_motion(Move("z", d)).apply(heavy))
        if int(opts.in_image(s).sum()) < p.min_atoms_in_frame:
            return False
        need = p.min_separation * opts.size
        neighbours = [n for n in (d - 1, d + 1) if p.min_distance <= n <= p.max_distance]
        # a neighbour at the camera itself (no valid image) is as different as can be
        return all(frame.distance - n < 1.5 or zoom_separation_px(frame, opts, heavy, d, n) >= need
                   for n in neighbours)

    def sample_commands(self, scene, ctx, rng):
        p = self.spec
        values = np.array([d for d in p.distances() if self._allowed(scene, d)])
        if len(values) == 0:
            raise TaskSkipped(
                f"no zoom in [{p.min_distance}, {p.max_distance}] Å keeps the centre {p.min_gap:g} Å from "
                f"the camera (distance {scene.frame.distance:.1f} Å), {p.min_atoms_in_frame} atoms in frame "
                f"and a visible difference from its neighbours"
            )
        n = min(self.count(ctx.split), len(values))
        return [Move("z", int(d)) for d in np.sort(rng.choice(values, n, replace=False))]

    def after_frame(self, scene, cmd):
        return self.frame(scene).zoomed(cmd.dist_A)
