"""The scorer imports only the spec: no generation, rendering, geometry or numba; the task specs
and the answer vocabulary themselves are pure Python (standard library and each other only)."""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from pathlib import Path

import pytest

_SRC = Path(__file__).parents[2] / "src"
_FORBIDDEN = ("numba", "misi_geom", "misi_render", "misi_tasks.tasks", "misi_tasks.engine")


@pytest.mark.parametrize("module", ["misi_tasks.eval.cli", "misi_tasks.eval.score", "misi_tasks.eval.baselines"])
def test_misi_eval_imports_no_generation_rendering_or_geometry(module):
    code = (f"import sys, {module}\n"
            f"print(' '.join(m for m in sys.modules if any(m == p or m.startswith(p + '.') for p in {_FORBIDDEN!r})))")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(_SRC), os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-c", code], check=True, env=env, capture_output=True, text=True)
    assert out.stdout.split() == []


_PURE = ("names", "taskspec", "answers", "reply_text", "metrics", "motion", "choice", "docking", "hbonds", "registry")


@pytest.mark.parametrize("name", _PURE)
def test_task_specs_and_answers_import_only_the_standard_library_and_the_spec(name):
    tree = ast.parse((_SRC / "misi_tasks" / "spec" / f"{name}.py").read_text())
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.module]
    outside = [m for m in imported if not m.startswith("misi_tasks.spec") and m.split(".")[0] not in sys.stdlib_module_names
               and m != "__future__"]
    assert not outside, outside
