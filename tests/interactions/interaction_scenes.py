"""Hand-made pocket + ligand scenes for the interaction tests (coordinates in Å)."""

from __future__ import annotations

import numpy as np

from misi_geom.complex import Complex

BENZENE_R = 1.39


def ring_coords(centre, normal, radius: float = BENZENE_R, n: int = 6, phase: float = 0.0) -> np.ndarray:
    """``n`` points on a circle of ``radius`` around ``centre`` in the plane with ``normal``."""
    normal = np.asarray(normal, float) / np.linalg.norm(normal)
    u = np.cross(normal, [1.0, 0, 0] if abs(normal[0]) < 0.9 else [0, 1.0, 0])
    u /= np.linalg.norm(u)
    v = np.cross(normal, u)
    t = phase + 2 * np.pi * np.arange(n) / n
    return np.asarray(centre, float) + radius * (np.cos(t)[:, None] * u + np.sin(t)[:, None] * v)


def pocket_residue(name: str, atoms: dict[str, tuple], res_id: int = 10, chain: str = "A",
                   element: str | None = None) -> Complex:
    """One pocket residue from {atom name: xyz}; elements from the first letter (or ``element`` for
    all); bonds by distance."""
    names = list(atoms)
    xyz = np.array([atoms[a] for a in names], float)
    bonds = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))
             if np.linalg.norm(xyz[i] - xyz[j]) < 1.75]
    return Complex.from_atoms(xyz, [element or a[0] for a in names], names, res_name=name, res_id=res_id,
                              chain_id=chain, is_ligand=False, bonds=bonds)


def phe(centre, normal, res_id: int = 10) -> Complex:
    """A PHE side chain: ring CG..CZ around ``centre`` (CB bonded to CG)."""
    ring = ring_coords(centre, normal)
    names = ["CG", "CD1", "CE1", "CZ", "CE2", "CD2"]
    out = {n: tuple(p) for n, p in zip(names, ring)}
    cg = ring[0]
    out = {"CB": tuple(cg + (cg - np.asarray(centre)) / BENZENE_R * 1.5), **out}
    return pocket_residue("PHE", out, res_id)


def benzene_ligand(centre, normal, extra: list[tuple[str, tuple, int]] = ()) -> Complex:
    """A benzene ligand (aromatic bonds) with optional substituents (element, xyz, bonded ring atom)."""
    ring = ring_coords(centre, normal)
    xyz = list(map(tuple, ring)) + [e[1] for e in extra]
    el = ["C"] * 6 + [e[0] for e in extra]
    bonds = [(k, (k + 1) % 6) for k in range(6)] + [(6 + k, e[2]) for k, e in enumerate(extra)]
    order = [1.5] * 6 + [1.0] * len(extra)
    return Complex.from_atoms(np.array(xyz), el, [f"{e}{k + 1}" for k, e in enumerate(el)], bonds=bonds,
                              bond_order=order, res_name="LIG", res_id=900)


def ligand(atoms: list[tuple[str, tuple]], bonds: list[tuple[int, int, float]]) -> Complex:
    """A ligand from (element, xyz) and (i, j, order) lists."""
    el = [a[0] for a in atoms]
    return Complex.from_atoms(np.array([a[1] for a in atoms], float), el, [f"{e}{k + 1}" for k, e in enumerate(el)],
                              bonds=[b[:2] for b in bonds], bond_order=[b[2] for b in bonds], res_name="LIG",
                              res_id=900)


def join(*parts: Complex) -> Complex:
    """Pocket parts then the ligand (last), with distinct residue indices."""
    out = []
    for k, p in enumerate(parts):
        out.append(Complex(**{**{f: getattr(p, f) for f in p.__dataclass_fields__},
                              "res_index": np.full(len(p), k, np.int32)}))
    return Complex.concatenate(out)
