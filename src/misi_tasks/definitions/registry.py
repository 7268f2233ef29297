"""The task registry: every task spec by name, its paper code, and the spec an item was made with.

A :class:`~misi_tasks.definitions.taskspec.TaskSpec` subclass that declares a ``name`` registers
itself here when its class is created (:func:`register`); the declaration modules of the nine paper
tasks are imported by :mod:`misi_tasks.definitions`, so importing anything from the package fills
the registry.  Everything else (names in code order, codes, the multiple-choice set, default specs)
is derived from the registered specs each time it is asked for, so a spec declared later (a test's
toy task) is seen everywhere.

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
The names come from the package, whose import fills the registry (a module run on its own, as a
doctest runner may run it, holds no specs):

>>> from misi_tasks.definitions import (paper_average_columns, report_columns, resolve_task,
...     spec_of_item, task_code, task_name, task_spec)
>>> task_code("docking")
'T7'
>>> task_name("t4")
'residue-ligand'
>>> resolve_task("T1"), resolve_task("rotation")
('translation', 'rotation')
>>> report_columns()                  # every registered task: the paper's nine, then the extended suite
('T1', 'T2', 'T3', 'T4+', 'T4-', 'T5', 'T6', 'T7', 'T8', 'T9', 'X1', 'X2', 'X3')
>>> paper_average_columns()
('T1', 'T2', 'T3', 'T4+', 'T4-', 'T7', 'T8', 'T9')
>>> task_spec("T1").max_distance, task_spec("translation", {"max_distance": 7}).max_distance
(4, 7)
>>> item = {"task": "translation", "metadata": '{"task_params": {"max_distance": 7}}'}
>>> spec_of_item(item).distances()[-1]
7
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the base imports this module to register its subclasses
    from misi_tasks.definitions.taskspec import TaskSpec

__all__ = [
    "SPECS",
    "SPLITS",
    "code_ranges",
    "code_to_task",
    "default_spec",
    "default_specs",
    "item_metadata",
    "mc_tasks",
    "paper_average_codes",
    "paper_average_columns",
    "paper_tasks",
    "register",
    "report_columns",
    "resolve_task",
    "spec_of_item",
    "task_code",
    "task_codes",
    "task_name",
    "task_names",
    "task_spec",
]
# Also TASK_CODES, TASK_NAMES, CODE_TO_TASK, MC_TASKS and DEFAULT_SPECS, derived on access (module
# __getattr__) for readers of the old constants; not in __all__, which names defined objects only.

#: Dataset split names.
SPLITS: tuple[str, ...] = ("train", "test")

#: task name -> spec class, in registration order (filled by :func:`register`)
SPECS: dict[str, type[TaskSpec]] = {}


def register(spec: type[TaskSpec]) -> None:
    """Add a spec class under its ``name`` (called by ``TaskSpec.__init_subclass__``).

    Raises
    ------
    ValueError
        If the spec has no code, or another spec already uses its code.
    """
    if not spec.code:
        raise ValueError(f"task spec {spec.__name__} ({spec.name!r}) declares no code")
    others = [s for s in SPECS.values() if s.name != spec.name]
    clash = [s.name for s in others if s.code.upper() == spec.code.upper()]
    if clash:
        raise ValueError(f"task spec {spec.__name__}: code {spec.code} is already used by {clash[0]!r}")
    taken = {c: s.name for s in others for c in s.report_columns()}
    shared = [c for c in spec.report_columns() if c in taken]
    if shared:
        raise ValueError(f"task spec {spec.__name__}: report column {shared[0]} is already {taken[shared[0]]!r}'s")
    SPECS[spec.name] = spec


def _code_order(code: str) -> tuple[str, int, str]:
    """Sort key of a task code: prefix, then number (``T2`` before ``T10``)."""
    m = re.fullmatch(r"([A-Za-z]*)(\d*)(.*)", code)
    assert m is not None
    prefix, number, rest = m.groups()
    return prefix.upper(), int(number) if number else -1, rest


def task_codes() -> dict[str, str]:
    """Registry name -> code, in code order (``T1`` ... ``T9``, then any other registered task)."""
    return {s.name: s.code for s in sorted(SPECS.values(), key=lambda s: _code_order(s.code))}


def task_names() -> tuple[str, ...]:
    """Registry names in code order."""
    return tuple(task_codes())


def code_to_task() -> dict[str, str]:
    """Code (upper case) -> registry name."""
    return {code.upper(): name for name, code in task_codes().items()}


def paper_tasks() -> tuple[str, ...]:
    """The MiSI-Bench paper's tasks (``paper = True``), in code order: what ``--task all`` selects."""
    return tuple(name for name in task_names() if SPECS[name].paper)


