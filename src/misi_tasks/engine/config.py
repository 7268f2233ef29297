"""What a generation run is asked (:class:`GenerateConfig`, whose fingerprint says which output
folder it may resume) and what it produced (:class:`GenerateSummary`)."""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from misi_render import RenderOptions
from misi_tasks.definitions.registry import paper_tasks, task_names
from misi_tasks.tasks.seeding import DEFAULT_TEST_FRACTION
from misi_tasks.version import package_version

__all__ = ["DEFAULT_GROUP_SIZE", "FAILURES_FILE", "GenerateConfig", "GenerateSummary"]

#: One line per complex that failed to load: ``<id>\t<message>`` (written only when one did).
FAILURES_FILE = "failures.txt"
#: Complexes per shard (``misi-gen --group-size``): at 1024 px a task's shard of 8 complexes is
#: ~10-40 MB, and 50 complexes make 7 groups, enough to keep 2 workers busy to the end.
DEFAULT_GROUP_SIZE = 8
#: Config fields that only say where and how a run executes, not what it produces.
_NOT_IN_FINGERPRINT = ("workers", "out_dir", "input_dir", "overwrite", "backend", "ray_address")
#: Input options that, left unset, are left out of the fingerprint (runs from before them keep theirs).
_OPTIONAL_INPUT_FIELDS = ("ligand", "smiles", "poses", "input_version")


@dataclass(frozen=True)
class GenerateConfig:
    """Arguments of one generation run (see ``misi-gen --help``)."""

    input_dir: Path
    out_dir: Path
    tasks: tuple[str, ...] = field(default_factory=paper_tasks)
    split: str = "auto"  # "auto" (by complex id), "train" or "test"
    seed: int = 0
    size: int = 1024
    projection: str = "orthographic"
    style: str = "ball-and-stick"
    workers: int = 1
    limit: int | None = None
    tiny: bool = False
    test_fraction: float = DEFAULT_TEST_FRACTION
    task_params: dict[str, dict[str, Any]] = field(default_factory=dict)
    ligand: str | None = None  # with a PDB/mmCIF input: RESNAME[:CHAIN[:RESNUM]] or a ligand file
    smiles: str | None = None  # with a PDB/mmCIF input: the ligand's bond-order template
    poses: int | None = None  # keep the first N poses of a multi-molecule ligand file
    input_version: str | None = None  # a URL input's version (misi_tasks.engine.remote.staged_version)
    backend: str = "local"  # "local" (process pool) or "ray"; results do not depend on it
    ray_address: str | None = None  # with backend "ray": "auto", "ray://host:port" or None (start Ray here)
    group_size: int = DEFAULT_GROUP_SIZE  # complexes per shard (consecutive in sorted order, per split)
    overwrite: bool = False  # replace README.md, failures.txt, figures/ and data/ of a folder misi-gen did not write

    def __post_init__(self) -> None:
        if not isinstance(self.group_size, int) or self.group_size < 1:
            raise ValueError(f"group size must be a whole number of at least 1, got {self.group_size!r}")

    @property
    def options(self) -> RenderOptions:
        """The run's render options (size, projection, style)."""
        return RenderOptions(size=self.size, projection=self.projection, style=self.style)

    def fingerprint(self, complex_ids: Iterable[str]) -> str:
        """Hash of everything that shapes the output (not workers, not the output folder)."""
        d = self.describe()
        d["complexes"] = sorted(complex_ids)
        d["version"] = package_version()
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def describe(self) -> dict[str, Any]:
        """The arguments that shape the output, as JSON-able values."""
        d = {k: v for k, v in asdict(self).items()
             if k not in _NOT_IN_FINGERPRINT and not (k in _OPTIONAL_INPUT_FIELDS and v is None)}
        return json.loads(json.dumps(d, default=str))


@dataclass
class GenerateSummary:
    """What a run produced: items and images per (task, split), shards, skips and failures."""

    items: Counter = field(default_factory=Counter)  # (task, split) -> n
    images: Counter = field(default_factory=Counter)
    shards: list[str] = field(default_factory=list)
    shards_skipped: int = 0
    complexes: int = 0
    failed_complexes: dict[str, str] = field(default_factory=dict)  # id -> reason
    sources: dict[str, dict] = field(default_factory=dict)  # id -> provenance (explicit-file inputs only)
    task_skips: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))  # task -> ["id: why"]
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        return {"items": {f"{t}/{s}": n for (t, s), n in sorted(self.items.items())},
                "images": {f"{t}/{s}": n for (t, s), n in sorted(self.images.items())},
                "shards": sorted(self.shards), "complexes": self.complexes,
                "failed_complexes": dict(sorted(self.failed_complexes.items())),
                "sources": dict(sorted(self.sources.items())),
                "task_skips": {t: v for t, v in sorted(self.task_skips.items())}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> "GenerateSummary":
        def counter(m: dict[str, int]) -> Counter:
            return Counter({tuple(k.split("/")): n for k, n in m.items()})

        out = cls(items=counter(d["items"]), images=counter(d["images"]), complexes=d["complexes"],
                  failed_complexes=dict(d["failed_complexes"]), sources=dict(d.get("sources", {})))
        out.task_skips.update(d["task_skips"])
        return out

    def format(self) -> str:
        lines = [f"{'task':<22}{'split':<7}{'items':>7}{'images':>8}"]
        for (task, split), n in sorted(self.items.items(), key=lambda kv: (task_names().index(kv[0][0]), kv[0][1])):
            lines.append(f"{task:<22}{split:<7}{n:>7}{self.images[(task, split)]:>8}")
        lines.append(
            f"{sum(self.items.values())} items, {sum(self.images.values())} images from {self.complexes} complexes "
            f"in {self.seconds:.1f} s; {len(self.shards)} shards written, {self.shards_skipped} already done"
        )
        for cid, why in sorted(self.failed_complexes.items()):
            lines.append(f"skipped complex {cid}: {why}")
        if self.failed_complexes:
            lines.append(f"{len(self.failed_complexes)} complex(es) skipped: listed in {FAILURES_FILE}")
        for task in sorted(self.task_skips):
            for why in self.task_skips[task]:
                lines.append(f"no {task} items for {why}")
        return "\n".join(lines)
