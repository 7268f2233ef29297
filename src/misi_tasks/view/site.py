"""Build the static gallery of a misi dataset (``misi-view``).

Reads the dataset's text columns for every item, picks ``per_task`` items per task with the seed,
reads only those items' images, writes their JPEG thumbnails (each once, in parallel threads: Pillow
decodes and encodes without the GIL; plus one key thumbnail per item, cropped to the ligand) and the
pages. With predictions (one or several models, read and named as ``misi-eval`` reads and names
them), every item that has one is scored with the scorer's own :func:`misi_tasks.eval.score.score_item`,
so the gallery shows the same parsed answers and scores as ``misi-eval``; ``items.html`` lists every
shown item with filters. With the complexes' files (``structures``), every item page gets a 3-D view
drawn by the vendored 3Dmol.js.

The output folder is marked with ``.misi-view.json``; a folder that holds anything else is refused,
so a user's files are never overwritten or mixed. Rebuilding a marked folder rewrites the pages,
keeps the thumbnails it still needs and removes the ones it no longer does.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from concurrent.futures import Future, ThreadPoolExecutor
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from misi_tasks.dataset import DatasetError, read_items
from misi_tasks.eval.sources import load_models
from misi_tasks.definitions.registry import task_names
from misi_tasks.eval.report import summarize
from misi_tasks.eval.score import score_item
from misi_tasks._atomic import atomic_write_bytes
from misi_tasks.view.pages import (
    ItemView,
    Prediction,
    TaskView,
    index_page,
    item_page,
    items_page,
    models_table,
    task_page,
)
from misi_tasks.view.structures import bundled_structures, write_structures
from misi_tasks.view.rows import choose_items, iter_images, row_groups
from misi_tasks.view.thumbs import Thumb, key_thumb_name, thumb_names, write_key_thumb, write_thumbs

__all__ = ["MARKER", "SiteSummary", "build_site"]

#: Marker file of a folder written by misi-view.
MARKER = ".misi-view.json"


@dataclass(frozen=True)
class SiteSummary:
    """What a build wrote, and how long it took."""

    out_dir: Path
    items_total: int
    items_shown: int
    images: int
    images_written: int
    pages: int
    seconds: float

    def format(self) -> str:
        return (f"{self.items_shown} of {self.items_total} items shown; {self.images} images "
                f"({self.images_written} converted, {self.images - self.images_written} already there); "
                f"{self.pages} pages in {self.seconds:.1f} s -> {self.out_dir / 'index.html'}")


def _check_out_dir(out: Path) -> None:
    if out.exists() and not out.is_dir():
        raise DatasetError(f"{out}: exists and is not a folder")
    if out.is_dir() and any(out.iterdir()) and not (out / MARKER).is_file():
        raise DatasetError(f"{out}: folder is not empty and was not written by misi-view; choose another --out")


def _prune(out: Path, keep: set[Path]) -> None:
    """Remove pages and thumbnails of an earlier build that this build did not write."""
    folders = [out, out / "img", out / "structures", *(out / t for t in task_names())]
    for folder in folders:
        if folder.is_dir():
            for f in folder.iterdir():
                if f.is_file() and f.suffix in (".html", ".jpg", ".js") and f not in keep:
                    f.unlink()


def _score(by_id: dict[str, dict], groups: list[list[Path]], names: list[str],
           pick: str) -> tuple[dict[str, dict[str, Prediction]], str]:
    """Score every model's replies with the scorer's own ``score_item``; return
    ``{model: {id: Prediction}}`` and the index's score table."""
    preds: dict[str, dict[str, Prediction]] = {}
    tables = []
    for model in load_models(groups, names, set(by_id)):
        scores = []
        preds[model.name] = {}
        for item_id, reply in model.replies.items():
            s = score_item(by_id[item_id], reply, pick=pick)  # type: ignore[arg-type]
            scores.append(s)
            preds[model.name][item_id] = Prediction(reply, s.parsed, s.score, s.exact, s.status)
        rep = summarize(scores)
        tables.append((model.name, [(c, st.items, st.score_pct, st.exact_pct) for c, st in rep.columns.items()]))
    return preds, models_table(tables)


def key_role(roles: list[str]) -> int:
    """Index of an item's key image: the last plain view named ``... front`` (T1-T4, T8, T9: front;
    T5/T6: the asked complex; T7: pocket and ligand), else the first image.

    >>> key_role(["pocket front", "ligand front", "ligand top", "pocket and ligand front"])
    3
    """
    fronts = [k for k, r in enumerate(roles) if r.endswith("front") and not r.startswith("option ")]
    return fronts[-1] if fronts else 0


