"""``misi-eval`` end to end on synthetic datasets: baselines, reports, filters and input errors."""

from __future__ import annotations

from misi_tasks.definitions.registry import TASK_NAMES

import csv
import json
from itertools import product
from pathlib import Path

import pytest

from misi_tasks.eval.cli import main
from misi_tasks.eval.score import COLUMNS, ROTATION_RANGE_DEG, TRANSLATION_RANGE_A
from misi_tasks.definitions.motion import RotationSpec, TranslationSpec


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def _report(capsys, tmp_path: Path, *argv: str) -> dict:
    out_json = tmp_path / "report.json"
    code, out, err = _run(capsys, *argv, "--out-json", out_json, "--overwrite")  # reruns replace the report
    assert code == 0, err
    return json.loads(out_json.read_text())


def _write_jsonl(path: Path, rows: list) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_oracle_scores_100_everywhere(capsys, tmp_path: Path, small_dataset: Path) -> None:
    rep = _report(capsys, tmp_path, "--dataset", small_dataset, "--baseline", "oracle", "--split", "all")
    assert set(rep["columns"]) == set(COLUMNS)
    for col, st in rep["columns"].items():
        assert (st["score_pct"], st["exact_pct"], st["unparseable"], st["missing"]) == (100.0, 100.0, 0, 0), col
    assert rep["paper_average"] == rep["all_mean"] == rep["paper_average_exact"] == 100.0
    assert sum(st["items"] for st in rep["columns"].values()) == len(TASK_NAMES) * 11


def _expected_t1() -> float:
    """Exact expected T1 score of the random baseline for a uniform truth over the same values."""
    pairs = list(product(TranslationSpec().distances(), repeat=2))
    return 0.5 * sum(max(0, 1 - abs(a - b) / TRANSLATION_RANGE_A) for a, b in pairs) / len(pairs)


def _expected_t2() -> float:
    pairs = list(product(RotationSpec().angles(), repeat=2))
    return sum(max(0, 1 - abs(a - b) / ROTATION_RANGE_DEG) for a, b in pairs) / len(pairs) / 3


def test_random_lands_near_chance(capsys, tmp_path: Path, chance_dataset: Path) -> None:
    rep = _report(capsys, tmp_path, "--dataset", chance_dataset, "--baseline", "random", "--seed", "7")
    cols = {c: st["score_pct"] for c, st in rep["columns"].items()}
    for mc in ("T5", "T6", "T8"):
        assert 25 - 7 < cols[mc] < 25 + 7, (mc, cols[mc])       # 400 items: sd about 2.2 points
    assert abs(cols["T4-"] - 50) < 10                            # 'No' half of the time
    assert cols["T4+"] < 5 and cols["T9"] < 5 and cols["T3"] < 15
    # T1: the synthetic truths are not uniform over the range, so allow a wide margin
    assert abs(cols["T1"] - 100 * _expected_t1()) < 10
    assert abs(cols["T2"] - 100 * _expected_t2()) < 10
    assert 0 < cols["T7"] < 50
    assert all(st["unparseable"] == 0 for st in rep["columns"].values())
    again = _report(capsys, tmp_path, "--dataset", chance_dataset, "--baseline", "random", "--seed", "7")
    assert again["columns"] == rep["columns"]                   # seeded
    other = _report(capsys, tmp_path, "--dataset", chance_dataset, "--baseline", "random", "--seed", "8")
    assert other["columns"] != rep["columns"]


def test_written_predictions_score_the_same(capsys, tmp_path: Path, small_dataset: Path) -> None:
    preds = tmp_path / "random.jsonl"
    base = _report(capsys, tmp_path, "--dataset", small_dataset, "--baseline", "random",
                   "--write-predictions", preds)
    lines = [json.loads(line) for line in preds.read_text().splitlines()]
    assert len(lines) == len(TASK_NAMES) * 8 and set(lines[0]) == {"id", "reply"}
    again = _report(capsys, tmp_path, "--dataset", small_dataset, "--predictions", preds)
    assert again["columns"] == base["columns"]


def test_table_csv_and_reference(capsys, tmp_path: Path, small_dataset: Path) -> None:
    out_csv = tmp_path / "r.csv"
    code, out, _ = _run(capsys, "--dataset", small_dataset, "--baseline", "oracle", "--reference",
                        "--out-csv", out_csv)
    assert code == 0
    assert "T4+" in out and "T4-" in out and "average (paper" in out
    assert "Claude Sonnet 4.5" in out and "34.37" in out and "Qwen2.5-VL-7B fine-tuned" in out
    rows = list(csv.DictReader(out_csv.open()))
    assert [r["column"] for r in rows] == list(COLUMNS) + ["average_paper", "all_mean"]
    assert all(float(r["score_pct"]) == 100.0 for r in rows)


