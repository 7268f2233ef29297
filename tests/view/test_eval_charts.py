"""``misi-eval --plot/--html``: bars equal the report's scores, beside the paper's rows and the
random baseline; several prediction files in one chart; one-line errors."""

from __future__ import annotations

import base64
import json
import re
import sys
from pathlib import Path

import pytest
from PIL import Image

pytest.importorskip("matplotlib", reason="the charts need the misi[viz] extra")

from misi_tasks._mpl import VIZ_MISSING  # noqa: E402
from misi_tasks.dataset import read_items  # noqa: E402
from misi_tasks.eval.charts import (  # noqa: E402
    CHART_COLUMNS, chart_columns, chart_rows, random_baseline_report, report_chart,
)
from misi_tasks.eval.cli import main  # noqa: E402
from misi_tasks.eval.report import REFERENCE_RESULTS, summarize  # noqa: E402
from misi_tasks.eval.score import score_item  # noqa: E402
from misi_tasks.eval.baselines import baseline_predictions  # noqa: E402


@pytest.fixture(scope="module")
def items(sample_dataset):
    return read_items(sample_dataset, images=False)


@pytest.fixture(scope="module")
def oracle_file(items, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("oracle") / "oracle.jsonl"
    path.write_text("".join(json.dumps({"id": it["id"], "reply": it["answer"]}) + "\n" for it in items))
    return path


def test_rows_hold_the_runs_the_random_baseline_and_the_paper(items):
    oracle = summarize(score_item(it, it["answer"]) for it in items)
    rnd = random_baseline_report(items, seed=5)
    rows = chart_rows([("oracle", oracle)], rnd)
    assert [r[0] for r in rows] == ["oracle", "random baseline"] + [f"{m} (paper)" for m in REFERENCE_RESULTS]
    assert all(v == 100.0 for v in rows[0][2].values()) and set(rows[0][2]) == set(chart_columns(rows))
    # the samples hold the tasks of --task all: their columns only, not the other registered tasks'
    assert chart_columns(rows) == ("avg", *oracle.columns) and set(chart_columns(rows)) < set(CHART_COLUMNS)
    preds = baseline_predictions(items, "random", seed=5)
    expected = summarize(score_item(it, preds[it["id"]]) for it in items)
    assert rows[1][2]["T1"] == expected.columns["T1"].score_pct and rows[1][2]["avg"] == expected.paper_average
    assert rows[2][2] == REFERENCE_RESULTS["human"]


def test_bar_heights_are_the_scores(items):
    rnd = random_baseline_report(items)
    rows = chart_rows([("random again", rnd)], rnd)
    fig = report_chart(rows)
    containers = fig.axes[0].containers
    assert len(containers) == len(rows)
    for (label, _, vals), bars in zip(rows, containers):
        heights = [b.get_height() for b in bars]
        assert heights == pytest.approx([vals.get(c, float("nan")) for c in chart_columns(rows)], nan_ok=True), label


def test_cli_writes_one_chart_and_report_for_several_models(sample_dataset, random_predictions, oracle_file,
                                                             tmp_path, capsys):
    png, html = tmp_path / "out" / "report.png", tmp_path / "report.html"
    code = main(["--dataset", str(sample_dataset), "--predictions", str(random_predictions),
                 "--compare", str(oracle_file), "--plot", str(png), "--html", str(html)])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "\noracle:\n" in out  # the second model's table is printed too, named by its file (it records no model)
    with Image.open(png) as im:
        assert im.format == "PNG" and im.width >= 1000
    text = html.read_text()
    for label in ("random", "oracle", "random baseline", "human (paper)",
                  "Claude Sonnet 4.5 (paper)", "Qwen2.5-VL-7B fine-tuned (paper)"):
        assert f"<th>{label}</th>" in text, label
    oracle_row = re.search(r"<tr class='model'><th>oracle</th>(.*?)</tr>", text).group(1)
    oracle = summarize(score_item(it, it["answer"]) for it in read_items(sample_dataset, images=False))
    assert re.findall(r"<td>([^<]*)</td>", oracle_row) == ["100.00"] * (1 + len(oracle.columns))
    data = re.search(r"data:image/png;base64,([A-Za-z0-9+/=]+)", text).group(1)
    assert base64.b64decode(data) == png.read_bytes()
    human = re.search(r"<tr class='reference'><th>human \(paper\)</th>(.*?)</tr>", text).group(1)
    assert re.findall(r"<td>([^<]*)</td>", human)[1:] == [f"{REFERENCE_RESULTS['human'][c]:.2f}" for c in oracle.columns]


def test_a_bad_comparison_file_fails_in_one_line(sample_dataset, random_predictions, tmp_path, capsys):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "nope/test/x/000", "reply": "A"}\n')
    code = main(["--dataset", str(sample_dataset), "--predictions", str(random_predictions),
                 "--compare", str(bad), "--plot", str(tmp_path / "r.png")])
    err = capsys.readouterr().err
    assert code == 2 and err.count("\n") == 1 and "bad.jsonl:1" in err and "unknown item id" in err, err
    assert not (tmp_path / "r.png").exists()


def test_without_matplotlib_the_plot_fails_in_one_line(sample_dataset, tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)  # import now raises ImportError
    code = main(["--dataset", str(sample_dataset), "--baseline", "oracle", "--plot", str(tmp_path / "r.png")])
    err = capsys.readouterr().err
    assert code == 2 and err == f"misi-eval: error: {VIZ_MISSING}\n"
    assert not (tmp_path / "r.png").exists()
