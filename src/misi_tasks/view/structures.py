"""The structures behind the gallery's 3-D views: one small script per complex, read from its files.

An item page's 3-D view needs the complex's coordinates, which a dataset does not hold. They are
read from a PDBbind-layout folder (``--structures DIR``: ``DIR/<id>/<id>_pocket.pdb`` or ``.cif``
and ``<id>_ligand.sdf`` or ``.mol2``; without the option, the bundled sample complexes when the
dataset's ids are theirs) and written as ``structures/<id>.js``, which sets
``window.MISI_STRUCTURES[id]``: a script rather than a data file, so the page loads it from disk
(``file://`` forbids fetching files). The files are copied as text, nothing is parsed here, so the
gallery still imports no geometry.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterable
from pathlib import Path

from misi_tasks._atomic import atomic_write_bytes

__all__ = ["bundled_structures", "find_structure", "structure_script", "write_structures"]

_POCKET = (("_pocket.pdb", "pdb"), ("_pocket.cif", "cif"))
_LIGAND = (("_ligand.sdf", "sdf"), ("_ligand.mol2", "mol2"))


def bundled_structures() -> Path | None:
    """The folder of misi's bundled sample complexes, found without importing the geometry package."""
    spec = importlib.util.find_spec("misi_geom")
    for location in (spec.submodule_search_locations or []) if spec else []:
        folder = Path(location) / "sample_data"
        if folder.is_dir():
            return folder
    return None


def find_structure(root: Path, complex_id: str) -> tuple[Path, str, Path, str] | None:
    """``(pocket file, format, ligand file, format)`` of a complex under ``root``, or None."""
    folder = root / complex_id
    pocket = next(((folder / f"{complex_id}{suffix}", fmt) for suffix, fmt in _POCKET
                   if (folder / f"{complex_id}{suffix}").is_file()), None)
    ligand = next(((folder / f"{complex_id}{suffix}", fmt) for suffix, fmt in _LIGAND
                   if (folder / f"{complex_id}{suffix}").is_file()), None)
    return (*pocket, *ligand) if pocket and ligand else None


def structure_script(complex_id: str, pocket: str, pocket_format: str, ligand: str, ligand_format: str) -> str:
    """The script registering one complex's files for the 3-D view.

    >>> structure_script("1abc", "ATOM", "pdb", "mol", "sdf").splitlines()[1][:40]
    'window.MISI_STRUCTURES["1abc"] = {"pocke'
    """
    data = json.dumps({"pocket": pocket, "pocketFormat": pocket_format, "ligand": ligand,
                       "ligandFormat": ligand_format}).replace("</", "<\\/")
    return (f"window.MISI_STRUCTURES = window.MISI_STRUCTURES || {{}};\n"
            f"window.MISI_STRUCTURES[{json.dumps(complex_id)}] = {data};\n")


def write_structures(root: Path, complex_ids: Iterable[str], out: Path) -> dict[str, str]:
    """Write ``out/structures/<id>.js`` for every complex found under ``root``; return
    ``{id: path relative to out}`` (complexes without files are left out)."""
    written: dict[str, str] = {}
    for cid in sorted(set(complex_ids)):
        found = find_structure(root, cid)
        if found is None:
            continue
        pocket, pfmt, ligand, lfmt = found
        text = structure_script(cid, pocket.read_text(encoding="utf-8", errors="replace"), pfmt,
                                ligand.read_text(encoding="utf-8", errors="replace"), lfmt)
        atomic_write_bytes(out / "structures" / f"{cid}.js", text.encode("utf-8"), fsync=False)
        written[cid] = f"structures/{cid}.js"
    return written
