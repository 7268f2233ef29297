"""What a task is, declared once: the :class:`TaskSpec` base (subclasses register themselves in
:mod:`misi_tasks.definitions.registry`).

A spec is a frozen dataclass whose **fields are the task's parameters** (value ranges, sampling
limits; defaults follow the MiSI-Bench spec) and whose class attributes say the rest: registry
name, paper code, items per complex per split, the answer type, the metric.  Its methods render
the task's question and answer format from those same numbers, parse and score a reply, and draw
the random baseline's reply.  Everything that needs a task's numbers reads its spec: the
generator (:mod:`misi_tasks.tasks`), the prompt, the decoys, the scorer and the baselines
(:mod:`misi_tasks.eval`), the dataset checks (:mod:`misi_tasks.dataset`).

``misi-gen --task-params '{"translation": {"max_distance": 7}}'`` yields a new spec
(:meth:`TaskSpec.from_params`); its :meth:`~TaskSpec.overrides` travel with every item (metadata
``task_params``, written only when a run overrides something), and the scorer rebuilds the spec
from them (:func:`misi_tasks.definitions.registry.spec_of_item`), so prompt, sampler, decoys, scorer and
baseline cannot disagree.

The per-task declarations live in :mod:`misi_tasks.definitions.motion` (T1-T3),
:mod:`~misi_tasks.definitions.choice` (T5, T6), :mod:`~misi_tasks.definitions.docking` (T7) and
:mod:`~misi_tasks.definitions.hbonds` (T4, T8, T9).  Pure: no numpy, no numba, no geometry.
"""

from __future__ import annotations

import json
import random
from collections.abc import Mapping, Sequence
from dataclasses import MISSING, dataclass, fields, replace
from types import MappingProxyType
from typing import Any, ClassVar

from misi_tasks.definitions.answers import BondList, Choice, ParsedAnswer
from misi_tasks.definitions.equivalence import canonical_bond_list
from misi_tasks.definitions.metrics import exact_score
from misi_tasks.definitions.registry import register

__all__ = ["TaskSpec", "answer_only", "or_list"]


def answer_only(fmt: str, examples: Sequence[str]) -> str:
    """The closing sentence of every prompt: the answer form, examples, and "the answer only"."""
    ex = " or ".join(f"\"{e}\"" for e in examples)
    return f"Answer in the form {fmt} (for example {ex}), and reply with the answer only, nothing else."


def or_list(words: Sequence[str]) -> str:
    """``"x, y or z"``, ``"x or y"``, ``"x"``."""
    words = list(words)
    return words[0] if len(words) == 1 else f"{', '.join(words[:-1])} or {words[-1]}"


def _type_error(value: Any, default: Any) -> str | None:
    """What ``value`` must be to replace ``default`` (bool, int, float, tuple of the same), or None."""
    if isinstance(default, bool):
        return None if isinstance(value, bool) else "true or false"
    if isinstance(default, int):
        return None if isinstance(value, int) and not isinstance(value, bool) else "a whole number"
    if isinstance(default, float):
        return None if isinstance(value, (int, float)) and not isinstance(value, bool) else "a number"
    if isinstance(default, tuple):
        ok = isinstance(value, (list, tuple)) and bool(value) and all(isinstance(v, type(default[0])) for v in value)
        return None if ok else f"a non-empty list like {json.dumps(list(default))}"
    return None


