"""Generating a dataset: complexes -> items (in worker processes) -> Parquet shards + card.

Determinism: every random draw is seeded by (seed, task, complex id), units are assembled in sorted
order and letters are balanced per (task, split) after assembly, so the output bytes depend only
on the inputs and the arguments, never on the number of workers or on interruptions.

Robustness: every complex is loaded first; one that fails (a bad file, or any unexpected error) is
reported with its id and file in the summary, the card and ``OUT/failures.txt`` and costs no other
complex anything -- T5 draws its partner complexes only from those that loaded.

The output folder (see :mod:`misi_tasks.engine.units` for the work folder beside it): a run writes only
into an empty folder, a folder an earlier misi-gen run with the same arguments wrote (it resumes),
or -- with ``overwrite`` -- replaces ``README.md``, ``failures.txt`` and ``data/`` of any folder
(other files are left alone).  A folder misi did not write, or wrote with other arguments, is
refused with :class:`OutputFolderError`; a lock stops two runs writing one folder.
"""

from __future__ import annotations

import gc
import hashlib
import json
import os
import re
import shutil
import signal
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

from tqdm import tqdm

from misi_geom import MisiInputError
from misi_geom.errors import printable
from misi_render import RenderOptions, warm_up
from misi_tasks._atomic import atomic_write_bytes, remove_temp_files
from misi_tasks.engine._malloc import image_maker_memory
from misi_tasks.engine.backends import make_backend
from misi_tasks.engine.card import preload_figures, write_card
from misi_tasks.engine.card_figures import FIGURES_DIR, heavy_atoms
from misi_tasks.engine.provenance import load_provenance, save_provenance
from misi_tasks.engine.shards import TINY_PER_TASK, plan_shards, unit_images, write_shard_job
from misi_tasks.engine.units import WorkDir
from misi_tasks.inputs import assign_splits, discover_inputs
from misi_tasks.definitions.items import Item
from misi_tasks.definitions.registry import TASK_NAMES
from misi_tasks.tasks import GenContext, TaskSkipped, get_task
from misi_tasks.tasks.decoys import warm_up_ssim
from misi_tasks.tasks.scene import Scene
from misi_tasks.tasks.seeding import DEFAULT_TEST_FRACTION
from misi_tasks.version import package_version

__all__ = ["FAILURES_FILE", "GenerateConfig", "GenerateSummary", "NoComplexLoaded", "OutputFolderError",
           "generate_dataset", "generate_items", "TINY_PER_TASK"]

#: One line per complex that failed to load: ``<id>\t<message>`` (written only when one did).
FAILURES_FILE = "failures.txt"
_SHARD_NAME_RE = re.compile(r"^(train|test)-\d{5}-of-\d{5}\.parquet$")
#: Config fields that only say where and how a run executes, not what it produces.
_NOT_IN_FINGERPRINT = ("workers", "out_dir", "input_dir", "overwrite", "backend", "ray_address")
#: Input options that, left unset, are left out of the fingerprint (runs from before them keep theirs).
_OPTIONAL_INPUT_FIELDS = ("ligand", "smiles", "poses")


class OutputFolderError(ValueError):
    """The output folder cannot be used: written by someone else or with other arguments, or in use."""


class NoComplexLoaded(ValueError):
    """Every complex of the input failed to load; ``summary`` lists each one with its reason."""

    def __init__(self, summary: "GenerateSummary") -> None:
        self.summary = summary
        super().__init__(f"none of the {len(summary.failed_complexes)} input complexes loaded (reasons above); "
                         "nothing was generated")


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
    overwrite: bool = False  # replace README.md, failures.txt, figures/ and data/ of a folder misi-gen did not write

    @property
    def settings(self) -> RenderOptions:
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
        for (task, split), n in sorted(self.items.items(), key=lambda kv: (TASK_NAMES.index(kv[0][0]), kv[0][1])):
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


# --- one complex (runs in a worker) -----------------------------------------------------------
_PARTNER_CACHE: dict[tuple, Any] = {}


