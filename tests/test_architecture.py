"""The layering ``docs/architecture.md`` states holds in the imports.

* The layer tables of ``docs/architecture.md`` are the rules: each module imports only the layers
  its row allows (imports inside functions count), every module is covered by a row, and each row
  may import only rows above it.
* No import cycle between modules, counting imports inside functions too (a function-local import
  is how a cycle is usually hidden).
* ``misi-eval`` really runs without numba, and the task declarations load the standard library
  only: both checked in a fresh interpreter.
"""

from __future__ import annotations

import ast
import re
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
    """Every misi module ``path`` imports, at module level or inside functions (not for type checking only)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(tree):  # `if TYPE_CHECKING:` blocks never run: their imports are for annotations
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            node.body = []
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


DOC = Path(__file__).resolve().parents[1] / "docs" / "architecture.md"


def _layer_table() -> dict[str, tuple[tuple[str, ...], frozenset[str]]]:
    """The layer tables of ``docs/architecture.md``: layer -> (modules, layers it may import)."""
    rows: dict[str, tuple[tuple[str, ...], frozenset[str]]] = {}
    for line in DOC.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 4 or not cells[0].startswith("`"):
            continue
        layer = cells[0].strip("`")
        modules = tuple(re.findall(r"`([\w.]+)`", cells[1]))
        may = frozenset(re.findall(r"`([\w.]+)`", cells[3]))
        assert layer not in rows, f"layer {layer} appears twice in {DOC.name}"
        rows[layer] = (modules, may)
    return rows


LAYERS = _layer_table()
_ENTRIES = {entry: layer for layer, (modules, _) in LAYERS.items() for entry in modules}


def _covers(entry: str, module: str) -> bool:
    """A row naming a package covers its modules, unless other rows name some of them: then it
    covers the package's ``__init__`` only."""
    if module == entry:
        return True
    nested = any(e.startswith(entry + ".") for e in _ENTRIES)
    return not nested and module.startswith(entry + ".")


def _layer(module: str) -> str | None:
    """The layer of the longest entry covering ``module`` (None when no row does)."""
    hits = [e for e in _ENTRIES if _covers(e, module)]
    return _ENTRIES[max(hits, key=len)] if hits else None


def _may(layer: str, target: str) -> bool:
    """Whether ``layer`` may import ``target`` (a layer may import its own sub-layers' names)."""
    allowed = LAYERS[layer][1] | {layer}
    return any(target == a or target.startswith(a + ".") for a in allowed)


def test_the_layer_table_is_read():
    assert {"geom", "render", "definitions", "dataset", "eval", "tasks", "engine", "geom.hbonds"} <= set(LAYERS)
    for layer, (_, may) in LAYERS.items():
        assert may <= set(LAYERS), f"{layer} may import unknown layer(s) {sorted(may - set(LAYERS))}"


def test_layers_import_only_what_they_may(graph):
    wrong = []
    for m, targets in sorted(graph.items()):
        layer = _layer(m)
        for t in sorted(targets):
            if t.startswith(m + "."):  # a package's __init__ exporting its own modules
                continue
            tl = _layer(t)
            if layer is None or tl is None or not _may(layer, tl):
                wrong.append(f"{m} ({layer}) imports {t} ({tl})")
    assert not wrong, f"layering broken (the rules are {DOC.name}):\n" + "\n".join(wrong)


def test_the_layer_table_covers_every_module(graph):
    missing = sorted(m for m in graph if _layer(m) is None)
    assert not missing, f"module(s) no row of {DOC.name} covers: {missing}"


def test_the_layer_rules_are_a_dag():
    """No layer may import one that may import it back: each row imports only rows above it."""
    order = list(LAYERS)
    for k, layer in enumerate(order):
        for target in LAYERS[layer][1]:
            assert order.index(target) < k, f"{layer} may import {target}, a row below it in {DOC.name}"


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


def test_the_declarations_load_only_the_standard_library():
    """Importing the task declarations (specs, answers, registry, schema) loads no third-party module."""
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import misi_tasks.definitions, misi_tasks.definitions.schema, misi_tasks.definitions.reply_text\n"
        "new = set(sys.modules) - before\n"
        "bad = sorted({m.split('.')[0] for m in new} - set(sys.stdlib_module_names) - {'misi_tasks'})\n"
        "print(len(new), ','.join(bad))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    n_new, _, bad = out.stdout.strip().partition(" ")
    assert int(n_new) > 0 and bad == "", f"the declarations imported: {bad}"
