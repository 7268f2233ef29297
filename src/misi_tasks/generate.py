"""Generating a dataset: complexes -> items (in worker processes) -> Parquet shards + card.

Determinism: every random draw is seeded by (seed, task, complex id), units are assembled in sorted
order and letters are balanced per (task, split) after assembly, so the output bytes depend only
on the inputs and the arguments, never on the number of workers or on interruptions.
"""

from __future__ import annotations

import hashlib
import json
import time
import traceback
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from misi_tasks.backends import make_backend
from misi_tasks.items import Item
from misi_tasks.names import MC_TASKS, TASK_NAMES
from misi_tasks.scene import RenderSettings
from misi_tasks.seeding import DEFAULT_TEST_FRACTION, rng_for
from misi_tasks.units import WorkDir

__all__ = ["GenerateConfig", "GenerateSummary", "generate_dataset", "generate_items", "TINY_PER_TASK"]

#: Items per task in a ``--tiny`` run (the paper's Tiny subset).
TINY_PER_TASK = 50
#: A shard closes once its images reach this many bytes (the writer holds about 3x in memory) ...
SHARD_BYTES = 128 * 2**20
#: ... or this many rows.
ROWS_PER_SHARD = 1000


#: Config fields that only say where and how a run executes, not what it produces.
_NOT_IN_FINGERPRINT = ("workers", "out_dir", "input_dir", "backend", "ray_address")


@dataclass(frozen=True)
class GenerateConfig:
    """Arguments of one generation run (see ``misi-gen --help``)."""

    input_dir: Path
    out_dir: Path
    tasks: tuple[str, ...] = TASK_NAMES
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
    backend: str = "local"  # "local" (process pool) or "ray"; results do not depend on it
    ray_address: str | None = None  # with backend "ray": "auto", "ray://host:port" or None (start Ray here)

    @property
    def settings(self) -> RenderSettings:
        return RenderSettings(size=self.size, projection=self.projection, style=self.style)

    def fingerprint(self, complex_ids: Iterable[str]) -> str:
        """Hash of everything that shapes the output (not workers, not the output folder)."""
        d = {k: v for k, v in asdict(self).items() if k not in _NOT_IN_FINGERPRINT
             and not (k in ("ligand", "smiles", "poses") and v is None)}  # unset: as before these options
        d["complexes"] = sorted(complex_ids)
        d["version"] = _package_version()
        return hashlib.sha256(json.dumps(d, sort_keys=True, default=str).encode()).hexdigest()[:16]


def _package_version() -> str:
    try:
        from importlib.metadata import version

        return version("misi")
    except Exception:  # pragma: no cover - running from a source tree
        return "dev"


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

    def format(self) -> str:
        lines = [f"{'task':<22}{'split':<7}{'items':>7}{'images':>8}"]
        for (task, split), n in sorted(self.items.items(), key=lambda kv: (TASK_NAMES.index(kv[0][0]), kv[0][1])):
            lines.append(f"{task:<22}{split:<7}{n:>7}{self.images[(task, split)]:>8}")
        lines.append(
            f"{sum(self.items.values())} items, {sum(self.images.values())} images from {self.complexes} complexes "
            f"in {self.seconds:.1f} s; {len(self.shards)} shards written, {self.shards_skipped} already done"
        )
        for cid, why in sorted(self.failed_complexes.items()):
            lines.append(f"skipped complex {cid}: {why}")
        for task in sorted(self.task_skips):
            for why in self.task_skips[task]:
                lines.append(f"no {task} items for {why}")
        return "\n".join(lines)


# --- one complex (runs in a worker) -----------------------------------------------------------
_PARTNER_CACHE: dict[tuple, Any] = {}


def _scene_loader(dirs: dict[str, Any], settings: RenderSettings):
    from misi_tasks.scene import Scene

    def load(cid: str):
        key = (dirs[cid], settings)
        if key not in _PARTNER_CACHE:
            if len(_PARTNER_CACHE) > 4:
                _PARTNER_CACHE.pop(next(iter(_PARTNER_CACHE)))
            loaded = dirs[cid].load()  # a misi_geom.inputs source
            _PARTNER_CACHE[key] = Scene(loaded.complex, settings, provenance=loaded.provenance)
        return _PARTNER_CACHE[key]

    return load


def _init_worker() -> None:
    """Load the render kernels once per worker (numba cache) before the first complex."""
    from misi_render import warm_up

    warm_up()


