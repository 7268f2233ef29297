"""Every console script of pyproject.toml answers ``--version`` with the installed package version."""

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
