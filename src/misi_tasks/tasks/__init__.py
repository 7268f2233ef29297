"""The nine task generators.  Importing anything from this package registers all of them in
:data:`~misi_tasks.tasks.base.GENERATORS` (the package imports its generator modules)."""

from misi_tasks.tasks.base import GENERATORS, GenContext, TaskGenerator, TaskSkipped, get_task
from misi_tasks.tasks.choice import RotationRotationTask, TranslationRotationTask
from misi_tasks.tasks.docking import DockingTask
from misi_tasks.tasks.hbonds import InteractionLocationTask, PocketLigandTask, ResidueLigandTask
from misi_tasks.tasks.motion import RotationTask, TranslationTask, ZoomingTask

__all__ = [
    "GENERATORS",
    "GenContext",
    "TaskGenerator",
    "TaskSkipped",
    "get_task",
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
