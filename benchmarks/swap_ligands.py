"""Write complexes with new ligand chemistry: other molecules placed in the dev pockets.

``perturb_poses.py`` gives new geometry but the same 50 ligands, whose typing misi was tuned on.
This gives ligands nobody tuned on: molecules from the SMILES files that ship with RDKit
(``Contrib/fraggle/data/ChEMBL_11265_actives.smi``, ChEMBL actives; ``Data/NCI/first_5K.smi``, the
NCI open set), embedded with ETKDG and relaxed with MMFF94 (explicit hydrogens, neutral as written) and placed in each
pocket: centred on the crystal ligand's centroid and turned to the orientation (of ``--tries``
seeded random ones) with the most ligand N/O within 2.6-3.3 Å of a pocket N/O, less ten per ligand heavy
atom closer than 2.7 Å to a pocket heavy atom.  The poses are plausible contacts, not docked poses, which is all an
H-bond typing/criteria comparison needs.  Each complex ``<pocket id>s<k>`` holds the dev pocket PDB
(copied) and the new ligand as SDF (V2000, RDKit's writer).  Everything is seeded: the same files
on every run.  Run ChimeraX's ``hbonds`` on them with ``shared/tools/hbond_oracle/oracle.py`` and
compare with ``hbond_agreement.py --fixture FILE --complexes DIR``.  Usage::

    python benchmarks/swap_ligands.py /work/shared/data/pdbbind_dev --out DEST_ROOT [--per-pocket 2] [--seed 0]
"""

from __future__ import annotations

import argparse
import hashlib
import shutil
import sys
from pathlib import Path

import numpy as np

__all__ = ["candidate_smiles", "place_ligand", "swap_complex"]

_ELEMENTS = {"C", "N", "O", "S", "F", "Cl", "Br", "H"}


def candidate_smiles(limit: int = 600) -> list[tuple[str, str]]:
    """(name, SMILES) of drug-like molecules from RDKit's bundled SMILES files, file order.

    Kept: the largest fragment, 12-40 heavy atoms, only C N O S F Cl Br, at least two N/O, no
    formal charge.
    """
    from rdkit import Chem, RDConfig, RDLogger

    RDLogger.DisableLog("rdApp.*")
    files = [Path(RDConfig.RDContribDir) / "fraggle/data/ChEMBL_11265_actives.smi",
             Path(RDConfig.RDDataDir) / "NCI/first_5K.smi"]
    out: list[tuple[str, str]] = []
    for path in files:
        for line in path.read_text().splitlines():
            parts = line.split()
            if len(parts) < 2:
                continue
            mol = Chem.MolFromSmiles(parts[0])
            if mol is None:
                continue
            frag = max(Chem.GetMolFrags(mol, asMols=True), key=lambda m: m.GetNumHeavyAtoms())
            els = {a.GetSymbol() for a in frag.GetAtoms()}
            n_no = sum(a.GetSymbol() in ("N", "O") for a in frag.GetAtoms())
            if (els <= _ELEMENTS and 12 <= frag.GetNumHeavyAtoms() <= 40 and n_no >= 2
                    and not any(a.GetFormalCharge() for a in frag.GetAtoms())):
                out.append((f"{path.stem}:{parts[1]}", Chem.MolToSmiles(frag)))
            if len(out) >= limit:
                return out
    return out


