"""The dataset card's figures: what a run produced, at a glance.

:func:`write_card_figures` writes four PNGs into ``OUT/figures/`` and returns the Markdown that
embeds them in the card:

- ``items_per_task.png`` — items per task and split;
- ``answers.png`` — the distribution of answers of every task (axes and signed distances for T1,
  axes and angle bins for T2, zoom distances for T3, negatives and bonds per positive for T4,
  MC letters for T5/T6/T8, roll angle against move for T7, H-bonds per complex for T9), drawn by
  the kind of answer (the parsed type), never by the task's name;
- ``heavy_atoms.png`` — pocket and ligand heavy atoms per complex (a histogram beyond 60 complexes, of
  at most 300 complexes evenly spaced by id);
- ``examples.png`` — a contact sheet of the first image of one item per task.

The numbers come from the written shards (the truth on disk, also after a resumed run) and, for the
atom counts, from the input complexes. ``misi-gen``'s example images are read from the shards:
a row group holds at most 16 rows of one complex, so one image costs a few MB of reading (an
``image_source`` can hand them over instead). ``misi-gen`` hands over the atom counts its workers took
while loading every complex (any input kind, not only PDBbind folders), which saves the card
loading up to 300 complexes again after the run. Without matplotlib (extra ``misi[viz]``) no figure is
written and the card says how to get them. Figures are byte-identical for identical inputs.
"""

from __future__ import annotations

import io
import sys
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from misi_tasks._mpl import PALETTE, VIZ_MISSING, have_matplotlib, new_figure, save_figure
import pyarrow.parquet as pq

from misi_tasks.definitions.registry import SPLITS, task_codes, task_names
from misi_tasks.eval.parse import parse_answer
from misi_tasks.definitions.answers import BondList, Choice, ContactList, Docking, Move, Roll

__all__ = ["FIGURES_DIR", "card_figures_markdown", "example_complexes", "example_image_index", "heavy_atom_counts",
           "heavy_atoms", "write_card_figures"]

#: Folder of the figures, relative to the dataset folder.
FIGURES_DIR = "figures"
#: Beyond this many complexes the heavy-atom figure is a histogram instead of one bar per complex.
MAX_COMPLEX_BARS = 60
#: At most this many complexes are loaded for the heavy-atom figure (6 ms each); beyond it an evenly
#: spaced subset of the sorted ids is used, so a PDBbind-sized run does not spend minutes on a plot.
MAX_ATOM_COMPLEXES = 300
#: Tile size of the contact sheet, in pixels.
_TILE_PX = 280


_COLUMNS = ["id", "task", "split", "complex_id", "image_roles", "options", "answer"]
#: Gives the PNG images of some rows (``{id: [png bytes, ...]}``; rows it cannot serve left out).
ImageSource = Callable[[Sequence[Mapping[str, Any]]], Mapping[str, list[bytes]]]


def _read_rows(dataset: Path) -> list[dict[str, Any]]:
    """The columns the figures use, of every item (the long question and metadata texts are not read).

    Through ``ParquetFile``: ``pq.read_table`` imports ``pyarrow.dataset`` and with it pandas, ~0.4 s
    of the card's time on a small run."""
    rows: list[dict[str, Any]] = []
    for shard in sorted((dataset / "data").glob("*/*.parquet")):
        rows += pq.ParquetFile(shard).read(columns=_COLUMNS).to_pylist()
    return rows


def _task_order(tasks) -> list[str]:
    return sorted(tasks, key=lambda t: task_names().index(t) if t in task_names() else 99)


def _items_figure(items: Sequence[Mapping[str, Any]]):
    counts = Counter((it["task"], it["split"]) for it in items)
    tasks = _task_order({t for t, _ in counts})
    fig = new_figure(7.0, 0.45 * len(tasks) + 1.2)
    ax = fig.add_subplot()
    y = np.arange(len(tasks))
    left = np.zeros(len(tasks))
    for k, split in enumerate(SPLITS):
        n = np.array([counts.get((t, split), 0) for t in tasks])
        if n.any():
            bars = ax.barh(y, n, left=left, color=PALETTE[k], label=split)
            ax.bar_label(bars, labels=[str(v) if v else "" for v in n], label_type="center", color="white",
                         fontsize=8)
            left += n
    ax.set_yticks(y, [f"{task_codes().get(t, '?')} {t}" for t in tasks])
    ax.invert_yaxis()
    ax.set_xlabel("items")
    ax.set_title("Items per task and split")
    ax.legend(loc="lower right", frameon=False)
    fig.subplots_adjust(left=0.3, right=0.97, top=1 - 0.45 / fig.get_figheight(), bottom=0.55 / fig.get_figheight())
    return fig