def _scene_loader(dirs: dict[str, Any], settings: RenderOptions):
    def load(cid: str):
        key = (dirs[cid], settings)
        if key not in _PARTNER_CACHE:
            if len(_PARTNER_CACHE) > 4:
                _PARTNER_CACHE.pop(next(iter(_PARTNER_CACHE)))
            loaded = dirs[cid].load()  # a misi_geom.inputs source
            _PARTNER_CACHE[key] = Scene(loaded.complex, settings, provenance=loaded.provenance)
        return _PARTNER_CACHE[key]

    return load


_WARM = False  # this process has loaded (or compiled) the render kernels


def _compile_lock_path() -> Path:
    """The lock file that lets one process at a time compile the kernels into numba's cache.

    Beside the cache when ``NUMBA_CACHE_DIR`` is set, else in the temporary folder, named after
    the package folder whose ``__pycache__`` numba then uses (one lock per cache).
    """
    import misi_render
    from numba.core.config import CACHE_DIR

    pkg = str(Path(misi_render.__file__).resolve().parent)
    if CACHE_DIR:
        return Path(CACHE_DIR) / "misi-compile.lock"
    tag = hashlib.sha256(pkg.encode()).hexdigest()[:12]
    return Path(tempfile.gettempdir()) / f"misi-compile-{os.getuid() if hasattr(os, 'getuid') else 0}-{tag}.lock"


def _load_kernels() -> None:
    warm_up()
    warm_up_ssim()


def _warm_up_once(block: bool = True) -> bool:
    """Load the numba kernels (render, decoy check), compiling them only if no other process is doing so.

    Kernels are compiled under an exclusive lock (:func:`_compile_lock_path`), so on a cold cache
    the first worker compiles them and writes numba's cache while the others wait and then load
    the cache, instead of every worker compiling the same kernels at once.  With ``block=False`` a
    worker that finds the lock taken returns False at once (it can load complexes meanwhile) and
    warms up later with ``block=True``.  Returns True once the kernels are loaded in this process.
    """
    global _WARM
    if _WARM:
        return True
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        _load_kernels()
        _WARM = True
        return True
    path = _compile_lock_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # no place for a lock: every worker compiles for itself, as numba would
        _load_kernels()
        _WARM = True
        return True
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        _load_kernels()
        _WARM = True
        return True
    finally:
        os.close(fd)  # releases the lock


def _init_worker() -> None:
    """Load the render kernels once per worker (numba cache) before the first complex, unless
    another worker is compiling them (then this one loads complexes and warms up before its first
    complex, see :func:`_warm_up_once`).  Ctrl-C is left to the parent (one line, no traceback
    per worker)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _warm_up_once(block=False)
    _quiet_gc()
    image_maker_memory()  # reuse the per-image buffers, in 4 kB pages (engine/_malloc.py)


def _quiet_gc() -> None:
    """Take the worker's start-up objects (modules, numba, RDKit, pyarrow) out of the garbage
    collector's sight and let it run less often: a worker makes many short-lived containers per
    image, and the collector's passes over the imported heap cost about 3 % of a worker's CPU
    (perf: gc_collect_main and its visitors 6.7 % -> 3.7 % of samples).  Nothing a worker makes
    depends on when the collector runs."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def _one_line(exc: BaseException, where: Path | str) -> str:
    """An exception as one line: a MisiInputError as it is, anything else with its type and place."""
    if isinstance(exc, MisiInputError):
        return str(exc)
    text = " ".join(str(exc).split())
    return printable(f"{where}: unexpected {type(exc).__name__}{': ' + text if text else ''}")


def _where(source: Any) -> Path | str:
    """The place a complex is read from, for messages: its folder, else its id."""
    return getattr(source, "path", None) or getattr(source, "id", source)


