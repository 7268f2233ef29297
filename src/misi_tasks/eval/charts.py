"""Charts of ``misi-eval`` reports: ``--plot report.png`` and ``--html report.html``.

One grouped bar chart of the weighted score (%) per report column — the paper's average, then
T1 ... T9 with T4 split into T4+ and T4- — for every scored prediction file, beside the paper's
reference rows (human, Claude Sonnet 4.5, fine-tuned Qwen2.5-VL-7B) and the seeded random baseline
scored on the same items. The HTML report is one self-contained file: the chart (embedded PNG),
the scores table and, per model, the item, missing and unparsed counts. Needs the ``misi[viz]``
extra (matplotlib); scorer side, so it never imports numba, rendering or geometry.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from misi_tasks._atomic import atomic_write_bytes
from misi_tasks._mpl import PALETTE, figure_png, new_figure
from misi_tasks.definitions.registry import report_columns
from misi_tasks.eval.baselines import baseline_predictions
from misi_tasks.eval.report import REFERENCE_RESULTS, Report, summarize
from misi_tasks.eval.score import score_item

__all__ = ["chart_columns", "chart_rows", "random_baseline_report", "report_chart", "report_chart_png", "report_html",
           "write_charts"]



def chart_columns(rows: Sequence[tuple[str, str, Mapping[str, float]]] | None = None) -> tuple[str, ...]:
    """Groups of the chart, left to right: the paper's average, then the report columns (code order).

    Given the chart's ``rows``, only the columns some row has a score for (the paper's reference
    rows hold the paper's columns): a report of the paper's nine tasks shows no empty group for a
    task it did not ask, and a report of the interaction tasks shows theirs.  Without, every
    registered column.
    """
    columns = report_columns()
    if rows is not None:
        columns = tuple(c for c in columns if any(c in vals for _, _, vals in rows))
    return ("avg", *columns)


def __getattr__(name: str) -> Any:
    """``CHART_COLUMNS``: :func:`chart_columns`, derived from the registered specs on access."""
    if name == "CHART_COLUMNS":
        return chart_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: Colours of the reference rows (greys, darkest for the human) and of the random baseline.
_REFERENCE_COLOURS = ("#3b3b3b", "#8c8c8c", "#c4c4c4")
_RANDOM_COLOUR = "#ffffff"


def _row_of(report: Report) -> dict[str, float]:
    row = {c: st.score_pct for c, st in report.columns.items()}
    if report.paper_average is not None:
        row["avg"] = report.paper_average
    return row


def random_baseline_report(items: Sequence[Mapping[str, Any]], seed: int = 0) -> Report:
    """The report of the seeded random baseline on ``items`` (what guessing scores on this very set)."""
    preds = baseline_predictions(items, "random", seed=seed)
    return summarize(score_item(it, preds[it["id"]]) for it in items)


def chart_rows(runs: Sequence[tuple[str, Report]], random_report: Report | None,
               reference: bool = True) -> list[tuple[str, str, dict[str, float]]]:
    """``[(label, kind, {column: score %})]``: the runs, then the random baseline and the paper's rows.

    ``kind`` is ``"model"``, ``"random"`` or ``"reference"``.
    """
    rows = [(label, "model", _row_of(rep)) for label, rep in runs]
    if random_report is not None:
        rows.append(("random baseline", "random", _row_of(random_report)))
    if reference:
        rows += [(f"{name} (paper)", "reference", dict(vals)) for name, vals in REFERENCE_RESULTS.items()]
    return rows


def report_chart_png(rows: Sequence[tuple[str, str, Mapping[str, float]]], title: str = "") -> bytes:
    """The grouped bar chart of ``rows`` (see :func:`chart_rows`) as PNG bytes."""
    return figure_png(report_chart(rows, title))


def report_chart(rows: Sequence[tuple[str, str, Mapping[str, float]]], title: str = "") -> Any:
    """The grouped bar chart of ``rows`` (see :func:`chart_rows`): a matplotlib Figure whose axes hold
    one bar container per row, in order.

    Raises
    ------
    misi_tasks._mpl.MatplotlibMissing
        When matplotlib is not installed.
    """
    import numpy as np

    fig = new_figure(13.0, 4.4)
    ax = fig.add_axes((0.055, 0.22, 0.935, 0.7))
    n = len(rows)
    width = 0.84 / n
    columns = chart_columns(rows)
    x = np.arange(len(columns))
    models = refs = 0
    for k, (label, kind, vals) in enumerate(rows):
        heights = [vals.get(c, math.nan) for c in columns]
        style: dict[str, Any]
        if kind == "model":
            style = dict(color=PALETTE[models % len(PALETTE)], edgecolor="black", linewidth=0.4)
            models += 1
        elif kind == "random":
            style = dict(color=_RANDOM_COLOUR, edgecolor="black", hatch="///", linewidth=0.6)
        else:
            style = dict(color=_REFERENCE_COLOURS[refs % len(_REFERENCE_COLOURS)], edgecolor="black", linewidth=0.3)
            refs += 1
        ax.bar(x - 0.42 + width * (k + 0.5), heights, width, label=label, **style)
        if kind == "model":
            for xi, h in zip(x, heights):
                if not math.isnan(h):
                    ax.text(xi - 0.42 + width * (k + 0.5), h + 1, f"{h:.0f}", ha="center", va="bottom", fontsize=6)
    ax.set_xticks(x, ["average\n(paper)"] + list(columns[1:]))
    ax.axvline(0.5, color="0.6", linewidth=0.8)
    ax.set_ylim(0, 108)
    ax.set_ylabel("weighted score (%)")
    ax.grid(axis="y", color="0.9")
    ax.set_axisbelow(True)
    ax.set_title(title or "MiSI-Bench weighted score per column")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=min(n, 6), fontsize=8, frameon=False)
    return fig


def _fmt(v: float | None) -> str:
    return "–" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.2f}"


def report_html(runs: Sequence[tuple[str, Report]], rows: Sequence[tuple[str, str, Mapping[str, float]]],
                png: bytes, meta: Mapping[str, Any]) -> str:
    """A self-contained HTML report: the chart, the scores table and per-model counts."""
    columns = chart_columns(rows)
    head = "".join(f"<th>{escape('average (paper)' if c == 'avg' else c)}</th>" for c in columns)
    body = "".join(
        f"<tr class='{kind}'><th>{escape(label)}</th>" + "".join(f"<td>{_fmt(vals.get(c))}</td>" for c in columns)
        + "</tr>" for label, kind, vals in rows)
    details = []
    for label, rep in runs:
        trs = "".join(f"<tr><th>{escape(c)}</th><td>{st.items}</td><td>{st.missing}</td><td>{st.unparseable}</td>"
                      f"<td>{st.score_pct:.2f}</td><td>{st.exact_pct:.2f}</td></tr>" for c, st in rep.columns.items())
        details.append(
            f"<h3>{escape(label)}</h3><table><thead><tr><th>column</th><th>items</th><th>missing</th>"
            f"<th>unparsed</th><th>score %</th><th>exact %</th></tr></thead><tbody>{trs}</tbody></table>"
            f"<p>average (paper: T1–T4, T7–T9) {_fmt(rep.paper_average)} · all-task mean {_fmt(rep.all_mean)}"
            + (f" · {len(rep.missing_ids)} items without a prediction" if rep.missing_ids else "") + "</p>")
    info = " · ".join(f"{escape(str(k))}: {escape(str(v))}" for k, v in meta.items() if v not in (None, ""))
    data = base64.b64encode(png).decode("ascii")
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'><title>misi-eval report</title>"
        "<link rel='icon' href='data:,'><style>"
        "body{font:14px/1.4 system-ui,sans-serif;margin:20px auto;max-width:1300px;padding:0 16px;color:#1d2330}"
        "table{border-collapse:collapse;margin:8px 0}th,td{padding:3px 9px;border-bottom:1px solid #dde1e8;"
        "text-align:right}th:first-child{text-align:left}tr.model th{color:#0b4f8a}tr.reference{color:#666}"
        "img{max-width:100%}</style></head><body>"
        f"<h1>misi-eval report</h1><p>{info}</p>"
        f"<img alt='weighted score per column' src='data:image/png;base64,{data}'>"
        f"<h2>Weighted score (%)</h2><table><thead><tr><th>model</th>{head}</tr></thead><tbody>{body}</tbody></table>"
        "<p>Reference rows: the paper's Table (spec section 6; Tiny set except the fine-tuned model). "
        "Random baseline: misi-eval's seeded guesser on the same items.</p>"
        f"<h2>Per model</h2>{''.join(details)}</body></html>\n"
    )


def write_charts(runs: Sequence[tuple[str, Report]], items: Sequence[Mapping[str, Any]], *,
                 plot: Path | None = None, html: Path | None = None, seed: int = 0,
                 meta: Mapping[str, Any] | None = None) -> None:
    """Write ``--plot`` (PNG) and/or ``--html`` for ``runs`` scored on ``items``."""
    rows = chart_rows(runs, random_baseline_report(items, seed=seed))
    png = report_chart_png(rows)
    if plot is not None:
        atomic_write_bytes(Path(plot), png)
    if html is not None:
        atomic_write_bytes(Path(html), report_html(runs, rows, png, meta or {}).encode("utf-8"))
