"""misi-eval and misi-export against hostile files: a ``.json`` nested
100,000 deep is one line, not a RecursionError; an existing output file (a dataset's card) is never
replaced without ``--overwrite``; an export into the dataset folder is refused likewise."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from misi_tasks.eval.cli import main as eval_main
from misi_tasks.export.cli import main as export_main


def test_a_json_file_nested_100000_deep_is_one_line(capsys, small_dataset: Path, tmp_path: Path):
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert eval_main(["--dataset", str(small_dataset), "--predictions", str(deep)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "deep.json:1" in err and "nested too deeply" in err


@pytest.mark.parametrize("option", ["--out-json", "--out-csv", "--out-items", "--html"])
def test_an_existing_output_file_is_refused_unless_overwrite(capsys, small_dataset: Path, tmp_path: Path, option):
    card = tmp_path / "README.md"
    card.write_text("---\nconfigs: []\n---\n# my dataset card\n")
    argv = ["--dataset", str(small_dataset), "--baseline", "oracle", option, str(card)]
    assert eval_main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{option} {card}: exists" in err and "--overwrite" in err
    assert card.read_text().endswith("# my dataset card\n")
    if option == "--html":
        pytest.importorskip("matplotlib", reason="--html needs the misi[viz] extra")
    assert eval_main([*argv, "--overwrite"]) == 0
    assert "my dataset card" not in card.read_text()


def test_an_export_inside_the_dataset_folder_is_refused_unless_overwrite(capsys, small_dataset: Path, tmp_path):
    before = sorted(p.relative_to(small_dataset) for p in small_dataset.rglob("*"))
    for out in (small_dataset / "export", small_dataset):
        code = export_main([str(small_dataset), "--to", "jsonl", "--out", str(out), "--quiet"])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and "is inside the dataset" in err
    assert sorted(p.relative_to(small_dataset) for p in small_dataset.rglob("*")) == before
    assert export_main([str(small_dataset), "--to", "jsonl", "--out", str(tmp_path / "x"), "--quiet"]) == 0
    (first, *_) = sorted((tmp_path / "x").glob("*.jsonl"))
    assert json.loads(first.read_text().splitlines()[0])["id"]
