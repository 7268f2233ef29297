"""Where one complex comes from, and how it is loaded: a PDBbind folder or explicit files.

:class:`FolderSource` wraps today's folder loader (:func:`misi_geom.io.load_complex`) unchanged and
records no provenance, so a folder run keeps its exact output.  :class:`FileSource` names the files
of one complex explicitly (a manifest row, or ``misi-gen --input entry.cif --ligand NAME``):

- the ligand is a file (SDF/mol/mol2/PDBQT, optionally gzipped; pose ``k`` of a multi-molecule file) or a
  residue selected by name inside the protein file (:mod:`misi_geom.inputs.entry`);
- a SMILES, when given, sets the ligand's bond orders and charges (template), for a ligand file too;
- the pocket is the given pocket file, else cut from the protein
  (:func:`misi_geom.io.pocket_from_protein`: whole residues with a heavy atom within 10 Å of a ligand
  heavy atom);
- a pocket residue overlapping the ligand (heavy atoms within 1 Å, e.g. the crystal ligand left in a
  holo protein next to a docked pose) is kept, with a warning;
- a ligand atom within bonding distance of a pocket atom makes a covalent ligand
  (:mod:`misi_geom.inputs.covalent`): a warning, ``provenance["covalent"]``, and the bond orders at
  the linked atom follow the adduct;
- a single ligand file beside its PDBbind sibling (``x_ligand.mol2`` / ``x_ligand.sdf``) is read the
  way the folder loader reads the pair, so a PDBbind complex gives the same complex either way.

Both kinds are picklable values (they travel to worker processes) with an ``id``, a ``group`` (the
id the split is drawn from: every pose of one complex lands in the same split) and an optional
``split``; :meth:`load` returns a :class:`LoadedComplex`.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Union

import numpy as np

from misi_geom.complex import Complex
from misi_geom.errors import MisiInputError
from misi_geom.residues import residue_label, residue_number
from misi_geom.inputs.bond_orders import assign_from_smiles, mark_template_orders, partial_hydrogens
from misi_geom.inputs.covalent import covalent_links, declared_links, relink_bond_orders
from misi_geom.inputs.entry import LigandSelection, read_entry_ligand
from misi_geom.inputs.files import base_suffix, require_file, sha256_file
from misi_geom.inputs.poses import read_ligand_pose
from misi_geom.io import (
    MAX_LIGAND_GAP,
    ligand_complex,
    assemble_complex,
    load_complex,
    pocket_from_protein,
    read_ligand_candidates,
    read_structure,
)

__all__ = ["LoadedComplex", "FolderSource", "FileSource", "ComplexSource", "POCKET_CUTOFF"]

#: Å: a pocket cut from a protein holds every residue with a heavy atom this close to a ligand heavy atom.
POCKET_CUTOFF = 10.0
#: Å: a pocket heavy atom this close to a ligand heavy atom overlaps it (a warning, see ``load``).
OVERLAP = 1.0


@lru_cache(maxsize=2)
def _cached_structure(path: str, size: int, mtime_ns: int) -> Complex:
    return read_structure(path)


def _read_protein(path: Path) -> Complex:
    """:func:`read_structure`, cached for the poses that share one protein (keyed by size and mtime)."""
    if not path.is_file():
        return read_structure(path)  # the usual one-line error
    st = path.stat()
    return _cached_structure(str(path), st.st_size, st.st_mtime_ns)


@dataclass(frozen=True)
class LoadedComplex:
    """A loaded complex and its provenance (``None`` for PDBbind folders, see the module docs)."""

    complex: Complex
    provenance: dict[str, Any] | None = None


@dataclass(frozen=True)
class FolderSource:
    """A PDBbind-layout folder ``<id>/`` (see :func:`misi_geom.io.load_complex`)."""

    path: Path
    split: str | None = None

    @property
    def id(self) -> str:
        return self.path.name

    @property
    def group(self) -> str:
        return self.id

    def describe(self) -> dict[str, str]:
        """Short column values for a table: protein, ligand, pocket."""
        return {"protein": f"{self.path.name}/ (PDBbind folder)", "ligand": "", "pocket": ""}

    def load(self) -> LoadedComplex:
        """The folder's complex (:func:`misi_geom.io.load_complex`), no provenance."""
        return LoadedComplex(load_complex(self.path))


