"""Build the issue-25 fixtures of ``tests/inputs`` (docking-pose formats, multi-copy entries).

Run from the repository root with the development set at hand (the tests do not need it)::

    python tests/inputs/data/make_structures.py /work/shared/data/pdbbind_dev

Everything derives from PDB entry 4CWB as distributed in the development set (see ``PROVENANCE.md``);
poses are moved exactly as in ``make_fixtures.py`` (pose 2 turned 30° about z through the centroid,
pose 3 shifted).  Outputs are deterministic; nothing runs on import.
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
POSE2_TURN_DEG = 30.0
POSE3_SHIFT = (1.0, -0.5, 0.5)


def _motions(xyz: np.ndarray) -> list:
    """Functions giving pose 1 (as is), pose 2 (turned) and pose 3 (shifted) of coordinates ``xyz``."""
    centre = xyz.mean(axis=0)
    t = np.radians(POSE2_TURN_DEG)
    rot = np.array([[np.cos(t), -np.sin(t), 0.0], [np.sin(t), np.cos(t), 0.0], [0.0, 0.0, 1.0]])
    return [lambda p: p, lambda p: (p - centre) @ rot.T + centre, lambda p: p + np.array(POSE3_SHIFT)]


def _mol2_atoms(text: str) -> tuple[list[str], list[int]]:
    lines = text.splitlines()
    start = lines.index("@<TRIPOS>ATOM") + 1
    stop = next(k for k in range(start, len(lines)) if lines[k].startswith("@<TRIPOS>"))
    return lines, list(range(start, stop))


def make_mol2_poses(dev: Path) -> None:
    """``4cwb_poses.mol2``: the 4cwb ligand mol2 (with its hydrogens and names) three times, one
    ``@<TRIPOS>MOLECULE`` record per pose, as GOLD and other docking tools write them."""
    text = (dev / "4cwb" / "4cwb_ligand.mol2").read_text()
    text = text[text.index("@<TRIPOS>MOLECULE"):]
    lines, rows = _mol2_atoms(text)
    xyz = np.array([[float(v) for v in lines[k].split()[2:5]] for k in rows])
    heavy = np.array([not lines[k].split()[5].startswith("H") for k in rows])
    out = []
    for n, move in enumerate(_motions(xyz[heavy]), start=1):
        new = list(lines)
        new[1] = f"4cwb pose {n}"
        for k, p in zip(rows, move(xyz)):
            f = lines[k].split()
            new[k] = (f"{int(f[0]):>7} {f[1]:<8}{p[0]:>10.4f}{p[1]:>10.4f}{p[2]:>10.4f} {f[5]:<8}"
                      + " ".join(f[6:]))
        out.append("\n".join(new).rstrip("\n") + "\n")
    (HERE / "4cwb_poses.mol2").write_text("\n".join(out))


def make_pdbqt_poses(dev: Path) -> None:
    """``4cwb_poses.pdbqt``: poses 1 and 3 as AutoDock Vina writes them -- heavy atoms and polar
    hydrogens only (``HD``), AutoDock types, ``MODEL``/``ENDMDL`` records, no bonds."""
    from rdkit import Chem

    mol = Chem.MolFromMol2File(str(dev / "4cwb" / "4cwb_ligand.mol2"), removeHs=False)
    keep = [a for a in mol.GetAtoms() if a.GetAtomicNum() > 1
            or any(n.GetSymbol() in ("N", "O") for n in a.GetNeighbors())]
    pos = mol.GetConformer().GetPositions()
    xyz = np.array([pos[a.GetIdx()] for a in keep])
    heavy = np.array([a.GetAtomicNum() > 1 for a in keep])

    def ad_type(a) -> str:
        sym = a.GetSymbol()
        if sym == "H":
            return "HD"
        if sym == "C":
            return "A" if a.GetIsAromatic() else "C"
        if sym == "N":
            return "NA" if a.GetTotalNumHs() == 0 and not a.GetFormalCharge() else "N"
        return {"O": "OA", "S": "SA"}.get(sym, sym)

    motions = _motions(xyz[heavy])
    out = []
    for n, move in ((1, motions[0]), (2, motions[2])):
        out.append(f"MODEL {n:>8}")
        out.append("REMARK VINA RESULT:    -9.1      0.000      0.000" if n == 1 else
                   "REMARK VINA RESULT:    -8.2      1.225      2.040")
        for k, (a, p) in enumerate(zip(keep, move(xyz)), start=1):
            name = a.GetProp("_TriposAtomName")
            out.append(f"ATOM  {k:>5} {name:<4} UNL     1    {p[0]:8.3f}{p[1]:8.3f}{p[2]:8.3f}  0.00  0.00"
                       f"    +0.000 {ad_type(a):<2}")
        out.append("ENDMDL")
    (HERE / "4cwb_poses.pdbqt").write_text("\n".join(out) + "\n")


if __name__ == "__main__":
    dev_root = Path(sys.argv[1])
    make_mol2_poses(dev_root)
    make_pdbqt_poses(dev_root)
