"""A ligand chosen by name inside a PDB/mmCIF entry: ``RESNAME[:CHAIN[:RESNUM[ICODE]]]``.

The structure goes through the same clean-up as any pocket or protein file
(:func:`misi_geom.io.read_structure`: first model, waters and solvent removed, best alt-loc kept,
hydrogens flagged).  The selected residue is then taken out of it as the ligand; everything else
(other ligands, ions, cofactors, other copies of the same ligand) stays with the protein, as in a
pocket file.  Several residues may match a short selection (``ATP`` in chains A and B): the first
in file order is used and a warning names the others; a non-polymer residue is preferred over a
polymer one of the same name (free ARG 130 over the protein's ARG 5), and a polymer residue alone is
refused (a peptide ligand is selected as its whole chain, ``chain:P``).  ``RESNAME:*`` and ``all``
(every copy, every ligand: :mod:`misi_geom.inputs.ligands`) are expanded before loading, one exact
selection per complex.

Chain and residue number are the author's (``auth_asym_id``, ``auth_seq_id`` in mmCIF), as PDB files
and viewers show them.  The ligand's atoms keep their names from the structure and its residue name; bonds come from
covalent radii, bond orders from a SMILES template or RDKit's perception
(:mod:`misi_geom.inputs.bond_orders`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from misi_geom.complex import Complex
from misi_geom.errors import MisiInputError
from misi_geom.inputs.bond_orders import assign_from_smiles, mol_from_atoms, perceive_bond_orders
from misi_geom.inputs.ligands import atom_record_residues, polymer_residues, residue_keys
from misi_geom.io import ligand_complex, read_structure

__all__ = ["LigandSelection", "EntryLigand", "read_entry_ligand", "residue_mask_of"]

_SELECTION = re.compile(r"^([A-Za-z0-9+\-]{1,5})(?::([A-Za-z0-9]{0,4})(?::(-?\d+)([A-Za-z]?))?)?$")
_PEPTIDE = re.compile(r"^chain:([A-Za-z0-9]{1,4})$", re.IGNORECASE)


@dataclass(frozen=True)
class LigandSelection:
    """A residue named in a structure: name, optional chain, optional number (+ insertion code).

    >>> s = LigandSelection.parse("atp:B:501")
    >>> s, str(s)
    (LigandSelection(res_name='ATP', chain='B', res_id=501, ins_code='', peptide=False), 'ATP:B:501')
    >>> str(LigandSelection.parse("X6L"))
    'X6L'
    """

    res_name: str
    chain: str | None = None
    res_id: int | None = None
    ins_code: str = ""
    peptide: bool = False  # the whole chain ``chain`` is the ligand (``chain:B``)

    @classmethod
    def parse(cls, text: str) -> "LigandSelection":
        """Parse ``RESNAME[:CHAIN[:RESNUM[ICODE]]]`` or ``chain:ID`` (a peptide ligand: the whole
        chain); raises ``ValueError`` with the expected form.

        >>> LigandSelection.parse("chain:P").peptide, str(LigandSelection.parse("chain:P"))
        (True, 'chain:P')
        """
        text = str(text).strip()
        m = _PEPTIDE.match(text)
        if m:
            return cls("", m.group(1), peptide=True)
        m = _SELECTION.match(text)
        if not m:
            raise ValueError(f"ligand selection {text!r} is not RESNAME[:CHAIN[:RESNUM]] (e.g. ATP:A:501), "
                             "RESNAME:* (every copy), all (every ligand) or chain:ID (a peptide ligand)")
        name, chain, num, icode = m.groups()
        return cls(name.upper(), chain or None, int(num) if num is not None else None, icode or "")

    def __str__(self) -> str:
        if self.peptide:
            return f"chain:{self.chain}"
        parts = [self.res_name]
        if self.chain is not None or self.res_id is not None:
            parts.append(self.chain or "")
        if self.res_id is not None:
            parts.append(f"{self.res_id}{self.ins_code}")
        return ":".join(parts)

    def matches(self, res_name: str, chain: str, res_id: int, ins_code: str) -> bool:
        """Whether a residue (name, chain, number, insertion code) is selected."""
        if self.peptide:
            return chain == self.chain
        return (res_name.upper() == self.res_name
                and (self.chain is None or chain == self.chain)
                and (self.res_id is None or (res_id == self.res_id and ins_code == self.ins_code)))


@dataclass(frozen=True)
class EntryLigand:
    """The result of splitting an entry: protein without the ligand, the ligand and its Mol."""

    protein: Complex
    ligand: Complex
    mol: object
    selected: str  # the residue used, fully qualified: "X6L:A:1001" (a peptide: "chain:P")
    key: tuple[str, str, int, str]  # the same as (name, chain, number, insertion code); a peptide's first
    bond_orders: str  # "smiles template" or "rdDetermineBonds"
    warnings: tuple[str, ...]
    keys: tuple[tuple[str, str, int, str], ...] = ()  # every residue of the ligand (one unless a peptide)

    def mask(self, c: Complex) -> np.ndarray:
        """Atoms of ``c`` that belong to the ligand's residue(s)."""
        out = np.zeros(len(c), dtype=bool)
        for key in self.keys or (self.key,):
            out |= residue_mask_of(c, key)
        return out


