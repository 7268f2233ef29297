"""Build the static gallery of a misi dataset (``misi-view``).

Reads the dataset's text columns for every item, picks ``per_task`` items per task with the seed,
reads only those items' images, writes their JPEG thumbnails (each once, in parallel threads: Pillow
decodes and encodes without the GIL) and the pages. With predictions, every item that has one is
scored with the scorer's own :func:`misi_tasks.scoring.score_item`, so the gallery shows the same
parsed answers and scores as ``misi-eval``.

The output folder is marked with ``.misi-view.json``; a folder that holds anything else is refused,
so a user's files are never overwritten or mixed. Rebuilding a marked folder rewrites the pages,
keeps the thumbnails it still needs and removes the ones it no longer does.
"""

from __future__ import annotations

import json
import os
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from misi_tasks.dataset import DatasetError, read_items
from misi_tasks.eval_cli import read_predictions
from misi_tasks.names import TASK_NAMES
from misi_tasks.report import summarize
from misi_tasks.scoring import score_item
from misi_tasks.view._files import write_atomic
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
from misi_tasks.view.thumbs import thumb_names, write_thumbs

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
    folders = [out / "img", *(out / t for t in TASK_NAMES)]
    for folder in folders:
        if folder.is_dir():
            for f in folder.iterdir():
                if f.is_file() and f.suffix in (".html", ".jpg") and f not in keep:
                    f.unlink()


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
    by_id = {r["id"]: r for r in rows}
    preds: dict[str, Prediction] = {}
    report_html, notes = "", [f"dataset {dataset.resolve().name}: {len(rows)} items, "
                             f"{per_task} per task shown (seed {seed})"]
    if predictions is not None:
        replies = read_predictions(predictions, set(by_id))
        scores = []
        for item_id, reply in replies.items():
            s = score_item(by_id[item_id], reply, pick=pick)  # type: ignore[arg-type]
            scores.append(s)
            preds[item_id] = Prediction(reply, s.parsed, s.score, s.exact, s.status)
        rep = summarize(scores)
        report_html = report_table([(c, st.items, st.score_pct, st.exact_pct) for c, st in rep.columns.items()])
        notes.append(f"predictions {Path(predictions).name}: {len(replies)} replies scored with misi-eval's scorer")
    shards = sorted((dataset / "data").glob("*/*.parquet"))
    chosen = choose_items(rows, per_task, seed, group_of=row_groups(shards))
    wanted = {i for ids in chosen.values() for i in ids}
    shards = sorted(p for t in chosen for p in (dataset / "data" / t).glob("*.parquet"))
    img_dir = out / "img"
    img_dir.mkdir(parents=True, exist_ok=True)

    def convert(item_id: str, k: int, png: bytes):
        try:
            return write_thumbs(png, img_dir)
        except ValueError as exc:
            raise DatasetError(f"{dataset}: item {item_id} image {k + 1}: {exc}") from None

    # conversions run in threads while the next row groups are read (Pillow and Arrow release the GIL)
    # an image shared by several items (same bytes, same name) is converted by one task only
    futures: dict[str, list] = {}
    by_name: dict[str, Any] = {}
    with ThreadPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        for item_id, pngs in iter_images(shards, wanted):
            futures[item_id] = [by_name.get(thumb_names(png)[1]) or by_name.setdefault(
                thumb_names(png)[1], pool.submit(convert, item_id, k, png)) for k, png in enumerate(pngs)]
        done = {i: [f.result() for f in fs] for i, fs in futures.items()}
    thumbs = [th for i in sorted(done) for th in done[i]]
    converted = sum(f.result().written for f in by_name.values())
    small = {i: [th.small for th in ths] for i, ths in done.items()}
    medium = {i: [th.medium for th in ths] for i, ths in done.items()}

    counts: dict[str, dict[str, int]] = {}
    scored: dict[str, list[float]] = {}
    for r in rows:
        counts.setdefault(r["task"], {}).setdefault(r["split"], 0)
        counts[r["task"]][r["split"]] += 1
        if r["id"] in preds:
            scored.setdefault(r["task"], []).append(preds[r["id"]].score)
    title = f"misi gallery: {dataset.resolve().name}"
    missing = Prediction(None, None, 0.0, False, "missing")
    views = []
    for task, ids in chosen.items():
        tv = TaskView(task, counts[task])
        for i in ids:
            pred = preds.get(i, missing) if predictions is not None else None
            tv.items.append(ItemView(by_id[i], small.get(i, []), medium.get(i, []), pred))
        if predictions is not None:
            vals = scored.get(task, [])
            tv.scored, tv.mean_score = len(vals), (sum(vals) / len(vals) if vals else None)
        views.append(tv)

    written: set[Path] = set()

    def emit(path: Path, text: str) -> None:
        write_atomic(path, text.encode("utf-8"))
        written.add(path)

    css = resources.files("misi_tasks.view").joinpath("style.css").read_bytes()
    write_atomic(out / "style.css", css)
    for tv in views:
        emit(out / tv.task / "index.html", task_page(tv, title))
        for k, iv in enumerate(tv.items):
            prev_page = tv.items[k - 1].page if k else None
            next_page = tv.items[k + 1].page if k + 1 < len(tv.items) else None
            emit(out / tv.task / iv.page, item_page(iv, title, prev_page, next_page))
    emit(out / "index.html", index_page(title, views, notes, report_html))
    keep = written | {img_dir / n for th in thumbs for n in (th.small, th.medium)}
    _prune(out, keep)
    marker = dict(tool="misi-view", dataset=str(dataset.resolve()), per_task=per_task, seed=seed,
                  predictions=str(Path(predictions).resolve()) if predictions is not None else None)
    write_atomic(out / MARKER, (json.dumps(marker, indent=2) + "\n").encode())
    return SiteSummary(out, len(rows), len(wanted), len(thumbs), converted,
                       len(written), time.perf_counter() - t0)
