"""Task registry names, their MiSI-Bench codes, and the dataset split names.

The table that maps the registry names used by ``misi-gen`` and in the dataset layout
(``data/<task>/...``) to the paper's task codes ``T1`` ... ``T9``, read from the task
declarations (:mod:`misi_tasks.spec.taskspec`; a new task's spec module is imported here).
Every other module (generator, dataset writer, scorer, report) uses it.

===========================  ====  ==========================================
name                         code  answer form
===========================  ====  ==========================================
``translation``              T1    ``move x 3``
``rotation``                 T2    ``roll y -30``
``zooming``                  T3    ``move z 47``
``residue-ligand``           T4    ``No`` or ``Yes: ARG NH2, O1B; ARG NE, O2G``
``translation-rotation``     T5    one letter A-D
``rotation-rotation``        T6    one letter A-D
``docking``                  T7    ``roll x 75, move x -14``
``interaction-location``     T8    one letter A-D
``pocket-ligand``            T9    ``ASN 460 ND2 A, O2; GLU 537 OE1 A, O2``
===========================  ====  ==========================================

Examples
--------
>>> task_code("docking")
'T7'
>>> task_name("t4")
'residue-ligand'
>>> resolve_task("T1"), resolve_task("rotation")
('translation', 'rotation')
"""

from __future__ import annotations

from typing import Literal

import misi_tasks.spec.choice  # noqa: F401  (each declaration module registers its task specs)
import misi_tasks.spec.docking  # noqa: F401
import misi_tasks.spec.hbonds  # noqa: F401
import misi_tasks.spec.motion  # noqa: F401
from misi_tasks.spec.answers import Choice
from misi_tasks.spec.taskspec import SPECS

__all__ = [
    "CODE_TO_TASK",
    "MC_TASKS",
    "SPLITS",
    "SplitName",
    "TASK_CODES",
    "TASK_NAMES",
    "TaskName",
    "resolve_task",
    "task_code",
    "task_name",
]

TaskName = Literal[
    "translation",
    "rotation",
    "zooming",
    "residue-ligand",
    "translation-rotation",
    "rotation-rotation",
    "docking",
    "interaction-location",
    "pocket-ligand",
]
SplitName = Literal["train", "test"]

#: Registry name -> paper code, in code order (T1 ... T9), from the task declarations.
TASK_CODES: dict[str, str] = {s.name: s.code for s in sorted(SPECS.values(), key=lambda s: int(s.code[1:]))}
#: Paper code -> registry name.
CODE_TO_TASK: dict[str, str] = {code: name for name, code in TASK_CODES.items()}
#: Registry names in code order.
TASK_NAMES: tuple[str, ...] = tuple(TASK_CODES)
#: Multiple-choice tasks (answer is one letter A-D, four options).
MC_TASKS: frozenset[str] = frozenset(name for name, spec in SPECS.items() if spec.answer is Choice)
#: Dataset split names.
SPLITS: tuple[str, ...] = ("train", "test")


def task_code(name: str) -> str:
    """Return the paper code (``"T1"`` ... ``"T9"``) of a registry task name.

    Raises
    ------
    ValueError
        If ``name`` is not a registry name; the message lists the valid names.
    """
    try:
        return TASK_CODES[name]
    except KeyError:
        raise ValueError(f"unknown task {name!r}; valid names: {', '.join(TASK_NAMES)}") from None


def task_name(code: str) -> str:
    """Return the registry name of a paper code (case-insensitive, e.g. ``"t4"``).

    Raises
    ------
    ValueError
        If ``code`` is not one of ``T1`` ... ``T9``.
    """
    try:
        return CODE_TO_TASK[code.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown task code {code!r}; valid codes: {', '.join(CODE_TO_TASK)}") from None


def resolve_task(name_or_code: str) -> str:
    """Return the registry name for either a registry name or a paper code.

    Raises
    ------
    ValueError
        If it is neither; the message lists the valid names and codes.
    """
    key = name_or_code.strip()
    if key in TASK_CODES:
        return key
    if key.upper() in CODE_TO_TASK:
        return CODE_TO_TASK[key.upper()]
    raise ValueError(
        f"unknown task {name_or_code!r}; valid names: {', '.join(TASK_NAMES)} "
        f"(or codes {', '.join(CODE_TO_TASK)})"
    )