def _check_complex(args: tuple) -> tuple[str, str | None, tuple[int, int] | None]:
    """Load one complex (in a worker): (id, None, (pocket, ligand) heavy atoms for the card's figure)
    or (id, one-line reason it cannot be used, None)."""
    cid, source, settings = args
    try:
        scene = _scene_loader({cid: source}, settings)(cid)
    except OSError:
        raise  # a full disk or a vanished input folder stops the run (and it resumes)
    except Exception as exc:  # noqa: BLE001 - any failure of one complex is that complex's alone
        return cid, _one_line(exc, _where(source)), None
    return cid, None, heavy_atoms(scene.source)


def _process_complex(args: tuple) -> dict[str, Any]:
    """Generate every requested task for one complex and write its units; returns a report."""
    cfg, cid, split, dirs, partner_ids = args
    _warm_up_once()
    try:
        return _generate_units(cfg, cid, split, dirs, partner_ids)
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001
        return {"complex": cid, "error": _one_line(exc, _where(dirs[cid])), "skips": {}}


def _generate_units(cfg: "GenerateConfig", cid: str, split: str, dirs: dict[str, Any],
                    partner_ids: tuple[str, ...]) -> dict[str, Any]:
    work = WorkDir(cfg.out_dir)
    todo = [t for t in cfg.tasks if not work.has_intact_unit(cid, t)]  # checked: see engine/units.py
    report: dict[str, Any] = {"complex": cid, "error": None, "skips": {}}
    if not todo:
        return report
    load = _scene_loader(dirs, cfg.settings)
    scene = load(cid)
    save_provenance(cfg.out_dir, cid, scene.provenance)
    ctx = GenContext(seed=cfg.seed, split=split, settings=cfg.settings,
                     partner_ids=tuple(i for i in partner_ids if i != cid), partner=load)
    for task in todo:
        gen = get_task(task)(**cfg.task_params.get(task, {}))
        try:
            items = gen.generate(scene, ctx)
            why = None
        except TaskSkipped as exc:
            items, why = [], str(exc)
        except OSError:
            raise
        except Exception as exc:  # noqa: BLE001 - e.g. a T5 partner that fails: this task only
            items, why = [], _one_line(exc, dirs[cid])
        if why:
            report["skips"][task] = why
        work.write_unit(cid, task, items, why)
    return report


def generate_items(scene, tasks: Iterable[str], *, seed: int = 0, split: str = "test",
                   partners: dict | None = None, keep_renders: bool = True) -> dict[str, list[Item]]:
    """Generate items for one in-memory :class:`~misi_tasks.tasks.scene.Scene` (for tests and notebooks).

    ``partners`` maps complex ids to scenes that T5 may use as its second complex.  MC items are
    returned in canonical order (correct option first, before letter assignment).
    """
    partners = partners or {}
    ctx = GenContext(seed=seed, split=split, settings=scene.settings, partner_ids=tuple(sorted(partners)),
                     partner=partners.__getitem__, keep_renders=keep_renders)
    return {t: get_task(t)().generate(scene, ctx) for t in tasks}


def _plan(cfg: GenerateConfig):
    plan = discover_inputs(cfg.input_dir, ligand=cfg.ligand, smiles=cfg.smiles, poses=cfg.poses)
    ids = plan.ordered_ids()
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


def _output_files(out: Path) -> tuple[list[Path], list[Path]]:
    """(files a misi-gen run writes, other files) under ``out``."""
    ours, other = [], []
    for path in sorted(out.rglob("*")) if out.is_dir() else ():
        if path.is_dir() and not path.is_symlink():
            continue
        rel = path.relative_to(out).parts
        shard = len(rel) == 3 and rel[0] == "data" and rel[1] in TASK_NAMES and _SHARD_NAME_RE.match(rel[2])
        figure = len(rel) == 2 and rel[0] == FIGURES_DIR and rel[1].endswith(".png")  # the card's figures
        if shard or figure or rel in (("README.md",), (FAILURES_FILE,)) or rel[0] == ".misi-gen":
            ours.append(path)
        else:
            other.append(path)
    return ours, other