def test_free_text_missing_and_unparseable(capsys, tmp_path: Path, small_dataset: Path) -> None:
    items = json.loads(json.dumps(_oracle_lines(capsys, tmp_path, small_dataset, "docking")))
    rows = [{"id": items[0]["id"], "response": f"Let me think... roll x 5, move x 1.\n\nFinal: {items[0]['reply']}"},
            {"id": items[1]["id"], "prediction": "no idea"},
            {"id": items[2]["id"], "reply": None}]
    preds = _write_jsonl(tmp_path / "p.jsonl", rows)
    code, out, err = _run(capsys, "--dataset", small_dataset, "--predictions", preds, "--task", "T7",
                          "--out-json", tmp_path / "r.json", "--out-items", tmp_path / "items.jsonl")
    assert code == 0
    st = json.loads((tmp_path / "r.json").read_text())["columns"]["T7"]
    lo, hi = st.pop("ci95")
    assert st == {"items": 8, "missing": 5, "unparseable": 2, "score_pct": 100 / 8, "exact_pct": 100 / 8}
    assert lo == 0.0 < 100 / 8 < hi <= 50.0                # one right of 8: the interval is wide
    assert "5 item(s) have no prediction" in err
    statuses = [json.loads(line)["status"] for line in (tmp_path / "items.jsonl").read_text().splitlines()]
    assert statuses.count("ok") == 1 and statuses.count("missing") == 5


def _oracle_lines(capsys, tmp_path: Path, dataset: Path, task: str) -> list[dict]:
    path = tmp_path / f"oracle-{task}.jsonl"
    code, _, _ = _run(capsys, "--dataset", dataset, "--baseline", "oracle", "--task", task,
                      "--write-predictions", path)
    assert code == 0
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_filters(capsys, tmp_path: Path, small_dataset: Path) -> None:
    rep = _report(capsys, tmp_path, "--dataset", small_dataset, "--baseline", "oracle",
                  "--task", "T1,rotation", "--split", "train")
    assert {c: st["items"] for c, st in rep["columns"].items()} == {"T1": 3, "T2": 3}
    # predictions for the whole dataset are fine when scoring a subset: the rest is ignored
    everything = _oracle_lines(capsys, tmp_path, small_dataset, "T8")
    code, _, err = _run(capsys, "--dataset", small_dataset, "--predictions",
                        _write_jsonl(tmp_path / "all.jsonl", everything), "--task", "T5")
    assert code == 0 and "ignored 8 prediction(s)" in err


# (description, lines of the predictions file, message fragment); line 2 is the bad one where it matters
BAD_FILES = [
    ("not JSON", ['{"id": "ID0", "reply": "A"}', "{oops"], ":2: malformed line, not JSON"),
    ("not an object", ['["A"]'], ":1: malformed line, expected a JSON object"),
    ("no id", ['{"reply": "A"}'], ":1: malformed line, missing string field 'id'"),
    ("no reply", ['{"id": "ID0"}'], ":1: malformed line, no reply field"),
    ("reply not text", ['{"id": "ID0", "reply": 3}'], "must be a string or null"),
    ("duplicate", ['{"id": "ID0", "reply": "A"}', '{"id": "ID0", "reply": "B"}'],
     ":2: duplicate id 'translation-rotation/test/c000/000' (first on line 1)"),
    ("unknown id", ['{"id": "ID0", "reply": "A"}', '{"id": "nope/0", "reply": "B"}'], ":2: unknown item id 'nope/0'"),
]


@pytest.mark.parametrize("desc, lines, message", BAD_FILES, ids=[b[0] for b in BAD_FILES])
def test_bad_prediction_files(capsys, tmp_path: Path, small_dataset: Path, desc: str, lines: list, message: str) -> None:
    item_id = "translation-rotation/test/c000/000"
    preds = _write_jsonl(tmp_path / "bad.jsonl", [line.replace("ID0", item_id) for line in lines])
    code, out, err = _run(capsys, "--dataset", small_dataset, "--predictions", preds)
    assert code == 2 and out == ""
    assert err.startswith("misi-eval: error: ") and message in err and err.count("\n") == 1


@pytest.mark.parametrize("argv, message", [
    (["--task", "T10"], "unknown task 'T10'"),
    (["--dataset-is-wrong"], None),
])
def test_bad_arguments(capsys, small_dataset: Path, argv: list, message: str | None) -> None:
    if message is None:
        with pytest.raises(SystemExit) as exc:
            main(["--dataset", str(small_dataset), "--baseline", "oracle", *argv])
        assert exc.value.code == 2
        return
    code, _, err = _run(capsys, "--dataset", small_dataset, "--baseline", "oracle", *argv)
    assert code == 2 and message in err


def test_empty_selection_and_missing_dataset(capsys, tmp_path: Path, rows_factory) -> None:
    from misi_tasks.dataset import shard_paths, write_shard

    write_shard(rows_factory("zooming", "train", 2), shard_paths(tmp_path, "zooming", "train", 1)[0])
    code, _, err = _run(capsys, "--dataset", tmp_path, "--baseline", "oracle", "--split", "test")
    assert code == 2 and "no items match" in err and "T3 zooming (train)" in err
    # without --split, a train-only dataset (like misi-gen's bundled-sample run) is scored whole
    code, out, _ = _run(capsys, "--dataset", tmp_path, "--baseline", "oracle")
    assert code == 0 and "100.00" in out
    code, _, err = _run(capsys, "--dataset", tmp_path / "none", "--baseline", "oracle")
    assert code == 2 and "no data/ directory" in err


def test_deeply_nested_json_line_is_a_one_line_error(tmp_path):
    from misi_tasks.eval.cli import PredictionsError, read_predictions

    path = tmp_path / "preds.jsonl"
    path.write_text('{"id": "a", "reply": "x"}\n' + "[" * 100_000 + "]" * 100_000 + "\n")
    with pytest.raises(PredictionsError, match=r"preds.jsonl:2: malformed line, JSON nested too deeply"):
        read_predictions(path)
