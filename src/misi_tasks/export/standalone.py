"""A copy of misi's prompt builder and scorer that runs without misi: the lmms-eval export's own scoring.

:func:`vendored_sources` collects the modules :mod:`misi_tasks.export.lmms_eval_utils` needs (its
imports, followed through every misi module they import, at module level or inside functions) and
returns their source, and that of the packages holding them, with ``misi_tasks`` renamed to
:data:`PACKAGE` in the import lines (a package's ``__init__`` can matter: importing
``misi_tasks.definitions`` imports every module it holds, which registers the nine task specs; such
a package is copied whole). The copy is the same code, so it scores every reply as ``misi-eval``
does; it needs only the standard library and Pillow (an lmms-eval dependency).

Examples
--------
>>> files = vendored_sources("0.0")
>>> "misi_lmms_scorer/eval/score.py" in files and "misi_lmms_scorer/__init__.py" in files
True
>>> import ast
>>> sorted({n.module.split(".")[0] for text in files.values() for n in ast.walk(ast.parse(text))
...         if isinstance(n, ast.ImportFrom) and n.module and n.module.startswith("misi")})
['misi_lmms_scorer']
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

__all__ = ["PACKAGE", "ROOT_MODULE", "vendored_sources"]

#: Name of the copied package inside the export folder.
PACKAGE = "misi_lmms_scorer"
#: The module whose functions the exported ``utils.py`` calls.
ROOT_MODULE = "misi_tasks.export.lmms_eval_utils"

_SRC = Path(__file__).resolve().parents[2]   # the folder holding misi_tasks/
_IMPORT_LINE = re.compile(r"^(\s*(?:from|import)\s+)misi_tasks\b", re.MULTILINE)


def _module_file(name: str) -> Path | None:
    path = _SRC.joinpath(*name.split("."))
    if (path / "__init__.py").is_file():
        return path / "__init__.py"
    return path.with_suffix(".py") if path.with_suffix(".py").is_file() else None


def _misi_imports(path: Path) -> set[str]:
    """The misi_tasks modules ``path`` imports (``from pkg import module`` counts the module)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "misi_tasks":
            found.add(node.module)
            found.update(f"{node.module}.{a.name}" for a in node.names if _module_file(f"{node.module}.{a.name}"))
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "misi_tasks")
    return found


def _closure(root: str) -> list[str]:
    """Every module ``root`` needs (itself and the packages holding each module included)."""
    seen: set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        path = _module_file(name)
        if name in seen or path is None:
            continue
        seen.add(name)
        todo.extend(_misi_imports(path))
        if path.name == "__init__.py" and "iter_modules(" in path.read_text(encoding="utf-8"):
            # a package that imports every module it holds (misi_tasks.definitions: each spec
            # module registers itself), which no import statement names
            todo.extend(f"{name}.{p.stem}" for p in path.parent.glob("*.py") if p.name != "__init__.py")
        parts = name.split(".")
        todo.extend(".".join(parts[:k]) for k in range(1, len(parts)))   # importing a module runs its packages
    return sorted(seen)


def vendored_sources(version: str) -> dict[str, str]:
    """``{relative path: source}`` of the copied package (modules and their packages' ``__init__.py``)."""
    out: dict[str, str] = {}
    note = f"# Copied from misi {version} by misi-export (misi_tasks renamed {PACKAGE}); do not edit.\n"
    for name in _closure(ROOT_MODULE):
        path = _module_file(name)
        rel = Path(PACKAGE, *name.split(".")[1:])
        rel = rel / "__init__.py" if path.name == "__init__.py" else rel.with_suffix(".py")
        out[rel.as_posix()] = note + _IMPORT_LINE.sub(rf"\g<1>{PACKAGE}", path.read_text(encoding="utf-8"))
    return out