def _bars(ax, labels: Sequence[str], series: Mapping[str, Sequence[int]], colors: Sequence[str] = PALETTE) -> None:
    """Stacked bars of ``series`` (name -> count per label)."""
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    for k, (name, vals) in enumerate(series.items()):
        v = np.asarray(vals, dtype=float)
        if v.any():
            ax.bar(x, v, bottom=bottom, color=colors[k % len(colors)], label=name, width=0.8)
            bottom += v
    ax.set_xticks(x, labels, fontsize=7, rotation=90 if len(labels) > 8 else 0)
    if len(series) > 1:
        ax.legend(fontsize=7, frameon=False)


def _fmt(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _answer_panel(ax, parsed: list[Any]) -> None:
    """Draw the distribution of one task's parsed answers; the kind of answer (its parsed type), not
    the task's name, picks the drawing."""
    kinds = {type(p) for p in parsed if p is not None}
    kind = kinds.pop() if len(kinds) == 1 else None
    if kind is Choice:
        c = Counter(p.letter for p in parsed)
        _bars(ax, list("ABCD"), {"letter": [c[x] for x in "ABCD"]})
        ax.set_xlabel("correct letter", fontsize=8)
    elif kind in (Move, Roll):
        vals = [(p.axis, p.dist_A if kind is Move else p.angle_deg) for p in parsed]
        axes = sorted({a for a, _ in vals})
        levels = sorted({v for _, v in vals})
        if kind is Move and len(axes) == 1 and all(float(v).is_integer() for v in levels):
            levels = list(range(int(levels[0]), int(levels[-1]) + 1))  # show the gaps too
        c = Counter(vals)
        _bars(ax, [_fmt(v) for v in levels], {f"axis {a}": [c[(a, v)] for v in levels] for a in axes})
        ax.set_xlabel("distance (Å)" if kind is Move else "angle (°)", fontsize=8)
    elif kind is Docking:
        for k, axis in enumerate("xyz"):
            pts = [(p.roll.angle_deg, p.move.dist_A) for p in parsed if p.roll.axis == axis]
            if pts:
                a = np.array(pts)
                ax.scatter(a[:, 0], a[:, 1], s=12, color=PALETTE[k], label=f"roll {axis}", alpha=0.8)
        ax.axhline(0, color="0.7", lw=0.5)
        ax.set_xlabel("roll angle (°)", fontsize=8)
        ax.set_ylabel("move (Å)", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
    elif kind is BondList and any(p.with_yes for p in parsed):  # "No" / "Yes: ..." about one residue
        c = Counter(len(p.bonds) for p in parsed)
        levels = sorted(c)
        _bars(ax, ["No (T4-)" if n == 0 else f"{n} bond{'s' * (n > 1)}" for n in levels],
              {"items": [c[n] for n in levels]})
        ax.set_xlabel("answer (positives: H-bonds listed)", fontsize=8)
    elif kind is BondList:  # every H-bond of a complex
        c = Counter(len(p.bonds) for p in parsed)
        levels = list(range(min(c), max(c) + 1))
        _bars(ax, [str(n) for n in levels], {"complexes": [c[n] for n in levels]})
        ax.set_xlabel("H-bonds per complex", fontsize=8)
    elif kind is ContactList:  # every contact of one interaction type
        c = Counter(len(p.contacts) for p in parsed)
        levels = list(range(min(c), max(c) + 1))
        _bars(ax, ["No" if n == 0 else str(n) for n in levels], {"items": [c[n] for n in levels]})
        ax.set_xlabel("contacts listed per item", fontsize=8)
    else:
        ax.text(0.5, 0.5, "answers of mixed or unknown form", ha="center", va="center", transform=ax.transAxes)
    ax.tick_params(labelsize=7)


def _answers_figure(items: Sequence[Mapping[str, Any]]):
    by_task: dict[str, list[Any]] = {}
    for it in items:
        p = parse_answer(it["task"], it["answer"], options=list(it.get("options") or ()))
        by_task.setdefault(it["task"], []).append(p)
    tasks = _task_order(by_task)
    cols = 3
    rows = -(-len(tasks) // cols)
    fig = new_figure(10.0, 2.6 * rows + 0.4)
    fig.suptitle("Answers per task")
    for k, task in enumerate(tasks):
        ax = fig.add_subplot(rows, cols, k + 1)
        _answer_panel(ax, by_task[task])
        ax.set_title(f"{task_codes().get(task, '?')} {task} ({len(by_task[task])})", fontsize=9)
    fig.subplots_adjust(left=0.06, right=0.98, top=1 - 0.6 / fig.get_figheight(), bottom=0.7 / fig.get_figheight(),
                        wspace=0.25, hspace=0.75)
    return fig


def heavy_atom_counts(input_dir: Path, complex_ids: Sequence[str]) -> dict[str, tuple[int, int]]:
    """``{complex id: (pocket heavy atoms, ligand heavy atoms)}`` of the complexes that load.

    Only PDBbind-layout folders are read; an input this cannot list gives ``{}`` (no figure) rather
    than costing the card its other figures.
    """
    from misi_geom import MisiInputError, find_complex_dirs, load_complex

    wanted = set(complex_ids)
    try:
        dirs = [d for d in find_complex_dirs(input_dir) if d.name in wanted]
    except (MisiInputError, OSError):
        return {}
    out: dict[str, tuple[int, int]] = {}
    for d in dirs:
        try:
            out[d.name] = heavy_atoms(load_complex(d))
        except MisiInputError:
            continue
    return out


def heavy_atoms(complex_: Any) -> tuple[int, int]:
    """``(pocket heavy atoms, ligand heavy atoms)`` of a :class:`misi_geom.Complex`."""
    heavy = ~complex_.is_hydrogen
    return int((heavy & ~complex_.is_ligand).sum()), int((heavy & complex_.is_ligand).sum())


def _atoms_figure(counts: Mapping[str, tuple[int, int]], of_total: int | None = None):
    ids = sorted(counts)
    subset = f"{len(ids)} of {of_total} complexes, evenly spaced by id" if of_total else f"{len(ids)} complexes"
    pocket = np.array([counts[i][0] for i in ids])
    ligand = np.array([counts[i][1] for i in ids])
    if len(ids) <= MAX_COMPLEX_BARS:
        fig = new_figure(min(12.0, max(5.0, 2.5 + 0.2 * len(ids))), 3.4)
        ax = fig.add_subplot()
        _bars(ax, ids, {"pocket": pocket, "ligand": ligand})
        ax.set_ylabel("heavy atoms")
        ax.set_title(f"Heavy atoms per complex ({subset})")
        fig.subplots_adjust(left=0.6 / fig.get_figwidth(), right=0.98, top=0.9, bottom=0.25)
    else:
        fig = new_figure(8.0, 3.2)
        for k, (name, vals) in enumerate((("pocket", pocket), ("ligand", ligand))):
            ax = fig.add_subplot(1, 2, k + 1)
            ax.hist(vals, bins=20, color=PALETTE[k])
            ax.set_xlabel(f"{name} heavy atoms")
            ax.set_ylabel("complexes")
        fig.suptitle(f"Heavy atoms per complex ({subset})")
        fig.subplots_adjust(left=0.1, right=0.98, top=0.86, bottom=0.18, wspace=0.3)
    return fig


def example_complexes(tasks: Sequence[str], complexes: Sequence[str]) -> dict[str, str]:
    """Per task (of ``tasks`` that have items): the complex whose item the contact sheet shows, when
    ``complexes`` are the complexes of the items (it changes from task to task)."""
    ordered = sorted(complexes)
    return {task: ordered[k % len(ordered)] for k, task in enumerate(_task_order(tasks))} if ordered else {}


def example_image_index(roles: Sequence[str]) -> int:
    """Which image of an item the contact sheet shows: the view after the motion, the docked pose,
    else the first."""
    return next((j for j, r in enumerate(roles) if "after" in r or r.startswith("pocket and ligand")), 0)


def _examples(items: Sequence[Mapping[str, Any]]) -> dict[str, tuple[Mapping[str, Any], int]]:
    """Per task: the first item (test split first) of the complex :func:`example_complexes` names
    (else the task's first item), and the index of its image to show (:func:`example_image_index`)."""
    by_task: dict[str, list[Mapping[str, Any]]] = {}
    for it in sorted(items, key=lambda r: (r["split"] != "test", r["id"])):
        by_task.setdefault(it["task"], []).append(it)
    wanted = example_complexes(list(by_task), {it["complex_id"] for it in items})
    out = {}
    for task in _task_order(by_task):
        it = next((r for r in by_task[task] if r["complex_id"] == wanted[task]), by_task[task][0])
        out[task] = (it, example_image_index(list(it["image_roles"])))
    return out


def _examples_figure(dataset: Path, items: Sequence[Mapping[str, Any]],
                     image_source: ImageSource | None = None):
    """A contact sheet: the first image of one item per task, composed with Pillow and placed
    pixel for pixel (no resampling by matplotlib), a caption above each tile.  Images come from
    ``image_source`` if given, else (and for the rows it leaves out) from the shards."""
    from PIL import Image

    from misi_tasks.view.rows import read_images

    first = _examples(items)
    tasks = _task_order(first)
    images = dict(image_source([first[t][0] for t in tasks])) if image_source else {}
    missing = [t for t in tasks if first[t][0]["id"] not in images]
    if missing:
        shards = sorted(p for t in missing for p in (dataset / "data" / t).glob("*.parquet"))
        images.update(read_images(shards, {first[t][0]["id"] for t in missing}))
    cols, tile, gap, cap = 3, _TILE_PX, 8, 36
    rows = -(-len(tasks) // cols)
    width, height = cols * tile + (cols + 1) * gap, rows * (tile + cap + gap) + gap
    sheet = Image.new("RGB", (width, height), (255, 255, 255))
    fig = new_figure(width / 100, height / 100, dpi=100)
    for k, task in enumerate(tasks):
        r, c = divmod(k, cols)
        x, y = gap + c * (tile + gap), gap + r * (tile + cap + gap)
        it, k_img = first[task]
        with Image.open(io.BytesIO(images[it["id"]][k_img])) as im:
            im = im.convert("RGB")
            im = im.reduce(max(1, im.width // tile))  # box filter by an integer factor: fast, sharp
            im.thumbnail((tile, tile))
            sheet.paste(im, (x + (tile - im.width) // 2, y + cap + (tile - im.height) // 2))
        fig.text((x + tile / 2) / width, 1 - (y + 2) / height,
                 f"{task_codes().get(task, '?')} {task}\n{it['complex_id']} · {it['image_roles'][k_img]}",
                 ha="center", va="top", fontsize=9)
    fig.figimage(np.asarray(sheet), xo=0, yo=0, origin="upper", zorder=0)
    return fig


def write_card_figures(dataset: str | Path, input_dir: str | Path, image_source: ImageSource | None = None,
                       atoms: Mapping[str, tuple[int, int]] | None = None) -> list[tuple[str, str]]:
    """Write the card's figures into ``dataset/figures/``; return ``[(caption, relative path), ...]``.

    ``image_source`` gives the example images without reading them from the shards (see the module docs).
    ``atoms`` gives the heavy-atom counts (:func:`heavy_atoms`) of the complexes as a run loaded
    them, by complex id; without it they are read from ``input_dir`` (:func:`heavy_atom_counts`).

    Raises
    ------
    misi_tasks._mpl.MatplotlibMissing
        When matplotlib is not installed.
    """
    dataset = Path(dataset)
    items = _read_rows(dataset)
    if not items:
        return []
    folder = dataset / FIGURES_DIR
    made: list[tuple[str, str, Any]] = [
        ("Items per task and split", "items_per_task.png", _items_figure(items)),
        ("Answers per task", "answers.png", _answers_figure(items)),
    ]
    complexes = sorted({it["complex_id"] for it in items})
    step = -(-len(complexes) // MAX_ATOM_COMPLEXES)
    shown = complexes[::step]
    counts = (heavy_atom_counts(Path(input_dir), shown) if atoms is None
              else {c: atoms[c] for c in shown if c in atoms})
    if counts:
        made.append(("Heavy atoms per complex", "heavy_atoms.png",
                     _atoms_figure(counts, len(complexes) if step > 1 else None)))
    made.append(("One example per task", "examples.png", _examples_figure(dataset, items, image_source)))
    for _, name, fig in made:
        save_figure(fig, folder / name)
    return [(caption, f"{FIGURES_DIR}/{name}") for caption, name, _ in made]


def card_figures_markdown(dataset: str | Path, input_dir: str | Path, image_source: ImageSource | None = None,
                          atoms: Mapping[str, tuple[int, int]] | None = None) -> str:
    """Write the figures and return the card's ``## Figures`` section (arguments: :func:`write_card_figures`).

    Without matplotlib the section says how to get the figures; a figure that fails is reported on
    stderr and in the card rather than costing the run its card.
    """
    if not have_matplotlib():
        return f"## Figures\n\nNo figures: {VIZ_MISSING}.\n"
    try:
        figs = write_card_figures(dataset, input_dir, image_source, atoms)
    except Exception as exc:  # noqa: BLE001 - the card must still be written
        msg = f"figures not drawn ({type(exc).__name__}: {exc})"
        print(f"misi-gen: warning: {msg}", file=sys.stderr)
        return f"## Figures\n\nNo figures: {msg}.\n"
    if not figs:
        return ""
    return "## Figures\n\n" + "".join(f"![{c}]({p})\n\n" for c, p in figs)
