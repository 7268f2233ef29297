"""A task declared once is a task everywhere: a toy task, defined only in this test (one spec and
one generator), goes through misi-gen, misi-eval (report, JSON, chart, HTML), misi-view and
misi-export with no edit anywhere else, and gets its own report column, pages and files.

The toy: image 2 is image 1 after the complex moved 1 Å along x or y; the answer is the move
(``move y -1``), scored by the base spec's exact match.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("matplotlib")  # the report's chart and HTML need the viz extra (in the test extra)

TOY = "toy-nudge"
CODE = "Y1"  # after the interaction suite (X1, X3) in code order


@pytest.fixture
def toy_task():
    """Declare the toy spec and generator; remove them from the registries afterwards, so the other
    tests see the paper's nine only."""
    from misi_tasks.definitions.answers import Move
    from misi_tasks.definitions.registry import SPECS
    from misi_tasks.definitions.taskspec import TaskSpec
    from misi_tasks.tasks.base import GENERATORS, TaskGenerator
    from misi_tasks.tasks.commands import command_motion

    @dataclass(frozen=True)
    class ToySpec(TaskSpec):
        name = TOY
        code = CODE
        summary = "Which way did the complex move by 1 Å?"
        counts = {"train": 1, "test": 1}
        answer = Move

        def ask(self, **fields: Any) -> str:
            return "Image 2 is image 1 after the complex moved 1 Å along x or y. Which move was it?"

        def answer_format(self) -> tuple[str, list[str]]:
            return "move <x|y> <d>", ["move x 1", "move y -1"]

        def random_reply(self, rng: random.Random) -> str:
            return str(Move(rng.choice("xy"), rng.choice((-1, 1))))

    class ToyGenerator(TaskGenerator):
        spec_class = ToySpec

        def image_descriptions(self, **fields: Any) -> list[str]:
            return ["front view", "the front view after the move"]

        def make_items(self, scene, ctx, rng: np.random.Generator):
            cmd = Move("xy"[int(rng.integers(2))], int(rng.choice((-1, 1))))
            (before,) = scene.base_views(("front",))
            (after,) = scene.render(["front"], frame=scene.frame_for(), motion=command_motion(cmd, center=np.zeros(3)))
            question = self.prompt(pdb_id=scene.pdb_id, **scene.label_fields())
            item = self.new_item(scene, ctx, 0, question=question, images=scene.pngs([before]) + [scene.png(after)],
                                 image_roles=["front", "front after"], answer=str(cmd),
                                 metadata={"command": cmd.to_dict()})
            return [item]

    yield ToySpec
    SPECS.pop(TOY, None)
    GENERATORS.pop(TOY, None)


def test_a_toy_task_runs_through_every_tool(toy_task, tmp_path: Path, capsys) -> None:
    from misi_tasks.dataset import read_items
    from misi_tasks.definitions.registry import paper_average_columns, paper_tasks, report_columns, task_code
    from misi_tasks.engine.cli import main as gen_main
    from misi_tasks.eval.cli import main as eval_main
    from misi_tasks.export.cli import main as export_main
    from misi_tasks.view.cli import main as view_main

    # derived from the registered specs: a column, a code, not in the paper's set or average
    assert task_code(TOY) == CODE and report_columns()[-1] == CODE
    assert TOY not in paper_tasks() and CODE not in paper_average_columns()

    out = tmp_path / "bench"
    assert gen_main(["--task", CODE, "--out", str(out), "--split", "test", "--workers", "1", "--quiet"]) == 0
    items = read_items(out)
    assert items and {it["task"] for it in items} == {TOY} and {it["task_code"] for it in items} == {CODE}
    assert all(len(it["images"]) == 2 and it["answer"].startswith("move ") for it in items)
    assert all("image 2: the front view after the move" in it["question"] for it in items)  # the base's scaffold
    card = (out / "README.md").read_text()
    assert f"config_name: {TOY}" in card and f"| {TOY} | {CODE} | test |" in card

    # misi-eval: the oracle scores 100 in the toy's own column, in the table, JSON, chart and HTML
    report = tmp_path / "report.json"
    assert eval_main(["--dataset", str(out), "--baseline", "oracle", "--reference", "--out-json", str(report),
                      "--plot", str(tmp_path / "report.png"), "--html", str(tmp_path / "report.html")]) == 0
    table = capsys.readouterr().out
    assert any(line.split()[:2] == [CODE, str(len(items))] for line in table.splitlines()), table
    assert "all-task mean (1 columns)" in table
    columns = json.loads(report.read_text())["columns"]
    assert list(columns) == [CODE] and columns[CODE]["score_pct"] == 100.0
    html = (tmp_path / "report.html").read_text()
    assert f"<th>{CODE}</th>" in html
    assert (tmp_path / "report.png").read_bytes().startswith(b"\x89PNG")

    # misi-view: an index card and a page per item
    site = tmp_path / "site"
    assert view_main([str(out), "--out", str(site)]) == 0
    assert CODE in (site / "index.html").read_text()
    pages = sorted((site / TOY).glob("*.html"))
    assert len(pages) == len(items) + 1  # the task's page and one per item

    # misi-export: the toy's own files
    exp = tmp_path / "vlmeval"
    assert export_main([str(out), "--to", "vlmevalkit", "--out", str(exp), "--quiet"]) == 0
    assert (exp / f"MiSI_{CODE}_test.tsv").is_file()
    jsonl = tmp_path / "jsonl"
    assert export_main([str(out), "--to", "jsonl", "--out", str(jsonl), "--quiet"]) == 0
    rows = [json.loads(line) for line in (jsonl / "items.jsonl").read_text().splitlines()]
    assert {r["task"] for r in rows} == {TOY} and len(rows) == len(items)
