"""What a task is, independent of how it is generated: the task declarations (:class:`TaskSpec`,
one per task, registered by name in :mod:`~misi_tasks.definitions.registry`), the answer
vocabulary, the metrics, the item record and the dataset row schema.

Pure: importing it loads the standard library only (no numpy, numba, pyarrow, rendering or
geometry).  Importing the package imports every module it holds, so each declaration module
registers its specs: a new task's spec module needs no import anywhere.
"""

from __future__ import annotations

import importlib
import pkgutil

for _module in sorted(m.name for m in pkgutil.iter_modules(__path__)):
    importlib.import_module(f"{__name__}.{_module}")
from misi_tasks.definitions.answers import BondList, Choice, Docking, Move, ParsedAnswer, Roll
from misi_tasks.definitions.items import Item, Renders, item_id
from misi_tasks.definitions.registry import (
    SPECS, SPLITS, default_spec, default_specs, mc_tasks, paper_average_columns, report_columns, resolve_task,
    spec_of_item, task_code, task_codes, task_name, task_names, task_spec,
)
from misi_tasks.definitions.schema import COLUMNS, DatasetError
from misi_tasks.definitions.taskspec import TaskSpec

__all__ = [
    "BondList", "COLUMNS", "Choice", "DatasetError", "Docking", "Item", "Move", "ParsedAnswer", "Renders", "Roll", "SPECS",
    "SPLITS", "TaskSpec", "default_spec", "default_specs", "item_id", "mc_tasks", "paper_average_columns",
    "report_columns", "resolve_task", "spec_of_item", "task_code", "task_codes", "task_name", "task_names", "task_spec",
]