def _rotation(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    a, b, c, d = q / np.linalg.norm(q)
    return np.array([[a*a+b*b-c*c-d*d, 2*(b*c-a*d), 2*(b*d+a*c)],
                     [2*(b*c+a*d), a*a-b*b+c*c-d*d, 2*(c*d-a*b)],
                     [2*(b*d-a*c), 2*(c*d+a*b), a*a-b*b-c*c+d*d]])


def place_ligand(mol, pocket_xyz: np.ndarray, pocket_polar: np.ndarray, centre: np.ndarray,
                 rng: np.random.Generator, tries: int = 1000):
    """``mol`` (one conformer, with H) moved to ``centre`` in its best-scoring orientation (module docs)."""
    from scipy.spatial import cKDTree

    xyz = mol.GetConformer().GetPositions()
    heavy = np.array([a.GetAtomicNum() > 1 for a in mol.GetAtoms()])
    polar = np.array([a.GetSymbol() in ("N", "O") for a in mol.GetAtoms()])
    xyz = xyz - xyz[heavy].mean(axis=0)
    all_tree, polar_tree = cKDTree(pocket_xyz), cKDTree(pocket_polar)
    best, best_xyz = -np.inf, None
    for _ in range(tries):
        moved = xyz @ _rotation(rng).T + centre + rng.normal(scale=1.0, size=3)
        d_all = all_tree.query(moved[heavy], k=1)[0]
        d_pol = polar_tree.query(moved[polar], k=1)[0]
        score = float(((d_pol >= 2.6) & (d_pol <= 3.3)).sum()) - 10.0 * float((d_all < 2.7).sum())
        if score > best:
            best, best_xyz = score, moved
    conf = mol.GetConformer()
    for k, p in enumerate(best_xyz):
        conf.SetAtomPosition(k, [float(v) for v in p])
    return mol


def _pocket_atoms(pdb: Path) -> tuple[np.ndarray, np.ndarray]:
    xyz, polar = [], []
    for line in pdb.read_text(errors="replace").splitlines():
        if line.startswith(("ATOM", "HETATM")) and line[17:20] not in ("HOH", "WAT"):
            el = (line[76:78].strip() or line[12:16].strip()[:1]).upper()
            if el in ("H", "D"):
                continue
            p = [float(line[30:38]), float(line[38:46]), float(line[46:54])]
            xyz.append(p)
            if el in ("N", "O"):
                polar.append(p)
    return np.array(xyz), np.array(polar)


def swap_complex(src: Path, dest_root: Path, k: int, name: str, smiles: str, seed: int, tries: int) -> Path | None:
    """Write ``dest_root/<id>s<k>/`` (pocket copied, ligand ``smiles`` placed); ``None`` if embedding
    fails or the placed ligand has no atom within 4 Å of the pocket."""
    from rdkit import Chem
    from rdkit.Chem import AllChem

    cid = src.name
    lig_ref = Chem.MolFromMolFile(str(src / f"{cid}_ligand.sdf"), sanitize=False, removeHs=False)
    if lig_ref is None:
        return None
    ref = lig_ref.GetConformer().GetPositions()
    centre = ref[[a.GetAtomicNum() > 1 for a in lig_ref.GetAtoms()]].mean(axis=0)
    digest = hashlib.sha256(f"{seed}:{cid}:{k}".encode()).digest()
    rng = np.random.default_rng(int.from_bytes(digest[:8], "little"))
    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    params = AllChem.ETKDGv3()
    params.randomSeed = int.from_bytes(digest[8:12], "little") & 0x7FFFFFFF
    if AllChem.EmbedMolecule(mol, params) != 0:
        return None
    AllChem.MMFFOptimizeMolecule(mol, maxIters=2000)  # ETKDG alone leaves C=O at up to 1.32 Å
    pocket_xyz, pocket_polar = _pocket_atoms(src / f"{cid}_pocket.pdb")
    mol = place_ligand(mol, pocket_xyz, pocket_polar, centre, rng, tries)
    from scipy.spatial import cKDTree

    if cKDTree(pocket_xyz).query(mol.GetConformer().GetPositions(), k=1)[0].min() > 4.0:
        return None  # no contact with the pocket (a wide, shallow site): not a complex
    mol.SetProp("_Name", f"{name} placed in {cid} (swap_ligands.py seed {seed})")
    out = dest_root / f"{cid}s{k}"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(src / f"{cid}_pocket.pdb", out / f"{out.name}_pocket.pdb")
    (out / f"{out.name}_ligand.sdf").write_text(Chem.MolToMolBlock(mol, forceV3000=False) + "$$$$\n")
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("root", type=Path, help="folder of PDBbind-layout complex folders (pocket + ligand SDF)")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--per-pocket", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tries", type=int, default=1000, help="random orientations tried per ligand")
    args = ap.parse_args(argv)
    pool = candidate_smiles()
    dirs = sorted(d for d in args.root.iterdir() if (d / f"{d.name}_pocket.pdb").is_file())
    n, pick = 0, 0
    for d in dirs:
        for k in range(args.per_pocket):
            name, smi = pool[(pick * 7 + args.seed) % len(pool)]
            pick += 1
            if swap_complex(d, args.out, k, name, smi, args.seed, args.tries) is not None:
                n += 1
    print(f"wrote {n} complexes under {args.out} (molecule pool: {len(pool)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