def _differences(old: dict[str, Any], new: dict[str, Any]) -> str:
    keys = [k for k in sorted(set(old) | set(new)) if old.get(k) != new.get(k)]
    return "; ".join(f"{k} {old.get(k)!r} -> {new.get(k)!r}" for k in keys[:3]) or "other input complexes"


def _prepare_output(cfg: GenerateConfig, work: WorkDir, fingerprint: str, n_complexes: int) -> dict[str, Any]:
    """Lock the output folder, check it may be written (module docs) and return the run state."""
    out = cfg.out_dir
    if out.exists() and not out.is_dir():
        raise OutputFolderError(f"{out}: is a file, not a folder; --out must be a folder")
    if not work.lock():
        raise OutputFolderError(f"{out}: another misi-gen run is writing this folder (lock {work.root / 'lock'})")
    state = work.load_state()
    legacy = out / ".misi-gen"  # where versions before issue 13 kept the work folder
    if not state and (legacy / "state.json").is_file():
        try:
            state = json.loads((legacy / "state.json").read_text())
        except (OSError, ValueError):
            state = {}
    ours, other = _output_files(out)
    written_by_misi = bool(state.get("fingerprint")) or legacy.is_dir()
    described = {**cfg.describe(), "complexes": n_complexes}
    if (ours or other) and not written_by_misi and not cfg.overwrite:
        shown = ", ".join(str(p.relative_to(out)) for p in (ours + other)[:3]) + (", ..." if len(ours + other) > 3 else "")
        raise OutputFolderError(f"{out}: folder is not empty and misi-gen did not write it (it holds {shown}); "
                                "choose a new or empty --out, or pass --overwrite to replace its README.md and data/")
    if written_by_misi and state.get("fingerprint") != fingerprint and ours and not cfg.overwrite:
        raise OutputFolderError(f"{out}: holds a dataset generated with other arguments "
                                f"({_differences(state.get('config', {}), described)}); choose another --out, "
                                "or pass --overwrite to replace it")
    if cfg.overwrite or state.get("fingerprint") != fingerprint:
        for path in ours:
            if path.is_file() or path.is_symlink():
                path.unlink()
        work.clear_units()
        state = {"fingerprint": fingerprint, "config": described, "shards_done": {}}
    work.save_state(state)
    shutil.rmtree(legacy, ignore_errors=True)  # its units are not reused; the state now lives beside OUT
    remove_temp_files(out)  # left by a run killed while writing
    remove_temp_files(work.root)
    out.mkdir(parents=True, exist_ok=True)
    return state


def _finished(cfg: GenerateConfig, state: dict[str, Any]) -> GenerateSummary | None:
    """The summary of a completed run whose files are all still there, else None."""
    if not state.get("complete") or cfg.overwrite:
        return None
    if not all((cfg.out_dir / rel).is_file() for rel in state.get("files", [])):
        return None
    summary = GenerateSummary.from_json(state["summary"])
    summary.shards_skipped = len(state["summary"]["shards"])
    return summary


def _write_failures(cfg: GenerateConfig, summary: GenerateSummary) -> None:
    path = cfg.out_dir / FAILURES_FILE
    if summary.failed_complexes:
        text = "".join(f"{cid}\t{why}\n" for cid, why in sorted(summary.failed_complexes.items()))
        atomic_write_bytes(path, text.encode())
    elif path.is_file():
        path.unlink()


