"""Small file helpers of the input readers: gzip-aware text, structure/ligand suffixes, checksums."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path

from misi_geom.errors import MisiInputError

__all__ = [
    "STRUCTURE_SUFFIXES",
    "LIGAND_SUFFIXES",
    "base_suffix",
    "is_structure_file",
    "is_ligand_file",
    "read_text",
    "require_file",
    "sha256_file",
    "stem_id",
]

#: Protein/pocket file suffixes gemmi reads (each may end in ``.gz``).
STRUCTURE_SUFFIXES: tuple[str, ...] = (".pdb", ".ent", ".cif", ".mmcif")
#: Ligand file suffixes (each may end in ``.gz``): RDKit reads SDF/mol/mol2; PDBQT needs a SMILES.
LIGAND_SUFFIXES: tuple[str, ...] = (".sdf", ".mol", ".mol2", ".pdbqt")

_SHA_CACHE: dict[tuple[str, int, int], str] = {}


def base_suffix(path: str | Path) -> str:
    """Lower-case suffix without a trailing ``.gz``: ``"1abc.cif.gz"`` -> ``".cif"``.

    >>> base_suffix("x/1ABC.CIF.gz"), base_suffix("poses.sdf")
    ('.cif', '.sdf')
    """
    p = Path(path)
    if p.suffix.lower() == ".gz":
        p = p.with_suffix("")
    return p.suffix.lower()


def is_structure_file(path: str | Path) -> bool:
    """True for a PDB/mmCIF file name (optionally gzipped)."""
    return base_suffix(path) in STRUCTURE_SUFFIXES


def is_ligand_file(path: str | Path) -> bool:
    """True for an SDF/mol/mol2/PDBQT file name (optionally gzipped)."""
    return base_suffix(path) in LIGAND_SUFFIXES


def stem_id(path: str | Path) -> str:
    """File name without ``.gz`` and its format suffix: ``"dir/1abc.cif.gz"`` -> ``"1abc"``.

    >>> stem_id("dir/1abc.cif.gz")
    '1abc'
    """
    p = Path(path)
    if p.suffix.lower() == ".gz":
        p = p.with_suffix("")
    return p.with_suffix("").name


def require_file(path: Path) -> None:
    """Raise a one-line :class:`MisiInputError` unless ``path`` is a regular file: "file not found",
    or what is there instead (a folder, a device such as ``/dev/null``, a pipe)."""
    if path.is_file():
        return
    if path.is_dir():
        raise MisiInputError(path, "is a folder, not a file")
    if path.exists():
        raise MisiInputError(path, "is not a regular file (a device, pipe or socket)")
    raise MisiInputError(path, "file not found")


def read_text(path: Path) -> str:
    """The text of ``path``, decompressed when it ends in ``.gz``; one-line errors."""
    require_file(path)
    try:
        if path.suffix.lower() == ".gz":
            with gzip.open(path, "rt", errors="replace") as fh:
                text = fh.read()
        else:
            text = path.read_text(errors="replace")
    except (OSError, EOFError) as exc:
        raise MisiInputError(path, f"cannot read ({exc})") from None
    if not text.strip():
        raise MisiInputError(path, "file is empty")
    return text


def sha256_file(path: Path) -> str:
    """Hex sha256 of the file's bytes (as stored, gzip included); cached by path, size and mtime."""
    st = path.stat()
    key = (str(path.resolve()), st.st_size, st.st_mtime_ns)
    if key not in _SHA_CACHE:
        h = hashlib.sha256()
        with open(path, "rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
        _SHA_CACHE[key] = h.hexdigest()
    return _SHA_CACHE[key]
