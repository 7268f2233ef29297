"""Rebuild the input fixtures of ``tests/inputs`` from the project's development set.

Run from the repository root with the development set at hand (it is not needed by the tests)::

    python tests/inputs/data/make_fixtures.py /work/shared/data/pdbbind_dev

Every step is written out here and in ``PROVENANCE.md``; outputs are deterministic (gzip without a
timestamp).  Nothing runs on import (pytest imports this file for its doctests).
"""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
#: The ligand's residue in the mmCIF entry: name (from the mol2 SUBSTRUCTURE of 4cwb), chain, number.
LIGAND_RES = ("X6L", "A", 1201)
#: Pose 2: turned this many degrees about the z axis through the ligand's centroid; pose 3: moved (Å).
POSE2_TURN_DEG = 30.0
POSE3_SHIFT = (1.0, -0.5, 0.5)


def _write_gz(path: Path, text: str) -> None:
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as fh:
        fh.write(text.encode())


def _protein_without_h(dev: Path):
    import gemmi

    st = gemmi.read_structure(str(dev / "4cwb" / "4cwb_protein.pdb"))
    st.remove_hydrogens()
    st.setup_entities()
    return st


def _ligand_heavy(dev: Path):
    """(names, elements, xyz) of the 4cwb ligand's heavy atoms, names from its mol2 file."""
    from rdkit import Chem

    mol = Chem.MolFromMol2File(str(dev / "4cwb" / "4cwb_ligand.mol2"), removeHs=False)
    pos = mol.GetConformer().GetPositions()
    rows = [(a.GetProp("_TriposAtomName"), a.GetSymbol(), pos[a.GetIdx()]) for a in mol.GetAtoms()
            if a.GetAtomicNum() > 1]
    return rows


def make_entry(dev: Path) -> None:
    """``4cwb_apo.pdb.gz`` (protein, no H) and ``4cwb_entry.cif.gz`` (the same + ligand X6L as HETATM)."""
    import gemmi

    st = _protein_without_h(dev)
    _write_gz(HERE / "4cwb_apo.pdb.gz", st.make_pdb_string())
    name, chain_name, num = LIGAND_RES
    res = gemmi.Residue()
    res.name, res.seqid, res.het_flag = name, gemmi.SeqId(num, " "), "H"
    for atom_name, element, xyz in _ligand_heavy(dev):
        at = gemmi.Atom()
        at.name, at.element, at.occ, at.b_iso = atom_name, gemmi.Element(element), 1.0, 20.0
        at.pos = gemmi.Position(*map(float, xyz))
        res.add_atom(at)
    st[0][chain_name].add_residue(res)
    st.setup_entities()
    doc = st.make_mmcif_document()
    _write_gz(HERE / "4cwb_entry.cif.gz", doc.as_string())


def make_poses(dev: Path) -> None:
    """``4cwb_poses.sdf``: three heavy-atom poses of the 4cwb ligand (crystal, turned, shifted)."""
    import numpy as np
    from rdkit import Chem

    mol = Chem.MolFromMol2File(str(dev / "4cwb" / "4cwb_ligand.mol2"), removeHs=False)
    mol = Chem.RemoveHs(mol)
    xyz = mol.GetConformer().GetPositions()
    centre = xyz.mean(axis=0)
    t = np.radians(POSE2_TURN_DEG)
    rot = np.array([[np.cos(t), -np.sin(t), 0.0], [np.sin(t), np.cos(t), 0.0], [0.0, 0.0, 1.0]])
    poses = [xyz, (xyz - centre) @ rot.T + centre, xyz + np.array(POSE3_SHIFT)]
    blocks = []
    for k, p in enumerate(poses, start=1):
        m = Chem.Mol(mol)
        conf = m.GetConformer()
        for i, v in enumerate(p):
            conf.SetAtomPosition(i, [float(c) for c in v])
        m.SetProp("_Name", f"4cwb_pose{k}")
        blocks.append(Chem.MolToMolBlock(m) + "$$$$\n")
    (HERE / "4cwb_poses.sdf").write_text("".join(blocks))


if __name__ == "__main__":  # pragma: no cover
    dev_root = Path(sys.argv[1] if len(sys.argv) > 1 else "/work/shared/data/pdbbind_dev")
    make_entry(dev_root)
    make_poses(dev_root)
    print("fixtures written to", HERE)
