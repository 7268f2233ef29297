"""Generating a dataset: complexes -> items (in worker processes) -> Parquet shards + card.

Determinism: every random draw is seeded by (seed, task, complex id), units are assembled in sorted
order and letters are balanced per (task, split) after assembly, so the output bytes depend only
on the inputs and the arguments, never on the number of workers or on interruptions.

Robustness: every complex is loaded first; one that fails (a bad file, or any unexpected error) is
reported with its id and file in the summary, the card and ``OUT/failures.txt`` and costs no other
complex anything -- T5 draws its partner complexes only from those that loaded.

The pieces: the run's arguments and result (:mod:`~misi_tasks.engine.config`), the output
folder's policy (:mod:`~misi_tasks.engine.output`), what a worker does
(:mod:`~misi_tasks.engine.worker`), the shards (:mod:`~misi_tasks.engine.shards`) and the card
(:mod:`~misi_tasks.engine.card`); this module runs them in order.
"""

from __future__ import annotations

import shutil
import time

from tqdm import tqdm

from misi_geom.errors import printable
from misi_tasks.engine.backends import make_backend
from misi_tasks.engine.card import preload_figures, write_card
from misi_tasks.engine.config import FAILURES_FILE, GenerateConfig, GenerateSummary
from misi_tasks.engine.output import OutputFolderError, finished_summary, output_files, prepare_output, write_failures
from misi_tasks.engine.provenance import load_provenance
from misi_tasks.engine.shards import TINY_PER_TASK, plan_shards, unit_images, write_shard_job
from misi_tasks.engine.units import WorkDir
from misi_tasks.engine.worker import check_complex, generate_items, init_worker, process_complex
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
    try:
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
            # 2. generate the units of every complex that loaded
            jobs = [(cfg, cid, splits[cid], by_id, partners[splits[cid]]) for cid in loaded]
            reports = backend.map(process_complex, jobs, setup=init_worker,
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
            written = backend.map(write_shard_job, biggest_first, setup=init_worker,
                                  name_of=lambda job: f"shard {job.path.name} of {job.task}", shared_paths=shared)
            done_now = set()
            for rel in tqdm(written, total=len(shard_jobs), desc="shards", unit="shard", disable=not progress):
                state["shards_done"][rel] = True
                work.save_state(state)
                done_now.add(rel)
            summary.shards += [rel for rel in (str(j.path.relative_to(cfg.out_dir)) for j in shard_jobs)
                               if rel in done_now]  # in plan order, whatever order they finished in
        summary.seconds = time.perf_counter() - t0
        write_failures(cfg, summary)
        figures_ready.join()
        write_card(cfg, summary, unit_images(work), atoms)  # the units are still there
        files = [p.relative_to(cfg.out_dir).as_posix() for p in output_files(cfg.out_dir)[0]]
        state.update(complete=True, files=files,
                     summary={**summary.to_json(), "shards": [f for f in files if f.startswith("data/")]})
        work.save_state(state)
        work.clear_units()  # the bulk of the work folder; state.json stays as the folder's record
        return summary
    finally:
        work.unlock()
