"""The task generators.  Importing anything from this package registers all of them in
:data:`~misi_tasks.tasks.base.GENERATORS`: the package imports every module it holds, so a new
generator module needs no import here."""

import importlib
import pkgutil

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

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
