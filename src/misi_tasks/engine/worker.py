"""What runs in a worker process: its set-up (render kernels compiled once per machine, a quiet
garbage collector, the image allocator), loading one complex, and generating one group of complexes
straight into its shards.

A worker's state is a :class:`Worker` object: its cache of the last few complexes loaded (so that
T5's partners are not loaded again for every complex) and whether it has loaded the kernels.
Neither piece of state changes what a job produces.  Every function that uses a worker takes it
as an argument (:meth:`Worker.check_complex`, :meth:`Worker.process_group`), so a test or a
notebook makes its own.

The one process-wide object is :data:`THIS_PROCESS`, by the backend protocol
(:class:`misi_tasks.engine.backends.base.Backend`): a backend runs a job as ``fn(job)`` with ``fn``
a module-level function that its worker processes import by name (a spawned pool process, a Ray
worker), and ``setup`` once per process before the first job.  So the job functions
(:func:`check_complex`, :func:`process_group`) and the set-up (:func:`init_worker`) are thin
module-level wrappers that hand this process's worker to the methods; with the in-process backend
(one worker) it is the driver's own.
"""

from __future__ import annotations

import gc
import hashlib
import os
import signal
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator

from misi_geom import MisiInputError
from misi_geom.errors import printable
from misi_render import RenderOptions, warm_up
from misi_tasks.dataset import ShardWriter
from misi_tasks.definitions.items import Item
from misi_tasks.definitions.registry import mc_tasks
from misi_tasks.engine._malloc import image_maker_memory
from misi_tasks.engine._threads import one_blas_thread
from misi_tasks.engine.card_figures import example_image_index, heavy_atoms
from misi_tasks.engine.provenance import save_provenance
from misi_tasks.engine.shards import complex_letters
from misi_tasks.tasks import GenContext, TaskSkipped, get_task
from misi_tasks.tasks.decoys import warm_up_ssim
from misi_tasks.tasks.scene import Scene

if TYPE_CHECKING:
    from misi_tasks.engine.config import GenerateConfig

__all__ = ["THIS_PROCESS", "Worker", "check_complex", "generate_items", "init_worker", "process_group",
           "warm_up_once"]


