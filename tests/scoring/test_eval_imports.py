"""The scorer imports only the declarations and the dataset reader: no generation, rendering,
geometry or numba.  (That the declarations load the standard library only is checked in
``tests/test_architecture.py``.)"""

from __future__ import annotations

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
