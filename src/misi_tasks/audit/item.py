"""One dataset row as the audit reads it, and the helpers every task check shares."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

import numpy as np

from misi_tasks.audit.geometry import VIEW_TURNS, Camera
from misi_tasks.audit.pixels import Pixels
from misi_tasks.audit.structures import Atoms
from misi_tasks.audit.views import VIEW_FLOOR, VIEW_MARGIN, VIEW_MIN, AuditCache, view_seen

__all__ = ["Item", "Findings", "prompt_range"]


@dataclass
class Item:
    """A row of the dataset: its fields, the metadata parsed, its images decoded on demand."""

    id: str
    task: str
    code: str
    complex_id: str
    question: str
    images: list[bytes]
    roles: list[str]
    options: list[str]
    answer: str
    meta: dict
    #: The run's parameters of this item's task as the dataset card records them (``{}``: the task's
    #: defaults; None: the dataset records none, e.g. an item built without its card).
    params: dict | None = None
    #: What the items of one group of shards share (decoded images, views); the group's audit sets its own.
    cache: AuditCache = field(default_factory=AuditCache, repr=False, compare=False)

    @classmethod
    def from_row(cls, row: dict) -> "Item":
        imgs = [(im or {}).get("bytes") or b"" for im in row.get("images") or []]
        return cls(row["id"], row["task"], row.get("task_code", ""), row["complex_id"], row.get("question", ""),
                   imgs, list(row.get("image_roles") or []), list(row.get("options") or []),
                   row.get("answer", ""), json.loads(row.get("metadata") or "{}"))

    def image(self, k: int) -> Pixels:
        """Image ``k``, decoded (:func:`misi_tasks.audit.pixels.class_map`) once per group of shards (:attr:`cache`)."""
        return self.cache.pixels(self.images[k])

    def camera(self, key: str = "camera") -> Camera:
        return Camera.from_record(self.meta[key])

    @property
    def style(self) -> str:
        return str(self.meta.get("render", {}).get("style", "ball-and-stick"))

    def letter_index(self) -> int | None:
        """Index of the answer's option (``"B"`` -> 1), None when the answer is not a letter."""
        a = self.answer.strip().upper()
        return "ABCD".index(a) if len(a) == 1 and a in "ABCD" else None


@dataclass
class Findings:
    """The reasons an item fails (empty: it passes)."""

    reasons: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        self.reasons.append(text)

    def check_view(self, item: Item, k: int, cam: Camera, front: np.ndarray, atoms: Atoms, view: str,
                   what: str) -> float:
        """Fail unless image ``k`` shows ``front`` (front-frame points of ``atoms``) in ``view``."""
        if k >= len(item.images):
            self.fail(f"image {k + 1} ({what}) is missing")
            return 0.0
        img, radii = item.image(k), atoms.radii(item.style)
        f = view_seen(img, cam, front, atoms.classes, radii, view, item.cache)
        if f >= VIEW_MIN:
            return f
        # small balls (small images) show fewer centres: then the pose must at least beat every other view of it
        others = {v: view_seen(img, cam, front, atoms.classes, radii, v, item.cache) for v in VIEW_TURNS if v != view}
        rival = max(others, key=others.get)
        if f < VIEW_FLOOR or others[rival] > f - VIEW_MARGIN:
            self.fail(f"image {k + 1} does not show {what}: {f:.0%} of the unhidden atoms seen at their "
                      f"projected positions (needs {VIEW_MIN:.0%}, or {VIEW_FLOOR:.0%} and {VIEW_MARGIN:.0%} "
                      f"more than any other view; the {rival} view: {others[rival]:.0%})")
        return f


_RANGE = re.compile(r"between (-?\d+) and (-?\d+)")
_STEP = re.compile(r"multiple of (\d+)")


def prompt_range(question: str, default: tuple[int, int, int]) -> tuple[int, int, int]:
    """(low, high, step) of the answer values the prompt states ("between -4 and 4", "a multiple of
    15"); ``default`` for what it does not state."""
    lo, hi, step = default
    m = _RANGE.search(question)
    if m:
        lo, hi = int(m.group(1)), int(m.group(2))
    s = _STEP.search(question)
    if s:
        step = int(s.group(1))
    return lo, hi, step