class Worker:
    """The state of one worker: the scenes and complexes it loaded last and whether its kernels are
    loaded.

    ``keep`` is how many scenes it holds (a complex and the partners T5 draws for it); a scene holds
    its renders, so they are few.  ``keep_compact`` is how many more it keeps compacted (their
    encoded base views as PNG bytes, :meth:`Scene.compact`) after they leave those few.
    ``keep_loaded`` is how many loaded complexes it holds besides (arrays, no images): the
    complexes a worker checked, then generated and drew as T5 partners, are read from their files
    once instead of once per scene.
    """

    def __init__(self, keep: int = 5, keep_loaded: int = 24, keep_compact: int = 24) -> None:
        #: (complex source, render options) -> Scene, oldest first
        self.scenes: dict[tuple, Scene] = {}
        self.keep = keep
        #: the scenes that left :attr:`scenes`, compacted (:meth:`Scene.compact`), least recently used first
        self.compact_scenes: dict[tuple, Scene] = {}
        self.keep_compact = keep_compact
        #: complex source -> its LoadedComplex, least recently used first
        self.loaded: dict[Any, Any] = {}
        self.keep_loaded = keep_loaded
        #: this worker has loaded (or compiled) the render kernels
        self.warm = False

    def load_complex(self, source: Any) -> Any:
        """``source.load()`` (a :class:`misi_geom.inputs.LoadedComplex`), or the one this worker
        loaded from ``source`` before.  Loading is pure (geometry never changes a complex in
        place), so a complex loaded once serves every scene made from it."""
        loaded = self.loaded.pop(source, None)
        if loaded is None:
            loaded = source.load()
            if len(self.loaded) >= self.keep_loaded:
                self.loaded.pop(next(iter(self.loaded)))
        self.loaded[source] = loaded  # most recently used last
        return loaded

    def scene_loader(self, dirs: dict[str, Any], options: RenderOptions) -> Callable[[str], Scene]:
        """complex id -> its :class:`Scene` drawn with ``options``, loaded from ``dirs`` (sources of
        :mod:`misi_geom.inputs`) or taken from this worker's last few scenes."""
        def load(cid: str) -> Scene:
            key = (dirs[cid], options)
            if key not in self.scenes:
                if len(self.scenes) >= self.keep:
                    oldest = next(iter(self.scenes))
                    self._keep_compact(oldest, self.scenes.pop(oldest))
                scene = self.compact_scenes.pop(key, None)
                if scene is None:
                    loaded = self.load_complex(dirs[cid])
                    scene = Scene(loaded.complex, options, provenance=loaded.provenance)
                self.scenes[key] = scene
            return self.scenes[key]

        return load

    def _keep_compact(self, key: tuple, scene: Scene) -> None:
        """Keep a scene that leaves :attr:`scenes` in :attr:`compact_scenes`, compacted.

        A T5 partner is drawn for one complex and often again later (as another complex's partner,
        or as a complex of a later group): its scene comes back with the base views it drew and
        encoded (7 % of a run's renders were such repeats on the dev set), its H-bonds and frames,
        instead of drawing them again.  Scenes give the same results however they were kept."""
        scene.compact()
        self.compact_scenes[key] = scene
        if len(self.compact_scenes) > self.keep_compact:
            self.compact_scenes.pop(next(iter(self.compact_scenes)))

    def warm_up(self, block: bool = True) -> bool:
        """Load the kernels once for this worker (see :func:`warm_up_once`)."""
        if not self.warm:
            self.warm = _warm_up(block)
        return self.warm

    def check_complex(self, args: tuple) -> tuple[str, str | None, tuple[int, int] | None]:
        """Load one complex: (id, None, (pocket, ligand) heavy atoms for the card's figure) or
        (id, one-line reason it cannot be used, None)."""
        cid, source, options = args
        try:
            scene = self.scene_loader({cid: source}, options)(cid)
        except OSError:
            raise  # a full disk or a vanished input folder stops the run (and it resumes)
        except Exception as exc:  # noqa: BLE001 - any failure of one complex is that complex's alone
            return cid, _one_line(exc, _where(source)), None
        return cid, None, heavy_atoms(scene.source)

    def process_group(self, args: tuple) -> dict[str, Any]:
        """Generate one group of complexes (:class:`~misi_tasks.engine.shards.Group`) and write its
        shards, one per task, each image once; returns the group's report (a small JSON-able dict).

        ``args`` is ``(cfg, group, complexes, dirs, partner ids, base)``: ``complexes`` are the group's
        complexes that loaded, ``base`` the folder whose ``data/`` receives the shards (``OUT``, or the
        work folder for ``--tiny``).  The shards appear together at the end (each atomically); a complex
        that fails is left out and reported (``failed``), the others' rows still land.  The report:
        ``{"group", "shards", "failed": {id: why}, "skips": {task: ["id: why"]}, "items": {task: n},
        "images": {task: n}, "examples": {item id: [png bytes or b"", ...]}}``.

        An optional seventh element, ``{task: complex id}``, names the complexes whose first item of a
        task the card's contact sheet is expected to show (:func:`~misi_tasks.engine.card_figures.example_complexes`):
        ``examples`` then holds that item's shown image (:func:`~misi_tasks.engine.card_figures.example_image_index`;
        the other images ``b""``), so the driver does not read it back from the shards.  It is not
        JSON (the driver takes it out of the report).
        """
        cfg, group, complexes, dirs, partner_ids, base = args[:6]
        wanted: dict[str, str] = args[6] if len(args) > 6 else {}
        self.warm_up()
        mc = set(mc_tasks())
        report: dict[str, Any] = {"group": group.key, "failed": {}, "skips": {t: [] for t in cfg.tasks},
                                  "items": dict.fromkeys(cfg.tasks, 0), "images": dict.fromkeys(cfg.tasks, 0),
                                  "shards": [group.shard(Path(), t).as_posix() for t in cfg.tasks], "examples": {}}
        writers: dict[str, ShardWriter] = {}
        try:
            for task in cfg.tasks:
                writers[task] = ShardWriter(group.shard(base, task))
            load = self.scene_loader(dirs, cfg.options)
            for cid in complexes:
                try:
                    scene = load(cid)
                    save_provenance(cfg.out_dir, cid, scene.provenance)
                except OSError:
                    raise  # a full disk or a vanished input folder stops the run (and it resumes)
                except Exception as exc:  # noqa: BLE001 - any failure of one complex is that complex's alone
                    report["failed"][cid] = _one_line(exc, _where(dirs[cid]))
                    continue
                ctx = GenContext(seed=cfg.seed, split=group.split, options=cfg.options,
                                 partner_ids=tuple(i for i in partner_ids if i != cid), partner=load)
                for task in cfg.tasks:
                    items, why = _task_items(cfg, task, scene, ctx, dirs[cid])
                    if why:
                        report["skips"][task].append(f"{cid}: {why}")
                    if not items:
                        continue
                    letters = complex_letters(len(items), cfg.seed, task, group.split, cid) if task in mc else None
                    rows = ((item.assign_letter(letters[k]) if letters else item).to_row() for k, item in enumerate(items))
                    writers[task].write(_noting_example(rows, report["examples"]) if wanted.get(task) == cid else rows)
                    report["items"][task] += len(items)
                    report["images"][task] += sum(len(i.images) + len(i.option_images) for i in items)
                    del items
            for task in cfg.tasks:
                writers.pop(task).close()
        finally:
            for writer in writers.values():  # an error before every shard was closed: none is left half-made
                writer.discard()
        return report


