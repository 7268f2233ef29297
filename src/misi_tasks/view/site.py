"""Build the static gallery of a misi dataset (``misi-view``).

Reads the dataset's text columns for every item, picks ``per_task`` items per task with the seed,
reads only those items' images, writes their JPEG thumbnails (each once, in parallel threads: Pillow
decodes and encodes without the GIL) and the pages. With predictions, every item that has one is
scored with the scorer's own :func:`misi_tasks.eval.score.score_item`, so the gallery shows the same
parsed answers and scores as ``misi-eval``.

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
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from misi_tasks.dataset import DatasetError, read_items
from misi_tasks.eval.prediction_formats import load_predictions
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
    report_table,
    task_page,
)
from misi_tasks.view.rows import choose_items, iter_images, row_groups
from misi_tasks.view.thumbs import Thumb, thumb_names, write_thumbs

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
    folders = [out / "img", *(out / t for t in task_names())]
    for folder in folders:
        if folder.is_dir():
            for f in folder.iterdir():
                if f.is_file() and f.suffix in (".html", ".jpg") and f not in keep:
                    f.unlink()


def _score(by_id: dict[str, dict], predictions: Path, pick: str) -> tuple[dict[str, Prediction], str]:
    """Score every reply with the scorer's own ``score_item``; return them and the index's score table."""
    replies = load_predictions(predictions, set(by_id))
    preds: dict[str, Prediction] = {}
    scores = []
    for item_id, reply in replies.items():
        s = score_item(by_id[item_id], reply, pick=pick)  # type: ignore[arg-type]
        scores.append(s)
        preds[item_id] = Prediction(reply, s.parsed, s.score, s.exact, s.status)
    rep = summarize(scores)
    return preds, report_table([(c, st.items, st.score_pct, st.exact_pct) for c, st in rep.columns.items()])


def _convert_images(dataset: Path, shards: list[Path], wanted: set[str], img_dir: Path,
                    workers: int) -> tuple[dict[str, list[Thumb]], int]:
    """Thumbnails of every image of the ``wanted`` items: ``{id: [Thumb, ...]}`` and how many were new.

    Conversions run in threads while the next row groups are read (Pillow and Arrow release the GIL);
    an image shared by several items (same bytes, same name) is converted by one task only.
    """
    img_dir.mkdir(parents=True, exist_ok=True)

    def convert(item_id: str, k: int, png: bytes) -> Thumb:
        try:
            return write_thumbs(png, img_dir)
        except ValueError as exc:
            raise DatasetError(f"{dataset}: item {item_id} image {k + 1}: {exc}") from None

    futures: dict[str, list[Future]] = {}
    by_name: dict[str, Future] = {}
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for item_id, pngs in iter_images(shards, wanted):
            futures[item_id] = []
            for k, png in enumerate(pngs):
                name = thumb_names(png)[1]
                if name not in by_name:
                    by_name[name] = pool.submit(convert, item_id, k, png)
                futures[item_id].append(by_name[name])
        thumbs = {i: [f.result() for f in fs] for i, fs in futures.items()}
    return thumbs, sum(f.result().written for f in by_name.values())


def _task_views(rows: list[dict], chosen: dict[str, list[str]], thumbs: dict[str, list[Thumb]],
                preds: dict[str, Prediction] | None) -> list[TaskView]:
    """One :class:`TaskView` per task: counts per split, the shown items and (with predictions) scores."""
    by_id = {r["id"]: r for r in rows}
    counts: dict[str, Counter] = {}
    scored: dict[str, list[float]] = {}
    for r in rows:
        counts.setdefault(r["task"], Counter())[r["split"]] += 1
        if preds is not None and r["id"] in preds:
            scored.setdefault(r["task"], []).append(preds[r["id"]].score)
    missing = Prediction(None, None, 0.0, False, "missing")
    views = []
    for task, ids in chosen.items():
        tv = TaskView(task, dict(counts[task]))
        for i in ids:
            th = thumbs.get(i, [])
            pred = preds.get(i, missing) if preds is not None else None
            tv.items.append(ItemView(by_id[i], [t.small for t in th], [t.medium for t in th], pred))
        if preds is not None:
            vals = scored.get(task, [])
            tv.scored, tv.mean_score = len(vals), (sum(vals) / len(vals) if vals else None)
        views.append(tv)
    return views


def build_site(
    dataset: str | os.PathLike,
    out: str | os.PathLike,
    *,
    per_task: int = 20,
    predictions: str | os.PathLike | None = None,
    seed: int = 0,
    workers: int | None = None,
    pick: str = "last",
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
    predictions : path-like, optional
        A ``misi-eval`` JSONL predictions file: item pages then show the reply, parsed answer and score.
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
    if predictions is not None:
        preds, report_html = _score({r["id"]: r for r in rows}, Path(predictions), pick)
        notes.append(f"predictions {Path(predictions).name}: {len(preds)} replies scored with misi-eval's scorer")
    # the marker first: an interrupted build leaves a folder that the next build may reuse
    marker = dict(tool="misi-view", dataset=str(dataset.resolve()), per_task=per_task, seed=seed,
                  predictions=str(Path(predictions).resolve()) if predictions is not None else None)
    atomic_write_bytes(out / MARKER, (json.dumps(marker, indent=2) + "\n").encode(), fsync=False)

    chosen = choose_items(rows, per_task, seed, group_of=row_groups(sorted((dataset / "data").glob("*/*.parquet"))))
    wanted = {i for ids in chosen.values() for i in ids}
    shards = sorted(p for t in chosen for p in (dataset / "data" / t).glob("*.parquet"))
    thumbs, converted = _convert_images(dataset, shards, wanted, out / "img", workers or os.cpu_count() or 1)
    views = _task_views(rows, chosen, thumbs, preds)

    title = f"misi gallery: {dataset.resolve().name}"
    written: set[Path] = set()

    def emit(path: Path, text: str) -> None:
        atomic_write_bytes(path, text.encode("utf-8"), fsync=False)
        written.add(path)

    css = resources.files("misi_tasks.view").joinpath("style.css").read_bytes()
    atomic_write_bytes(out / "style.css", css, fsync=False)
    for tv in views:
        emit(out / tv.task / "index.html", task_page(tv, title))
        for k, iv in enumerate(tv.items):
            prev_page = tv.items[k - 1].page if k else None
            next_page = tv.items[k + 1].page if k + 1 < len(tv.items) else None
            emit(out / tv.task / iv.page, item_page(iv, title, prev_page, next_page))
    emit(out / "index.html", index_page(title, views, notes, report_html))
    all_thumbs = [th for ths in thumbs.values() for th in ths]
    _prune(out, written | {out / "img" / n for th in all_thumbs for n in (th.small, th.medium)})
    return SiteSummary(out, len(rows), len(wanted), len(all_thumbs), converted, len(written),
                       time.perf_counter() - t0)