def _convert_images(dataset: Path, shards: list[Path], wanted: set[str], img_dir: Path, workers: int,
                    key_of: dict[str, int]) -> tuple[dict[str, list[Thumb]], dict[str, str], int]:
    """Thumbnails of every image of the ``wanted`` items: ``{id: [Thumb, ...]}``, each item's key
    thumbnail (of image ``key_of[id]``) and how many images were new.

    Conversions run in threads while the next row groups are read (Pillow and Arrow release the GIL);
    an image shared by several items (same bytes, same name) is converted by one task only.
    """
    img_dir.mkdir(parents=True, exist_ok=True)

    def convert(item_id: str, k: int, png: bytes) -> Thumb:
        try:
            return write_thumbs(png, img_dir)
        except ValueError as exc:
            raise DatasetError(f"{dataset}: item {item_id} image {k + 1}: {exc}") from None

    def convert_key(item_id: str, k: int, png: bytes) -> tuple[str, bool]:
        try:
            return write_key_thumb(png, img_dir)
        except ValueError as exc:
            raise DatasetError(f"{dataset}: item {item_id} image {k + 1}: {exc}") from None

    futures: dict[str, list[Future]] = {}
    by_name: dict[str, Future] = {}
    keys: dict[str, Future] = {}
    key_names: dict[str, str] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for item_id, pngs in iter_images(shards, wanted):
            futures[item_id] = []
            for k, png in enumerate(pngs):
                name = thumb_names(png)[1]
                if name not in by_name:
                    by_name[name] = pool.submit(convert, item_id, k, png)
                futures[item_id].append(by_name[name])
            k = min(key_of.get(item_id, 0), len(pngs) - 1)
            if k >= 0:
                key_names[item_id] = key_thumb_name(pngs[k])
                if key_names[item_id] not in keys:
                    keys[key_names[item_id]] = pool.submit(convert_key, item_id, k, pngs[k])
        thumbs = {i: [f.result() for f in fs] for i, fs in futures.items()}
        for f in keys.values():
            f.result()
    return thumbs, key_names, sum(f.result().written for f in by_name.values())


def _task_views(rows: list[dict], chosen: dict[str, list[str]], thumbs: dict[str, list[Thumb]],
                preds: dict[str, dict[str, Prediction]] | None, keys: dict[str, str],
                structures: dict[str, str]) -> list[TaskView]:
    """One :class:`TaskView` per task: counts per split, the shown items and (with predictions) the
    first model's mean score."""
    by_id = {r["id"]: r for r in rows}
    counts: dict[str, Counter] = {}
    scored: dict[str, list[float]] = {}
    first = next(iter(preds.values())) if preds else None
    for r in rows:
        counts.setdefault(r["task"], Counter())[r["split"]] += 1
        if first is not None and r["id"] in first:
            scored.setdefault(r["task"], []).append(first[r["id"]].score)
    missing = Prediction(None, None, 0.0, False, "missing")
    views = []
    for task, ids in chosen.items():
        tv = TaskView(task, dict(counts[task]))
        for i in ids:
            th = thumbs.get(i, [])
            item_preds = {m: p.get(i, missing) for m, p in (preds or {}).items()}
            tv.items.append(ItemView(by_id[i], [t.small for t in th], [t.medium for t in th], item_preds,
                                     key=keys.get(i), structure=structures.get(by_id[i]["complex_id"])))
        if preds is not None:
            vals = scored.get(task, [])
            tv.scored, tv.mean_score = len(vals), (sum(vals) / len(vals) if vals else None)
        views.append(tv)
    return views


def _groups(predictions) -> list[list[Path]]:
    """The models of ``predictions`` as lists of paths (see :func:`build_site`)."""
    if predictions is None:
        return []
    if isinstance(predictions, (str, os.PathLike)):
        return [[Path(predictions)]]
    return [[Path(g)] if isinstance(g, (str, os.PathLike)) else [Path(p) for p in g] for g in predictions]


def _default_structures(complexes: set[str]) -> Path | None:
    """The bundled samples' folder when every shown complex is one of them, else None."""
    root = bundled_structures()
    return root if root is not None and all((root / c).is_dir() for c in complexes) else None


