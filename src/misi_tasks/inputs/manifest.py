"""Manifests: one row per complex, as CSV or YAML.

Columns (CSV header, or YAML keys of a list of mappings -- optionally under ``complexes:``):

=========== ======== ==============================================================================
column      required content
=========== ======== ==============================================================================
``id``      yes      complex id (letters, digits, ``_ . -``); items are named after it
``protein`` [1]      PDB/mmCIF file (``.pdb .ent .cif .mmcif``, optionally ``.gz``)
``ligand``  yes      SDF/mol/mol2/PDBQT file (optionally ``.gz``; a multi-molecule file gives one
                     complex per pose, ``<id>_pose<k>``; PDBQT needs ``smiles``), or residue(s) of the
                     protein file: ``RESNAME[:CHAIN[:RESNUM]]``, ``RESNAME:*`` (every copy) or ``all``
                     (every ligand), one complex per residue ``<id>_<RES>_<CHAIN>_<NUM>``, or
                     ``chain:ID`` (a peptide ligand)
``pocket``  no       pocket file (PDB/mmCIF); wins over a pocket cut from the protein
``smiles``  no       bond-order template for the ligand (needed for a ligand without hydrogens
                     picked from a structure)
``split``   no       ``train`` or ``test``; blank: by ``misi-gen --split``
=========== ======== ==============================================================================

[1] a protein or a pocket file is required; a ligand selection needs the protein.  Relative paths
resolve against the manifest's folder.  Blank cells are absent values; CSV lines starting with
``#`` are comments.  A bad row is reported (:class:`ManifestRead.failures`) and never stops the others;
a manifest that cannot be read at all (no ``id``/``ligand`` column, unknown column) raises
:class:`~misi_geom.errors.MisiInputError`.
"""

from __future__ import annotations

import csv
import io
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from misi_geom.errors import MisiInputError
from misi_geom.inputs import FileSource, LigandSelection, count_poses, is_ligand_file, is_structure_file
from misi_geom.inputs.ligands import copy_id

__all__ = ["MANIFEST_COLUMNS", "MANIFEST_SUFFIXES", "ManifestRead", "read_manifest", "is_manifest", "parse_ligand", "sources_of_row"]

MANIFEST_COLUMNS: tuple[str, ...] = ("id", "protein", "ligand", "pocket", "smiles", "split")
MANIFEST_SUFFIXES: tuple[str, ...] = (".csv", ".yaml", ".yml")
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}$")


@dataclass
class ManifestRead:
    """The sources of a manifest (poses expanded, file order) and its bad rows (id -> one-line reason)."""

    sources: list[FileSource] = field(default_factory=list)
    failures: dict[str, str] = field(default_factory=dict)


def is_manifest(path: str | Path) -> bool:
    """True for a ``.csv``, ``.yaml`` or ``.yml`` file name."""
    return Path(path).suffix.lower() in MANIFEST_SUFFIXES