def _process_complex(args: tuple) -> dict[str, Any]:
    """Generate every requested task for one complex and write its units; returns a report."""
    cfg, cid, split, dirs, split_ids = args
    from misi_geom import MisiInputError
    from misi_tasks.inputs.provenance import save_provenance
    from misi_tasks.registry import GenContext, TaskSkipped, get_task

    work = WorkDir(cfg.out_dir)
    todo = [t for t in cfg.tasks if not work.has_unit(cid, t)]
    report: dict[str, Any] = {"complex": cid, "error": None, "skips": {}}
    if not todo:
        return report
    load = _scene_loader(dirs, cfg.settings)
    try:
        scene = load(cid)
    except MisiInputError as exc:
        report["error"] = str(exc)
        return report
    save_provenance(cfg.out_dir, cid, scene.provenance)
    ctx = GenContext(
        seed=cfg.seed, split=split, settings=cfg.settings,
        partner_ids=tuple(i for i in split_ids if i != cid), partner=load,
    )
    for task in todo:
        gen = get_task(task)(**cfg.task_params.get(task, {}))
        try:
            items = gen.generate(scene, ctx)
            why = None
        except TaskSkipped as exc:
            items, why = [], str(exc)
        except MisiInputError as exc:  # e.g. a T5 partner complex that does not load
            items, why = [], str(exc)
        except Exception as exc:  # a bug must not cost the other complexes
            items, why = [], f"error {type(exc).__name__}: {exc} ({traceback.format_exc(limit=-1).strip().splitlines()[-1]})"
        if why:
            report["skips"][task] = why
        work.write_unit(cid, task, items, why)
    return report


def generate_items(scene, tasks: Iterable[str], *, seed: int = 0, split: str = "test",
                   partners: dict | None = None, keep_renders: bool = True) -> dict[str, list[Item]]:
    """Generate items for one in-memory :class:`~misi_tasks.scene.Scene` (for tests and notebooks).

    ``partners`` maps complex ids to scenes that T5 may use as its second complex.  MC items are
    returned in canonical order (correct option first, before letter assignment).
    """
    from misi_tasks.registry import GenContext, get_task

    partners = partners or {}
    ctx = GenContext(seed=seed, split=split, settings=scene.settings, partner_ids=tuple(sorted(partners)),
                     partner=partners.__getitem__, keep_renders=keep_renders)
    return {t: get_task(t)().generate(scene, ctx) for t in tasks}


# --- assembly --------------------------------------------------------------------------------
def _letters(n: int, seed: int, task: str, split: str) -> list[int]:
    """Balanced correct-letter indices for ``n`` items: A-D cycled, then shuffled with the seed."""
    perm = rng_for(seed, "letters", task, split).permutation(n)
    return [int(p) % 4 for p in perm]


def _tiny_indices(n: int, seed: int, task: str) -> list[int]:
    if n <= TINY_PER_TASK:
        return list(range(n))
    return sorted(int(k) for k in rng_for(seed, "tiny", task).choice(n, TINY_PER_TASK, replace=False))


def _shard_bounds(item_bytes: list[int]) -> list[tuple[int, int]]:
    """Consecutive [lo, hi) item ranges, each closed at :data:`SHARD_BYTES` or :data:`ROWS_PER_SHARD`."""
    bounds, lo, size = [], 0, 0
    for k, b in enumerate(item_bytes):
        if k > lo and (size + b > SHARD_BYTES or k - lo >= ROWS_PER_SHARD):
            bounds.append((lo, k))
            lo, size = k, 0
        size += b
    bounds.append((lo, len(item_bytes)))
    return bounds


class _UnitReader:
    """Loads items by (complex, position), keeping only the current unit in memory."""

    def __init__(self, work: WorkDir, task: str) -> None:
        self.work, self.task, self.cid, self.items = work, task, None, []

    def get(self, cid: str, k: int) -> Item:
        if cid != self.cid:
            self.cid, self.items = cid, self.work.read_unit(cid, self.task)
        return self.items[k]


