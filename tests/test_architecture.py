"""The layering the folders promise holds in the imports.

* Dependencies flow one way: ``misi_tasks`` -> ``misi_render`` -> ``misi_geom``.
* Inside ``misi_tasks`` the sub-packages form a DAG: ``spec`` <- ``tasks`` <- ``engine``; the scorer
  (``eval``) and the tools built on datasets (``run``, ``export``, ``view``) never import the
  engine, the generators, the renderer or the geometry.
* No import cycle between modules, counting imports inside functions too (a function-local import
  is how a cycle is usually hidden).
* ``misi-eval`` really runs without numba: checked in a fresh interpreter.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGES = ("misi_geom", "misi_render", "misi_tasks")


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(path: Path, name: str) -> set[str]:
    """Every misi module ``path`` imports, at module level or inside functions."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            found.add(mod)
            found.update(f"{mod}.{a.name}" for a in node.names)  # `from pkg import module`
    return {m for m in found if m.split(".")[0] in PACKAGES}


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for pkg in PACKAGES for p in (SRC / pkg).rglob("*.py")}
    edges: dict[str, set[str]] = {}
    for name, path in modules.items():
        targets = set()
        for m in _imports(path, name):
            while m and m not in modules:  # `from pkg.mod import func` -> pkg.mod
                m = m.rpartition(".")[0]
            if m and m != name:
                targets.add(m)
        edges[name] = targets
    return edges


def _layer(module: str) -> str:
    parts = module.split(".")
    if parts[0] != "misi_tasks" or len(parts) == 1:
        return parts[0]
    return f"misi_tasks.{parts[1]}"


def test_no_import_cycle_between_modules(graph):
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            # a package's __init__ importing its own submodules is how packages export names
            if n.startswith(m + "."):
                continue
            if state.get(n) == 1:
                cycle = stack[stack.index(n):] + [n]
                pytest.fail("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


#: What each layer may import (besides itself).  Private helpers at the top of misi_tasks
#: (``_atomic``, ``_mpl``, ``version``) are standard-library-only and allowed everywhere.
ALLOWED = {
    "misi_geom": set(),
    "misi_render": {"misi_geom"},
    "misi_tasks.spec": set(),
    "misi_tasks.eval": {"misi_tasks.spec"},
    "misi_tasks.run": {"misi_tasks.spec", "misi_tasks.eval", "misi_tasks.export"},  # one prompt builder
    "misi_tasks.export": {"misi_tasks.spec", "misi_tasks.eval"},
    "misi_tasks.view": {"misi_tasks.spec", "misi_tasks.eval"},
    "misi_tasks.inputs": {"misi_geom", "misi_tasks.tasks"},
    "misi_tasks.tasks": {"misi_geom", "misi_render", "misi_tasks.spec"},
    # the audit re-derives answers without the generator's code: structures via misi_geom's loaders only
    "misi_tasks.audit": {"misi_geom", "misi_tasks.inputs"},
    "misi_tasks.engine": {"misi_geom", "misi_render", "misi_tasks.spec", "misi_tasks.tasks",
                          "misi_tasks.inputs", "misi_tasks.eval", "misi_tasks.view", "misi_tasks.audit"},
}
SHARED = {"misi_tasks._atomic", "misi_tasks._mpl", "misi_tasks.version", "misi_tasks"}


def test_layers_import_only_what_they_may(graph):
    wrong = []
    for m, targets in sorted(graph.items()):
        layer = _layer(m)
        if layer not in ALLOWED:
            continue
        for t in sorted(targets):
            tl = _layer(t)
            if tl == layer or t in SHARED or tl in ALLOWED[layer]:
                continue
            wrong.append(f"{m} imports {t}")
    assert not wrong, "layering broken:\n" + "\n".join(wrong)


def test_the_layer_table_covers_every_sub_package(graph):
    layers = {_layer(m) for m in graph} - SHARED
    assert layers <= set(ALLOWED), f"new sub-package(s) without a layering rule: {layers - set(ALLOWED)}"


def test_misi_eval_runs_without_numba_rendering_or_geometry():
    code = (
        "import sys, contextlib, io\n"
        "from misi_tasks.eval.cli import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    try:\n"
        "        main(['--help'])\n"
        "    except SystemExit:\n"
        "        pass\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('numba', 'misi_render', 'misi_geom', 'rdkit',"
        " 'gemmi') or m.startswith(('misi_tasks.engine', 'misi_tasks.tasks')))\n"
        "print(','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""
