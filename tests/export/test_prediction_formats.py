"""``misi-eval --predictions``: format detection and one-line errors for every harness's files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from misi_tasks.eval.cli import PredictionsError
from misi_tasks.eval.cli import main as eval_main
from misi_tasks.eval.prediction_formats import detect_format, load_predictions

ID1, ID2 = "translation/test/c000/000", "translation/test/c001/001"


def _jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def _batch(custom_id: str, content, status: int = 200) -> dict:
    return {"id": "batch_req", "custom_id": custom_id, "error": None,
            "response": {"status_code": status, "body": {"choices": [{"message": {"content": content}}]}}}


@pytest.mark.parametrize("name, rows, fmt, expected", [
    ("misi.jsonl", [{"id": ID1, "reply": "move x 3"}], "misi", {ID1: "move x 3"}),
    ("batch.jsonl", [_batch(ID1, "move x 3"), _batch(ID2, [{"type": "text", "text": "move y -2"}])],
     "openai-batch", {ID1: "move x 3", ID2: "move y -2"}),
    ("batch_failed.jsonl", [_batch(ID1, "x", status=500), _batch(ID2, "move y -2")], "openai-batch",
     {ID2: "move y -2"}),
    ("samples_doc.jsonl", [{"doc_id": 0, "doc": {"id": ID1}, "resps": [["raw"]], "filtered_resps": ["move x 3"]}],
     "lmms-eval", {ID1: "move x 3"}),
    ("samples_metric.jsonl", [{"doc_id": 0, "doc": {}, "resps": [["move x 3"]],
                               "misi_score": {"id": ID1, "score": 1.0}}], "lmms-eval", {ID1: "move x 3"}),
])
def test_detects_and_reads(tmp_path: Path, name: str, rows: list, fmt: str, expected: dict) -> None:
    path = _jsonl(tmp_path / name, rows)
    assert detect_format(path) == fmt
    assert load_predictions(path, {ID1, ID2}) == expected


def test_older_lmms_eval_json_logs(tmp_path: Path) -> None:
    path = tmp_path / "misi_t1_translation.json"
    path.write_text(json.dumps({"args": {}, "logs": [
        {"doc_id": 0, "doc": {"id": ID1}, "filtered_resps": ["move x 3"]},
        {"doc_id": 1, "resps": [["move y -2"]], "misi_exact": {"id": ID2, "score": 1.0}}]}, indent=2))
    assert detect_format(path) == "lmms-eval"
    assert load_predictions(path, {ID1, ID2}) == {ID1: "move x 3", ID2: "move y -2"}


def test_batch_input_file_is_named(tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "requests.jsonl", [{"custom_id": ID1, "method": "POST", "body": {}}])
    with pytest.raises(PredictionsError, match="Batch input"):
        load_predictions(path)


def test_vlmevalkit_tables(tmp_path: Path) -> None:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.append(["index", "question", "answer", "misi_id", "prediction"])
    ws.append([1, "q", "move x 3", ID1, "move x 3"])
    ws.append([2, "q", "move y -2", ID2, None])
    wb.save(tmp_path / "r.xlsx")
    assert detect_format(tmp_path / "r.xlsx") == "vlmevalkit"
    assert load_predictions(tmp_path / "r.xlsx") == {ID1: "move x 3", ID2: ""}
    (tmp_path / "r.csv").write_text(f'misi_id,prediction\n{ID1},"move x 3, really"\n')
    assert load_predictions(tmp_path / "r.csv") == {ID1: "move x 3, really"}


@pytest.mark.parametrize("files, message", [
    ({"a.tsv": "index\tprediction\n1\tA\n"}, "no 'misi_id' column"),
    ({"a.tsv": f"misi_id\tanswer\n{ID1}\tA\n"}, "no 'prediction' column"),
    ({"a.jsonl": json.dumps({"doc_id": 0, "doc": {}, "resps": [["A"]]}) + "\n"}, "no item id"),
    ({"a.jsonl": json.dumps({"id": ID1, "reply": "A"}) + "\n",
      "b.jsonl": json.dumps(_batch(ID1, "A")) + "\n"}, f"duplicate id {ID1!r} (first in"),
    ({"a.jsonl": json.dumps(_batch("nope/1", "A")) + "\n"}, "unknown item id 'nope/1'"),
    ({"a.xlsx": "not a zip"}, "cannot read the workbook"),
])
def test_errors_name_the_file(tmp_path: Path, files: dict, message: str) -> None:
    paths = []
    for name, text in files.items():
        (tmp_path / name).write_text(text)
        paths.append(tmp_path / name)
    with pytest.raises(PredictionsError) as exc:
        load_predictions(paths, {ID1, ID2})
    assert message in str(exc.value) and str(tmp_path) in str(exc.value)


def test_misi_eval_takes_several_files_and_reports_them(tmp_path: Path, export_dataset: Path) -> None:
    a = _jsonl(tmp_path / "a.jsonl", [{"id": ID1, "reply": "move x 3"}])
    b = _jsonl(tmp_path / "b.jsonl", [_batch(ID2, "move y -2")])
    out = tmp_path / "r.json"
    assert eval_main(["--dataset", str(export_dataset), "--task", "T1", "--predictions", str(a), str(b),
                      "--out-json", str(out)]) == 0
    rep = json.loads(out.read_text())
    assert rep["columns"]["T1"]["exact_pct"] == pytest.approx(200 / 3) and rep["columns"]["T1"]["missing"] == 1
    assert rep["predictions"] == [str(a), str(b)]
