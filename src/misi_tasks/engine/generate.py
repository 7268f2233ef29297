"""Generating a dataset: complexes -> items (in worker processes) -> Parquet shards + card.

Determinism: every random draw is seeded by (seed, task, complex id), letters are balanced per
complex, and the shards are fixed groups of consecutive complexes (:mod:`misi_tasks.engine.shards`)
whose rows a worker writes in sorted order, so the output bytes depend only on the inputs and the
arguments, never on the number of workers, the backend or on interruptions (a rerun resumes by group).

Robustness: every complex is loaded first; one that fails (a bad file, or any unexpected error) is
reported with its id and file in the summary, the card and ``OUT/failures.txt`` and costs no other
complex anything -- T5 draws its partner complexes only from those that loaded.

The pieces: the run's arguments and result (:mod:`~misi_tasks.engine.config`), the output
folder's policy (:mod:`~misi_tasks.engine.output`), what a worker does
(:mod:`~misi_tasks.engine.worker`), the shards (:mod:`~misi_tasks.engine.shards`) and the card
(:mod:`~misi_tasks.engine.card`); this module runs them in order.
"""

from __future__ import annotations

import gc
import shutil
import time

from tqdm import tqdm

from misi_geom.errors import printable
from misi_tasks._atomic import remove_temp_files
from misi_tasks.engine.backends import make_backend
from misi_tasks.engine.card import preload_figures, write_card
from misi_tasks.engine.card_figures import example_complexes
from misi_tasks.engine.config import FAILURES_FILE, GenerateConfig, GenerateSummary
from misi_tasks.engine.output import OutputFolderError, finished_summary, output_files, prepare_output, write_failures
from misi_tasks.engine.provenance import load_provenance
from misi_tasks.engine.shards import TINY_PER_TASK, Group, plan_groups, tiny_shard, write_tiny_shard
from misi_tasks.engine.units import WorkDir
from misi_tasks.engine.worker import check_complex, generate_items, init_worker, process_group
from misi_tasks.definitions.registry import mc_tasks
from misi_tasks.inputs import assign_splits, discover_inputs

__all__ = ["FAILURES_FILE", "GenerateConfig", "GenerateSummary", "NoComplexLoaded", "OutputFolderError",
           "generate_dataset", "generate_items", "TINY_PER_TASK"]


class NoComplexLoaded(ValueError):
    """Every complex of the input failed to load; ``summary`` lists each one with its reason."""

    def __init__(self, summary: GenerateSummary) -> None:
        self.summary = summary
        super().__init__(f"none of the {len(summary.failed_complexes)} input complexes loaded (reasons above); "
                         "nothing was generated")