#: This process's worker (see the module docstring: the backends call job functions by name).
THIS_PROCESS = Worker()


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


def warm_up_once(block: bool = True) -> bool:
    """Load the numba kernels (render, decoy check) for this process's worker, compiling them only
    if no other process is doing so.

    Kernels are compiled under an exclusive lock (:func:`_compile_lock_path`), so on a cold cache
    the first worker compiles them and writes numba's cache while the others wait and then load
    the cache, instead of every worker compiling the same kernels at once.  With ``block=False`` a
    worker that finds the lock taken returns False at once (it can load complexes meanwhile) and
    warms up later with ``block=True``.  Returns True once the kernels are loaded in this process.
    """
    return THIS_PROCESS.warm_up(block)


def _warm_up(block: bool) -> bool:
    """Load the kernels under the compile lock; False if ``block`` is False and the lock is taken."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: no lock
        _load_kernels()
        return True
    path = _compile_lock_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o666)
    except OSError:  # no place for a lock: every worker compiles for itself, as numba would
        _load_kernels()
        return True
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | (0 if block else fcntl.LOCK_NB))
        except BlockingIOError:
            return False
        _load_kernels()
        return True
    finally:
        os.close(fd)  # releases the lock


def init_worker() -> None:
    """Set-up of a worker process (the backends' ``setup``): load the render kernels once per worker (numba cache) before the first complex, unless
    another worker is compiling them (then this one loads complexes and warms up before its first
    complex, see :func:`warm_up_once`).  Ctrl-C is left to the parent (one line, no traceback
    per worker).  A local pool that forks its workers loads the kernels in the driver first
    (``init_worker.before_fork``), so they start with them loaded."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    warm_up_once(block=False)
    _quiet_gc()
    become_image_maker()


def become_image_maker() -> None:
    """The settings of a process that makes images, set once at its start (a worker; ``misi-gen``
    itself when it makes the images in-process): reuse the per-image buffers, in 4 kB pages
    (:func:`~misi_tasks.engine._malloc.image_maker_memory`), and one BLAS thread
    (:func:`~misi_tasks.engine._threads.one_blas_thread`)."""
    image_maker_memory()
    one_blas_thread()


def _before_fork() -> None:
    """Load the kernels in the driver when the local backend forks its workers
    (:mod:`misi_tasks.engine.backends.local`): they inherit them, instead of each loading them (~1 s
    of CPU).  The readers every first complex imports (gemmi, RDKit) come along the same way."""
    warm_up_once(block=True)
    import gemmi  # noqa: F401  (misi_geom.io imports these when it reads a structure)
    import misi_geom.symmetry  # noqa: F401
    from rdkit import Chem, RDLogger  # noqa: F401


init_worker.before_fork = _before_fork  # type: ignore[attr-defined]


def _quiet_gc() -> None:
    """Take the worker's start-up objects (modules, numba, RDKit, pyarrow) out of the garbage
    collector's sight and let it run less often: a worker makes many short-lived containers per
    image, and the collector's passes over the imported heap cost about 3 % of a worker's CPU
    (perf: gc_collect_main and its visitors 6.7 % -> 3.7 % of samples).  Nothing a worker makes
    depends on when the collector runs."""
    gc.freeze()
    gc.set_threshold(10_000, 10, 10)


def _noting_example(rows: Iterable[dict[str, Any]], examples: dict[str, list[bytes]]) -> Iterator[dict[str, Any]]:
    """Pass ``rows`` on; once they are all through, put into ``examples`` the first row's (by id)
    image that the card's contact sheet shows, under the row's id (its other images ``b""``)."""
    first: tuple[str, list[bytes]] | None = None
    for row in rows:
        k = example_image_index(row["image_roles"])
        if (first is None or row["id"] < first[0]) and k < len(row["images"]):  # else check_row says why
            images = [b""] * len(row["images"])
            shown = row["images"][k]
            images[k] = shown["bytes"] if isinstance(shown, dict) else shown
            first = (row["id"], images)
        yield row
    if first is not None:
        examples[first[0]] = first[1]


def _one_line(exc: BaseException, where: Path | str) -> str:
    """An exception as one line: a MisiInputError as it is, anything else with its type and place."""
    if isinstance(exc, MisiInputError):
        return str(exc)
    text = " ".join(str(exc).split())
    return printable(f"{where}: unexpected {type(exc).__name__}{': ' + text if text else ''}")


def _where(source: Any) -> Path | str:
    """The place a complex is read from, for messages: its folder, else its id."""
    return getattr(source, "path", None) or getattr(source, "id", source)


def check_complex(args: tuple) -> tuple[str, str | None, tuple[int, int] | None]:
    """Job function: :meth:`Worker.check_complex` of this process's worker."""
    return THIS_PROCESS.check_complex(args)


def process_group(args: tuple) -> dict[str, Any]:
    """Job function: :meth:`Worker.process_group` of this process's worker."""
    return THIS_PROCESS.process_group(args)


def _task_items(cfg: "GenerateConfig", task: str, scene: Scene, ctx: GenContext,
                where: Any) -> tuple[list[Item], str | None]:
    """One task's items for one complex and why it made none (``None`` if it made some or none
    was asked for); a failure of the task is this task's alone."""
    gen = get_task(task)(**cfg.task_params.get(task, {}))
    try:
        return gen.generate(scene, ctx), None
    except TaskSkipped as exc:
        return [], str(exc)
    except OSError:
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a T5 partner that fails: this task only
        return [], _one_line(exc, where)


def generate_items(scene, tasks: Iterable[str], *, seed: int = 0, split: str = "test",
                   partners: dict | None = None, keep_renders: bool = True,
                   skipped_empty: bool = False) -> dict[str, list[Item]]:
    """Generate items for one in-memory :class:`~misi_tasks.tasks.scene.Scene` (for tests and notebooks).

    ``partners`` maps complex ids to scenes that T5 may use as its second complex.  MC items are
    returned in canonical order (correct option first, before letter assignment).  A task with
    nothing to ask about the scene (e.g. ring-stacking without a stack) raises
    :class:`~misi_tasks.tasks.base.TaskSkipped`, or gives an empty list with ``skipped_empty=True``.
    """
    partners = partners or {}
    ctx = GenContext(seed=seed, split=split, options=scene.run_options, partner_ids=tuple(sorted(partners)),
                     partner=partners.__getitem__, keep_renders=keep_renders)
    out: dict[str, list[Item]] = {}
    for t in tasks:
        try:
            out[t] = get_task(t)().generate(scene, ctx)
        except TaskSkipped:
            if not skipped_empty:
                raise
            out[t] = []
    return out
