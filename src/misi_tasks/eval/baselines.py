"""Reference baselines for ``misi-eval``: the oracle (scores 100) and a seeded random guesser.

The random baseline draws each reply from the spec's value ranges (section 3) without looking at
the images or the truth, so it lands at chance: 25 % on the MC tasks, about 50 % on T4-
(``No`` half of the time), about 0 on T4+ and T9 (bond names are guessed).
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

from misi_tasks.spec.names import MC_TASKS, resolve_task

__all__ = [
    "BASELINES",
    "RANDOM_DOCKING_MOVE_A",
    "RANDOM_ROTATION_DEG",
    "RANDOM_TRANSLATION_A",
    "RANDOM_ZOOM_A",
    "Baseline",
    "baseline_predictions",
    "baseline_reply",
]

Baseline = Literal["random", "oracle"]
#: Baseline names accepted by ``misi-eval --baseline``.
BASELINES: tuple[str, ...] = ("random", "oracle")

# ---------------------------------------------------------------- value ranges (spec section 3)
#: T1 distances: integer Å in [-4, 4], not 0; axis x or y.
RANDOM_TRANSLATION_A: tuple[int, ...] = tuple(d for d in range(-4, 5) if d)
#: T2 and T7 angles: multiples of 15° in [-90, 90], not 0.
RANDOM_ROTATION_DEG: tuple[int, ...] = tuple(a for a in range(-90, 91, 15) if a)
#: T3 zoom distances: integer Å in [40, 60].
RANDOM_ZOOM_A: tuple[int, ...] = tuple(range(40, 61))
#: T7 move magnitudes (baseline decision; the spec gives no range): integer Å in [5, 30], either sign.
RANDOM_DOCKING_MOVE_A: tuple[int, ...] = tuple(range(5, 31))
_RESIDUES = ("ARG", "ASN", "ASP", "GLN", "GLU", "HIS", "LYS", "SER", "THR", "TYR", "TRP", "GLY")
_RES_ATOMS = ("N", "O", "OG", "OG1", "OD1", "OD2", "ND2", "OE1", "NE2", "NZ", "NH1", "NH2", "OH")
_LIG_ATOMS = ("O1", "O2", "O3", "O4", "N1", "N2", "N3")


def _random_reply(task: str, rng: random.Random) -> str:
    if task in MC_TASKS:
        return rng.choice("ABCD")
    if task == "translation":
        return f"move {rng.choice('xy')} {rng.choice(RANDOM_TRANSLATION_A)}"
    if task == "rotation":
        return f"roll {rng.choice('xyz')} {rng.choice(RANDOM_ROTATION_DEG)}"
    if task == "zooming":
        return f"move z {rng.choice(RANDOM_ZOOM_A)}"
    if task == "docking":
        move = rng.choice((-1, 1)) * rng.choice(RANDOM_DOCKING_MOVE_A)
        return f"roll {rng.choice('xyz')} {rng.choice(RANDOM_ROTATION_DEG)}, move x {move}"
    if task == "residue-ligand":
        if rng.random() < 0.5:
            return "No"
        return f"Yes: {rng.choice(_RESIDUES)} {rng.choice(_RES_ATOMS)}, {rng.choice(_LIG_ATOMS)}"
    bonds = [f"{rng.choice(_RESIDUES)} {rng.randint(1, 500)} {rng.choice(_RES_ATOMS)} A, {rng.choice(_LIG_ATOMS)}"
             for _ in range(rng.randint(1, 3))]
    return "; ".join(bonds)


def baseline_reply(item: Mapping[str, Any], kind: Baseline, *, seed: int = 0) -> str:
    """Return the baseline's reply for one item (``oracle``: the true answer)."""
    if kind == "oracle":
        return str(item["answer"])
    if kind != "random":
        raise ValueError(f"unknown baseline {kind!r}; valid: {', '.join(BASELINES)}")
    return _random_reply(resolve_task(item["task"]), random.Random(f"{seed}:{item['id']}"))


def baseline_predictions(items: Iterable[Mapping[str, Any]], kind: Baseline, *, seed: int = 0) -> dict[str, str]:
    """Return ``{item id: reply}`` of a baseline for every item."""
    return {item["id"]: baseline_reply(item, kind, seed=seed) for item in items}