def residue_mask_of(c: Complex, key: tuple[str, str, int, str]) -> np.ndarray:
    """Boolean mask of the atoms of residue ``key`` = (name, chain, number, insertion code)."""
    name, chain, num, icode = key
    return (c.res_name == name) & (c.chain_id == chain) & (c.res_id == num) & (c.ins_code == icode)


def read_entry_ligand(path: str | Path, selection: LigandSelection | str, *, smiles: str | None = None,
                      pdb_id: str = "") -> EntryLigand:
    """Split a PDB/mmCIF entry (optionally gzipped) into protein and the selected ligand residue.

    Raises :class:`MisiInputError` (one line naming ``path``) when nothing matches, when the
    ligand's bond orders cannot be set (no SMILES and no hydrogens), or when the SMILES does not fit.
    """
    path = Path(path)
    sel = LigandSelection.parse(selection) if isinstance(selection, str) else selection
    structure = read_structure(path, pdb_id=pdb_id)
    keys = [k for k in residue_keys(structure) if sel.matches(*k)]
    if not keys:
        if sel.peptide:
            chains = sorted({str(x) for x in structure.chain_id})
            raise MisiInputError(path, f"no chain {sel.chain!r} for the peptide ligand {sel} "
                                       f"(chains here: {', '.join(chains) or 'none'})")
        names = sorted({str(n) for n in structure.res_name[~np.isin(structure.res_name, _STANDARD)]})
        raise MisiInputError(path, f"no residue matches ligand selection {sel} "
                                   f"(non-standard residues here: {', '.join(names) or 'none'})")
    warnings = []
    if sel.peptide:
        qualified, key, chosen = str(sel), keys[0], keys
    else:
        polymer = polymer_residues(structure, atom_record_residues(path))
        free = [k for k in keys if k not in polymer]
        if not free:
            k = keys[0]
            raise MisiInputError(path, f"{k[0]}:{k[1]}:{k[2]}{k[3]} is a residue of the polymer chain "
                                       f"{k[1] or '(blank)'} (an ATOM record or peptide-bonded), not a ligand; "
                                       "for a peptide ligand select its whole chain: --ligand chain:ID")
        key = free[0]
        chosen = [key]
        qualified = f"{key[0]}:{key[1]}:{key[2]}{key[3]}"
        if len(free) > 1:  # polymer residues of the same name are never candidates
            others = ", ".join(f"{k[0]}:{k[1]}:{k[2]}{k[3]}" for k in free[1:])
            warnings.append(f"ligand selection {sel} matches {len(free)} residues; used {qualified}, not {others} "
                            f"(every copy: {sel.res_name}:*)")
    in_ligand = np.zeros(len(structure), dtype=bool)
    for k in chosen:
        in_ligand |= residue_mask_of(structure, k)
    atoms = structure[in_ligand]
    if (~atoms.is_hydrogen).sum() == 0:
        raise MisiInputError(path, f"ligand {qualified} has no heavy atoms")
    protein = structure[~in_ligand]
    if len(protein) == 0:
        raise MisiInputError(path, f"nothing but ligand {qualified} in the structure")
    mol = mol_from_atoms(atoms.element.tolist(), atoms.coord)
    label = f"ligand {qualified}"
    if smiles:
        mol, more = assign_from_smiles(mol, smiles, path, label)
        how = "smiles template"
    else:
        mol, more = perceive_bond_orders(mol, path, label)
        how = "rdDetermineBonds"
    lig = ligand_complex(path, mol, pdb_id)
    lig = replace(lig, atom_name=atoms.atom_name, res_name=atoms.res_name)
    return EntryLigand(protein, lig, mol, qualified, key, how, tuple(warnings + more), tuple(chosen))


#: Residue names of the standard amino acids and nucleotides (left out of the "did you mean" list).
_STANDARD = np.array(
    "ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL "
    "MSE SEC PYL A C G U DA DC DG DT DU I DI".split()
)
