"""The :class:`Complex` model: one row per atom in parallel numpy arrays.

=============== ============ ======================================================================
field           dtype        meaning
=============== ============ ======================================================================
coord           float64 (N,3) Cartesian coordinates, Å
element         <U2          element symbol, capitalised as in the periodic table ("C", "Zn")
atom_name       <U8          atom name from the file (ligand SDF atoms: element + running index)
res_name        <U5          residue name ("ASN"; the ligand keeps its file's name, e.g. "MOL")
res_id          int32        residue sequence number
ins_code        <U1          insertion code, "" when blank
chain_id        <U4          chain id, "" when blank
res_index       int32        residue ordinal in the *source* structure (pocket residues 0..R-1 in
                             file order, the ligand R); kept unchanged by slicing, so colours that
                             alternate between neighbouring residues stay stable
is_ligand       bool         atom belongs to the ligand
is_hydrogen     bool         hydrogen (kept for H-bond geometry, never drawn)
formal_charge   int8         formal charge (ligand: from RDKit; pocket: 0)
atom_type       <U8          ligand: SYBYL type from a mol2 file ("N.am"); ``TEMPLATE_ORDERS`` ("smiles")
                             when a SMILES template set the bond orders of a ligand read without
                             types (they then win over bond lengths in H-bond typing); else ""
bonds           int32 (B,2)  atom index pairs, i < j
bond_order      float32 (B,) 1, 2, 3, or 1.5 for aromatic; pocket bonds (from covalent radii) are 1
=============== ============ ======================================================================

``complex[mask]`` (bool mask, index array or slice) slices every per-atom array and keeps only the
bonds whose two atoms survive, renumbered.

>>> import numpy as np
>>> c = Complex.from_atoms(coord=np.zeros((3, 3)), element=["C", "O", "H"], atom_name=["C1", "O1", "H1"],
...                        bonds=[(0, 1), (1, 2)])
>>> sub = c[~c.is_hydrogen]
>>> len(sub), sub.bonds.tolist()
(2, [[0, 1]])
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Iterable, Sequence

import numpy as np

from misi_geom._typing import BoolArray, Coords, IntArray

__all__ = [
    "TEMPLATE_ORDERS",
    "Complex",
    "Residue",
    "heavy_mask",
    "ligand_mask",
    "pocket_mask",
    "residue_mask",
    "residue_starts",
]

#: ``atom_type`` of ligand atoms whose bond orders come from a SMILES template (see the table above).
TEMPLATE_ORDERS = "smiles"

_PER_ATOM = (
    ("coord", np.float64),
    ("element", "<U2"),
    ("atom_name", "<U8"),
    ("res_name", "<U5"),
    ("res_id", np.int32),
    ("ins_code", "<U1"),
    ("chain_id", "<U4"),
    ("res_index", np.int32),
    ("is_ligand", np.bool_),
    ("is_hydrogen", np.bool_),
    ("formal_charge", np.int8),
    ("atom_type", "<U8"),
)
_PER_ATOM_NAMES = tuple(name for name, _ in _PER_ATOM)


@dataclass(frozen=True)
class Residue:
    """One residue of a :class:`Complex` (a lightweight record, not a container)."""

    res_name: str
    res_id: int
    ins_code: str
    chain_id: str
    res_index: int
    is_ligand: bool
    start: int
    stop: int

    @property
    def label(self) -> str:
        """Display label, e.g. ``"ASN 460"`` (insertion code appended: ``"GLY 184A"``)."""
        return f"{self.res_name} {self.res_id}{self.ins_code}"


@dataclass(frozen=True, eq=False)
class Complex:
    """A pocket + ligand (or any atom subset of one) as flat per-atom arrays. See the module docs."""

    coord: Coords
    element: np.ndarray
    atom_name: np.ndarray
    res_name: np.ndarray
    res_id: np.ndarray
    ins_code: np.ndarray
    chain_id: np.ndarray
    res_index: np.ndarray
    is_ligand: BoolArray
    is_hydrogen: BoolArray
    formal_charge: np.ndarray
    atom_type: np.ndarray
    bonds: IntArray
    bond_order: np.ndarray
    pdb_id: str = ""

    def __post_init__(self) -> None:
        n = None
        for name, dtype in _PER_ATOM:
            arr = np.asarray(getattr(self, name), dtype=dtype)
            if name == "coord":
                arr = arr.reshape(-1, 3)
            if n is None:
                n = len(arr)
            elif len(arr) != n:
                raise ValueError(f"field {name!r} has {len(arr)} rows, expected {n}")
            object.__setattr__(self, name, arr)
        bonds = np.asarray(self.bonds, dtype=np.int32).reshape(-1, 2)
        order = np.asarray(self.bond_order, dtype=np.float32).reshape(-1)
        if len(order) != len(bonds):
            raise ValueError(f"bond_order has {len(order)} rows but there are {len(bonds)} bonds")
        if len(bonds) and (bonds.min() < 0 or bonds.max() >= n):
            raise ValueError("bond table refers to atoms that do not exist")
        object.__setattr__(self, "bonds", bonds)
        object.__setattr__(self, "bond_order", order)

    # --- construction -------------------------------------------------------------------------
    @classmethod
    def from_atoms(
        cls,
        coord: Coords,
        element: Sequence[str],
        atom_name: Sequence[str] | None = None,
        *,
        res_name: Sequence[str] | str = "LIG",
        res_id: Sequence[int] | int = 1,
        ins_code: Sequence[str] | str = "",
        chain_id: Sequence[str] | str = "",
        res_index: Sequence[int] | None = None,
        is_ligand: Sequence[bool] | bool = True,
        formal_charge: Sequence[int] | int = 0,
        atom_type: Sequence[str] | str = "",
        bonds: Iterable[tuple[int, int]] = (),
        bond_order: Sequence[float] | None = None,
        pdb_id: str = "",
    ) -> "Complex":
        """Build a complex from per-atom lists; scalars broadcast.  Handy for tests and small scenes."""
        coord = np.asarray(coord, dtype=np.float64).reshape(-1, 3)
        n = len(coord)
        element = np.asarray(element, dtype="<U2")
        if atom_name is None:
            atom_name = [f"{e}{i + 1}" for i, e in enumerate(element)]

        def full(v, dtype):
            a = np.asarray(v, dtype=dtype)
            return np.full(n, a, dtype=dtype) if a.ndim == 0 else a

        rid = full(res_id, np.int32)
        if res_index is None:
            # a new residue wherever (chain, number, insertion code, name) changes
            cols = (full(chain_id, "<U4"), rid, full(ins_code, "<U1"), full(res_name, "<U5"))
            change = np.zeros(max(n - 1, 0), dtype=bool)
            for col in cols:
                change |= col[1:] != col[:-1]
            res_index = np.concatenate([[0], np.cumsum(change)]) if n else np.zeros(0)
        b = np.asarray(list(bonds), dtype=np.int32).reshape(-1, 2)
        b = np.sort(b, axis=1)
        order = np.ones(len(b), np.float32) if bond_order is None else np.asarray(bond_order, np.float32)
        return cls(
            coord=coord,
            element=element,
            atom_name=np.asarray(atom_name, dtype="<U8"),
            res_name=full(res_name, "<U5"),
            res_id=rid,
            ins_code=full(ins_code, "<U1"),
            chain_id=full(chain_id, "<U4"),
            res_index=np.asarray(res_index, dtype=np.int32),
            is_ligand=full(is_ligand, np.bool_),
            is_hydrogen=np.char.upper(element) == "H",
            formal_charge=full(formal_charge, np.int8),
            atom_type=full(atom_type, "<U8"),
            bonds=b,
            bond_order=order,
            pdb_id=pdb_id,
        )

    @classmethod
    def concatenate(cls, parts: Sequence["Complex"], pdb_id: str | None = None) -> "Complex":
        """Join complexes (e.g. pocket then ligand); bond indices are offset accordingly."""
        if not parts:
            raise ValueError("nothing to concatenate")
        offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
        kw = {name: np.concatenate([getattr(p, name) for p in parts]) for name in _PER_ATOM_NAMES}
        kw["bonds"] = np.concatenate([p.bonds + o for p, o in zip(parts, offsets)]).astype(np.int32)
        kw["bond_order"] = np.concatenate([p.bond_order for p in parts])
        return cls(**kw, pdb_id=parts[0].pdb_id if pdb_id is None else pdb_id)

    # --- slicing and copies -------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self.coord)

    def __getitem__(self, index) -> "Complex":
        idx = np.arange(len(self))[index]
        idx = np.atleast_1d(idx)
        kw = {name: getattr(self, name)[idx] for name in _PER_ATOM_NAMES}
        new_index = np.full(len(self), -1, dtype=np.int64)
        new_index[idx] = np.arange(len(idx))
        if len(self.bonds):
            mapped = new_index[self.bonds]
            keep = (mapped >= 0).all(axis=1)
            bonds, order = np.sort(mapped[keep], axis=1), self.bond_order[keep]
        else:
            bonds, order = np.zeros((0, 2), np.int32), np.zeros(0, np.float32)
        return Complex(**kw, bonds=bonds, bond_order=order, pdb_id=self.pdb_id)

    def with_coord(self, coord: Coords) -> "Complex":
        """Copy with new coordinates (same shape)."""
        coord = np.asarray(coord, dtype=np.float64)
        if coord.shape != self.coord.shape:
            raise ValueError(f"coordinates must have shape {self.coord.shape}, got {coord.shape}")
        return replace(self, coord=coord.copy())

    def copy(self) -> "Complex":
        return replace(self, **{f.name: np.copy(getattr(self, f.name)) for f in fields(self) if f.name != "pdb_id"})

    # --- residue table ------------------------------------------------------------------------
    def residues(self) -> list[Residue]:
        """One :class:`Residue` per run of equal ``res_index``, in atom order."""
        starts = residue_starts(self)
        stops = np.append(starts[1:], len(self))
        return [
            Residue(
                res_name=str(self.res_name[s]),
                res_id=int(self.res_id[s]),
                ins_code=str(self.ins_code[s]),
                chain_id=str(self.chain_id[s]),
                res_index=int(self.res_index[s]),
                is_ligand=bool(self.is_ligand[s]),
                start=int(s),
                stop=int(e),
            )
            for s, e in zip(starts, stops)
        ]

    @property
    def ligand(self) -> "Complex":
        return self[self.is_ligand]

    @property
    def pocket(self) -> "Complex":
        return self[~self.is_ligand]

    @property
    def heavy(self) -> "Complex":
        return self[~self.is_hydrogen]

    def summary(self) -> str:
        """One line: id, residue and atom counts."""
        lig = self.is_ligand
        n_res = len(np.unique(self.res_index[~lig]))
        return (
            f"{self.pdb_id or '?'}: pocket {n_res} residues / {int((~lig & ~self.is_hydrogen).sum())} heavy atoms, "
            f"ligand {int((lig & ~self.is_hydrogen).sum())} heavy atoms, {len(self.bonds)} bonds"
        )


# --- selections (boolean masks) -------------------------------------------------------------
def heavy_mask(c: Complex) -> BoolArray:
    """Atoms that are not hydrogen."""
    return ~c.is_hydrogen


def ligand_mask(c: Complex) -> BoolArray:
    """Ligand atoms."""
    return c.is_ligand.copy()


def pocket_mask(c: Complex) -> BoolArray:
    """Pocket (non-ligand) atoms."""
    return ~c.is_ligand


def residue_mask(c: Complex, res_index: int) -> BoolArray:
    """Atoms of the residue with the given ``res_index``."""
    return c.res_index == res_index


def residue_starts(c: Complex) -> np.ndarray:
    """Indices (int64) where a new residue starts, i.e. where ``res_index`` changes."""
    if len(c) == 0:
        return np.zeros(0, dtype=np.int64)
    change = np.flatnonzero(c.res_index[1:] != c.res_index[:-1]) + 1
    return np.concatenate([[0], change]).astype(np.int64)
