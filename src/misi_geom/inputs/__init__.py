"""Inputs beyond the PDBbind folder layout: explicit files, ligands chosen by name, multi-pose SDFs.

Every kind of input produces the same :class:`~misi_geom.complex.Complex` the folder loader does,
through a *source* value (:class:`FolderSource`, :class:`FileSource`) whose ``load()`` returns the
complex and its provenance (file names and sha256 checksums).
"""

from misi_geom.inputs.bond_orders import assign_from_smiles, mol_from_atoms, perceive_bond_orders
from misi_geom.inputs.entry import EntryLigand, LigandSelection, read_entry_ligand
from misi_geom.inputs.files import (
    LIGAND_SUFFIXES,
    STRUCTURE_SUFFIXES,
    is_ligand_file,
    is_structure_file,
    sha256_file,
    stem_id,
)
from misi_geom.inputs.poses import count_poses, read_ligand_pose
from misi_geom.inputs.source import POCKET_CUTOFF, ComplexSource, FileSource, FolderSource, LoadedComplex

__all__ = [
    "ComplexSource",
    "EntryLigand",
    "FileSource",
    "FolderSource",
    "LIGAND_SUFFIXES",
    "LigandSelection",
    "LoadedComplex",
    "POCKET_CUTOFF",
    "STRUCTURE_SUFFIXES",
    "assign_from_smiles",
    "count_poses",
    "is_ligand_file",
    "is_structure_file",
    "mol_from_atoms",
    "perceive_bond_orders",
    "read_entry_ligand",
    "read_ligand_pose",
    "sha256_file",
    "stem_id",
]