def _plan(cfg: GenerateConfig):
    plan = discover_inputs(cfg.input_dir, ligand=cfg.ligand, smiles=cfg.smiles, poses=cfg.poses)
    ids = plan.ordered_ids()
    if cfg.limit is not None:
        ids = ids[: cfg.limit]
    if not ids:
        if plan.failures:
            raise ValueError("no usable complex: " + "; ".join(plan.failures.values()))
        raise ValueError(f"{cfg.input_dir}: no complex folders (expected <id>/<id>_ligand.mol2 or .sdf)")
    by_id = {cid: plan.sources[cid] for cid in ids}
    splits = assign_splits(by_id, cfg.split, cfg.test_fraction)
    if cfg.tiny:  # the Tiny subset is drawn from the test split
        splits = {cid: s for cid, s in splits.items() if s == "test"} or {cid: "test" for cid in by_id}
        by_id = {cid: by_id[cid] for cid in splits}
    return by_id, splits, plan.failures


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
    caller_froze = gc.get_freeze_count() > 0
    try:
        gc.freeze()  # what the driver imported (numba, scipy, misi), as below for what the run loads
        try:
            state = prepare_output(cfg, work, fingerprint, len(by_id))
        except OutputFolderError:
            if work.locked and not work.state_path.exists():  # refused before anything was written:
                shutil.rmtree(work.root, ignore_errors=True)  # leave no work folder beside OUT
            raise
        done = finished_summary(cfg, state)
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
            checks = backend.map(check_complex, [(c, by_id[c], cfg.options) for c in ids], setup=init_worker,
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
                write_failures(cfg, summary)
                raise NoComplexLoaded(summary)
            partners = {s: tuple(c for c in loaded if splits[c] == s) for s in set(splits.values())}
            # 2. generate each group of complexes straight into its shards (the layout is fixed up front)
            base = work.full_dir if cfg.tiny else cfg.out_dir  # --tiny: the full split, then a small copy
            groups = plan_groups(splits, cfg.group_size)
            _remove_stale_shards(base, cfg.tasks, groups)
            finished = state.setdefault("groups_done", {})
            ok = set(loaded)
            todo = [g for g in groups if not (g.key in finished and all(g.shard(base, t).is_file() for t in cfg.tasks))]
            cost = {g.key: (sum(c in ok for c in g.complexes), sum(sum(atoms.get(c, (0, 0))) for c in g.complexes))
                    for g in groups}
            todo.sort(key=lambda g: tuple(-x for x in cost[g.key]))  # biggest first: the workers finish together
            # the card's example images come back with the reports (if every loaded complex makes
            # items, these are the ones it shows; any other is read from the shards)
            wanted = example_complexes(cfg.tasks, loaded)
            jobs = [(cfg, g, tuple(c for c in g.complexes if c in ok), by_id, partners[g.split], base, wanted)
                    for g in todo]
            # what the driver holds by now (numba, RDKit, the plan) lives until the end: out of the
            # collector's sight, its passes while matplotlib loads and the card is drawn stay short
            gc.freeze()
            figures_ready = preload_figures()  # while the driver waits for the workers
            reports = backend.map(process_group, jobs, setup=init_worker,
                                  name_of=lambda job: f"group {job[1].key} ({', '.join(job[1].complexes)})",
                                  shared_paths=shared)
            examples: dict[str, list[bytes]] = {}
            for r in tqdm(reports, total=len(jobs), desc="groups", unit="group", disable=not progress):
                examples.update(r.pop("examples", {}))
                finished[r["group"]] = r
                work.save_state(state)
            remove_temp_files(base / "data")  # of a job whose worker died and was run again
            _count(cfg, groups, finished, summary, written={g.key for g in todo})
            usable = [c for c in loaded if printable(c) not in summary.failed_complexes]
            summary.sources = load_provenance(cfg.out_dir, usable)
            if cfg.tiny:  # 3. copy 50 rows per task from the full test split
                _write_tiny(cfg, state, work, backend, groups, summary, shared, progress)
        summary.seconds = time.perf_counter() - t0
        write_failures(cfg, summary)
        figures_ready.join()
        # example images: those the workers handed over, any other from the shards
        write_card(cfg, summary, lambda rows: {r["id"]: examples[r["id"]] for r in rows if r["id"] in examples}, atoms)
        files = [p.relative_to(cfg.out_dir).as_posix() for p in output_files(cfg.out_dir)[0]]
        state.update(complete=True, files=files,
                     summary={**summary.to_json(), "shards": [f for f in files if f.startswith("data/")]})
        work.save_state(state)
        work.clear_work_files()  # per-complex records and --tiny's full shards; state.json stays as the folder's record
        return summary
    finally:
        if not caller_froze:  # a caller that froze objects itself keeps them frozen
            gc.unfreeze()
        work.unlock()


def _remove_stale_shards(base, tasks, groups: list[Group]) -> None:
    """Remove shards of the run's tasks that its groups do not name (an earlier run with other arguments)."""
    names = {f"{g.key}.parquet" for g in groups}
    for task in tasks:
        for path in (base / "data" / task).glob("*.parquet"):
            if path.name not in names:
                path.unlink()


def _count(cfg: GenerateConfig, groups: list[Group], done: dict, summary: GenerateSummary, written: set[str]) -> None:
    """Items, images, skips, failures and shards of the finished groups into ``summary``, in group order."""
    for g in groups:
        report = done.get(g.key)
        if report is None:
            continue
        for task in cfg.tasks:
            summary.items[(task, g.split)] += report["items"][task]
            summary.images[(task, g.split)] += report["images"][task]
            summary.task_skips[task] += report["skips"][task]
        summary.failed_complexes.update({printable(c): why for c, why in report["failed"].items()})
        if g.key in written:
            summary.shards += report["shards"]
        else:
            summary.shards_skipped += len(report["shards"])


def _write_tiny(cfg: GenerateConfig, state: dict, work: WorkDir, backend, groups: list[Group],
                summary: GenerateSummary, shared, progress: bool) -> None:
    """``--tiny``: copy each task's Tiny subset from the full shards in the work folder into ``OUT``."""
    summary.items.clear()
    summary.images.clear()
    summary.shards.clear()
    summary.shards_skipped = 0
    tiny = state.setdefault("tiny_done", {})
    for stale in {p for t in cfg.tasks for p in (cfg.out_dir / "data" / t).glob("*.parquet")} \
            - {tiny_shard(cfg.out_dir, t) for t in cfg.tasks}:
        stale.unlink()
    mc = set(mc_tasks())
    jobs = [(cfg, t, tuple(g.shard(work.full_dir, t) for g in groups), t in mc) for t in cfg.tasks
            if not (t in tiny and tiny_shard(cfg.out_dir, t).is_file())]
    for r in tqdm(backend.map(write_tiny_shard, jobs, setup=init_worker, name_of=lambda job: f"tiny {job[1]}",
                              shared_paths=shared), total=len(jobs), desc="tiny", unit="task", disable=not progress):
        tiny[r["task"]] = r
        work.save_state(state)
    written = {job[1] for job in jobs}
    for task in cfg.tasks:
        r = tiny[task]
        summary.items[(task, "test")] = r["items"]
        summary.images[(task, "test")] = r["images"]
        if task in written:
            summary.shards.append(r["shard"])
        else:
            summary.shards_skipped += 1