@dataclass(frozen=True)
class FileSource:
    """One complex named by explicit files (see the module docs).

    ``root`` is the folder file names in the provenance are given relative to (the manifest's);
    ``pose`` is the 1-based molecule of a multi-molecule ligand file (``None``: a single molecule).
    """

    id: str
    protein: Path | None = None
    ligand: Path | None = None
    selection: LigandSelection | None = None
    pocket: Path | None = None
    smiles: str | None = None
    pose: int | None = None
    split: str | None = None
    group: str = ""
    root: Path | None = None

    def __post_init__(self) -> None:
        if (self.ligand is None) == (self.selection is None):
            raise ValueError(f"{self.id}: give exactly one of a ligand file and a ligand selection")
        if self.selection is not None and self.protein is None:
            raise ValueError(f"{self.id}: a ligand selection needs the protein file it is in")
        if self.protein is None and self.pocket is None:
            raise ValueError(f"{self.id}: give a protein or a pocket file")
        if not self.group:
            object.__setattr__(self, "group", self.id)

    def describe(self) -> dict[str, str]:
        """Short column values for a table: protein, ligand, pocket."""
        lig = str(self.selection) if self.selection else self._name(self.ligand)
        if self.pose is not None:
            lig += f" #{self.pose}"
        return {"protein": self._name(self.protein), "ligand": lig, "pocket": self._name(self.pocket) or "cut"}

    # --- loading ---------------------------------------------------------------------------------
    def load(self) -> LoadedComplex:
        """Read the files into pocket + ligand; :class:`MisiInputError` names the file at fault."""
        warnings: list[str] = []
        protein = None
        if self.selection is not None:
            entry = read_entry_ligand(self.protein, self.selection, smiles=self.smiles, pdb_id=self.id)
            protein, ligand, bond_orders = entry.protein, entry.ligand, entry.bond_orders
            warnings += entry.warnings
            lig_path, mol = self.protein, entry.mol
        else:
            ligand, mol, lig_path = self._read_ligand_file(warnings)
            bond_orders = "file"
            if base_suffix(lig_path) == ".pdbqt":  # the SMILES was applied while reading
                bond_orders = "smiles template"
            elif self.smiles:
                mol, more = assign_from_smiles(mol, self.smiles, lig_path, "ligand")
                ligand = replace(ligand_complex(lig_path, mol, self.id),
                                 atom_name=ligand.atom_name, res_name=ligand.res_name)
                bond_orders, warnings = "smiles template", warnings + more
        if bond_orders == "smiles template":
            ligand = mark_template_orders(ligand)
        note = partial_hydrogens(mol)
        if note:
            warnings.append(note)
        if self.pocket is not None:
            pocket, pocket_path = read_structure(self.pocket, pdb_id=self.id), self.pocket
            if self.selection is not None:  # a pocket file cut around the ligand may hold it
                pocket = pocket[~entry.mask(pocket)]
        else:
            protein = protein if protein is not None else _read_protein(self.protein)
            pocket, pocket_path = pocket_from_protein(protein, ligand, POCKET_CUTOFF), self.protein
        warnings += _overlap_warnings(pocket, ligand)
        on_ligand = _overlapping_residues(pocket, ligand)  # e.g. the crystal ligand under a docked pose
        links = [link for link in covalent_links(pocket, ligand) if pocket.res_index[link.pocket_atom] not in on_ligand]
        if self.selection is not None:
            links = sorted(links + declared_links(self.protein, entry.keys, pocket, ligand, links),
                           key=lambda x: (x.ligand_atom, x.pocket_atom))
        covalent = [link.describe(pocket, ligand) for link in links]
        if links:
            ligand, notes = relink_bond_orders(ligand, links)
            warnings.append("covalent ligand: " + "; ".join(covalent)
                            + (f"; bond orders at the linked atom follow the adduct ({', '.join(notes)})" if notes else ""))
        c = assemble_complex(pocket, ligand, pdb_id=self.id, pocket_path=pocket_path, ligand_path=lig_path,
                             max_ligand_gap=MAX_LIGAND_GAP)
        prov = self._provenance(c, bond_orders, warnings, entry.selected if self.selection is not None else None)
        if covalent:
            prov["covalent"] = covalent
        return LoadedComplex(c, prov)

    def _read_ligand_file(self, warnings: list[str]):
        path = self.ligand
        require_file(path)
        if self.pose is not None or path.suffix.lower() == ".gz" or base_suffix(path) == ".pdbqt":
            lig, mol = read_ligand_pose(path, self.pose or 1, pdb_id=self.id, smiles=self.smiles)
            return lig, mol, path
        if base_suffix(path) not in (".mol2", ".sdf", ".mol"):
            raise MisiInputError(path, "ligand must be a .sdf, .mol, .mol2 or .pdbqt file (optionally .gz)")
        # a PDBbind pair: read as the folder loader does (mol2 first, then SDF; names from the mol2)
        mol2, sdf = path.with_suffix(".mol2"), path.with_suffix(".sdf")
        files = [path] + [p for p in (mol2, sdf) if p != path and p.is_file() and path.stem.endswith("_ligand")]
        return read_ligand_candidates(files, pdb_id=self.id, names_from=mol2 if mol2.is_file() else None,
                                      notes=warnings)

    # --- provenance --------------------------------------------------------------------------------
    def _name(self, path: Path | None) -> str:
        if path is None:
            return ""
        if self.root is not None:
            try:
                return path.resolve().relative_to(self.root.resolve()).as_posix()
            except ValueError:
                pass
        return path.name

    def _provenance(self, c: Complex, bond_orders: str, warnings: list[str], selected: str | None) -> dict:
        files = {}
        for role, path in (("protein", self.protein), ("ligand", self.ligand), ("pocket", self.pocket)):
            if path is not None:
                files[role] = {"file": self._name(path), "sha256": sha256_file(path)}
        lig = c.is_ligand
        out: dict[str, Any] = {
            "files": files,
            "pocket": "file" if self.pocket is not None else f"cut from protein ({POCKET_CUTOFF:g} Å)",
            "bond_orders": bond_orders,
            "explicit_hydrogens": {"pocket": bool((c.is_hydrogen & ~lig).any()),
                                   "ligand": bool((c.is_hydrogen & lig).any())},
            "warnings": list(warnings),
        }
        if selected is not None:
            out["ligand_selection"] = selected
        if self.pose is not None:
            out["pose"] = self.pose
        if self.smiles:
            out["smiles"] = self.smiles
        return out