@dataclass(frozen=True)
class TaskSpec:
    """Base of the task declarations.

    Class attributes (declared by each task): ``name`` (registry name), ``code`` (``T1`` ...),
    ``counts`` (items per complex, or per axis where the task says so, per split), ``answer`` (the
    value type of :mod:`misi_tasks.definitions.answers`), ``answer_kw`` (its form options), ``metric`` (a
    one-line description), ``summary`` (what is asked, in one line), ``columns`` (its report
    columns, by default its code alone; :meth:`column` says which an item goes to), ``paper`` (one
    of the MiSI-Bench paper's nine tasks, which ``misi-gen --task all`` selects) and
    ``paper_average`` (its columns count in the paper's average).  Dataclass fields: the
    parameters; ``count`` overrides ``counts`` for every split.

    Everything that lists tasks (report columns and reference rows, ``misi-gen --task all``, the
    dataset reader, gallery, exports and card) reads these declarations through
    :mod:`misi_tasks.definitions.registry`: declaring a subclass with a ``name`` is all it takes.
    """

    name: ClassVar[str] = ""
    code: ClassVar[str] = ""
    counts: ClassVar[Mapping[str, int]] = MappingProxyType({"train": 1, "test": 1})
    answer: ClassVar[type] = Choice
    answer_kw: ClassVar[Mapping[str, Any]] = MappingProxyType({})
    metric: ClassVar[str] = "accuracy"
    summary: ClassVar[str] = ""
    columns: ClassVar[tuple[str, ...]] = ()
    paper: ClassVar[bool] = False
    paper_average: ClassVar[bool] = False

    count: int | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.name:
            register(cls)

    def __post_init__(self) -> None:
        if self.count is not None and (isinstance(self.count, bool) or not isinstance(self.count, int)
                                       or self.count < 0):
            raise ValueError(f"task {self.name!r}: count must be a whole number >= 0, got {self.count!r}")
        self.validate()

    # ------------------------------------------------------------ parameters
    @classmethod
    def defaults(cls) -> dict[str, Any]:
        """The task's parameters and their defaults (``count`` left out)."""
        return {f.name: f.default for f in fields(cls) if f.name != "count" and f.default is not MISSING}

    @classmethod
    def from_params(cls, params: Mapping[str, Any] | None = None) -> "TaskSpec":
        """The spec with ``params`` overriding its defaults; lists become tuples.

        Raises
        ------
        ValueError
            On an unknown parameter name, a value of the wrong type or an invalid range; the
            message names the task, the parameter and what it must be.
        """
        params = dict(params or {})
        defaults = cls.defaults()
        unknown = set(params) - set(defaults) - {"count"}
        if unknown:
            raise ValueError(
                f"task {cls.name!r} has no parameter(s) {', '.join(sorted(unknown))}; "
                f"valid: {', '.join(sorted(defaults)) or 'none'} (and count)"
            )
        for key, value in params.items():
            want = _type_error(value, defaults[key]) if key != "count" else None
            if want:
                raise ValueError(f"{cls.name}.{key} = {json.dumps(value)}: must be {want}")
            if isinstance(value, list):
                params[key] = tuple(value)
        return cls(**params)

    def params(self) -> dict[str, Any]:
        """Every parameter's value (``count`` included when set)."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "count"}
        if self.count is not None:
            out["count"] = self.count
        return out

    def overrides(self) -> dict[str, Any]:
        """The parameters that differ from the defaults, JSON-able (what travels with the items)."""
        defaults = self.defaults()
        out = {}
        for key, value in self.params().items():
            if key == "count" or value != defaults[key]:
                out[key] = list(value) if isinstance(value, tuple) else value
        return out

    def with_params(self, **params: Any) -> "TaskSpec":
        """A copy with some parameters replaced (checked as by :meth:`from_params`)."""
        return type(self).from_params({**self.overrides(), **params})

    def validate(self) -> None:
        """Raise ValueError when the parameters do not make a sensible task (overridden per task)."""

    # ------------------------------------------------------------ items
    def items_per_complex(self, split: str) -> int:
        """Items (or items per axis) per complex for ``split``."""
        return int(self.count) if self.count is not None else int(self.counts[split])

    @property
    def multiple_choice(self) -> bool:
        """Whether the answer is one of four options A-D."""
        return self.answer is Choice

    @property
    def n_options(self) -> int:
        """Options per item: 4 for a multiple-choice task, else 0."""
        return 4 if self.multiple_choice else 0

    # ------------------------------------------------------------ prompt
    def ask(self, **fields: Any) -> str:
        """The task's question, rendered from the spec's numbers and the item's ``fields``."""
        raise NotImplementedError

    def answer_format(self) -> tuple[str, list[str]]:
        """(answer form, examples): the examples are answers this spec allows."""
        return "one letter", ["A", "C"]

    def blurb(self) -> str:
        """One line for overviews: what is asked and an example answer."""
        example = "A-D" if self.multiple_choice else self.answer_format()[1][0]
        return f"{self.summary} Answer: {example}"

    def answer_sentence(self) -> str:
        """The prompt's closing sentence (:func:`answer_only` of :meth:`answer_format`)."""
        return answer_only(*self.answer_format())

    # ------------------------------------------------------------ answers and scores
    def parse(self, reply: str, *, options: Sequence[str] = (), pick: str = "last") -> ParsedAnswer | None:
        """The answer of this task's form in a free-text reply, or None."""
        return self.answer.parse(reply, pick=pick, options=options, **self.answer_kw)

    def canonical(self, answer: ParsedAnswer, metadata: Mapping[str, Any]) -> ParsedAnswer:
        """``answer`` (a reply's or the truth's) in the form the scorer compares, given the item's
        metadata: by default a bond list with every atom of the item's ``equivalent_atoms`` classes
        replaced by its class's first member (T4/T9, :func:`canonical_bond_list`), else unchanged."""
        classes = metadata.get("equivalent_atoms")
        if classes and isinstance(answer, BondList):
            return canonical_bond_list(answer, classes)
        return answer

    def score(self, pred: ParsedAnswer, truth: ParsedAnswer) -> float:
        """The metric, in [0, 1], of a parsed prediction of the right type against the truth."""
        return exact_score(pred, truth)

    @classmethod
    def report_columns(cls) -> tuple[str, ...]:
        """The task's report columns: ``columns`` as declared, else its code alone."""
        return tuple(cls.columns) or (cls.code,)

    def column(self, metadata: Mapping[str, Any], answer: str) -> str:
        """The report column of an item, one of :meth:`report_columns` (the first, unless the task
        splits its items, as T4 does by label)."""
        return self.report_columns()[0]

    def check_row(self, metadata: Mapping[str, Any], answer: str) -> str | None:
        """What is wrong with a dataset row's metadata and answer for this task, or None."""
        return None

    def random_reply(self, rng: random.Random) -> str:
        """A reply drawn from the task's value ranges, blind to images and truth."""
        return rng.choice("ABCD")
