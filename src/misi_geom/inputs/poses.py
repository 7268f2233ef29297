"""Ligand files with several molecules (docking and co-folding poses) and gzipped ligand files.

A multi-molecule file is read pose by pose (``index`` 1..n, file order); each pose is one complex
``<id>_pose<k>`` with the same protein:

- SDF: ``$$$$`` records, read like any SDF ligand (:func:`misi_geom.io.read_ligand`: sanitised, else
  partially sanitised; atoms named element + running index);
- mol2: ``@<TRIPOS>MOLECULE`` records (GOLD, ProLIF, many docking tools), each read like a mol2
  ligand (atom names from the file);
- PDBQT (AutoDock Vina, ``MODEL``/``ENDMDL`` records; a file without them is one pose): atoms,
  names and coordinates from the file, elements from the AutoDock atom types; PDBQT has no bond
  orders, so a SMILES template is required (:func:`misi_geom.inputs.bond_orders.assign_from_smiles`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from misi_geom.complex import Complex
from misi_geom.errors import MisiInputError
from misi_geom.inputs.files import base_suffix, read_text
from misi_geom.io import ligand_complex

__all__ = ["count_poses", "read_ligand_pose", "PDBQT_NEEDS_SMILES"]

#: The one-line reason a PDBQT ligand without a SMILES is refused (names the usual converters).
PDBQT_NEEDS_SMILES = ("PDBQT has no bond orders: give the ligand's SMILES (--smiles, or the manifest's smiles "
                      "column), or convert the poses to SDF first (Meeko: mk_export.py poses.pdbqt -s poses.sdf; "
                      "Open Babel: obabel poses.pdbqt -O poses.sdf)")

_MOL2_HEAD = "@<TRIPOS>MOLECULE"
#: AutoDock atom types -> element (anything else: the type itself, e.g. Fe, Zn, Mg).
_AD_ELEMENTS = {"A": "C", "C": "C", "N": "N", "NA": "N", "NS": "N", "OA": "O", "OS": "O", "O": "O",
                "S": "S", "SA": "S", "HD": "H", "HS": "H", "H": "H", "P": "P", "F": "F", "CL": "Cl",
                "BR": "Br", "I": "I", "G0": "C", "G1": "C", "G2": "C", "G3": "C", "CG0": "C", "CG1": "C",
                "CG2": "C", "CG3": "C", "W": "O"}


def _records(path: Path, text: str) -> list[str]:
    """The molecule records of a ligand file, file order (one for mol/one-molecule files)."""
    kind = base_suffix(path)
    if kind == ".sdf":  # each record after the first starts with the line break that ended "$$$$"
        records = text.split("\n$$$$")
        records = records[:1] + [r[2:] if r.startswith("\r\n") else r[1:] if r.startswith("\n") else r
                                 for r in records[1:]]
        return [r for r in records if r.strip()]
    if kind == ".mol2":
        parts = text.split(_MOL2_HEAD)
        return [_MOL2_HEAD + p for p in parts[1:]] or [text]
    if kind == ".pdbqt":
        models, cur, open_ = [], [], False
        for line in text.splitlines():
            if line.startswith("MODEL"):
                cur, open_ = [], True
            elif line.startswith("ENDMDL"):
                models.append("\n".join(cur))
                open_ = False
            elif line.startswith(("ATOM", "HETATM")):
                cur.append(line)
        if open_ or not models:
            models.append("\n".join(cur))
        return [m for m in models if m.strip()]
    return [text]


def count_poses(path: str | Path) -> int:
    """Number of molecules in an SDF (``$$$$`` records; a last record without one counts), mol2
    (``@<TRIPOS>MOLECULE`` records) or PDBQT (``MODEL`` records); 1 for a mol file.

    Raises :class:`MisiInputError` if the file is missing or empty.
    """
    path = Path(path)
    return max(1, len(_records(path, read_text(path))))


def _mol_of(path: Path, record: str, sanitize: bool):
    from rdkit import Chem

    if base_suffix(path) == ".mol2":
        return Chem.MolFromMol2Block(record, sanitize=sanitize, removeHs=False)
    suppl = Chem.SDMolSupplier()
    suppl.SetData(record + "\n$$$$\n", sanitize=sanitize, removeHs=False)
    return next(iter(suppl), None)


def read_ligand_pose(path: str | Path, index: int = 1, *, pdb_id: str = "",
                     smiles: str | None = None) -> tuple[Complex, object]:
    """Pose ``index`` (1-based) of a ligand file (SDF/mol/mol2/PDBQT, optionally gzipped) and its
    RDKit Mol.  ``smiles`` is required for PDBQT (bond orders), ignored otherwise (the caller
    applies it)."""
    from rdkit import Chem, RDLogger

    path = Path(path)
    records = _records(path, read_text(path))
    n = max(1, len(records))
    if not 1 <= index <= n:
        raise MisiInputError(path, f"pose {index} requested, the file holds {n}")
    if base_suffix(path) == ".pdbqt":
        return _read_pdbqt_pose(path, records[index - 1], index, smiles, pdb_id)
    mol = None
    RDLogger.DisableLog("rdApp.*")
    try:
        for sanitize in (True, False):
            mol = _mol_of(path, records[index - 1], sanitize)
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


def _read_pdbqt_pose(path: Path, record: str, index: int, smiles: str | None, pdb_id: str):
    """One PDBQT model as (ligand Complex, Mol): atoms from the file, bond orders from ``smiles``."""
    import numpy as np

    from misi_geom.inputs.bond_orders import assign_from_smiles, mol_from_atoms

    if not smiles:
        raise MisiInputError(path, PDBQT_NEEDS_SMILES)
    names, elements, coord = [], [], []
    for line in record.splitlines():
        try:
            xyz = [float(line[30:38]), float(line[38:46]), float(line[46:54])]
        except ValueError:
            raise MisiInputError(path, f"pose {index}: bad coordinates in {line[:27].strip()!r}") from None
        ad = line[77:79].strip().upper() or line[12:16].strip()[:1].upper()
        el = _AD_ELEMENTS.get(ad, ad.capitalize())
        names.append(line[12:16].strip())
        elements.append(el)
        coord.append(xyz)
    if not coord:
        raise MisiInputError(path, f"pose {index} has no atoms")
    mol = mol_from_atoms(elements, np.array(coord))
    mol, _warnings = assign_from_smiles(mol, smiles, path, f"pose {index}")
    lig = ligand_complex(path, mol, pdb_id)
    return replace(lig, atom_name=np.array(names, dtype=lig.atom_name.dtype)), mol
