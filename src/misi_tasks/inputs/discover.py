"""What ``misi-gen --input`` names, as a list of complex sources: the one place inputs are discovered.

- a folder: PDBbind-layout complexes (:func:`misi_geom.find_complex_dirs`), loaded as today;
- a manifest (``.csv``, ``.yaml``, ``.yml``): :func:`misi_tasks.inputs.manifest.read_manifest`;
- a PDB/mmCIF file (optionally gzipped) with ``ligand=``: a residue selection inside it
  (``RESNAME[:CHAIN[:RESNUM]]``; ``RESNAME:*`` and ``all`` give one complex per copy/ligand;
  ``chain:ID`` a peptide ligand) or a ligand file (one complex per pose of a multi-molecule file);
  the complex id is the file name without its suffixes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from misi_geom.errors import MisiInputError
from misi_geom.inputs import ComplexSource, FolderSource, is_structure_file, stem_id
from misi_tasks.inputs.manifest import is_manifest, read_manifest, sources_of_row
from misi_tasks.tasks.seeding import DEFAULT_TEST_FRACTION, split_of

__all__ = ["InputPlan", "discover_inputs", "assign_splits", "natural_key"]

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

        dirs = find_complex_dirs(path)
        return InputPlan({d.name: FolderSource(d) for d in dirs})
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
