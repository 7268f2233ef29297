"""Audit a whole dataset: every item of every task, counts per task, failures with their reasons.

:func:`audit_dataset` reads the Parquet shards under ``DATASET/data/`` (any task, any split), runs
each item's check (:data:`CHECKS`), and returns an :class:`AuditReport`.  The structures come from
``input`` (as ``misi-gen --input`` takes it); by default from what the dataset card's generation
command records (the bundled samples when it names no ``--input``).
"""

from __future__ import annotations

import json
import re
import shlex
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from misi_tasks.audit.hbond_checks import check_interaction_location, check_pocket_ligand, check_residue_ligand
from misi_tasks.audit.interaction_checks import check_interaction_list, check_interaction_type, check_ring_stacking
from misi_tasks.audit.item import Item
from misi_tasks.audit.motion_checks import check_choice, check_docking, check_single_motion
from misi_tasks.audit.structures import Structures
from misi_tasks.audit.views import AuditCache

__all__ = ["CHECKS", "AuditReport", "TaskAudit", "audit_dataset", "recorded_input", "recorded_task_params",
           "AuditError"]


class AuditError(ValueError):
    """A dataset or input the audit cannot read (one line naming the file and the problem)."""


#: The check of each task code: (item, structures, T9 bonds by complex) -> reasons it fails.
CHECKS: dict[str, Callable] = {
    "T1": lambda it, s, t9: check_single_motion(it, s),
    "T2": lambda it, s, t9: check_single_motion(it, s),
    "T3": lambda it, s, t9: check_single_motion(it, s),
    "T4": check_residue_ligand,
    "T5": lambda it, s, t9: check_choice(it, s),
    "T6": lambda it, s, t9: check_choice(it, s),
    "T7": lambda it, s, t9: check_docking(it, s),
    "T8": check_interaction_location,
    "T9": check_pocket_ligand,
    "X1": check_interaction_type,
    "X2": check_interaction_list,
    "X3": check_ring_stacking,
}


@dataclass
class TaskAudit:
    """Counts of one task: items checked and passed, and each failure as (item id, reason)."""

    task: str
    code: str
    checked: int = 0
    passed: int = 0
    failures: list[tuple[str, str]] = field(default_factory=list)


@dataclass
class AuditReport:
    """What :func:`audit_dataset` found, per task (in the order the dataset lists them)."""

    dataset: Path
    tasks: dict[str, TaskAudit] = field(default_factory=dict)
    cpu_s: float = 0.0
    wall_s: float = 0.0

    @property
    def ok(self) -> bool:
        return all(t.passed == t.checked for t in self.tasks.values()) and bool(self.tasks)

    @property
    def checked(self) -> int:
        return sum(t.checked for t in self.tasks.values())

    @property
    def failed(self) -> int:
        return sum(t.checked - t.passed for t in self.tasks.values())

    def table(self) -> str:
        """Markdown table: task, code, checked, passed, failed."""
        lines = ["| task | code | checked | passed | failed |", "|---|---|---|---|---|"]
        for t in self.tasks.values():
            lines.append(f"| {t.task} | {t.code} | {t.checked} | {t.passed} | {t.checked - t.passed} |")
        return "\n".join(lines)

    def format(self, max_failures: int = 20) -> str:
        """The report ``misi-audit`` prints: the table, then each failure with its reason."""
        out = [self.table(), ""]
        for t in self.tasks.values():
            for n, (item_id, reason) in enumerate(t.failures):
                if n == max_failures:
                    out.append(f"FAIL {t.code}: ... and {len(t.failures) - max_failures} more failures")
                    break
                out.append(f"FAIL {item_id}: {reason}")
        verdict = ("all items passed" if self.ok else f"{self.failed} of {self.checked} items failed")
        out.append(f"{self.checked} items audited, {verdict} (audit {self.cpu_s:.1f} s CPU, {self.wall_s:.1f} s wall)")
        return "\n".join(out)


def _shards(dataset: Path) -> list[Path]:
    data = dataset / "data"
    if not data.is_dir():
        raise AuditError(f"{dataset}: no data/ folder (not a dataset misi-gen wrote)")
    files = sorted(data.glob("*/*.parquet"))
    if not files:
        raise AuditError(f"{data}: no Parquet shards")
    return files


def _unreadable(path: Path, exc: Exception) -> AuditError:
    return AuditError(f"{path}: unreadable Parquet shard ({' '.join(str(exc).split())})")


def _rows(path: Path, columns: list[str] | None = None) -> Iterator[dict]:
    import pyarrow.parquet as pq

    try:
        pf = pq.ParquetFile(path)
        for batch in pf.iter_batches(batch_size=16, columns=columns):
            yield from batch.to_pylist()
    except Exception as exc:  # noqa: BLE001 - a damaged shard is one line of the report
        raise _unreadable(path, exc) from None


