"""Test and benchmark scenes for misi_render.

``load_sample(pdb_id)`` reads a bundled sample complex with ``misi_geom.io.load_complex`` when that
loader exists, else with the minimal pocket-PDB + ligand-mol2 reader below (enough for drawing:
waters dropped, pocket bonds from covalent radii).  The minimal readers also build the benchmark's
1000-atom pocket from a protein file.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
from scipy.spatial import cKDTree

from misi_geom import Complex
from misi_geom.samples import SAMPLE_IDS, sample_root

__all__ = ["SAMPLE_IDS", "load_sample", "sample_dir", "read_pocket_pdb", "read_ligand_mol2", "big_scene"]

_COVALENT = {"H": 0.31, "C": 0.76, "N": 0.71, "O": 0.66, "S": 1.05, "P": 1.07, "SE": 1.20}
_SOLVENT = {"HOH", "WAT", "DOD"}


def sample_dir(pdb_id: str) -> Path:
    return sample_root() / pdb_id


def _distance_bonds(coord: np.ndarray, element: np.ndarray) -> np.ndarray:
    rad = np.array([_COVALENT.get(e.upper(), 0.0) for e in element])
    pairs = cKDTree(coord).query_pairs(2.3, output_type="ndarray")
    if len(pairs) == 0:
        return np.zeros((0, 2), dtype=np.int32)
    d = np.linalg.norm(coord[pairs[:, 0]] - coord[pairs[:, 1]], axis=1)
    ok = (rad[pairs[:, 0]] > 0) & (rad[pairs[:, 1]] > 0) & (d < rad[pairs[:, 0]] + rad[pairs[:, 1]] + 0.45)
    return pairs[ok].astype(np.int32)


def read_pocket_pdb(path: Path) -> Complex:
    rows = []
    for line in Path(path).read_text().splitlines():
        if not line.startswith(("ATOM", "HETATM")) or line[17:20].strip() in _SOLVENT:
            continue
        el = line[76:78].strip() or line[12:14].strip()
        rows.append(
            (
                [float(line[30:38]), float(line[38:46]), float(line[46:54])],
                el[:1].upper() + el[1:].lower(),
                line[12:16].strip(),
                line[17:20].strip(),
                int(line[22:26]),
                line[26].strip(),
                line[21].strip(),
            )
        )
    coord = np.array([r[0] for r in rows])
    element = np.array([r[1] for r in rows])
    return Complex.from_atoms(
        coord, element, [r[2] for r in rows], res_name=[r[3] for r in rows], res_id=[r[4] for r in rows],
        ins_code=[r[5] for r in rows], chain_id=[r[6] for r in rows], is_ligand=False,
        bonds=_distance_bonds(coord, element),
    )  # fmt: skip


def read_ligand_mol2(path: Path, res_index: int) -> Complex:
    text = Path(path).read_text()
    bond_part = text.split("@<TRIPOS>BOND")[1].split("@<TRIPOS>")[0].strip().splitlines()
    atom_lines = [ln.split() for ln in text.split("@<TRIPOS>ATOM")[1].split("@<TRIPOS>")[0].strip().splitlines()]
    coord = np.array([[float(a[2]), float(a[3]), float(a[4])] for a in atom_lines])
    element = [a[5].split(".")[0] for a in atom_lines]
    element = [e[:1].upper() + e[1:].lower() for e in element]
    bonds = [(int(b.split()[1]) - 1, int(b.split()[2]) - 1) for b in bond_part if b.strip()]
    return Complex.from_atoms(
        coord, element, [a[1] for a in atom_lines], res_name="LIG", res_id=1, res_index=[res_index] * len(coord),
        is_ligand=True, bonds=bonds,
    )  # fmt: skip


def load_sample(pdb_id: str) -> Complex:
    """The bundled sample complex ``pdb_id`` (pocket + ligand)."""
    folder = sample_dir(pdb_id)
    try:
        from misi_geom.io import load_complex  # type: ignore[attr-defined]
    except ImportError:
        load_complex = None
    if load_complex is not None:
        return load_complex(folder)
    pocket = read_pocket_pdb(folder / f"{pdb_id}_pocket.pdb")
    ligand = read_ligand_mol2(folder / f"{pdb_id}_ligand.mol2", int(pocket.res_index.max()) + 1)
    return Complex.concatenate([pocket, ligand], pdb_id=pdb_id)


def big_scene(n_heavy: int = 1000) -> Complex:
    """About ``n_heavy`` heavy atoms: sample pockets side by side (one ligand kept in the middle)."""
    parts = []
    offset = 0
    shift = np.zeros(3)
    total = 0
    for i, pid in enumerate(SAMPLE_IDS):
        c = load_sample(pid)
        c = c if i == 0 else c.pocket
        c = c.with_coord(c.coord - c.coord.mean(axis=0) + shift)
        parts.append(
            Complex(**{f: getattr(c, f) for f in ("coord", "element", "atom_name", "res_name", "res_id", "ins_code",
                                                   "chain_id", "is_ligand", "is_hydrogen", "formal_charge", "atom_type",
                                                   "bonds", "bond_order")},
                    res_index=c.res_index + offset, pdb_id="big")  # fmt: skip
        )
        offset += int(c.res_index.max()) + 1
        total += int((~c.is_hydrogen).sum())
        shift = shift + np.array([9.0, -7.0, 5.0]) * (1 if i % 2 else -1)
        if total >= n_heavy:
            break
    return Complex.concatenate(parts, pdb_id="big")
