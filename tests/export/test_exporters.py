"""Each exporter's output, loaded the way its tool loads it, and fed back to misi-eval.

VLMEvalKit, lmms-eval and LLaMA-Factory are too heavy to install for a test (torch, model code),
so each test repeats the tool's documented loading steps with the libraries the tool itself uses:
VLMEvalKit: ``pd.read_csv(sep="\\t")``, its dataset-class choice (``A``/``B`` columns -> MCQ) and
``toliststr``/base64 image decoding; lmms-eval: its YAML loader (``!function`` resolved against the
``utils.py`` beside the YAML) and ``datasets.load_dataset(path, name, **dataset_kwargs)``;
LLaMA-Factory: ``dataset_info.json`` -> ``datasets.load_dataset("json")`` and its sharegpt checks
(alternating user/assistant turns, one ``<image>`` per image, paths relative to the data folder).
"""

from __future__ import annotations

import ast
import base64
import importlib.util
import io
import json
import os
from pathlib import Path

import pytest
from PIL import Image

from misi_tasks.dataset import read_items
from misi_tasks.eval.cli import main as eval_main
from misi_tasks.export.cli import main as export_main
from misi_tasks.export.prompt import build_prompt, chat_messages
from misi_tasks.definitions.registry import MC_TASKS, TASK_CODES, TASK_NAMES

pd = pytest.importorskip("pandas")
datasets = pytest.importorskip("datasets")
yaml = pytest.importorskip("yaml")


def _export(dataset: Path, out: Path, fmt: str, *extra: str) -> None:
    assert export_main([str(dataset), "--to", fmt, "--out", str(out), "--quiet", *extra]) == 0


def _score(dataset: Path, tmp_path: Path, *preds: Path, split: str = "test") -> dict:
    report = tmp_path / "report.json"
    assert eval_main(["--dataset", str(dataset), "--split", split, "--predictions", *map(str, preds),
                      "--out-json", str(report)]) == 0
    return json.loads(report.read_text())


def _pixels(png: bytes) -> bytes:
    return Image.open(io.BytesIO(png)).convert("RGB").tobytes()


# ----------------------------------------------------------------------------- VLMEvalKit
def _toliststr(s):  # vlmeval.smp.misc.toliststr
    if isinstance(s, str) and s[0] == "[" and s[-1] == "]":
        return [str(x) for x in ast.literal_eval(s)]
    return [str(s)]


