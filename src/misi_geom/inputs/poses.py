"""Ligand files with several molecules (docking and co-folding poses) and gzipped ligand files.

A multi-molecule SDF is read pose by pose (``index`` 1..n, file order); each pose is one complex
``<id>_pose<k>`` with the same protein.  Poses are read like any SDF ligand
(:func:`misi_geom.io.read_ligand`: sanitised, else partially sanitised; atoms named element +
running index).  A mol2 file holds one ligand (its first molecule).
"""

from __future__ import annotations

from pathlib import Path

from misi_geom.complex import Complex
from misi_geom.errors import MisiInputError
from misi_geom.inputs.files import base_suffix, read_text
from misi_geom.io import ligand_complex

__all__ = ["count_poses", "read_ligand_pose"]


def count_poses(path: str | Path) -> int:
    """Number of molecules in an SDF (``$$$$`` records; a last record without one counts); 1 for mol2/mol.

    Raises :class:`MisiInputError` if the file is missing or empty.
    """
    path = Path(path)
    text = read_text(path)
    if base_suffix(path) != ".sdf":
        return 1
    records = text.split("\n$$$$")
    return sum(1 for r in records if r.strip())


def _mols(path: Path, text: str, sanitize: bool):
    from rdkit import Chem

    if base_suffix(path) == ".mol2":
        return [Chem.MolFromMol2Block(text, sanitize=sanitize, removeHs=False)]
    suppl = Chem.SDMolSupplier()
    suppl.SetData(text, sanitize=sanitize, removeHs=False)
    return suppl


def read_ligand_pose(path: str | Path, index: int = 1, *, pdb_id: str = "") -> tuple[Complex, object]:
    """Pose ``index`` (1-based) of a ligand file (SDF/mol/mol2, optionally gzipped) and its RDKit Mol."""
    from rdkit import Chem, RDLogger

    path = Path(path)
    text = read_text(path)
    n = count_poses(path)
    if not 1 <= index <= n:
        raise MisiInputError(path, f"pose {index} requested, the file holds {n}")
    mol = None
    RDLogger.DisableLog("rdApp.*")
    try:
        for sanitize in (True, False):
            mols = _mols(path, text, sanitize)
            mol = mols[index - 1] if index - 1 < len(mols) else None
            if mol is not None:
                if not sanitize:
                    mol.UpdatePropertyCache(strict=False)
                    Chem.FastFindRings(mol)
                break
    finally:
        RDLogger.EnableLog("rdApp.*")
    if mol is None or mol.GetNumAtoms() == 0:
        raise MisiInputError(path, f"RDKit cannot read molecule {index} of this file")
    # name atoms as the suffix under .gz says (mol2 names, else element + running index)
    named_as = Path(path.name[:-3]) if path.suffix.lower() == ".gz" else path
    try:
        lig = ligand_complex(named_as, mol, pdb_id)
    except MisiInputError as exc:
        raise MisiInputError(path, exc.problem) from None
    return lig, mol
