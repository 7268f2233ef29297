"""Several models side by side, each score with a seeded bootstrap 95% confidence interval.

Every model is scored on the same items. One bootstrap resample draws, in every report column
separately, as many items as the column holds, with replacement; the same draw is used for every
model (a paired bootstrap), so the difference of two models is resampled too. A column's interval
is the 2.5th and 97.5th percentiles of its score over the resamples; the paper's average and the
all-task mean are recomputed from the resampled columns. Two models whose difference in the paper's
average has an interval containing 0 are reported as "within noise". The draws come from
``numpy.random.default_rng(seed)``, so a seed gives the same intervals on every run.

Examples
--------
>>> from misi_tasks.eval.score import ItemScore
>>> a = [ItemScore(f"i{k}", "zooming", "T3", float(k % 2), bool(k % 2), "ok", "") for k in range(40)]
>>> ci = bootstrap([a], resamples=200, seed=0)[0]
>>> lo, hi = ci["T3"]
>>> lo < 50.0 < hi
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from misi_tasks.definitions.registry import paper_average_columns, report_columns
from misi_tasks.eval.report import REFERENCE_RESULTS, Report
from misi_tasks.eval.score import ItemScore

__all__ = ["AVERAGE", "MEAN", "Comparison", "bootstrap", "compare", "render_leaderboard"]

#: Keys of the paper's average and the all-task mean among the interval keys.
AVERAGE, MEAN = "average_paper", "all_mean"
Interval = tuple[float, float]


@dataclass(frozen=True)
class Comparison:
    """Two models' difference in the paper's average (a minus b) with its paired 95% interval."""

    a: str
    b: str
    difference: float
    ci95: Interval

    @property
    def within_noise(self) -> bool:
        """True when the interval contains 0: the data do not tell the two apart."""
        return self.ci95[0] <= 0.0 <= self.ci95[1]


def _resampled(runs: Sequence[Sequence[ItemScore]], resamples: int, seed: int) -> list[dict[str, np.ndarray]]:
    """Per model, per column (and the two averages): the score (%) of every resample."""
    present = {s.column for s in runs[0]}
    columns = [c for c in report_columns() if c in present]
    rng = np.random.default_rng(seed)
    out: list[dict[str, np.ndarray]] = [{} for _ in runs]
    for col in columns:
        per_model = [np.array([s.score for s in run if s.column == col], dtype=float) for run in runs]
        n = len(per_model[0])
        draw = rng.integers(0, n, size=(resamples, n))
        for k, scores in enumerate(per_model):
            out[k][col] = 100.0 * scores[draw].mean(axis=1)
    avg_cols = [c for c in paper_average_columns() if c in columns]
    for res in out:
        if avg_cols:
            res[AVERAGE] = np.mean([res[c] for c in avg_cols], axis=0)
        if columns:
            res[MEAN] = np.mean([res[c] for c in columns], axis=0)
    return out


def _interval(values: np.ndarray) -> Interval:
    lo, hi = np.percentile(values, [2.5, 97.5])
    return round(float(lo), 4), round(float(hi), 4)


def bootstrap(runs: Sequence[Sequence[ItemScore]], *, resamples: int = 1000, seed: int = 0) -> list[dict[str, Interval]]:
    """The 95% interval of every column and average, per model (``runs``: item scores in one item order)."""
    if not runs or resamples < 1:
        return [{} for _ in runs]
    return [{key: _interval(v) for key, v in res.items()} for res in _resampled(runs, resamples, seed)]


def compare(names: Sequence[str], runs: Sequence[Sequence[ItemScore]], reports: Sequence[Report], *,
            resamples: int = 1000, seed: int = 0) -> list[Comparison]:
    """Each model against the next one down the ranking (by the paper's average), paired."""
    if len(runs) < 2 or resamples < 1:
        return []
    res = _resampled(runs, resamples, seed)
    if AVERAGE not in res[0]:
        return []
    order = sorted(range(len(runs)), key=lambda k: -(reports[k].paper_average or 0.0))
    out = []
    for a, b in zip(order, order[1:]):
        diff = (reports[a].paper_average or 0.0) - (reports[b].paper_average or 0.0)
        out.append(Comparison(names[a], names[b], round(diff, 4), _interval(res[a][AVERAGE] - res[b][AVERAGE])))
    return out


def _cell(score: float | None, ci: Interval | None) -> str:
    if score is None:
        return "-"
    return f"{score:.1f}" if ci is None else f"{score:.1f} [{ci[0]:.1f}, {ci[1]:.1f}]"


def render_leaderboard(names: Sequence[str], reports: Sequence[Report], cis: Sequence[dict[str, Interval]],
                       comparisons: Sequence[Comparison] = (), *, reference: bool = False,
                       resamples: int = 1000, seed: int = 0) -> str:
    """A text leaderboard: one row per report column, one column per model (the paper's rows last)."""
    keys = [AVERAGE] + [c for c in report_columns() if any(c in r.columns for r in reports)] + [MEAN]
    labels = {AVERAGE: "average (paper)", MEAN: "all-task mean"}
    cells = []
    for report, ci in zip(reports, cis):
        value = {AVERAGE: report.paper_average, MEAN: report.all_mean,
                 **{c: st.score_pct for c, st in report.columns.items()}}
        cells.append([_cell(value.get(k), ci.get(k)) for k in keys])
    heads = [n[:26] for n in names]
    if reference:
        for model, vals in REFERENCE_RESULTS.items():
            heads.append(model[:26])
            cells.append([f"{vals['avg']:.1f}" if k == AVERAGE else f"{vals[k]:.1f}" if k in vals else "-"
                          for k in keys])
    widths = [max(len(h), *(len(c) for c in col)) + 2 for h, col in zip(heads, cells)]
    lines = [f"leaderboard: weighted score % [95% CI: bootstrap over items, {resamples} resamples, seed {seed}]"
             + ("; the paper's rows (no CI) last" if reference else ""),
             f"{'column':<16}" + "".join(f"{h:>{w}}" for h, w in zip(heads, widths))]
    for i, key in enumerate(keys):
        lines.append(f"{labels.get(key, key):<16}" + "".join(f"{col[i]:>{w}}" for col, w in zip(cells, widths)))
    for c in comparisons:
        verdict = "within noise" if c.within_noise else "outside noise"
        lines.append(f"{c.a} - {c.b}: {c.difference:+.1f} points on the paper's average, 95% CI "
                     f"[{c.ci95[0]:+.1f}, {c.ci95[1]:+.1f}]: {verdict}")
    return "\n".join(lines) + "\n"
