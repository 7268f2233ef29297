"""The lmms-eval task folder stands alone: it runs with misi absent and scores as ``misi-eval`` does.

A fresh interpreter blocks every ``misi_*`` import (as an environment holding only lmms-eval's own
dependencies would), loads ``utils.py`` the way lmms-eval resolves ``!function utils.<name>``
(``importlib.util.spec_from_file_location`` on the file beside the YAML), loads the documents with
``datasets.load_dataset`` from the exported YAML's ``dataset_kwargs`` and scores several replies per
document. Every record must equal misi's own scorer on the same reply.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from misi_tasks.eval.baselines import baseline_predictions
from misi_tasks.eval.score import score_item
from misi_tasks.export.cli import main as export_main
from misi_tasks.export.prompt import prompt_text
from misi_tasks.dataset import read_items

pytest.importorskip("datasets")
pytest.importorskip("yaml")

_CHILD = r'''
import importlib.abc, importlib.util, json, sys

class NoMisi(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("misi_tasks", "misi_geom", "misi_render", "misi"):
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: misi is not installed here)")
        return None

sys.meta_path.insert(0, NoMisi())
folder, cache, replies_path = sys.argv[1:4]
import yaml, datasets

spec = importlib.util.spec_from_file_location("utils", f"{folder}/utils.py")
utils = importlib.util.module_from_spec(spec)
spec.loader.exec_module(utils)
replies = json.load(open(replies_path))
out = {}
for name in json.load(open(f"{folder}/tasks.json")):
    cfg = yaml.load(open(f"{folder}/{name}.yaml").read().replace("!function ", ""), Loader=yaml.SafeLoader)
    docs = datasets.load_dataset(path=cfg["dataset_path"], cache_dir=cache, **cfg["dataset_kwargs"])[cfg["test_split"]]
    for doc in docs:
        visuals = utils.misi_doc_to_visual(doc)
        text = utils.misi_doc_to_text(doc)
        scored = [utils.misi_process_results(doc, [r]) for r in replies[doc["id"]]]
        out[doc["id"]] = {"n_visuals": len(visuals), "text": text, "scored": scored}
out["_misi_loaded"] = sorted(m for m in sys.modules if m.split(".")[0] in ("misi_tasks", "misi_geom", "misi_render"))
print(json.dumps(out))
'''


def _replies(item: dict, random_reply: str) -> list[str | None]:
    """Gold, reasoned, random, wrong-form, empty and missing replies for one item."""
    answer = item["answer"]
    return [answer, f"Let me look at the images first.\n\nFinal answer: {answer}", random_reply,
            "I cannot tell from these images.", "", None]


def test_export_scores_like_misi_eval_without_misi(export_dataset: Path, tmp_path: Path) -> None:
    folder = tmp_path / "tasks"
    assert export_main([str(export_dataset), "--to", "lmms-eval", "--out", str(folder), "--quiet"]) == 0
    names = sorted(p.stem for p in folder.glob("misi_*.yaml"))        # one per task (misi_t1_..., misi_x1_...)
    (folder / "tasks.json").write_text(json.dumps(names))
    items = {it["id"]: it for it in read_items(export_dataset, splits=["test"], images=False)}
    rand = baseline_predictions(list(items.values()), "random", seed=5)
    replies = {i: _replies(it, rand[i]) for i, it in items.items()}
    (tmp_path / "replies.json").write_text(json.dumps(replies))
    proc = subprocess.run([sys.executable, "-c", _CHILD, str(folder), str(tmp_path / "hf"), str(tmp_path / "replies.json")],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = json.loads(proc.stdout.splitlines()[-1])
    assert got.pop("_misi_loaded") == []                               # misi was never imported
    assert sorted(got) == sorted(items)
    full = {it["id"]: it for it in read_items(export_dataset, splits=["test"])}
    compared = 0
    for item_id, rec in got.items():
        item = items[item_id]
        assert rec["text"] == prompt_text(item) and rec["n_visuals"] == len(full[item_id]["images"])
        for reply, scored in zip(replies[item_id], rec["scored"]):
            s = score_item(item, reply)
            expected = {"id": s.id, "task": s.task, "column": s.column, "status": s.status}
            assert scored == {"misi_score": dict(expected, score=s.score),
                              "misi_exact": dict(expected, score=float(s.exact))}, (item_id, reply)
            compared += 1
    assert compared == 6 * len(items)                                   # six replies to every test item
    statuses = {sc["misi_score"]["status"] for rec in got.values() for sc in rec["scored"]}
    assert {"ok", "unparseable"} <= statuses                             # both paths exercised


def test_vendored_copy_is_replaced_with_the_export(export_dataset: Path, tmp_path: Path, capsys) -> None:
    folder = tmp_path / "tasks"
    assert export_main([str(export_dataset), "--to", "lmms-eval", "--out", str(folder), "--quiet"]) == 0
    stale = folder / "misi_lmms_scorer" / "stale.py"
    stale.write_text("x = 1\n")
    assert export_main([str(export_dataset), "--to", "lmms-eval", "--out", str(folder), "--quiet"]) == 2
    assert "--overwrite" in capsys.readouterr().err
    assert export_main([str(export_dataset), "--to", "lmms-eval", "--out", str(folder), "--quiet", "--overwrite"]) == 0
    assert not stale.exists() and (folder / "misi_lmms_scorer" / "eval" / "score.py").is_file()