def test_vlmevalkit_tsv_loads_as_custom_datasets_and_round_trips(export_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "LMUData"
    _export(export_dataset, out, "vlmevalkit")
    items = {it["id"]: it for it in read_items(export_dataset, splits=["test"])}
    results = []
    for task in TASK_NAMES:
        path = out / f"MiSI_{TASK_CODES[task]}_test.tsv"
        data = pd.read_csv(path, sep="\t")                            # vlmeval.smp.file.load for .tsv
        # build_dataset: a custom TSV with A and B columns and images is a CustomMCQDataset, else VQA
        assert ("A" in data and "B" in data) == (task in MC_TASKS)
        assert "question" in [c.lower() for c in data.columns] and "image" in data
        assert list(data["category"].unique()) == [task]
        for _, line in data.iterrows():
            item = items[line["misi_id"]]
            images, names = _toliststr(line["image"]), _toliststr(line["image_path"])
            assert len(images) == len(names) == len(item["images"]) and len(set(names)) == len(names)
            assert [_pixels(base64.b64decode(b)) for b in images] == [_pixels(im["bytes"]) for im in item["images"]]
            assert line["answer"] == item["answer"]
            if task in MC_TASKS:
                options = [line[c] for c in "ABCD"]
                assert all(isinstance(o, str) and o for o in options)   # never empty
                assert "A. " not in line["question"]                    # VLMEvalKit prints the options itself
                if task in ("translation-rotation", "rotation-rotation"):  # T5/T6's image options name their image
                    assert options[1] == f"the image labelled option B (image {item['image_roles'].index('option B') + 1})"
            else:
                assert line["question"] == item["question"]           # VQA prompt = misi's prompt
        # what VLMEvalKit's inference writes: the data less the image column, plus 'prediction'
        data["prediction"] = data["answer"]
        result = tmp_path / f"model_MiSI_{TASK_CODES[task]}_test.xlsx"
        data.drop(columns=["image"]).to_excel(result, index=False)
        results.append(result)
    rep = _score(export_dataset, tmp_path, *results)
    assert rep["all_mean"] == 100.0 and all(st["missing"] == 0 for st in rep["columns"].values())


def test_vlmevalkit_tsv_result_is_read_too(export_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "LMUData"
    _export(export_dataset, out, "vlmevalkit", "--task", "T1")
    data = pd.read_csv(out / "MiSI_T1_test.tsv", sep="\t")
    data["prediction"] = ["move x 3\twith a tab", "move y -2", "nonsense"]
    data.drop(columns=["image"]).to_csv(tmp_path / "r.tsv", sep="\t", index=False)
    rep = _score(export_dataset, tmp_path, tmp_path / "r.tsv")
    assert rep["columns"]["T1"]["items"] == 3 and rep["columns"]["T1"]["unparseable"] == 1


# ----------------------------------------------------------------------------- lmms-eval
def _load_lmms_yaml(path: Path) -> dict:
    """lmms_eval.utils.load_yaml_config(mode="full"): ``!function`` imports from the YAML's folder."""
    def import_function(loader, node):
        *module_name, function_name = loader.construct_scalar(node).split(".")
        module_path = os.path.join(os.path.dirname(loader.name), f"{'.'.join(module_name)}.py")
        spec = importlib.util.spec_from_file_location(".".join(module_name), module_path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return getattr(module, function_name)

    class Loader(yaml.FullLoader):
        pass

    Loader.add_constructor("!function", import_function)
    with open(path, "rb") as fh:
        loader = Loader(fh)
        loader.name = str(path)
        try:
            return loader.get_single_data()
        finally:
            loader.dispose()


def test_lmms_eval_task_folder_loads_and_scores(export_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    _export(export_dataset, out, "lmms-eval")
    group = _load_lmms_yaml(out / "_misi.yaml")
    assert group["group"] == "misi" and len(group["task"]) == len(TASK_NAMES)  # every task of the dataset
    items = {it["id"]: it for it in read_items(export_dataset, splits=["test"])}
    log_files = []
    for name in group["task"]:
        cfg = _load_lmms_yaml(out / f"{name}.yaml")
        assert cfg["task"] == name and cfg["output_type"] == "generate_until"
        # lmms_eval.api.task.ConfigurableTask.download
        ds = datasets.load_dataset(path=cfg["dataset_path"], name=cfg.get("dataset_name"),
                                   cache_dir=str(tmp_path / "hf"), **cfg["dataset_kwargs"])
        docs = ds[cfg["test_split"]]
        assert len(docs) == 3
        metrics = {m["metric"]: m["aggregation"] for m in cfg["metric_list"]}
        per_metric = {m: [] for m in metrics}
        lines = []
        for doc_id, doc in enumerate(docs):
            item = items[doc["id"]]
            visuals = cfg["doc_to_visual"](doc)
            assert [v.tobytes() for v in visuals] == [_pixels(im["bytes"]) for im in item["images"]]
            assert cfg["doc_to_text"](doc) == build_prompt(item).text
            assert doc[cfg["doc_to_target"]] == item["answer"]
            res = cfg["process_results"](doc, [item["answer"]])
            for m, v in res.items():
                per_metric[m].append(v)
            # a --log_samples record: the doc without its images, the responses and the metric records
            lines.append(json.dumps({"doc_id": doc_id, "doc": {k: v for k, v in doc.items() if k != "images"},
                                     "target": doc["answer"], "resps": [[item["answer"]]],
                                     "filtered_resps": [item["answer"]], **res}))
        assert {m: metrics[m](v) for m, v in per_metric.items()} == {"misi_score": 100.0, "misi_exact": 100.0}
        log = tmp_path / f"samples_{name}.jsonl"
        log.write_text("\n".join(lines) + "\n")
        log_files.append(log)
    rep = _score(export_dataset, tmp_path, *log_files)
    assert rep["all_mean"] == 100.0 and all(st["missing"] == 0 for st in rep["columns"].values())


def test_lmms_eval_wrong_reply_scores_zero(export_dataset: Path, tmp_path: Path) -> None:
    out = tmp_path / "tasks"
    _export(export_dataset, out, "lmms-eval", "--task", "T2")
    cfg = _load_lmms_yaml(out / "misi_t2_rotation.yaml")
    doc = datasets.load_dataset(path=cfg["dataset_path"], cache_dir=str(tmp_path / "hf"),
                                **cfg["dataset_kwargs"])[cfg["test_split"]][0]
    res = cfg["process_results"](doc, ["I cannot tell"])
    assert res["misi_score"]["score"] == 0.0 and res["misi_score"]["status"] == "unparseable"


# ----------------------------------------------------------------------------- LLaMA-Factory
def test_llamafactory_sharegpt_dataset(export_dataset: Path, tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    (data_dir / "dataset_info.json").write_text(json.dumps({"alpaca_en_demo": {"file_name": "alpaca_en_demo.json"}}))
    _export(export_dataset, data_dir, "llamafactory", "--system-prompt", "You are a structural biologist.")
    info = json.loads((data_dir / "dataset_info.json").read_text())
    assert "alpaca_en_demo" in info                                    # merged, not replaced
    attr = info["misi_train"]
    assert attr["formatting"] == "sharegpt" and attr["columns"]["images"] == "images"
    tags = attr["tags"]
    ds = datasets.load_dataset("json", data_files=str(data_dir / attr["file_name"]), split="train",
                               cache_dir=str(tmp_path / "hf"))
    train = {it["answer"] + "|" + it["question"]: it for it in read_items(export_dataset, splits=["train"])}
    assert len(ds) == len(train) == 2 * len(TASK_NAMES)  # two train items of every registered task
    for row in ds:
        msgs = row[attr["columns"]["messages"]]
        assert [m[tags["role_tag"]] for m in msgs] == [tags["user_tag"], tags["assistant_tag"]]
        user, answer = msgs[0][tags["content_tag"]], msgs[1][tags["content_tag"]]
        images = row[attr["columns"]["images"]]
        assert user.count("<image>") == len(images)                   # mm_plugin's check
        item = train[answer + "|" + user.replace("<image>", "")]
        assert user == "<image>" * len(item["images"]) + item["question"]
        assert [_pixels((data_dir / p).read_bytes()) for p in images] == [_pixels(im["bytes"]) for im in item["images"]]
        assert row[attr["columns"]["system"]] == "You are a structural biologist."


# ----------------------------------------------------------------------------- jsonl and OpenAI Batch
def test_jsonl_export(export_dataset: Path, tmp_path: Path) -> None:
    _export(export_dataset, tmp_path / "j", "jsonl", "--max-image-px", "32")
    records = [json.loads(line) for line in (tmp_path / "j" / "items.jsonl").read_text().splitlines()]
    items = {it["id"]: it for it in read_items(export_dataset)}
    assert sorted(r["id"] for r in records) == sorted(items)            # default split: all
    for r in records:
        item = items[r["id"]]
        assert r["prompt"] == item["question"] and r["answer"] == item["answer"]
        assert r["metadata"] == json.loads(item["metadata"]) and r["image_roles"] == item["image_roles"]
        assert {Image.open(tmp_path / "j" / p).size for p in r["images"]} == {(32, 24)}


def test_openai_batch_round_trip(export_dataset: Path, tmp_path: Path) -> None:
    _export(export_dataset, tmp_path / "b", "openai-batch", "--model", "gpt-x", "--task", "T7,T8")
    assert sorted(p.name for p in (tmp_path / "b").iterdir()) == ["requests-00001.jsonl"]
    requests = [json.loads(line) for line in (tmp_path / "b" / "requests-00001.jsonl").read_text().splitlines()]
    items = {it["id"]: it for it in read_items(export_dataset, tasks=["T7", "T8"], splits=["test"])}
    assert sorted(r["custom_id"] for r in requests) == sorted(items)
    out = []
    for r in requests:
        assert r["method"] == "POST" and r["url"] == "/v1/chat/completions" and r["body"]["model"] == "gpt-x"
        assert r["body"]["messages"] == chat_messages(build_prompt(items[r["custom_id"]]))   # what misi-run sends
        out.append({"id": "batch_req_1", "custom_id": r["custom_id"], "error": None,
                    "response": {"status_code": 200, "request_id": "x", "body": {
                        "choices": [{"index": 0, "message": {"role": "assistant",
                                                             "content": items[r["custom_id"]]["answer"]}}]}}})
    out[0] = {"id": "batch_req_0", "custom_id": out[0]["custom_id"], "response": None,
              "error": {"code": "server_error", "message": "failed"}}
    (tmp_path / "batch_out.jsonl").write_text("".join(json.dumps(o) + "\n" for o in out))
    rep = _score(export_dataset, tmp_path, tmp_path / "batch_out.jsonl")
    cols = {c: rep["columns"][c] for c in ("T7", "T8")}
    assert sum(st["missing"] for st in cols.values()) == 1              # the failed request
    assert sum(st["exact_pct"] * st["items"] for st in cols.values()) / 100 == 5


def test_openai_batch_splits_into_parts_under_the_limits(export_dataset: Path, tmp_path: Path, capsys) -> None:
    whole = tmp_path / "whole"
    _export(export_dataset, whole, "openai-batch", "--task", "T1,T5")
    one = (whole / "requests-00001.jsonl").read_bytes()
    sizes = sorted(len(line) + 1 for line in one.splitlines())
    cap = sizes[-1] + sizes[0]                  # room for the largest request plus a little
    parts = tmp_path / "parts"
    _export(export_dataset, parts, "openai-batch", "--task", "T1,T5", "--batch-max-mb", str(cap / 1e6))
    names = sorted(p.name for p in parts.iterdir())
    assert len(names) > 2 and names == [f"requests-{k:05d}.jsonl" for k in range(1, len(names) + 1)]
    datas = [(parts / n).read_bytes() for n in names]
    assert all(0 < len(d) <= cap for d in datas)
    assert b"".join(datas) == one                                   # same requests, same order, none lost
    counted = tmp_path / "counted"
    _export(export_dataset, counted, "openai-batch", "--task", "T1,T5", "--batch-max-requests", "4")
    lines = [len((counted / n).read_text().splitlines()) for n in sorted(p.name for p in counted.iterdir())]
    assert lines[:-1] == [4] * (len(lines) - 1) and 0 < lines[-1] <= 4 and sum(lines) == len(sizes)
    # a rerun with --overwrite replaces every old part, even when it writes fewer
    _export(export_dataset, parts, "openai-batch", "--task", "T1,T5", "--overwrite")
    assert sorted(p.name for p in parts.iterdir()) == ["requests-00001.jsonl"]
    # one request over the cap names its item and the fix
    assert export_main([str(export_dataset), "--to", "openai-batch", "--out", str(tmp_path / "tiny"), "--quiet",
                        "--task", "T5", "--batch-max-mb", str(sizes[0] / 2e6)]) == 2
    err = capsys.readouterr().err
    assert "translation-rotation/test/" in err and "--max-image-px" in err


# ----------------------------------------------------------------------------- the output folder
def test_existing_export_is_refused_then_replaced(export_dataset: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "j"
    _export(export_dataset, out, "jsonl", "--task", "T1")
    (out / "notes.txt").write_text("mine")
    assert export_main([str(export_dataset), "--to", "jsonl", "--out", str(out), "--task", "T2"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    _export(export_dataset, out, "jsonl", "--task", "T2", "--overwrite")
    ids = [json.loads(line)["id"] for line in (out / "items.jsonl").read_text().splitlines()]
    assert {i.split("/")[0] for i in ids} == {"rotation"}
    assert not (out / "images" / "translation").exists()               # the old export's images are gone
    assert (out / "notes.txt").read_text() == "mine"                    # the user's file is untouched


def test_out_is_a_file(export_dataset: Path, tmp_path: Path, capsys) -> None:
    (tmp_path / "f").write_text("x")
    assert export_main([str(export_dataset), "--to", "jsonl", "--out", str(tmp_path / "f")]) == 2
    err = capsys.readouterr().err
    assert "not a folder" in err and err.count("\n") == 1


def test_vlmevalkit_image_names_change_with_the_images(export_dataset: Path, tmp_path: Path) -> None:
    # VLMEvalKit reuses an image file that already exists under $LMUData/images/<dataset>/
    out = tmp_path / "LMUData"
    _export(export_dataset, out, "vlmevalkit", "--task", "T3")
    before = pd.read_csv(out / "MiSI_T3_test.tsv", sep="\t")["image_path"].map(_toliststr).sum()
    _export(export_dataset, out, "vlmevalkit", "--task", "T3", "--max-image-px", "32", "--overwrite")
    after = pd.read_csv(out / "MiSI_T3_test.tsv", sep="\t")["image_path"].map(_toliststr).sum()
    assert len(before) == len(after) == 12 and not set(before) & set(after)
