"""The nine task generators; importing this package registers them."""

from misi_tasks.tasks.choice import RotationRotationTask, TranslationRotationTask
from misi_tasks.tasks.docking import DockingTask
from misi_tasks.tasks.hbonds import InteractionLocationTask, PocketLigandTask, ResidueLigandTask
from misi_tasks.tasks.motion import RotationTask, TranslationTask, ZoomingTask

__all__ = [
    "TranslationTask",
    "RotationTask",
    "ZoomingTask",
    "ResidueLigandTask",
    "TranslationRotationTask",
    "RotationRotationTask",
    "DockingTask",
    "InteractionLocationTask",
    "PocketLigandTask",
]
