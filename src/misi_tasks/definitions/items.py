"""One benchmark item as produced by a task generator, and its dataset row."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from misi_tasks.definitions.registry import task_code

__all__ = ["Item", "OPTIONS_MARK", "LETTERS", "Renders", "item_id"]

LETTERS = ("A", "B", "C", "D")
#: Placeholder in an MC question for the option list, filled once the correct letter is known.
OPTIONS_MARK = "<<OPTIONS>>"


def item_id(task: str, split: str, complex_id: str, index: int) -> str:
    """``"<task>/<split>/<complex id>/<index:03d>"``."""
    return f"{task}/{split}/{complex_id}/{index:03d}"


@dataclass
class Renders:
    """The in-memory renders of an item (kept for tests and notebooks; never written to disk).

    :attr:`images` and :attr:`options` are the contract every task keeps: one
    :class:`misi_render.RenderedView` per entry of :attr:`Item.images` (in order) and per option
    image (canonical order, correct first); the label-frame check of every generator reads them.
    :attr:`extra` holds what one task keeps besides (its keys are that task's business).
    """

    images: list[Any] = field(default_factory=list)
    options: list[Any] = field(default_factory=list)
    extra: dict[str, Any] = field(default_factory=dict)


@dataclass
class Item:
    """A generated item.

    For multiple-choice items the options are held in *canonical* order (correct option first) with
    ``option_images`` (one PNG each, or empty when options are text) until :meth:`assign_letter`
    puts the correct option at its letter; the dataset's balancing of letters happens at that step.
    ``renders`` keeps the in-memory :class:`misi_render.RenderedView` objects for tests (:class:`Renders`);
    it is not written to disk.
    """

    task: str
    split: str
    complex_id: str
    index: int
    question: str
    images: list[bytes]
    image_roles: list[str]
    answer: str
    metadata: dict[str, Any]
    options: list[str] = field(default_factory=list)
    option_images: list[bytes] = field(default_factory=list)
    renders: Renders = field(default_factory=Renders, repr=False)

    @property
    def id(self) -> str:
        return item_id(self.task, self.split, self.complex_id, self.index)

    @property
    def is_mc(self) -> bool:
        return bool(self.options)

    def assign_letter(self, letter_index: int) -> "Item":
        """Place the correct option (canonical index 0) at ``LETTERS[letter_index]``; decoys keep
        their relative order in the remaining slots.  Fills the question's option list and answer."""
        order = [i for i in range(1, len(self.options))]
        order.insert(letter_index, 0)
        options = [self.options[i] for i in order]
        images, roles = list(self.images), list(self.image_roles)
        if self.option_images:
            images += [self.option_images[i] for i in order]
            roles += [f"option {LETTERS[k]}" for k in range(len(order))]
        listing = "\n".join(
            f"{LETTERS[k]}. {opt}" if opt else f"{LETTERS[k]}. the image labelled option {LETTERS[k]}"
            for k, opt in enumerate(options)
        )
        meta = dict(self.metadata, correct_letter=LETTERS[letter_index],
                    option_order=[int(i) for i in order])
        return Item(
            task=self.task, split=self.split, complex_id=self.complex_id, index=self.index,
            question=self.question.replace(OPTIONS_MARK, listing), images=images, image_roles=roles,
            answer=LETTERS[letter_index], metadata=meta, options=options, option_images=[],
            renders=self.renders,
        )

    def to_row(self) -> dict[str, Any]:
        """The dataset row (see :mod:`misi_tasks.dataset`)."""
        if self.option_images or OPTIONS_MARK in self.question:
            raise ValueError(f"{self.id}: multiple-choice item written before assign_letter()")
        return {
            "id": self.id,
            "task": self.task,
            "task_code": task_code(self.task),
            "split": self.split,
            "complex_id": self.complex_id,
            "question": self.question,
            "images": list(self.images),
            "image_roles": list(self.image_roles),
            "options": list(self.options),
            "answer": self.answer,
            "metadata": json.dumps(self.metadata, sort_keys=True, separators=(",", ":")),
        }
