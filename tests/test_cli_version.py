"""Every console script of pyproject.toml answers ``--version`` with the installed package version, and
reports bad input as one line with exit status 2 through the one shared runner (``misi_tasks._cli``)."""

from __future__ import annotations

import importlib
import tomllib
from pathlib import Path

import pytest

from misi_tasks.version import package_version

SCRIPTS = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())["project"]["scripts"]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_prints_its_name_and_version(script, capsys):
    module, _, func = SCRIPTS[script].partition(":")
    main = getattr(importlib.import_module(module), func)
    with pytest.raises(SystemExit) as exit_:
        main(["--version"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out.startswith(script) and out.endswith(package_version())


def _bad_input_argv(script: str, tmp: Path) -> list[str]:
    missing = str(tmp / "no-such-folder")
    return {
        "misi-gen": ["--input", missing, "--out", str(tmp / "out"), "--quiet"],
        "misi-eval": ["--dataset", missing, "--baseline", "oracle"],
        "misi-view": [missing, "--out", str(tmp / "site")],
        "misi-export": [missing, "--to", "jsonl", "--out", str(tmp / "export")],
        "misi-run": [missing, "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--out", str(tmp / "p.jsonl")],
        "misi-interactions": [missing],
    }[script]


@pytest.mark.parametrize("script", sorted(SCRIPTS))
def test_script_reports_bad_input_as_one_line_with_status_2(script, tmp_path, capsys):
    module, _, func = SCRIPTS[script].partition(":")
    main = getattr(importlib.import_module(module), func)
    assert main(_bad_input_argv(script, tmp_path)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"{script}: error: ") and "no-such-folder" in err[-1], err
    assert not any("Traceback" in line for line in err)


def test_the_runner_maps_errors_and_interrupts_to_exit_statuses(capsys):
    from misi_tasks._cli import EXIT_INTERRUPTED, CliError, run

    def interrupted() -> int:
        raise KeyboardInterrupt

    def failed() -> int:
        raise CliError("3 rows failed", status=1)

    def bad() -> int:
        raise ValueError("--x: must be 1")

    assert run("tool", lambda: 0) == 0
    assert run("tool", interrupted, interrupted="interrupted; rerun") == EXIT_INTERRUPTED
    assert capsys.readouterr().err == "\ntool: interrupted; rerun\n"
    assert run("tool", failed) == 1 and capsys.readouterr().err == "tool: error: 3 rows failed\n"
    assert run("tool", bad, errors=(ValueError,)) == 2 and capsys.readouterr().err == "tool: error: --x: must be 1\n"
    with pytest.raises(ValueError):  # an error the tool did not declare is a bug: it is not hidden
        run("tool", bad)