def _groups(files: list[Path]) -> list[list[Path]]:
    """The shards by file name (``train-00003-of-00006.parquet``), each name's shards in task order.
    misi-gen writes one shard per task for each fixed group of complexes, so the shards of one name
    hold the same complexes, whose items share images (T4, T8 and T9 show the same six views; T1-T3,
    T5 and T6 the same base views); shards of other names go their own way."""
    by_name: dict[str, list[Path]] = {}
    for path in files:
        by_name.setdefault(path.name, []).append(path)
    return [by_name[name] for name in sorted(by_name)]


def _rows_by_complex(paths: list[Path]) -> Iterator[dict]:
    """Every row of the shards ``paths``, a complex at a time: each Parquet row group is read when
    its first row's complex comes up (complexes in the order they first appear), so the items that
    share a complex's images are checked one after another and its images are decoded once."""
    import pyarrow.parquet as pq

    files, order = [], {}
    for path in paths:
        try:
            pf = pq.ParquetFile(path)
            ids = pf.read(columns=["complex_id"]).column("complex_id").to_pylist()
        except Exception as exc:  # noqa: BLE001 - a damaged shard is one line of the report
            raise _unreadable(path, exc) from None
        start = 0
        for g in range(pf.metadata.num_row_groups):
            n = pf.metadata.row_group(g).num_rows
            if n:
                order.setdefault(ids[start], []).append((len(files), g))
            start += n
        files.append((path, pf))
    for parts in order.values():
        for k, g in parts:
            path, pf = files[k]
            try:
                rows = pf.read_row_group(g).to_pylist()
            except Exception as exc:  # noqa: BLE001
                raise _unreadable(path, exc) from None
            yield from rows


def _t9_bonds(files: list[Path]) -> dict[str, list[tuple[str, str]]]:
    """The bonds every pocket-ligand (T9) item lists, by complex (the cross-check of T4)."""
    out: dict[str, list[tuple[str, str]]] = {}
    for path in files:
        if path.parent.name != "pocket-ligand":
            continue
        for row in _rows(path, ["complex_id", "answer"]):
            bonds = []
            for part in str(row["answer"]).split(";"):
                left, _, right = part.partition(",")
                if len(left.split()) == 4 and right.strip():
                    bonds.append((" ".join(left.split()), right.strip()))
            out[row["complex_id"]] = bonds
    return out


_GEN = re.compile(r"```bash\s*\n(misi-gen [^\n]*)\n```")


def _card_command(dataset: Path) -> str | None:
    """The ``misi-gen`` command the dataset card records, or None without a card or command."""
    card = dataset / "README.md"
    if not card.is_file():
        return None
    m = _GEN.search(card.read_text(encoding="utf-8"))
    return m.group(1) if m else None


def recorded_input(dataset: Path) -> dict[str, str] | None:
    """The input options (``input``, ``ligand``, ``smiles``, ``poses``) of the card's generation
    command; ``{}`` when it names no ``--input`` (the bundled samples); None without a card."""
    command = _card_command(dataset)
    if command is None:
        return None
    words = command.split()
    found = {}
    for opt in ("input", "ligand", "smiles", "poses"):
        flag = f"--{opt}"
        if flag in words and words.index(flag) + 1 < len(words):
            found[opt] = words[words.index(flag) + 1].strip("'\"")
    return found


def recorded_task_params(dataset: Path) -> dict[str, dict] | None:
    """The ``--task-params`` of the card's generation command, by task name or code as written
    (``{}`` when the command sets none: every task ran with its defaults); None without a card or
    command, or when the recorded JSON cannot be read."""
    command = _card_command(dataset)
    if command is None:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    if "--task-params" not in words:
        return {}
    k = words.index("--task-params") + 1
    try:
        raw = json.loads(words[k]) if k < len(words) else None
    except json.JSONDecodeError:
        return None
    return raw if isinstance(raw, dict) and all(isinstance(v, dict) for v in raw.values()) else None


def _params_of(recorded: dict[str, dict] | None, task: str, code: str) -> dict | None:
    """The recorded parameters of one task (``{}``: its defaults; None: nothing recorded)."""
    if recorded is None:
        return None
    return dict(recorded.get(task) or recorded.get(code) or recorded.get(code.lower()) or {})


