"""T1 translation, T2 rotation, T3 zooming: one motion between two front views.

Images: the unmoved complex's front, left and top views, then the front view after the motion,
all drawn with one camera (the zoom only changes the camera's ``zoom_z``, i.e. the magnification
``D / (D - d)``), so the change between image 1 and image 4 is the motion and nothing else.
"""

from __future__ import annotations

import numpy as np

from misi_geom import THREE_VIEWS, Camera
from misi_tasks.commands import Command, Move, Roll
from misi_tasks.items import Item
from misi_tasks.prompts import PROMPTS
from misi_tasks.registry import GenContext, TaskGenerator, TaskSkipped
from misi_tasks.scene import Scene

__all__ = ["SingleMotionTask", "TranslationTask", "RotationTask", "ZoomingTask", "angle_choices"]


def angle_choices(max_angle: int = 90, step: int = 15) -> np.ndarray:
    """Non-zero multiples of ``step`` in [-max_angle, max_angle] (int64)."""
    a = np.arange(-max_angle, max_angle + 1, step)
    return a[a != 0]


class SingleMotionTask(TaskGenerator):
    """Shared machinery: sample commands, draw before/after, record the transform."""

    def sample_commands(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Command]:
        raise NotImplementedError

    def after_camera(self, scene: Scene, cmd: Command) -> Camera:
        return scene.camera

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        before = scene.base_views(THREE_VIEWS)
        items = []
        for k, cmd in enumerate(self.sample_commands(scene, ctx, rng)):
            motion = cmd.motion(center=np.zeros(3))  # rolls turn about the complex's centroid
            cam = self.after_camera(scene, cmd)
            (after,) = scene.render(["front"], camera=cam, motion=motion)
            item = self.new_item(
                scene, ctx, k,
                question=PROMPTS[self.name](scene.pdb_id),
                images=scene.pngs(before) + [scene.png(after)],
                image_roles=["front", "left", "top", "front after"],
                answer=str(cmd),
                metadata={
                    "command": cmd.to_dict(),
                    "motion": motion.to_list(),
                    "camera": scene.camera.to_dict(),
                    "camera_after": cam.to_dict(),
                },
            )
            item.renders = {"before": before, "after": after, "motion": motion}
            items.append(item)
        return items


class TranslationTask(SingleMotionTask):
    """T1: ``move x 3``; per split ``count`` items per axis (x and y), d in [-4, 4] Å, d != 0."""

    name = "translation"
    counts = {"train": 2, "test": 1}
    defaults = {"axes": ("x", "y"), "max_distance": 4}

    def sample_commands(self, scene, ctx, rng):
        values = np.arange(-self.params["max_distance"], self.params["max_distance"] + 1)
        values = values[values != 0]
        n = min(self.count(ctx.split), len(values))
        return [Move(axis, int(d)) for axis in self.params["axes"] for d in rng.choice(values, n, replace=False)]


class RotationTask(SingleMotionTask):
    """T2: ``roll y -30``; ``count`` items per axis (x, y, z), multiples of 15° in [-90, 90], != 0."""

    name = "rotation"
    counts = {"train": 2, "test": 1}
    defaults = {"axes": ("x", "y", "z"), "max_angle": 90, "step": 15}

    def sample_commands(self, scene, ctx, rng):
        values = angle_choices(self.params["max_angle"], self.params["step"])
        n = min(self.count(ctx.split), len(values))
        return [Roll(axis, int(a)) for axis in self.params["axes"] for a in rng.choice(values, n, replace=False)]


class ZoomingTask(SingleMotionTask):
    """T3: ``move z 47``; d in [40, 60] Å, integer.

    A zoom is not asked when it would bring the centre within ``min_gap`` Å of the camera or leave
    fewer than ``min_atoms_in_frame`` heavy atoms inside the after image.
    """

    name = "zooming"
    counts = {"train": 4, "test": 2}
    defaults = {"min_distance": 40, "max_distance": 60, "min_gap": 5.0, "min_atoms_in_frame": 10}

    def _allowed(self, scene: Scene, d: int) -> bool:
        cam = scene.camera
        if cam.distance - d < self.params["min_gap"]:
            return False
        motion = Move("z", d).motion()
        s = cam.zoomed(d).project(scene.camera_frame("front", motion)[~scene.complex.is_hydrogen])
        inside = s.in_front & (s.x_px >= 0) & (s.x_px < cam.size) & (s.y_px >= 0) & (s.y_px < cam.size)
        return int(inside.sum()) >= self.params["min_atoms_in_frame"]

    def sample_commands(self, scene, ctx, rng):
        p = self.params
        values = np.array([d for d in range(p["min_distance"], p["max_distance"] + 1) if self._allowed(scene, d)])
        if len(values) == 0:
            raise TaskSkipped(
                f"no zoom in [{p['min_distance']}, {p['max_distance']}] Å keeps the centre {p['min_gap']:g} Å from "
                f"the camera (distance {scene.camera.distance:.1f} Å) and {p['min_atoms_in_frame']} atoms in frame"
            )
        n = min(self.count(ctx.split), len(values))
        return [Move("z", int(d)) for d in np.sort(rng.choice(values, n, replace=False))]

    def after_camera(self, scene, cmd):
        return scene.camera.zoomed(cmd.distance)
