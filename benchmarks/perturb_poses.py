"""Write copies of complexes with the ligand moved a little: new poses nobody tuned on.

misi's H-bond rules were checked against ChimeraX on the 50 dev complexes, so agreement there is
not agreement on unseen data.  This makes fresh test geometry from them: per complex and copy, the
ligand is turned about its centroid by a random angle (up to ``--max-angle`` degrees, random axis)
and shifted by up to ``--max-shift`` Å; the pocket is copied unchanged.  mol2 and SDF coordinates
are rewritten as text (every other field kept), with one seeded generator per copy, so the output
is the same on every run.  Run ChimeraX's ``hbonds`` on the copies with
``shared/tools/hbond_oracle/oracle.py`` and compare with ``hbond_agreement.py --fixture FILE
--complexes DIR``.  Usage::

    python benchmarks/perturb_poses.py SRC_ROOT --out DEST_ROOT [--copies 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

import numpy as np

__all__ = ["random_motion", "move_mol2", "move_sdf", "perturb_complex"]


def random_motion(rng: np.random.Generator, max_angle: float, max_shift: float) -> tuple[np.ndarray, np.ndarray]:
    """(rotation matrix (3, 3), shift (3,) Å) drawn uniformly in angle and shift length."""
    axis = rng.normal(size=3)
    axis /= np.linalg.norm(axis)
    ang = np.radians(rng.uniform(0.0, max_angle))
    k = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
    rot = np.eye(3) + np.sin(ang) * k + (1 - np.cos(ang)) * k @ k
    d = rng.normal(size=3)
    return rot, d / np.linalg.norm(d) * rng.uniform(0.0, max_shift)


def _apply(xyz: np.ndarray, centre: np.ndarray, rot: np.ndarray, shift: np.ndarray) -> np.ndarray:
    return (xyz - centre) @ rot.T + centre + shift


def _mol2_coords(text: str) -> list[tuple[int, np.ndarray]]:
    out, section = [], ""
    for k, line in enumerate(text.splitlines()):
        if line.startswith("@<TRIPOS>"):
            section = line.strip()
            continue
        parts = line.split()
        if section == "@<TRIPOS>ATOM" and len(parts) >= 6:
            out.append((k, np.array(parts[2:5], float)))
    return out


def move_mol2(text: str, centre: np.ndarray, rot: np.ndarray, shift: np.ndarray) -> str:
    """mol2 text with every ATOM coordinate moved (fields 3-5 rewritten, others kept)."""
    lines = text.splitlines()
    for k, xyz in _mol2_coords(text):
        p = lines[k].split()
        new = _apply(xyz[None], centre, rot, shift)[0]
        lines[k] = (f"{p[0]:>7s} {p[1]:<8s}{new[0]:10.4f}{new[1]:10.4f}{new[2]:10.4f} {p[5]:<9s}"
                    + " ".join(p[6:]))
    return "\n".join(lines) + "\n"


def move_sdf(text: str, centre: np.ndarray, rot: np.ndarray, shift: np.ndarray) -> str:
    """SDF (V2000) text of the first record with its atom coordinates moved."""
    lines = text.split("\n")
    na = int(lines[3][0:3])
    for k in range(4, 4 + na):
        xyz = np.array([lines[k][0:10], lines[k][10:20], lines[k][20:30]], float)
        new = _apply(xyz[None], centre, rot, shift)[0]
        lines[k] = f"{new[0]:10.4f}{new[1]:10.4f}{new[2]:10.4f}" + lines[k][30:]
    return "\n".join(lines)


def perturb_complex(src: Path, dest_root: Path, copy: int, seed: int, max_angle: float, max_shift: float) -> Path:
    """Write ``dest_root/<id>m<copy>/`` with the ligand of ``src`` moved; returns the folder."""
    pdb_id = src.name
    name = f"{pdb_id}m{copy}"
    dest = dest_root / name
    dest.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(f"{seed}/{pdb_id}/{copy}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    rot, shift = random_motion(rng, max_angle, max_shift)
    mol2 = src / f"{pdb_id}_ligand.mol2"
    sdf = src / f"{pdb_id}_ligand.sdf"
    ref = mol2 if mol2.is_file() else sdf
    if ref.suffix == ".mol2":
        centre = np.mean([xyz for _, xyz in _mol2_coords(ref.read_text())], axis=0)
    else:
        lines = ref.read_text().split("\n")
        na = int(lines[3][0:3])
        centre = np.mean([[float(lines[k][i:i + 10]) for i in (0, 10, 20)] for k in range(4, 4 + na)], axis=0)
    for f in sorted(src.iterdir()):
        target = dest / f.name.replace(pdb_id, name, 1)
        if f.name == mol2.name:
            target.write_text(move_mol2(f.read_text(), centre, rot, shift))
        elif f.name == sdf.name:
            target.write_text(move_sdf(f.read_text(), centre, rot, shift))
        elif f.name.endswith("_pocket.pdb"):
            shutil.copy(f, target)
    return dest


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="folder of complex folders")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--copies", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-angle", type=float, default=20.0, help="degrees")
    ap.add_argument("--max-shift", type=float, default=0.8, help="Å")
    args = ap.parse_args(argv)
    dirs = sorted(d for d in args.root.iterdir() if d.is_dir() and any(d.glob(f"{d.name}_ligand.*")))
    for d in dirs:
        for k in range(args.copies):
            perturb_complex(d, args.out, k, args.seed, args.max_angle, args.max_shift)
    print(f"wrote {len(dirs) * args.copies} complexes under {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
