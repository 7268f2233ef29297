"""The generator base: :class:`TaskGenerator`, what it may know (:class:`GenContext`), and the
generator of each registered task (every subclass registers itself under its task's name).

>>> import misi_tasks.tasks  # (any import from the package registers the nine generators)
>>> from misi_tasks.definitions.registry import task_names
>>> sorted(GENERATORS) == sorted(task_names())
True
>>> get_task("docking").name
'docking'
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar

import numpy as np

from misi_render import RenderOptions
from misi_tasks.definitions.items import OPTIONS_MARK, Item, Renders
from misi_tasks.definitions.registry import SPECS, resolve_task, task_spec
from misi_tasks.definitions.taskspec import TaskSpec
from misi_tasks.tasks.fairness import labels_outside_frame
from misi_tasks.tasks.prompts import conventions, image_list, scale_text
from misi_tasks.tasks.scene import Scene
from misi_tasks.tasks.seeding import rng_for

__all__ = ["GENERATORS", "TaskGenerator", "GenContext", "get_task", "TaskSkipped"]

#: task name -> its generator class
GENERATORS: dict[str, type["TaskGenerator"]] = {}


class TaskSkipped(Exception):
    """A task has no valid item for a complex (e.g. no H-bond for T9); the message says why."""


@dataclass
class GenContext:
    """What a generator may know besides its own complex.

    ``partner`` loads another complex of the same split by id (T5 needs a second complex);
    ``partner_ids`` lists the candidates (the split's other complexes, sorted).
    """

    seed: int = 0
    split: str = "test"
    options: RenderOptions = field(default_factory=RenderOptions)
    partner_ids: tuple[str, ...] = ()
    partner: Callable[[str], Scene] | None = None
    keep_renders: bool = False


class TaskGenerator:
    """Base of the task generators.

    A subclass declares its spec (``spec_class``, or its registry ``name``) and implements
    :meth:`make_items`.  Everything
    else about its task (parameters and their defaults, counts, prompt, answer form) is the task's
    spec (:mod:`misi_tasks.definitions.taskspec`): ``TaskGenerator(**params)`` builds that spec with
    ``params`` overriding its defaults, and the generator samples from ``self.spec``.
    """

    name: ClassVar[str] = ""
    #: The task's spec class; a subclass declares this or ``name`` (the other is derived).
    spec_class: ClassVar[type[TaskSpec] | None] = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("spec_class") is not None:
            cls.name = cls.spec_class.name
        if cls.name:
            if cls.name not in SPECS:
                raise ValueError(f"{cls.__name__}: {cls.name!r} is not a task name")
            cls.spec_class = SPECS[cls.name]
            GENERATORS[cls.name] = cls

    def __init__(self, **params: Any) -> None:
        self.spec: TaskSpec = task_spec(self.name, params)
        #: every parameter's value (the spec's fields)
        self.params: dict[str, Any] = self.spec.params()

    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The task's parameters and their defaults (from its spec)."""
        return SPECS[cls.name].defaults()

    def count(self, split: str) -> int:
        """Items (or items per axis) per complex for ``split``."""
        return self.spec.items_per_complex(split)

    def generate(self, scene: Scene, ctx: GenContext) -> list[Item]:
        """Items for one complex; deterministic in (seed, task, complex id)."""
        rng = rng_for(ctx.seed, self.name, scene.pdb_id, ctx.split)
        items = self.make_items(scene, ctx, rng)
        for item in items:  # no label may leave its image (misi_tasks.tasks.fairness)
            for view in [*item.renders.images, *item.renders.options]:
                outside = labels_outside_frame(view)
                if outside:
                    raise RuntimeError(f"{item.id}: label {outside[0]!r} leaves the frame of a {view.name} image")
        if scene.provenance is not None:  # explicit-file inputs: files and checksums
            for item in items:
                item.metadata["source"] = scene.provenance
        if not ctx.keep_renders:
            for item in items:
                item.renders = Renders()
        return items

    def make_items(self, scene: Scene, ctx: GenContext, rng: np.random.Generator) -> list[Item]:
        raise NotImplementedError

    #: What the images show of the complex (the first sentence of every prompt).
    shows: ClassVar[str] = "the ligand bound in its protein pocket"

    def image_descriptions(self, **fields: Any) -> list[str]:
        """What each image of an item shows, in order (the prompt's image list); each task says it."""
        raise NotImplementedError

    def preamble(self, **fields: Any) -> str:
        """The complex and the drawing conventions (:func:`misi_tasks.tasks.prompts.conventions`);
        ``fields`` give ``pdb_id`` and the label fields ``chains`` and ``numbered``."""
        labels = {k: fields[k] for k in ("chains", "numbered") if k in fields}
        return conventions(fields["pdb_id"], what=self.shows, **labels)

    def notes(self, *, scales: list[tuple[float, str | None]] | None = None, perspective: bool = False,
              **fields: Any) -> list[str]:
        """Sentences between the image list and the question: the images' scale (``scales``: px per Å
        and which images, :func:`misi_tasks.tasks.prompts.scale_text`) when the task's spec states it
        (``state_scale``, T1/T5/T8)."""
        if scales and getattr(self.spec, "state_scale", False):
            return [scale_text(scales, perspective)]
        return []

    def prompt(self, **fields: Any) -> str:
        """An item's prompt, the same scaffold for every task: the preamble, the image list, the
        notes (:meth:`notes`), the spec's question (:meth:`TaskSpec.ask` gets every field), the options mark for a
        multiple-choice task, and the spec's answer sentence."""
        parts = [self.preamble(**fields), image_list(self.image_descriptions(**fields)), *self.notes(**fields),
                 self.spec.ask(**fields)]
        if self.spec.multiple_choice:
            parts.append(OPTIONS_MARK)
        parts.append(self.spec.answer_sentence())
        return " ".join(parts)

    def new_item(self, scene: Scene, ctx: GenContext, index: int, **fields: Any) -> Item:
        meta = fields.pop("metadata", {})
        meta = {"render": ctx.options.to_dict(), "seed": ctx.seed, **meta}
        overrides = self.spec.overrides()
        if overrides:  # the parameters travel with the item, so the scorer rebuilds this spec
            meta["task_params"] = overrides
        return Item(task=self.name, split=ctx.split, complex_id=scene.pdb_id, index=index, metadata=meta, **fields)


def get_task(name: str) -> type[TaskGenerator]:
    """The generator class of a task name or code; the error lists the valid names."""
    key = resolve_task(name)
    if key not in GENERATORS:
        raise ValueError(f"task {key!r} has no generator; available: {', '.join(sorted(GENERATORS))}")
    return GENERATORS[key]