def build_site(
    dataset: str | os.PathLike,
    out: str | os.PathLike,
    *,
    per_task: int = 20,
    predictions: str | os.PathLike | Sequence[str | os.PathLike | Sequence[str | os.PathLike]] | None = None,
    seed: int = 0,
    workers: int | None = None,
    pick: str = "last",
    names: Sequence[str] = (),
    structures: str | os.PathLike | None = None,
) -> SiteSummary:
    """Write the gallery of ``dataset`` into ``out`` and return what was written.

    Parameters
    ----------
    dataset : path-like
        A misi dataset folder (holding ``data/``).
    out : path-like
        Site folder: new, empty, or an earlier misi-view site.
    per_task : int
        Items shown per task (drawn with ``seed``; all when a task has fewer).
    predictions : path-like or sequence, optional
        What ``misi-eval --predictions`` reads: a file or results folder (one model), or a sequence
        of them (one model each; an inner sequence is one model's files). Pages then show each
        model's reply, parsed answer and score.
    names : sequence of str
        Names of the models, in order (default: the model each one records, as ``misi-eval``).
    structures : path-like, optional
        PDBbind-layout folder of the complexes, for the item pages' 3-D views (default: the bundled
        samples when the dataset's complexes are theirs; else no 3-D view).
    workers : int, optional
        Threads converting images (default: the number of cores).
    pick : {"last", "first"}
        Which complete answer of a reply to score, as ``misi-eval --pick``.

    Raises
    ------
    DatasetError, PredictionsError, ValueError
        On a bad dataset, predictions file, image or output folder (one-line messages).
    """
    t0 = time.perf_counter()
    dataset, out = Path(dataset), Path(out)
    _check_out_dir(out)
    rows = read_items(dataset, images=False)
    if not rows:
        raise DatasetError(f"{dataset}: the dataset has no items")
    notes = [f"dataset {dataset.resolve().name}: {len(rows)} items, {per_task} per task shown (seed {seed})"]
    preds, report_html = None, ""
    groups = _groups(predictions)
    if groups:
        preds, report_html = _score({r["id"]: r for r in rows}, groups, list(names), pick)
        for model, p in preds.items():
            notes.append(f"model {model}: {len(p)} replies scored with misi-eval's scorer")
    # the marker first: an interrupted build leaves a folder that the next build may reuse
    marker = dict(tool="misi-view", dataset=str(dataset.resolve()), per_task=per_task, seed=seed,
                  predictions=[[str(Path(p).resolve()) for p in g] for g in groups] or None)
    atomic_write_bytes(out / MARKER, (json.dumps(marker, indent=2) + "\n").encode(), fsync=False)

    chosen = choose_items(rows, per_task, seed, group_of=row_groups(sorted((dataset / "data").glob("*/*.parquet"))))
    wanted = {i for ids in chosen.values() for i in ids}
    shards = sorted(p for t in chosen for p in (dataset / "data" / t).glob("*.parquet"))
    by_id = {r["id"]: r for r in rows}
    key_of = {i: key_role(list(by_id[i]["image_roles"])) for i in wanted}
    thumbs, keys, converted = _convert_images(dataset, shards, wanted, out / "img", workers or os.cpu_count() or 1,
                                              key_of)
    complexes = {by_id[i]["complex_id"] for i in wanted}
    root = Path(structures) if structures is not None else _default_structures(complexes)
    if structures is not None and not root.is_dir():
        raise DatasetError(f"{root}: --structures is not a folder")
    scripts = write_structures(root, complexes, out) if root is not None else {}
    views = _task_views(rows, chosen, thumbs, preds, keys, scripts)

    title = f"misi gallery: {dataset.resolve().name}"
    written: set[Path] = set()

    def emit(path: Path, text: str) -> None:
        atomic_write_bytes(path, text.encode("utf-8"), fsync=False)
        written.add(path)

    package = resources.files("misi_tasks.view")
    for name in ("style.css", "filter.js", "view3d.js"):
        atomic_write_bytes(out / name, package.joinpath(name).read_bytes(), fsync=False)
    scripts_kept = {out / "filter.js", out / "view3d.js", *(out / rel for rel in scripts.values())}
    if scripts:
        for name in ("3Dmol-min.js", "3Dmol-min.js.LICENSE.txt", "3Dmol-LICENSE.txt", "PROVENANCE.md"):
            atomic_write_bytes(out / "vendor" / name, package.joinpath("vendor", name).read_bytes(), fsync=False)
    for tv in views:
        emit(out / tv.task / "index.html", task_page(tv, title))
        for k, iv in enumerate(tv.items):
            prev_page = tv.items[k - 1].page if k else None
            next_page = tv.items[k + 1].page if k + 1 < len(tv.items) else None
            emit(out / tv.task / iv.page, item_page(iv, title, prev_page, next_page))
    emit(out / "index.html", index_page(title, views, notes, report_html))
    emit(out / "items.html", items_page(views, list(preds or {}), title))
    all_thumbs = [th for ths in thumbs.values() for th in ths]
    _prune(out, written | scripts_kept | {out / "img" / n for th in all_thumbs for n in (th.small, th.medium)}
           | {out / "img" / k for k in keys.values()})
    return SiteSummary(out, len(rows), len(wanted), len(all_thumbs), converted, len(written),
                       time.perf_counter() - t0)
