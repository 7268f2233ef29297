"""The structures behind a dataset, read with misi_geom's loaders and named the way answers name atoms.

The audit reads the input files itself (``misi-audit --input`` as ``misi-gen --input`` takes it)
and keeps only what it needs: heavy atoms (hydrogens are never drawn), their names, residues,
colours and covalent bonds.  Ligand atom labels follow the documented rule (spec section 2, the
prompts): a name that more than one drawn ligand atom carries is numbered in file order, ``N_1``,
``N_2``; that rule is re-implemented here, not imported from the renderer.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from misi_tasks.audit.pixels import atom_classes, ball_radii

__all__ = ["Atoms", "Structures", "ligand_labels"]


def ligand_labels(names: list[str]) -> list[str]:
    """Labels of the drawn ligand atoms (file order): repeated names numbered ``NAME_k``.

    >>> ligand_labels(["N", "CA", "N", "O1"])
    ['N_1', 'CA', 'N_2', 'O1']
    """
    counts: dict[str, int] = {}
    for n in names:
        counts[n] = counts.get(n, 0) + 1
    seen: dict[str, int] = {}
    out = []
    for n in names:
        if counts[n] == 1:
            out.append(n)
        else:
            seen[n] = seen.get(n, 0) + 1
            out.append(f"{n}_{seen[n]}")
    return out


@dataclass(frozen=True)
class Atoms:
    """The heavy atoms of one complex (model coordinates, Å) with what the audit looks up."""

    complex_id: str
    xyz: np.ndarray
    element: np.ndarray
    name: np.ndarray  # ligand atoms: their labels
    res_name: np.ndarray
    res_num: np.ndarray  # residue number with insertion code, as text
    chain: np.ndarray
    res_index: np.ndarray
    is_ligand: np.ndarray
    bonds: np.ndarray  # (B, 2) heavy-atom rows

    @cached_property
    def classes(self) -> np.ndarray:
        """Each atom's colour class (:func:`misi_tasks.audit.pixels.atom_classes`)."""
        return atom_classes(self.element, self.is_ligand, self.res_index)

    @cached_property
    def _radii(self) -> dict[str, np.ndarray]:
        return {}

    def radii(self, style: str) -> np.ndarray:
        """Drawn ball radii (Å) in ``style`` (:func:`misi_tasks.audit.pixels.ball_radii`)."""
        if style not in self._radii:
            self._radii[style] = ball_radii(self.element, self.is_ligand, style)
        return self._radii[style]

    @cached_property
    def pocket_chains(self) -> set[str]:
        """The chain ids of the pocket's drawn atoms (residues, ions and other groups; waters are never
        drawn), a blank id counted as its own chain, written ``"?"``."""
        return {str(c).strip() or "?" for c in self.chain[~self.is_ligand]}

    @property
    def labels_carry_chains(self) -> bool:
        """The documented label rule (docs/fairness.md, docs/loading.md): residue labels carry the chain
        id when the pocket's drawn atoms carry more than one chain id, a blank one included (a chain-A
        pocket with a blank-chain ion is drawn ``THR 43 A``, the ion ``MG 1 ?``)."""
        return len(self.pocket_chains) > 1

    def residue_rows(self, res_name: str, res_num: str, chain: str | None = None) -> np.ndarray:
        """Rows of a pocket residue by name and number (and chain unless None or ``?``)."""
        sel = ~self.is_ligand & (self.res_name == res_name) & (self.res_num == str(res_num))
        if chain not in (None, "?"):
            sel &= self.chain == chain
        return np.flatnonzero(sel)

    def pocket_atom(self, res_name: str, res_num: str, atom: str, chain: str | None = None) -> int | None:
        rows = [i for i in self.residue_rows(res_name, res_num, chain) if self.name[i] == atom]
        return rows[0] if len(rows) == 1 else None

    def ligand_atom(self, label: str) -> int | None:
        rows = np.flatnonzero(self.is_ligand & (self.name == label))
        return int(rows[0]) if len(rows) == 1 else None

    def neighbours(self, i: int) -> np.ndarray:
        b = self.bonds
        return np.concatenate([b[b[:, 0] == i, 1], b[b[:, 1] == i, 0]])

    def subset(self, rows: np.ndarray) -> "Atoms":
        """The atoms of ``rows`` (bonds among them kept, colours as in the whole complex)."""
        rows = np.asarray(rows)
        remap = -np.ones(len(self.xyz), dtype=np.int64)
        remap[rows] = np.arange(len(rows))
        b = remap[self.bonds]
        part = Atoms(self.complex_id, self.xyz[rows], self.element[rows], self.name[rows], self.res_name[rows],
                     self.res_num[rows], self.chain[rows], self.res_index[rows], self.is_ligand[rows],
                     b[(b >= 0).all(axis=1)])
        part.__dict__["classes"] = self.classes[rows]  # the same colours as in the whole complex
        return part


def _atoms_of(cid: str, c) -> Atoms:
    heavy = np.flatnonzero(~np.asarray(c.is_hydrogen) & np.all(np.isfinite(c.coord), axis=1))
    names = np.array([str(n).strip() for n in c.atom_name[heavy]], dtype=object)
    lig = np.asarray(c.is_ligand[heavy], dtype=bool)
    names[lig] = ligand_labels(list(names[lig]))
    remap = -np.ones(len(c.coord), dtype=np.int64)
    remap[heavy] = np.arange(len(heavy))
    b = remap[np.asarray(c.bonds, dtype=np.int64).reshape(-1, 2)]
    return Atoms(
        complex_id=cid,
        xyz=np.asarray(c.coord[heavy], dtype=np.float64),
        element=np.array([str(e) for e in c.element[heavy]], dtype=object),
        name=names,
        res_name=np.array([str(r).strip() for r in c.res_name[heavy]], dtype=object),
        res_num=np.array([f"{r}{str(i).strip()}" for r, i in zip(c.res_id[heavy], c.ins_code[heavy])], dtype=object),
        chain=np.array([str(x).strip() for x in c.chain_id[heavy]], dtype=object),
        res_index=np.asarray(c.res_index[heavy]),
        is_ligand=lig,
        bonds=b[(b >= 0).all(axis=1)],
    )


class Structures:
    """Complexes of an input, loaded on first use (by complex id)."""

    def __init__(self, path: Path, ligand: str | None = None, smiles: str | None = None, poses: int | None = None):
        self.path = Path(path)
        if self.path.is_dir() and not (ligand or smiles or poses):  # PDBbind folders: misi_geom alone
            from misi_geom import find_complex_dirs
            from misi_geom.inputs import FolderSource

            self.sources = {d.name: FolderSource(d) for d in find_complex_dirs(self.path)}
        else:  # manifests and entries as misi-gen --input reads them (imports the generators' package)
            from misi_tasks.inputs import discover_inputs

            self.sources = discover_inputs(self.path, ligand=ligand, smiles=smiles, poses=poses).sources
        self._cache: dict[str, Atoms | str] = {}

    def get(self, cid: str) -> Atoms:
        """The complex ``cid``; KeyError with a one-line reason when the input lacks it or it fails to load."""
        if cid not in self._cache:
            src = self.sources.get(cid)
            if src is None:
                self._cache[cid] = f"complex {cid} is not in {self.path}"
            else:
                try:
                    self._cache[cid] = _atoms_of(cid, src.load().complex)
                except Exception as exc:  # noqa: BLE001 - any loader error is one line of the report
                    self._cache[cid] = f"complex {cid} does not load: {' '.join(str(exc).split())}"
        got = self._cache[cid]
        if isinstance(got, str):
            raise KeyError(got)
        return got
