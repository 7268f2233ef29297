"""Integration: ``misi-gen`` output scored by ``misi-eval`` (oracle 100, random parseable).

The quick test generates T1 and T2 for one bundled complex at 64 px (a few seconds once numba's
cache is warm). The full test covers every registered generator on two complexes; it takes
about half a minute, so it runs only with ``MISI_RUN_SLOW=1``.
"""

from __future__ import annotations

import importlib.util
import json
import os
from pathlib import Path

import pytest

from misi_tasks.dataset import read_items
from misi_tasks.eval.cli import main as eval_main

pytestmark = pytest.mark.skipif(importlib.util.find_spec("misi_tasks.engine.cli") is None,
                                reason="misi-gen (misi_tasks.engine.cli) does not exist yet")


def _generate(out: Path, tasks: str, limit: int) -> None:
    from misi_tasks.engine.cli import main as gen_main

    code = gen_main(["--task", tasks, "--out", str(out), "--limit", str(limit), "--size", "64",
                     "--workers", "1", "--split", "test", "--quiet"])
    assert code == 0


def _check(capsys, out: Path) -> None:
    assert (out / "README.md").read_text().startswith("---\nconfigs:\n")
    items = read_items(out, images=False)
    assert items, "the generator wrote no items"
    report = out / "oracle.json"
    assert eval_main(["--dataset", str(out), "--baseline", "oracle", "--out-json", str(report)]) == 0
    columns = json.loads(report.read_text())["columns"]
    assert sum(c["items"] for c in columns.values()) == len(items)
    for name, col in columns.items():
        assert (col["score_pct"], col["exact_pct"]) == (100.0, 100.0), name
    assert eval_main(["--dataset", str(out), "--baseline", "random", "--out-json", str(report), "--overwrite"]) == 0
    assert all(c["unparseable"] == 0 for c in json.loads(report.read_text())["columns"].values())
    capsys.readouterr()


def test_oracle_on_generated_translation_and_rotation(capsys, tmp_path: Path) -> None:
    _generate(tmp_path, "T1,T2", limit=1)
    _check(capsys, tmp_path)


@pytest.mark.slow
@pytest.mark.skipif(not os.environ.get("MISI_RUN_SLOW"), reason="set MISI_RUN_SLOW=1 to run")
def test_oracle_on_every_generated_task(capsys, tmp_path: Path) -> None:
    import misi_tasks.tasks  # noqa: F401  (registers the generators)
    from misi_tasks.tasks.base import GENERATORS

    _generate(tmp_path, ",".join(sorted(GENERATORS)), limit=2)
    _check(capsys, tmp_path)
