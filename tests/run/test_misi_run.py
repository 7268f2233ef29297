"""``misi-run`` end to end against a loopback OpenAI-compatible server."""

from __future__ import annotations

import base64
import io
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from PIL import Image

from misi_tasks.dataset import read_items
from misi_tasks.eval.cli import main as eval_main
from misi_tasks.definitions.registry import task_names
from misi_tasks.run.cli import main as run_main

N_TASKS = len(task_names())  # the harness dataset holds every registered task
N_TEST = 3 * N_TASKS         # three test items per task (tests/run/conftest.py)


def _run(server, dataset: Path, out: Path, *extra: str) -> int:
    return run_main([str(dataset), "--base-url", server.url, "--model", "test-model", "--out", str(out),
                     "--quiet", "--backoff", "0.01", *extra])


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def _score(dataset: Path, preds: Path, tmp_path: Path) -> dict:
    out = tmp_path / "report.json"
    assert eval_main(["--dataset", str(dataset), "--predictions", str(preds), "--out-json", str(out)]) == 0
    return json.loads(out.read_text())


def test_round_trip_scores_100(fake_server, harness_dataset: Path, tmp_path: Path, capsys) -> None:
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds) == 0
    records = _lines(preds)
    test_ids = {it["id"] for it in read_items(harness_dataset, splits=["test"], images=False)}
    assert sorted(r["id"] for r in records) == sorted(test_ids)          # the test split, each id once
    for r in records:
        assert set(r) == {"id", "reply", "model", "latency_s", "usage"}
        assert r["model"] == "test-model" and r["latency_s"] >= 0
        assert r["usage"] == {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}
    report = _score(harness_dataset, preds, tmp_path)
    assert report["all_mean"] == 100.0 and report["paper_average_exact"] == 100.0
    assert all(st["missing"] == 0 for st in report["columns"].values())
    assert "score with: misi-eval" in capsys.readouterr().err


def test_request_holds_images_in_order_then_question(fake_server, harness_dataset: Path, tmp_path: Path,
                                                     monkeypatch) -> None:
    monkeypatch.setenv("MY_KEY", "sk-test-123")
    preds = tmp_path / "p.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--task", "T5", "--limit", "1", "--system-prompt", "Be brief.",
                "--max-tokens", "64", "--temperature", "0.5", "--api-key-env", "MY_KEY") == 0
    (body,) = fake_server.requests
    item = read_items(harness_dataset, tasks=["T5"], splits=["test"])[0]
    assert body["model"] == "test-model" and body["temperature"] == 0.5 and body["max_tokens"] == 64
    system, user = body["messages"]
    assert system == {"role": "system", "content": "Be brief."}
    parts = user["content"]
    assert [p["type"] for p in parts] == ["image_url"] * len(item["images"]) + ["text"]
    sent = [base64.b64decode(p["image_url"]["url"].removeprefix("data:image/png;base64,")) for p in parts[:-1]]
    assert sent == [im["bytes"] for im in item["images"]]             # same bytes, same order
    assert parts[-1]["text"] == item["question"]
    assert fake_server.headers[0]["Authorization"] == "Bearer sk-test-123"


def test_max_image_px_downscales(fake_server, harness_dataset: Path, tmp_path: Path) -> None:
    assert _run(fake_server, harness_dataset, tmp_path / "p.jsonl", "--task", "T1", "--limit", "1",
                "--max-image-px", "32") == 0
    parts = fake_server.requests[0]["messages"][-1]["content"][:-1]
    sizes = {Image.open(io.BytesIO(base64.b64decode(p["image_url"]["url"].split(",", 1)[1]))).size for p in parts}
    assert sizes == {(32, 24)}                                         # 64x48 -> longer side 32


def test_retries_on_429_500_timeouts_and_dropped_connections(fake_server, harness_dataset: Path, tmp_path: Path) -> None:
    plan = {}
    for k, q in enumerate(sorted(fake_server.truth)):
        plan[q] = ["429", "500", "drop", "slow", "answer"][k % 5]
    fake_server.behaviour = lambda q, attempt: plan[q] if attempt == 1 else "answer"
    fake_server.slow_s = 3.0
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--timeout", "1.0", "--concurrency", "4") == 0
    report = _score(harness_dataset, preds, tmp_path)
    assert report["all_mean"] == 100.0
    ids = [r["id"] for r in _lines(preds)]
    assert len(ids) == len(set(ids)) == N_TEST
    asked = {q for q in fake_server.attempts if q.startswith("Item ") and "/test/" in q}
    injected = [q for q in asked if plan[q] != "answer"]
    assert len(injected) >= 20 and all(fake_server.attempts[q] >= 2 for q in injected)  # failed, then retried


