"""Reference baselines for ``misi-eval``: the oracle (scores 100) and a seeded random guesser.

The random baseline draws each reply from the value ranges of the item's task spec
(:meth:`misi_tasks.definitions.taskspec.TaskSpec.random_reply`, with the parameters the item was
generated with) without looking at the images or the truth, so it lands at chance: 25 % on the
MC tasks, about 50 % on T4- (``No`` half of the time), about 0 on T4+ and T9 (bond names are
guessed).
Each item gets its own generator seeded by ``"<seed>:<item id>"``, so a reply does not depend
on which other items are scored.

Examples
--------
>>> item = {"id": "translation/test/2pyy/000", "task": "translation", "answer": "move x 3"}
>>> baseline_reply(item, "oracle")
'move x 3'
>>> baseline_reply(item, "random", seed=0) == baseline_reply(item, "random", seed=0)
True
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from misi_tasks.definitions.registry import spec_of_item

__all__ = [
    "BASELINES",
    "Baseline",
    "baseline_predictions",
    "baseline_reply",
]

Baseline = Literal["random", "oracle"]
#: Baseline names accepted by ``misi-eval --baseline``.
BASELINES: tuple[str, ...] = ("random", "oracle")


def baseline_reply(item: Mapping[str, Any], kind: Baseline, *, seed: int = 0) -> str:
    """Return the baseline's reply for one item (``oracle``: the true answer; ``random``: drawn
    from the value ranges of the spec the item was generated with)."""
    if kind == "oracle":
        return str(item["answer"])
    if kind != "random":
        raise ValueError(f"unknown baseline {kind!r}; valid: {', '.join(BASELINES)}")
    return spec_of_item(item).random_reply(random.Random(f"{seed}:{item['id']}"))


def baseline_predictions(items: Iterable[Mapping[str, Any]], kind: Baseline, *, seed: int = 0) -> dict[str, str]:
    """Return ``{item id: reply}`` of a baseline for every item."""
    return {item["id"]: baseline_reply(item, kind, seed=seed) for item in items}