def _structures(dataset: Path, input_path: str | Path | None, **kw) -> Structures:
    from misi_geom.samples import sample_root

    if input_path is None:
        rec = recorded_input(dataset)
        if rec is None:
            raise AuditError(f"{dataset / 'README.md'}: no generation command to read the input from; pass --input")
        if "input" in rec:
            raise AuditError(f"{dataset} was generated from --input {rec['input']}; pass --input with that path")
        input_path = sample_root()
    try:
        return Structures(Path(input_path), **kw)
    except (ValueError, OSError) as exc:
        raise AuditError(f"--input {input_path}: {exc}") from None


_LISTED = re.compile(r"\bimage (\d+): ")


def _shape_problems(item: Item) -> list[str]:
    """The prompt lists as many images as the item has, with a role each; options A-D when it asks a letter."""
    out = []
    listed = {int(k) for k in _LISTED.findall(item.question)}
    if listed and listed != set(range(1, len(item.images) + 1)):
        out.append(f"the prompt lists images {sorted(listed)} but the item has {len(item.images)}")
    if len(item.roles) != len(item.images):
        out.append(f"{len(item.roles)} image roles for {len(item.images)} images")
    if item.code in ("T5", "T6", "T8") and len(item.options) != 4:
        out.append(f"{len(item.options)} options, expected A-D")
    return out


def _audit_group(paths: list[Path], structures: Structures | tuple, t9: dict, tasks: set[str] | None,
                 params: dict[str, dict] | None = None) -> list[TaskAudit]:
    """The task counts of one group of shards (:func:`_groups`; ``structures`` may be the arguments
    that load them, in a worker; ``params``: the card's recorded task parameters,
    :func:`recorded_task_params`).  The group's items share one :class:`AuditCache` (decoded images and views)."""
    if isinstance(structures, tuple):
        structures = _structures(*structures[:2], **structures[2])
    found: dict[str, TaskAudit] = {}
    cache = AuditCache()
    for row in _rows_by_complex(paths):
        code = row.get("task_code", "")
        if tasks is not None and code not in tasks and row.get("task") not in tasks:
            continue
        ta = found.setdefault(row["task"], TaskAudit(row["task"], code))
        ta.checked += 1
        try:
            item = Item.from_row(row)
            item.params = _params_of(params, row["task"], code)
            item.cache = cache
            reasons = _shape_problems(item)
            reasons += CHECKS[code](item, structures, t9) if code in CHECKS else [
                f"no audit check for task code {code!r}"]
        except KeyError as exc:  # a complex missing from the input, a metadata field missing
            reasons = [f"cannot check: {exc.args[0] if exc.args else exc}"]
        except (ValueError, IndexError, OSError) as exc:
            reasons = [f"cannot check: {' '.join(str(exc).split())}"]
        if reasons:
            ta.failures += [(row["id"], r) for r in reasons]
        else:
            ta.passed += 1
    return list(found.values())


def _cpu_now() -> float:
    import resource

    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def audit_dataset(dataset: str | Path, input_path: str | Path | None = None, *, ligand: str | None = None,
                  smiles: str | None = None, poses: int | None = None, tasks: set[str] | None = None,
                  workers: int = 1, progress: Callable[[str], None] | None = None) -> AuditReport:
    """Audit every item of ``dataset`` (optionally only the task codes in ``tasks``), in ``workers``
    processes (one group of shards each at a time, :func:`_groups`); the report does not depend on ``workers``."""
    dataset = Path(dataset)
    t0, c0 = time.perf_counter(), _cpu_now()
    files = _shards(dataset)
    kw = {"ligand": ligand, "smiles": smiles, "poses": poses}
    structures = _structures(dataset, input_path, **kw)
    t9 = _t9_bonds(files)
    params = recorded_task_params(dataset)
    report = AuditReport(dataset)
    groups = _groups(files)
    if workers > 1 and len(groups) > 1:
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(min(workers, len(groups))) as pool:
            jobs = [pool.submit(_audit_group, paths, (dataset, structures.path, kw), t9, tasks, params)
                    for paths in groups]
            results = [job.result() for job in jobs]
    else:
        results = [_audit_group(paths, structures, t9, tasks, params) for paths in groups]
    for paths, found in zip(groups, results):
        for part in found:
            ta = report.tasks.setdefault(part.task, TaskAudit(part.task, part.code))
            ta.checked += part.checked
            ta.passed += part.passed
            ta.failures += part.failures
            if progress:
                progress(f"{ta.task} ({paths[0].name}): {ta.passed}/{ta.checked} passed")
    order = {code: k for k, code in enumerate(CHECKS)}
    report.tasks = dict(sorted(report.tasks.items(), key=lambda kv: (order.get(kv[1].code, 99), kv[0])))
    report.cpu_s = _cpu_now() - c0
    report.wall_s = time.perf_counter() - t0
    return report