def test_rerun_resumes_without_asking_again(fake_server, harness_dataset: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--limit", "1") == 0
    first = preds.read_bytes()
    assert len(_lines(preds)) == N_TASKS                       # --limit 1: one item per task
    n_requests = len(fake_server.requests)
    assert _run(fake_server, harness_dataset, preds) == 0
    assert preds.read_bytes().startswith(first)                        # appended, never rewritten
    assert len(fake_server.requests) - n_requests == N_TEST - N_TASKS  # only the missing items were asked
    ids = [r["id"] for r in _lines(preds)]
    assert len(ids) == len(set(ids)) == N_TEST
    assert _run(fake_server, harness_dataset, preds) == 0              # nothing left: no request
    assert len(fake_server.requests) - n_requests == N_TEST - N_TASKS


def test_torn_last_line_is_dropped_and_redone(fake_server, harness_dataset: Path, tmp_path: Path) -> None:
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--limit", "1") == 0
    lines = preds.read_text().splitlines(keepends=True)
    preds.write_text("".join(lines[:-1]) + lines[-1][:25])             # a crash in the middle of a write
    assert _run(fake_server, harness_dataset, preds) == 0
    ids = [r["id"] for r in _lines(preds)]
    assert len(ids) == len(set(ids)) == N_TEST
    assert _score(harness_dataset, preds, tmp_path)["all_mean"] == 100.0


def test_failed_item_is_reported_and_retried_on_request(fake_server, harness_dataset: Path, tmp_path: Path,
                                                        capsys) -> None:
    bad = next(q for q in sorted(fake_server.truth) if "/test/" in q and q.startswith("Item docking"))
    fake_server.behaviour = lambda q, a: "400" if q == bad else "answer"
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds) == 1
    err = capsys.readouterr().err
    assert "1 failed" in err and "HTTP 400" in err and "--retry-failed" in err
    assert len(_lines(preds)) == N_TEST - 1 and fake_server.attempts[bad] == 1   # a 400 is not retried
    fake_server.behaviour = lambda q, a: "answer"
    assert _run(fake_server, harness_dataset, preds) == 1                # recorded: not asked again unasked
    assert fake_server.attempts[bad] == 1 and len(_lines(preds)) == N_TEST - 1
    assert _run(fake_server, harness_dataset, preds, "--retry-failed") == 0
    assert fake_server.attempts[bad] == 2 and len(_lines(preds)) == N_TEST
    assert _run(fake_server, harness_dataset, preds) == 0                # the answer supersedes the record


def test_image_limit_rejections_fail_their_items_and_the_run_goes_on(fake_server, harness_dataset: Path,
                                                                     tmp_path: Path, capsys) -> None:
    fake_server.max_images = 4                  # vLLM started with --limit-mm-per-prompt '{"image": 4}'
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--concurrency", "2") == 1
    err = capsys.readouterr().err
    items = read_items(harness_dataset, splits=["test"])
    big = {it["id"] for it in items if len(it["images"]) > 4}
    assert len(big) == 6 and {r["id"] for r in _lines(preds)} == {it["id"] for it in items} - big
    failed = _lines(preds.with_name("preds.jsonl.failed"))
    assert {f["id"] for f in failed} == big
    assert all(f["status"] == 400 and "At most 4 image(s)" in f["error"] and f["model"] == "test-model"
               for f in failed)                                          # the server's own reason
    assert "--limit-mm-per-prompt" in err and "6 items" in err and "stopped" not in err
    out = tmp_path / "r.json"
    assert eval_main(["--dataset", str(harness_dataset), "--predictions", str(preds), "--out-json", str(out)]) == 0
    assert "6 item(s) were rejected by the server" in capsys.readouterr().err   # misi-eval says why they are missing
    assert sum(st["missing"] for st in json.loads(out.read_text())["columns"].values()) == 6
    fake_server.max_images = 13                 # the server restarted with room for 13 images
    assert _run(fake_server, harness_dataset, preds, "--retry-failed") == 0
    assert _score(harness_dataset, preds, tmp_path)["all_mean"] == 100.0
    assert "were rejected by the server" not in capsys.readouterr().err   # all answered now: no note