def _overlap_atoms(pocket: Complex, ligand: Complex) -> np.ndarray:
    """Pocket heavy atoms within :data:`OVERLAP` Å of a ligand heavy atom (no bond is that short)."""
    from scipy.spatial import cKDTree

    heavy = ~pocket.is_hydrogen
    lig = ligand.coord[~ligand.is_hydrogen]
    d = cKDTree(lig).query(pocket.coord[heavy], k=1, distance_upper_bound=OVERLAP)[0]
    return np.flatnonzero(heavy)[d < OVERLAP]


def _overlapping_residues(pocket: Complex, ligand: Complex) -> set[int]:
    return set(pocket.res_index[_overlap_atoms(pocket, ligand)].tolist())


def _overlap_warnings(pocket: Complex, ligand: Complex) -> list[str]:
    """Pocket residues with a heavy atom within :data:`OVERLAP` Å of a ligand heavy atom (no bond is
    that short): typically the ligand left in a holo protein file next to a docked pose."""
    hit = _overlap_atoms(pocket, ligand)
    if len(hit) == 0:
        return []
    residues = dict.fromkeys(
        residue_label(str(pocket.res_name[k]), residue_number(pocket, k), str(pocket.chain_id[k]) or None)
        for k in hit)
    return [f"pocket residue(s) {', '.join(residues)} overlap the ligand ({len(hit)} heavy atoms within "
            f"{OVERLAP:g} Å): is the ligand also in the protein file?"]


#: Either kind of source.
ComplexSource = Union[FolderSource, FileSource]
