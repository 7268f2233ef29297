"""The nine task specs by name, and the spec an item was generated with.

>>> task_spec("T1").max_distance, task_spec("translation", {"max_distance": 7}).max_distance
(4, 7)
>>> item = {"task": "translation", "metadata": '{"task_params": {"max_distance": 7}}'}
>>> spec_of_item(item).distances()[-1]
7
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from misi_tasks.spec.names import TASK_NAMES, resolve_task  # (imports every declaration)
from misi_tasks.spec.taskspec import SPECS, TaskSpec

__all__ = ["SPECS", "DEFAULT_SPECS", "item_metadata", "spec_of_item", "task_spec"]

#: task name -> its spec with default parameters, in code order
DEFAULT_SPECS: dict[str, TaskSpec] = {name: SPECS[name]() for name in TASK_NAMES}


def task_spec(name: str, params: Mapping[str, Any] | None = None) -> TaskSpec:
    """The spec of a task name or code, with ``params`` overriding its defaults.

    Raises
    ------
    ValueError
        On an unknown task (the message lists the valid names) or an invalid parameter.
    """
    key = resolve_task(name)
    if not params:
        return DEFAULT_SPECS[key]
    return SPECS[key].from_params(params)


def item_metadata(item: Mapping[str, Any]) -> dict[str, Any]:
    """A dataset row's ``metadata`` as a dict (it is stored as a JSON string)."""
    meta = item.get("metadata") or "{}"
    return json.loads(meta) if isinstance(meta, str) else dict(meta)


def spec_of_item(item: Mapping[str, Any]) -> TaskSpec:
    """The spec an item was generated with: its task's, with the parameters its metadata records
    under ``task_params`` (absent for a run with default parameters)."""
    return task_spec(item["task"], item_metadata(item).get("task_params"))
