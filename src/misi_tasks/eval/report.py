"""Aggregate item scores into the MiSI-Bench report (per column, paper average, all-task mean).

The report has one row per column of :data:`misi_tasks.eval.score.COLUMNS` (T4 split into T4+
and T4-) with item counts, missing and unparseable counts, weighted score (%) and exact-match
accuracy (%). The paper's average is the mean over :data:`PAPER_AVERAGE_COLUMNS`; the all-task
mean is over all ten columns. Means are taken over the columns that hold items; when one is
absent the JSON lists the columns used and the table says so.

Examples
--------
>>> from misi_tasks.eval.score import ItemScore
>>> r = summarize([ItemScore("a", "translation", "T1", 0.5, False, "ok", "move x 3"),
...                ItemScore("b", "translation", "T1", 1.0, True, "ok", "move x 2")])
>>> r.columns["T1"].score_pct, r.columns["T1"].exact_pct
(75.0, 50.0)
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

from misi_tasks.definitions.registry import code_ranges, paper_average_codes, paper_average_columns, report_columns
from misi_tasks.eval.score import ItemScore

__all__ = [
    "REFERENCE_RESULTS",
    "ColumnStats",
    "Report",
    "render_table",
    "report_csv",
    "report_json",
    "summarize",
]

#: The columns of the paper's results table, as printed there (data, not the task list: a task the
#: paper does not have shows "-" in the reference rows).
_PAPER_TABLE = ("avg", "T1", "T2", "T3", "T4+", "T4-", "T5", "T6", "T7", "T8", "T9")
#: Paper reference rows (spec section 6): weighted score in %, Tiny set except the fine-tuned model.
REFERENCE_RESULTS: dict[str, dict[str, float]] = {
    "human": dict(zip(_PAPER_TABLE, (
        81.18, 100.0, 70.18, 30.0, 100.0, 100.0, 32.0, 26.0, 74.54, 92.0, 82.78))),
    "Claude Sonnet 4.5": dict(zip(_PAPER_TABLE, (
        34.37, 45.71, 44.18, 6.0, 22.33, 84.0, 28.0, 26.0, 34.12, 38.0, 0.60))),
    "Qwen2.5-VL-7B fine-tuned": dict(zip(_PAPER_TABLE, (
        62.96, 99.84, 99.71, 27.14, 63.46, 89.52, 88.44, 89.59, 24.94, 88.37, 10.72))),
}


@dataclass(frozen=True)
class ColumnStats:
    """Aggregates of one report column (percentages in [0, 100])."""

    items: int
    missing: int
    unparseable: int
    score_pct: float
    exact_pct: float


@dataclass(frozen=True)
class Report:
    """A full report: per-column stats, averages (None when no column has items), missing ids."""

    columns: dict[str, ColumnStats]
    paper_average: float | None
    paper_average_exact: float | None
    all_mean: float | None
    all_mean_exact: float | None
    average_columns: list[str]
    missing_ids: list[str] = field(default_factory=list)


def _mean(values: Sequence[float]) -> float | None:
    return sum(values) / len(values) if values else None


def summarize(scores: Iterable[ItemScore]) -> Report:
    """Aggregate item scores into a :class:`Report`."""
    by_col: dict[str, list[ItemScore]] = {}
    for s in scores:
        by_col.setdefault(s.column, []).append(s)
    cols: dict[str, ColumnStats] = {}
    declared = report_columns()
    for col in (*declared, *sorted(set(by_col) - set(declared))):  # an undeclared column is kept, last
        rows = by_col.get(col, [])
        if rows:
            n = len(rows)
            cols[col] = ColumnStats(
                items=n,
                missing=sum(r.status == "missing" for r in rows),
                unparseable=sum(r.status == "unparseable" for r in rows),
                score_pct=100.0 * sum(r.score for r in rows) / n,
                exact_pct=100.0 * sum(r.exact for r in rows) / n,
            )
    avg_cols = [c for c in paper_average_columns() if c in cols]
    missing = sorted(s.id for rows in by_col.values() for s in rows if s.status == "missing")
    return Report(
        columns=cols,
        paper_average=_mean([cols[c].score_pct for c in avg_cols]),
        paper_average_exact=_mean([cols[c].exact_pct for c in avg_cols]),
        all_mean=_mean([c.score_pct for c in cols.values()]),
        all_mean_exact=_mean([c.exact_pct for c in cols.values()]),
        average_columns=avg_cols,
        missing_ids=missing,
    )


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{x:.2f}"


def _ci(ci: Mapping[str, tuple[float, float]] | None, key: str) -> str:
    if ci is None:
        return ""
    return f"  [{ci[key][0]:6.2f}, {ci[key][1]:6.2f}]" if key in ci else ""


def render_table(report: Report, *, reference: bool = False, label: str = "this run",
                 ci: Mapping[str, tuple[float, float]] | None = None) -> str:
    """Render the report as a fixed-width text table (and the paper's rows if ``reference``).

    ``ci`` (column or ``average_paper``/``all_mean`` -> 95% interval of the score) adds a column.
    """
    ci = ci or None
    lines = [f"{'column':<8}{'items':>7}{'missing':>9}{'unparsed':>10}{'score %':>10}{'exact %':>10}"
             + ("  score 95% CI" if ci else "")]
    for col, st in report.columns.items():
        lines.append(f"{col:<8}{st.items:>7}{st.missing:>9}{st.unparseable:>10}"
                     f"{st.score_pct:>10.2f}{st.exact_pct:>10.2f}{_ci(ci, col)}")
    total = sum(st.items for st in report.columns.values())
    lines.append(f"{'total':<8}{total:>7}{len(report.missing_ids):>9}"
                 f"{sum(st.unparseable for st in report.columns.values()):>10}")
    lines.append(f"{f'average (paper: {code_ranges(paper_average_codes())})':<34}{_pct(report.paper_average):>10}"
                 f"{_pct(report.paper_average_exact):>10}{_ci(ci, 'average_paper')}")
    lines.append(f"{f'all-task mean ({len(report.columns)} columns)':<34}{_pct(report.all_mean):>10}"
                 f"{_pct(report.all_mean_exact):>10}{_ci(ci, 'all_mean')}")
    absent = [c for c in paper_average_columns() if c not in report.columns]
    if absent:
        lines.append(f"note: no items for {', '.join(absent)}; averages use the columns present")
    if reference:
        lines += ["", "weighted score % beside the paper's reference rows (spec section 6):"]
        columns = tuple(dict.fromkeys((*report_columns(), *report.columns)))
        head = f"{'model':<26}{'avg':>7}" + "".join(f"{c:>7}" for c in columns)
        row = f"{label:<26}{_pct(report.paper_average):>7}" + "".join(
            f"{_pct(report.columns[c].score_pct) if c in report.columns else '-':>7}" for c in columns)
        lines += [head, row]
        for model, vals in REFERENCE_RESULTS.items():
            lines.append(f"{model:<26}{vals['avg']:>7.2f}" + "".join(
                f"{vals[c]:>7.2f}" if c in vals else f"{'-':>7}" for c in columns))
    return "\n".join(lines) + "\n"


def report_json(report: Report, *, reference: bool = False, **extra: Any) -> dict[str, Any]:
    """Return the report as a JSON-ready dict (``extra`` keys are added at the top level)."""
    out: dict[str, Any] = dict(extra)
    out.update(asdict(report))
    if reference:
        out["reference"] = REFERENCE_RESULTS
    return out


def report_csv(report: Report) -> str:
    """Return the report as CSV: one row per column, then the two averages."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["column", "items", "missing", "unparseable", "score_pct", "exact_pct"])
    for col, st in report.columns.items():
        w.writerow([col, st.items, st.missing, st.unparseable, f"{st.score_pct:.4f}", f"{st.exact_pct:.4f}"])
    for name, s, e in (("average_paper", report.paper_average, report.paper_average_exact),
                       ("all_mean", report.all_mean, report.all_mean_exact)):
        w.writerow([name, "", "", "", "" if s is None else f"{s:.4f}", "" if e is None else f"{e:.4f}"])
    return buf.getvalue()