def test_context_limit_on_every_item_asks_each_once_and_names_the_fixes(fake_server, harness_dataset: Path,
                                                                        tmp_path: Path, capsys) -> None:
    fake_server.behaviour = lambda q, a: "ctx"
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--concurrency", "2") == 1
    err = capsys.readouterr().err
    assert len(fake_server.requests) == N_TEST and preds.read_text() == ""  # every item asked once, none retried
    assert f"{N_TEST} failed ({N_TEST} rejected by the server)" in err and "0 not asked" in err
    for flag in ("--max-model-len", "--max-image-px", "--mm-processor-kwargs", "--retry-failed"):
        assert flag in err
    assert "maximum context length is 8192" in err


def test_body_too_large_names_the_image_size_flag(fake_server, harness_dataset: Path, tmp_path: Path, capsys) -> None:
    fake_server.behaviour = lambda q, a: "413"
    assert _run(fake_server, harness_dataset, tmp_path / "p.jsonl", "--task", "T1") == 1
    err = capsys.readouterr().err
    assert "HTTP 413" in err and "--max-image-px 768" in err and "client_max_body_size" in err


def test_exhausted_retries_stop_a_failing_run(fake_server, harness_dataset: Path, tmp_path: Path, capsys) -> None:
    fake_server.behaviour = lambda q, a: "500"
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--retries", "1", "--concurrency", "2") == 1
    err = capsys.readouterr().err
    assert "items in a row failed" in err and "HTTP 500" in err
    assert len(fake_server.requests) < 2 * N_TEST                          # stopped early, not every item tried
    assert preds.read_text() == ""


def test_refused_key_is_one_line_and_fatal(fake_server, harness_dataset: Path, tmp_path: Path, capsys) -> None:
    fake_server.behaviour = lambda q, a: "401"
    assert _run(fake_server, harness_dataset, tmp_path / "p.jsonl") == 2
    err = capsys.readouterr().err
    assert "error: the server refused the request" in err and "HTTP 401" in err and "Traceback" not in err


def test_file_of_another_model_is_not_mixed(fake_server, harness_dataset: Path, tmp_path: Path, capsys) -> None:
    preds = tmp_path / "preds.jsonl"
    assert _run(fake_server, harness_dataset, preds, "--limit", "1") == 0
    code = run_main([str(harness_dataset), "--base-url", fake_server.url, "--model", "other", "--out", str(preds),
                     "--quiet"])
    assert code == 2 and "not 'other'" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--limit", "0"], "--limit must be at least 1"),
    (["--task", "nonsense"], "nonsense"),
    (["--api-key-env", "MISI_TEST_UNSET_VAR"], "MISI_TEST_UNSET_VAR"),
])
def test_bad_arguments_are_one_line(fake_server, harness_dataset: Path, tmp_path: Path, capsys, argv, message) -> None:
    assert _run(fake_server, harness_dataset, tmp_path / "p.jsonl", *argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_ctrl_c_loses_nothing_and_resumes(fake_server, harness_dataset: Path, tmp_path: Path) -> None:
    fake_server.behaviour = lambda q, a: "slow"
    fake_server.slow_s = 0.3
    preds = tmp_path / "preds.jsonl"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[2] / "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.Popen([sys.executable, "-m", "misi_tasks.run.cli", str(harness_dataset), "--base-url",
                             fake_server.url, "--model", "test-model", "--out", str(preds), "--concurrency", "2"],
                            env=env, stderr=subprocess.PIPE, text=True,
                            # a runner started in the background may ignore SIGINT, and children inherit that
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not preds.exists() or preds.read_text().count("\n") < 3):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    saved = _lines(preds)                                              # every line whole
    assert 3 <= len(saved) < N_TEST
    fake_server.behaviour = lambda q, a: "answer"
    assert _run(fake_server, harness_dataset, preds) == 0
    ids = [r["id"] for r in _lines(preds)]
    assert len(ids) == len(set(ids)) == N_TEST
    assert _lines(preds)[:len(saved)] == saved


def test_scorer_side_imports_no_numba_rendering_or_geometry() -> None:
    code = ("import sys, misi_tasks.run.cli, misi_tasks.export.cli, misi_tasks.eval.cli, "
            "misi_tasks.eval.prediction_formats\n"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('numba', 'misi_render', 'misi_geom')]\n"
            "assert not bad, bad\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[2] / "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    subprocess.run([sys.executable, "-c", code], check=True, env=env)