def report_columns() -> tuple[str, ...]:
    """Every report column, in code order (``T1``, ``T2``, ``T3``, ``T4+``, ``T4-``, ... ``T9``, then
    the columns of any other registered task)."""
    return tuple(c for name in task_names() for c in SPECS[name].report_columns())


def paper_average_columns() -> tuple[str, ...]:
    """The report columns that count in the paper's average (its tasks but T5 and T6)."""
    return tuple(c for name in task_names() if SPECS[name].paper_average for c in SPECS[name].report_columns())


def paper_average_codes() -> tuple[str, ...]:
    """The codes of the tasks that count in the paper's average."""
    return tuple(SPECS[name].code for name in task_names() if SPECS[name].paper_average)


def code_ranges(codes: Sequence[str]) -> str:
    """Codes with runs of consecutive numbers shortened: ``T1-T4, T7-T9``.

    >>> code_ranges(["T1", "T2", "T3", "T4", "T7", "T8", "T9", "X2"])
    'T1-T4, T7-T9, X2'
    """
    runs: list[list[str]] = []
    for code in codes:
        prefix, number, _ = _code_order(code)
        if runs:
            p0, n0, _ = _code_order(runs[-1][-1])
            if prefix == p0 and number >= 0 and number == n0 + 1:
                runs[-1].append(code)
                continue
        runs.append([code])
    return ", ".join(run[0] if len(run) == 1 else f"{run[0]}-{run[-1]}" for run in runs)


def mc_tasks() -> frozenset[str]:
    """Multiple-choice tasks (answer is one letter A-D, four options)."""
    return frozenset(name for name in SPECS if default_spec(name).multiple_choice)


_DEFAULTS: dict[type, Any] = {}


def default_spec(name: str) -> TaskSpec:
    """The spec of a task name or code with its default parameters (one frozen instance per class)."""
    cls = SPECS[resolve_task(name)]
    if cls not in _DEFAULTS:
        _DEFAULTS[cls] = cls()
    return _DEFAULTS[cls]


def default_specs() -> dict[str, TaskSpec]:
    """Task name -> its spec with default parameters, in code order."""
    return {name: default_spec(name) for name in task_names()}


def task_code(name: str) -> str:
    """Return the paper code (``"T1"`` ... ``"T9"``) of a registry task name.

    Raises
    ------
    ValueError
        If ``name`` is not a registry name; the message lists the valid names.
    """
    if name in SPECS:
        return SPECS[name].code
    raise ValueError(f"unknown task {name!r}; valid names: {', '.join(task_names())}")


def task_name(code: str) -> str:
    """Return the registry name of a paper code (case-insensitive, e.g. ``"t4"``).

    Raises
    ------
    ValueError
        If ``code`` is not a registered code.
    """
    codes = code_to_task()
    try:
        return codes[code.strip().upper()]
    except KeyError:
        raise ValueError(f"unknown task code {code!r}; valid codes: {', '.join(codes)}") from None


def resolve_task(name_or_code: str) -> str:
    """Return the registry name for either a registry name or a paper code.

    Raises
    ------
    ValueError
        If it is neither; the message lists the valid names and codes.
    """
    key = name_or_code.strip()
    if key in SPECS:
        return key
    codes = code_to_task()
    if key.upper() in codes:
        return codes[key.upper()]
    raise ValueError(
        f"unknown task {name_or_code!r}; valid names: {', '.join(task_names())} "
        f"(or codes {', '.join(codes)})"
    )


def task_spec(name: str, params: Mapping[str, Any] | None = None) -> TaskSpec:
    """The spec of a task name or code, with ``params`` overriding its defaults.

    Raises
    ------
    ValueError
        On an unknown task (the message lists the valid names) or an invalid parameter.
    """
    key = resolve_task(name)
    if not params:
        return default_spec(key)
    return SPECS[key].from_params(params)


def item_metadata(item: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset row's ``metadata`` as a dict (it is stored as a JSON string)."""
    meta = item.get("metadata") or "{}"
    return json.loads(meta) if isinstance(meta, str) else dict(meta)


def spec_of_item(item: Mapping[str, Any]) -> TaskSpec:
    """The spec an item was generated with: its task's, with the parameters its metadata records
    under ``task_params`` (absent for a run with default parameters)."""
    return task_spec(item["task"], item_metadata(item).get("task_params"))


_DERIVED = {
    "TASK_CODES": task_codes,
    "TASK_NAMES": task_names,
    "CODE_TO_TASK": code_to_task,
    "MC_TASKS": mc_tasks,
    "DEFAULT_SPECS": default_specs,
}


def __getattr__(name: str) -> Any:
    """The old constant names (``TASK_CODES``, ``TASK_NAMES``, ...), derived from the registry on access."""
    if name in _DERIVED:
        return _DERIVED[name]()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