def generate_dataset(cfg: GenerateConfig, *, progress: bool = True) -> GenerateSummary:
    """Run a whole generation: resumable, byte-deterministic, one bad complex never costs the rest.

    Raises
    ------
    OutputFolderError
        If the output folder may not be written (see the module docs).
    """
    t0 = time.perf_counter()
    by_id, splits, bad_inputs = _plan(cfg)
    work = WorkDir(cfg.out_dir)
    fingerprint = cfg.fingerprint(by_id)
    try:
        try:
            state = _prepare_output(cfg, work, fingerprint, len(by_id))
        except OutputFolderError:
            if work.locked and not work.state_path.exists():  # refused before anything was written:
                shutil.rmtree(work.root, ignore_errors=True)  # leave no work folder beside OUT
            raise
        done = _finished(cfg, state)
        if done is not None:
            done.seconds = time.perf_counter() - t0
            return done
        summary = GenerateSummary(complexes=len(by_id))
        summary.failed_complexes.update({printable(c): why for c, why in bad_inputs.items()})
        ids = sorted(by_id)
        workers = max(1, min(cfg.workers, len(ids)))
        shared = (work.state_path, cfg.input_dir)  # a Ray worker checks it sees these (shared filesystem)
        with make_backend(cfg.backend, workers=workers, ray_address=cfg.ray_address) as backend:
            # 1. load every complex: failures are reported, and T5 partners come from the others
            checks = backend.map(_check_complex, [(c, by_id[c], cfg.settings) for c in ids], setup=_init_worker,
                                 name_of=lambda job: f"complex {job[0]}", shared_paths=shared)
            loaded, atoms = [], {}
            for cid, error, heavy in tqdm(checks, total=len(ids), desc="loading", unit="cx", disable=not progress):
                if error:
                    summary.failed_complexes[printable(cid)] = error
                else:
                    loaded.append(cid)
                    atoms[cid] = heavy
            loaded.sort()  # a backend may answer in completion order
            if not loaded:
                summary.seconds = time.perf_counter() - t0
                _write_failures(cfg, summary)
                raise NoComplexLoaded(summary)
            partners = {s: tuple(c for c in loaded if splits[c] == s) for s in set(splits.values())}
            # 2. generate the units of every complex that loaded
            jobs = [(cfg, cid, splits[cid], by_id, partners[splits[cid]]) for cid in loaded]
            reports = backend.map(_process_complex, jobs, setup=_init_worker,
                                  name_of=lambda job: f"complex {job[1]}", shared_paths=shared)
            for r in tqdm(reports, total=len(jobs), desc="complexes", unit="cx", disable=not progress):
                if r["error"]:
                    summary.failed_complexes[printable(r["complex"])] = r["error"]
            usable = [c for c in loaded if printable(c) not in summary.failed_complexes]
            summary.sources = load_provenance(cfg.out_dir, usable)  # before the units are cleared below
            # 3. write the shards: counted and planned here, written by the workers, recorded as they finish
            shard_jobs = [job for task in cfg.tasks for split in sorted(set(splits.values()))
                          for job in plan_shards(cfg, work, state, task, split,
                                                 [c for c in usable if splits[c] == split], summary)]
            biggest_first = sorted(shard_jobs, key=lambda j: -j.nbytes)  # the workers finish together
            figures_ready = preload_figures()  # while the driver waits for the shards
            written = backend.map(write_shard_job, biggest_first, setup=_init_worker,
                                  name_of=lambda job: f"shard {job.path.name} of {job.task}", shared_paths=shared)
            done_now = set()
            for rel in tqdm(written, total=len(shard_jobs), desc="shards", unit="shard", disable=not progress):
                state["shards_done"][rel] = True
                work.save_state(state)
                done_now.add(rel)
            summary.shards += [rel for rel in (str(j.path.relative_to(cfg.out_dir)) for j in shard_jobs)
                               if rel in done_now]  # in plan order, whatever order they finished in
        summary.seconds = time.perf_counter() - t0
        _write_failures(cfg, summary)
        figures_ready.join()
        write_card(cfg, summary, unit_images(work), atoms)  # the units are still there
        files = [p.relative_to(cfg.out_dir).as_posix() for p in _output_files(cfg.out_dir)[0]]
        state.update(complete=True, files=files,
                     summary={**summary.to_json(), "shards": [f for f in files if f.startswith("data/")]})
        work.save_state(state)
        work.clear_units()  # the bulk of the work folder; state.json stays as the folder's record
        return summary
    finally:
        work.unlock()