def _rows(path: Path) -> list[dict[str, Any]]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise MisiInputError(path, f"cannot read manifest ({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        line = path.read_bytes()[:exc.start].count(b"\n") + 1
        raise MisiInputError(path, f"manifest is not UTF-8 text (line {line}, byte {exc.object[exc.start]:#04x}); "
                                   "save it as UTF-8") from None
    if path.suffix.lower() == ".csv":
        lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
        reader = csv.DictReader(io.StringIO("\n".join(lines)))
        header = [h.strip().lower() for h in (reader.fieldnames or [])]
        rows = [{h: v for h, v in zip(header, r.values())} for r in reader]
        if None in header or not header:
            raise MisiInputError(path, "manifest has no header row")
    else:
        import yaml

        try:
            data = yaml.safe_load(text)
        except yaml.YAMLError as exc:
            raise MisiInputError(path, f"not valid YAML ({str(exc).splitlines()[0]})") from None
        except RecursionError:
            raise MisiInputError(path, "not a manifest (YAML nested too deeply)") from None
        if isinstance(data, dict) and "complexes" in data:
            data = data["complexes"]
        if not isinstance(data, list) or not all(isinstance(r, dict) for r in data):
            raise MisiInputError(path, "YAML manifest must be a list of mappings (optionally under 'complexes:')")
        rows = [{str(k).strip().lower(): v for k, v in r.items()} for r in data]
        header = sorted({k for r in rows for k in r})
    unknown = sorted(set(header) - set(MANIFEST_COLUMNS))
    if unknown:
        raise MisiInputError(path, f"unknown column(s) {', '.join(unknown)}; valid: {', '.join(MANIFEST_COLUMNS)}")
    for need in ("id", "ligand"):
        if need not in header:
            raise MisiInputError(path, f"manifest has no {need!r} column")
    return rows


def _cell(row: dict[str, Any], key: str) -> str | None:
    v = row.get(key)
    if v is None:
        return None
    v = str(v).strip()
    return v or None


def parse_ligand(text: str, base: Path, has_protein: bool) -> tuple[Path | None, LigandSelection | None]:
    """A ligand cell: an existing file or a ligand file name -> path; else a residue selection.

    Raises ``ValueError`` with a one-line reason for a cell that is neither.
    """
    path = (base / text) if not Path(text).is_absolute() else Path(text)
    if path.is_file() or is_ligand_file(text) or "/" in text or "\\" in text:
        return path, None
    if not has_protein:
        raise ValueError(f"ligand {text!r} is no file, and a residue selection needs a protein file")
    return None, LigandSelection.parse(text)


def is_multi_selection(text: str) -> bool:
    """``all`` / ``*`` (every ligand) or ``RESNAME:*`` (every copy of one)."""
    t = str(text).strip()
    return t.lower() in ("all", "*") or (t.endswith(":*") and ":" not in t[:-2] and len(t) > 2)


def expand_multi_selection(protein: Path, text: str) -> list[tuple[str, str, int, str]]:
    """The residues ``text`` (see :func:`is_multi_selection`) names in ``protein``, file order;
    ``ValueError`` (saying what was left out) when there is none."""
    from misi_geom.inputs.ligands import atom_record_residues, ligand_residues
    from misi_geom.io import read_structure

    t = str(text).strip()
    res_name = None if t.lower() in ("all", "*") else t[:-2]
    keys, left_out = ligand_residues(read_structure(protein), res_name, atom_record_residues(protein))
    if not keys:
        what = "no ligand" if res_name is None else f"no non-polymer residue {res_name.upper()}"
        raise ValueError(f"{what} in {protein.name}" + (f" (left out: {'; '.join(left_out)})" if left_out else ""))
    return keys


def sources_of_row(row: dict[str, Any], base: Path, root: Path, poses: int | None) -> list[FileSource]:
    """The source(s) of one row (one per pose); ``ValueError``/``MisiInputError`` for a bad row."""
    cid = _cell(row, "id")
    protein, ligand, pocket = _cell(row, "protein"), _cell(row, "ligand"), _cell(row, "pocket")
    split = _cell(row, "split")
    if split is not None and split.lower() not in ("train", "test"):
        raise ValueError(f"split {split!r} is not train or test")
    if ligand is None:
        raise ValueError("no ligand")
    if protein is None and pocket is None:
        raise ValueError("no protein and no pocket file")

    def resolve(p: str | None) -> Path | None:
        return None if p is None else (Path(p) if Path(p).is_absolute() else base / p)

    for name, p in (("protein", protein), ("pocket", pocket)):
        if p is not None and not is_structure_file(p):
            raise ValueError(f"{name} {p!r} is not a PDB/mmCIF file (.pdb, .ent, .cif, .mmcif, optionally .gz)")
    if is_multi_selection(ligand):
        if protein is None:
            raise ValueError(f"ligand {ligand!r} selects residues of a protein file, and the row has none")
        common = dict(protein=resolve(protein), ligand=None, pocket=resolve(pocket), smiles=_cell(row, "smiles"),
                      split=split.lower() if split else None, group=cid, root=root)
        return [FileSource(copy_id(cid, key), selection=LigandSelection(key[0], key[1], key[2], key[3]), **common)
                for key in expand_multi_selection(resolve(protein), ligand)]
    lig_path, selection = parse_ligand(ligand, base, protein is not None)
    common = dict(protein=resolve(protein), ligand=lig_path, selection=selection, pocket=resolve(pocket),
                  smiles=_cell(row, "smiles"), split=split.lower() if split else None, group=cid, root=root)
    n = count_poses(lig_path) if lig_path is not None and lig_path.is_file() else 1
    if n == 1:
        return [FileSource(cid, **common)]
    n = min(n, poses) if poses else n
    return [FileSource(f"{cid}_pose{k}", pose=k, **common) for k in range(1, n + 1)]


def read_manifest(path: str | Path, *, poses: int | None = None) -> ManifestRead:
    """Read a manifest into sources; ``poses`` keeps the first N poses of a multi-molecule ligand file."""
    path = Path(path)
    if not path.is_file():
        raise MisiInputError(path, "manifest not found")
    base = path.resolve().parent
    out = ManifestRead()
    seen: set[str] = set()
    for k, row in enumerate(_rows(path), start=1):
        cid = _cell(row, "id")
        where = f"{path.name} row {k}"
        if cid is None or not _ID.match(cid):
            out.failures[cid or f"row{k}"] = f"{where}: id {cid!r} must be letters, digits, '_', '.', '-' (at most 64)"
            continue
        if cid in seen:
            out.failures[f"{cid} (row {k})"] = f"{where}: duplicate id {cid!r}"
            continue
        seen.add(cid)
        try:
            out.sources += sources_of_row(row, base, base, poses)
        except (ValueError, MisiInputError) as exc:
            out.failures[cid] = f"{where} ({cid}): {exc}"
    ids = [s.id for s in out.sources]
    clash = sorted({i for i in ids if ids.count(i) > 1})
    if clash:  # a pose id equal to another row's id
        out.sources = [s for s in out.sources if s.id not in clash]
        out.failures.update({i: f"{path.name}: id {i!r} given twice (a pose and a row?)" for i in clash})
    return out
