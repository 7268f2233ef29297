"""``misi-eval`` on the folders the harnesses write, models named by what they record, and the leaderboard.

The folder shapes follow the harnesses' own writers: lmms-eval's ``EvaluationTracker`` puts
``<date>_results.json`` and ``<date>_samples_<task>.jsonl`` under ``<output_path>/<model_name_sanitized>``,
which is empty for API and dummy models (no sub-folder; the samples lose their ``doc``); VLMEvalKit
writes ``<work_dir>/<model>/T<date>_G<commit>/<model>_<dataset>.<PRED_FORMAT>`` and links the newest
run's files into ``<work_dir>/<model>/``; ``PRED_FORMAT=json`` dumps the rows as a list of records.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from misi_tasks.eval.cli import main as eval_main
from misi_tasks.eval.score import score_item
from misi_tasks.dataset import read_items
from misi_tasks.definitions.registry import task_codes


def _items(dataset: Path) -> list[dict]:
    return read_items(dataset, splits=["test"], images=False)


def _lmms_folder(root: Path, items: list[dict], reply, *, model_args: str, model: str, date: str) -> Path:
    """An lmms-eval --output_path of an API model: no model sub-folder, samples without their docs."""
    root.mkdir(parents=True, exist_ok=True)
    name = ""
    for key in ("model_version=", "pretrained=", "model="):
        if key in model_args:
            name = model_args.split(key)[1].split(",")[0]
            break
    (root / f"{date}_results.json").write_text(json.dumps({
        "results": {}, "config": {"model": model, "model_args": model_args, "batch_size": "1"},
        "model_name": name, "model_name_sanitized": name.replace("/", "__")}))
    by_task: dict[str, list[str]] = {}
    for k, it in enumerate(items):
        s = score_item(it, reply(it))
        rec = {"id": it["id"], "task": it["task"], "column": s.column, "status": s.status}
        by_task.setdefault(it["task"], []).append(json.dumps({
            "doc_id": k, "target": it["answer"], "filtered_resps": [reply(it)],
            "misi_score": dict(rec, score=s.score), "misi_exact": dict(rec, score=float(s.exact))}))
    for task, lines in by_task.items():
        (root / f"{date}_samples_misi_{task_codes()[task].lower()}.jsonl").write_text("\n".join(lines) + "\n")
    return root


def _vlmevalkit_folder(work_dir: Path, items: list[dict], reply, model: str) -> Path:
    run = work_dir / model / "T20261202_Gabc1234"
    run.mkdir(parents=True)
    by_task: dict[str, list[dict]] = {}
    for k, it in enumerate(items):
        by_task.setdefault(it["task"], []).append({"index": k, "misi_id": it["id"], "question": it["question"],
                                                   "answer": it["answer"], "prediction": reply(it)})
    for task, rows in by_task.items():
        name = f"{model}_MiSI_{task_codes()[task]}_test.json"
        (run / name).write_text(json.dumps(rows, indent=4))
        os.symlink(run / name, work_dir / model / name)             # VLMEvalKit links the newest run
    return work_dir


def _noisy(it: dict) -> str:
    return it["answer"] if sum(map(ord, it["id"])) % 3 else "no idea"


def test_lmms_eval_folder_without_model_subfolder_is_read_and_named(export_dataset: Path, tmp_path: Path,
                                                                    capsys) -> None:
    items = _items(export_dataset)
    out = _lmms_folder(tmp_path / "lmms_out", items, lambda it: "wrong", model="openai_compatible",
                       model_args="model_version=gpt-4o,max_retries=1", date="2026-12-01T09-00-00.1")
    _lmms_folder(out, items, lambda it: it["answer"], model="openai_compatible",
                 model_args="model_version=gpt-4o,max_retries=1", date="2026-12-02T10-00-00.5")
    report = tmp_path / "r.json"
    assert eval_main(["--dataset", str(export_dataset), "--predictions", str(out), "--out-json", str(report)]) == 0
    rep = json.loads(report.read_text())
    assert rep["model"] == "gpt-4o" and rep["all_mean"] == 100.0        # the newest run, named by its config
    assert len(rep["predictions"]) == len(task_codes()) and all("2026-12-02" in p for p in rep["predictions"])
    assert "gpt-4o" in capsys.readouterr().out


def test_three_harnesses_make_a_leaderboard_with_intervals(export_dataset: Path, tmp_path: Path, capsys) -> None:
    items = _items(export_dataset)
    lmms = _lmms_folder(tmp_path / "lmms_out", items, lambda it: it["answer"], model="dummy",
                        model_args="pretrained=org/Gold-VL", date="2026-12-02T10-00-00.5")
    vlm = _vlmevalkit_folder(tmp_path / "outputs", items, _noisy, "Noisy-VL-7B")
    run = tmp_path / "random.jsonl"
    run.write_text("".join(json.dumps({"id": it["id"], "reply": "A", "model": "served/random-vl", "latency_s": 0.1,
                                       "usage": None}) + "\n" for it in items))
    report = tmp_path / "r.json"
    argv = ["--dataset", str(export_dataset), "--predictions", str(lmms), "--predictions", str(vlm),
            "--predictions", str(run), "--out-json", str(report), "--reference", "--seed", "3"]
    assert eval_main(argv) == 0
    out = capsys.readouterr().out
    rep = json.loads(report.read_text())
    models = {m["name"]: m for m in rep["models"]}
    assert list(models) == ["org/Gold-VL", "Noisy-VL-7B", "served/random-vl"]
    assert len(models["Noisy-VL-7B"]["files"]) == len(task_codes())    # one per task: the links, not the run folder's copies too
    gold, noisy = models["org/Gold-VL"], models["Noisy-VL-7B"]
    assert gold["all_mean"] == 100.0 and 0 < noisy["all_mean"] < 100
    for m in rep["models"]:
        for col, st in m["columns"].items():
            lo, hi = st["ci95"]
            assert lo <= st["score_pct"] <= hi, (m["name"], col)
        lo, hi = m["ci95"]["average_paper"]
        assert lo <= m["paper_average"] <= hi
    assert gold["columns"]["T1"]["ci95"] == [100.0, 100.0]              # no spread without errors
    assert rep["bootstrap"] == {"resamples": 1000, "seed": 3}
    assert "leaderboard" in out and "human" in out and "Claude Sonnet 4.5" in out
    assert len(rep["comparisons"]) == 2 and rep["comparisons"][0]["a"] == "org/Gold-VL"
    # seeded: the same intervals again; names overridden with --name
    assert eval_main(argv + ["--name", "gold", "--name", "noisy", "--name", "random", "--overwrite"]) == 0
    again = json.loads(report.read_text())
    assert [m["name"] for m in again["models"]] == ["gold", "noisy", "random"]
    assert [m["ci95"] for m in again["models"]] == [m["ci95"] for m in rep["models"]]


def test_within_noise_is_said(export_dataset: Path, tmp_path: Path, capsys) -> None:
    items = _items(export_dataset)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    flip = {it["id"] for k, it in enumerate(items) if k % 2}
    a.write_text("".join(json.dumps({"id": it["id"], "reply": it["answer"] if it["id"] in flip else "x"}) + "\n"
                         for it in items))
    b.write_text("".join(json.dumps({"id": it["id"], "reply": "x" if it["id"] in flip else it["answer"]}) + "\n"
                         for it in items))
    report = tmp_path / "r.json"
    assert eval_main(["--dataset", str(export_dataset), "--predictions", str(a), "--predictions", str(b),
                      "--out-json", str(report)]) == 0
    (cmp,) = json.loads(report.read_text())["comparisons"]
    assert cmp["within_noise"] and cmp["ci95"][0] < 0 < cmp["ci95"][1]
    assert "within noise" in capsys.readouterr().out


def test_same_model_twice_is_an_error_naming_name(export_dataset: Path, tmp_path: Path, capsys) -> None:
    items = _items(export_dataset)
    for k in (1, 2):
        (tmp_path / f"run{k}.jsonl").write_text("".join(
            json.dumps({"id": it["id"], "reply": "A", "model": "m"}) + "\n" for it in items))
    code = eval_main(["--dataset", str(export_dataset), "--predictions", str(tmp_path / "run1.jsonl"),
                      "--predictions", str(tmp_path / "run2.jsonl")])
    err = capsys.readouterr().err
    assert code == 2 and "--name" in err and err.count("\n") == 1
    assert eval_main(["--dataset", str(export_dataset), "--predictions", str(tmp_path / "run1.jsonl"),
                      "--predictions", str(tmp_path / "run2.jsonl"), "--name", "first", "--name", "second"]) == 0


@pytest.mark.parametrize("content, message", [(None, "no such file or folder"), ("folder", "no result files")])
def test_missing_or_empty_results_are_one_line(export_dataset: Path, tmp_path: Path, capsys, content, message) -> None:
    path = tmp_path / "lmms_out"
    if content:
        path.mkdir()
        (path / "notes.txt").write_text("x")
    assert eval_main(["--dataset", str(export_dataset), "--predictions", str(path)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err and err.count("\n") == 1