def _assemble(cfg: GenerateConfig, work: WorkDir, state: dict, task: str, split: str, cids: list[str],
              summary: "GenerateSummary") -> None:
    """Write the shards of one (task, split), one shard in memory at a time."""
    from misi_tasks.dataset import shard_paths, write_shard

    refs: list[tuple[str, int, int, int]] = []  # (complex, position in its unit, images, bytes)
    for cid in cids:
        if not work.has_unit(cid, task):
            continue
        index = work.read_index(cid, task)
        refs += [(cid, k, n, b) for k, (n, b) in enumerate(zip(index["images"], index["bytes"]))]
        if index["skip"]:
            summary.task_skips[task].append(f"{cid}: {index['skip']}")
    if cfg.tiny:
        refs = [refs[k] for k in _tiny_indices(len(refs), cfg.seed, task)]
    letters = _letters(len(refs), cfg.seed, task, split) if task in MC_TASKS else None
    summary.items[(task, split)] = len(refs)
    summary.images[(task, split)] = sum(r[2] for r in refs)
    bounds = _shard_bounds([r[3] for r in refs]) if refs else []
    paths = shard_paths(cfg.out_dir, task, split, len(bounds)) if bounds else []
    for stale in set((cfg.out_dir / "data" / task).glob(f"{split}-*.parquet")) - set(paths):
        stale.unlink()  # left by an earlier run with other arguments
    reader = _UnitReader(work, task)
    for (lo, hi), path in zip(bounds, paths):
        rel = str(path.relative_to(cfg.out_dir))
        if state["shards_done"].get(rel) and path.is_file():
            summary.shards_skipped += 1
            continue
        rows = []
        for k in range(lo, hi):
            item = reader.get(refs[k][0], refs[k][1])
            rows.append((item.assign_letter(letters[k]) if letters else item).to_row())
        write_shard(rows, path)
        state["shards_done"][rel] = True
        work.save_state(state)
        summary.shards.append(rel)


def _plan(cfg: GenerateConfig):
    from misi_tasks.inputs import assign_splits, discover_inputs

    plan = discover_inputs(cfg.input_dir, ligand=cfg.ligand, smiles=cfg.smiles, poses=cfg.poses)
    ids = sorted(plan.sources)
    if cfg.limit is not None:
        ids = ids[: cfg.limit]
    if not ids:
        if plan.kind != "folder" and plan.failures:
            raise ValueError("no usable complex: " + "; ".join(plan.failures.values()))
        raise ValueError(f"{cfg.input_dir}: no complex folders (expected <id>/<id>_ligand.mol2 or .sdf)")
    by_id = {cid: plan.sources[cid] for cid in ids}
    splits = assign_splits(by_id, cfg.split, cfg.test_fraction)
    if cfg.tiny:  # the Tiny subset is drawn from the test split
        splits = {cid: s for cid, s in splits.items() if s == "test"} or {cid: "test" for cid in by_id}
        by_id = {cid: by_id[cid] for cid in splits}
    return by_id, splits, plan.failures


def generate_dataset(cfg: GenerateConfig, *, progress: bool = True) -> GenerateSummary:
    """Run a whole generation: resumable, byte-deterministic, one bad complex never costs the rest."""
    from tqdm import tqdm

    from misi_tasks.card import write_card
    from misi_tasks.inputs.provenance import load_provenance

    t0 = time.perf_counter()
    by_id, splits, bad_inputs = _plan(cfg)
    work = WorkDir(cfg.out_dir)
    fingerprint = cfg.fingerprint(by_id)
    state = work.start(fingerprint)
    summary = GenerateSummary(complexes=len(by_id))
    split_ids = {s: tuple(sorted(c for c, x in splits.items() if x == s)) for s in set(splits.values())}
    jobs = [(cfg, cid, splits[cid], by_id, split_ids[splits[cid]]) for cid in sorted(by_id)]
    backend = make_backend(cfg.backend, workers=max(1, min(cfg.workers, len(jobs))), ray_address=cfg.ray_address)
    bar = tqdm(total=len(jobs), desc="complexes", unit="cx", disable=not progress)
    reports = []  # small dicts; the items themselves are units on disk
    for r in backend.map(_process_complex, jobs, setup=_init_worker, name_of=lambda job: f"complex {job[1]}",
                         shared_paths=(work.state_path, cfg.input_dir)):
        reports.append(r)
        bar.update()
    bar.close()
    summary.failed_complexes.update(bad_inputs)
    for r in reports:
        if r["error"]:
            summary.failed_complexes[r["complex"]] = r["error"]
    summary.sources = load_provenance(cfg.out_dir, [c for c in sorted(by_id) if c not in summary.failed_complexes])

    for task in cfg.tasks:
        for split in sorted(set(splits.values())):
            cids = [c for c in sorted(by_id) if splits[c] == split and c not in summary.failed_complexes]
            _assemble(cfg, work, state, task, split, cids, summary)
    summary.seconds = time.perf_counter() - t0
    write_card(cfg, summary)
    return summary
