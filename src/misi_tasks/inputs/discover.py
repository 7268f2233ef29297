"""What ``misi-gen --input`` names, as a list of complex sources: the one place inputs are discovered.

- a folder: PDBbind-layout complexes (:func:`misi_geom.find_complex_dirs`), loaded as today;
- a manifest (``.csv``, ``.yaml``, ``.yml``): :func:`misi_tasks.inputs.manifest.read_manifest`;
- a PDB/mmCIF file (optionally gzipped) with ``ligand=``: a residue selection inside it
  (``RESNAME[:CHAIN[:RESNUM]]``; ``RESNAME:*`` and ``all`` give one complex per copy/ligand;
  ``chain:ID`` a peptide ligand) or a ligand file (one complex per pose of a multi-molecule file);
  the complex id is the file name without its suffixes.

A folder or file name that cannot become an item id and a gallery page name (control characters
such as tab or newline, quotes, ``<``, ``>``, a backquote: :func:`unusable_id`) is refused in one
line: listed among the failures (a folder), or an error (a single entry); manifests check their
ids themselves (:mod:`misi_tasks.inputs.manifest`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from misi_geom.errors import MisiInputError
from misi_geom.inputs import ComplexSource, FolderSource, is_structure_file, stem_id
from misi_tasks.inputs.manifest import is_manifest, read_manifest, sources_of_row
from misi_tasks.tasks.seeding import DEFAULT_TEST_FRACTION, split_of

__all__ = ["InputPlan", "discover_inputs", "assign_splits", "natural_key", "unusable_id", "shown_id"]

#: Characters a complex id may not hold (besides control characters): they break item ids, the
#: tab-separated failures list or gallery pages.
_FORBIDDEN = frozenset("\"'<>`")


def unusable_id(cid: str) -> str | None:
    """Why ``cid`` cannot be a complex id (None if it can).

    >>> unusable_id("1abc"), unusable_id("a[1] b#2")
    (None, None)
    >>> unusable_id('x"y')
    "it holds a quote, '<', '>' or a backquote"
    """
    try:
        cid.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not UTF-8 text"
    if not cid.strip():
        return "it is blank"
    if any(not ch.isprintable() for ch in cid):
        return "it holds a tab, newline or other control character"
    if _FORBIDDEN & set(cid):
        return "it holds a quote, '<', '>' or a backquote"
    return None


def shown_id(cid: str) -> str:
    r"""``cid`` printable on one line: control characters and undecodable bytes escaped.

    >>> shown_id("a\tb\nd" + chr(0xDCE9))
    'a\\tb\\nd\\udce9'
    """
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                   for ch in cid)


_DIGITS = re.compile(r"(\d+)")


def natural_key(text: str) -> list:
    """Sort key that orders digit runs by value: pose 2 before pose 10.

    >>> sorted(["x_pose10", "x_pose2", "x_pose1"], key=natural_key)
    ['x_pose1', 'x_pose2', 'x_pose10']
    """
    return [int(t) if t.isdigit() else t for t in _DIGITS.split(text)]


@dataclass
class InputPlan:
    """Sources by id (sorted), and inputs that failed before loading (id -> one-line reason)."""

    sources: dict[str, ComplexSource] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    kind: str = "folder"  # "folder", "manifest" or "entry"

    def ordered_ids(self) -> list[str]:
        """Complex ids in run order: sorted as text for PDBbind folders (as always), naturally for
        explicit files (``x_pose2`` before ``x_pose10``, ``x_ATP_A_9`` before ``x_ATP_A_10``)."""
        return sorted(self.sources) if self.kind == "folder" else sorted(self.sources, key=natural_key)

    def limited(self, limit: int | None) -> "InputPlan":
        """The plan with only the first ``limit`` complexes of :meth:`ordered_ids` (all for ``None``)."""
        ids = self.ordered_ids() if limit is None else self.ordered_ids()[:limit]
        return InputPlan({cid: self.sources[cid] for cid in ids}, self.failures, self.kind)


def discover_inputs(path: str | Path, *, ligand: str | None = None, smiles: str | None = None,
                    poses: int | None = None) -> InputPlan:
    """The complexes ``path`` names (see the module docs).

    Raises ``ValueError`` for an input of no known kind, or options that do not apply to it.
    """
    path = Path(path)
    if path.is_dir() or not (path.exists() or is_manifest(path) or is_structure_file(path)):
        if ligand or smiles or poses:
            raise ValueError(f"{path}: --ligand, --smiles and --poses apply to a structure file, not a folder")
        from misi_geom import find_complex_dirs

        plan = InputPlan()
        for d in find_complex_dirs(path):
            why = unusable_id(d.name)
            if why is None:
                plan.sources[d.name] = FolderSource(d)
            else:
                why = f"{shown_id(str(d))}: the folder's name cannot be a complex id ({why})"
                plan.failures[shown_id(d.name)] = why
        return plan
    if not path.is_file():
        raise ValueError(f"{path}: input file not found")
    if is_manifest(path):
        if ligand or smiles:
            raise ValueError(f"{path}: --ligand and --smiles apply to a structure file; a manifest has columns for them")
        read = read_manifest(path, poses=poses)
        return InputPlan({s.id: s for s in sorted(read.sources, key=lambda s: natural_key(s.id))}, read.failures,
                         "manifest")
    if is_structure_file(path):
        if not ligand:
            raise ValueError(f"{path}: a structure file needs --ligand RESNAME[:CHAIN[:RESNUM]], RESNAME:*, all, "
                             "chain:ID or a ligand file (--ligand FILE.sdf)")
        why = unusable_id(stem_id(path))
        if why is not None:
            raise ValueError(f"{shown_id(str(path))}: the file's name cannot be a complex id ({why}); rename it")
        row = {"id": stem_id(path), "protein": path.name, "ligand": ligand, "smiles": smiles}
        base = path.resolve().parent
        if Path(ligand).exists():
            row["ligand"] = str(Path(ligand).resolve())
        try:
            sources = sources_of_row(row, base, base, poses)
        except MisiInputError as exc:
            raise ValueError(str(exc)) from None
        return InputPlan({s.id: s for s in sorted(sources, key=lambda s: natural_key(s.id))}, {}, "entry")
    raise ValueError(f"{path}: not a folder, a manifest (.csv, .yaml) or a PDB/mmCIF file")


def assign_splits(sources: dict[str, ComplexSource], mode: str,
                  test_fraction: float = DEFAULT_TEST_FRACTION) -> dict[str, str]:
    """Split of every source: ``mode`` "train"/"test" forces it; "auto" keeps a manifest's split and
    draws the others by a hash of the source's group (all poses of a complex share a split).

    >>> from pathlib import Path
    >>> from misi_geom.inputs import FolderSource
    >>> assign_splits({"x": FolderSource(Path("x"))}, "test")
    {'x': 'test'}
    """
    if mode != "auto":
        return {cid: mode for cid in sources}
    return {cid: s.split or split_of(s.group, test_fraction) for cid, s in sources.items()}
