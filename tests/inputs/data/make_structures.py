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


# --- a multi-copy entry with additives, a free amino acid, and a covalent ligand ----------------------
#: Å: protein residues with an atom this close to the 4cwb ligand are kept (heavy atoms only).
CUT = 12.0
#: Å: chain B (protein and ligand copy) is chain A moved along x by this much.
COPY_SHIFT = (60.0, 0.0, 0.0)


def _pdb_line(rec: str, serial: int, name: str, res: str, chain: str, num: int, xyz, el: str) -> str:
    name = name if len(name) == 4 or len(el) == 2 else f" {name}"
    return (f"{rec:<6}{serial:>5} {name:<4} {res:>3} {chain:1}{num:>4}    {xyz[0]:8.3f}{xyz[1]:8.3f}{xyz[2]:8.3f}"
            f"  1.00 20.00          {el:>2}")


def _embedded(smiles: str, seed: int = 7):
    from rdkit import Chem
    from rdkit.Chem import AllChem

    mol = Chem.AddHs(Chem.MolFromSmiles(smiles))
    AllChem.EmbedMolecule(mol, randomSeed=seed)
    AllChem.MMFFOptimizeMolecule(mol)
    return Chem.RemoveHs(mol)


def _free_spot(xyz: np.ndarray, others: np.ndarray, around: np.ndarray, lo: float = 3.2, hi: float = 4.2):
    """``xyz`` moved (grid of shifts, 1 Å steps, nearest to ``around`` first) to where its closest
    contact with ``others`` lies between ``lo`` and ``hi`` Å: in contact, not bonded."""
    centre = xyz.mean(axis=0)
    steps = [np.array(v, float) for v in np.ndindex(25, 25, 25)]
    steps = sorted((v - 12.0 for v in steps), key=lambda v: (np.linalg.norm(around + v - centre - (around - centre)),
                                                           tuple(v)))
    for v in steps:
        moved = xyz - centre + around + v
        d = np.linalg.norm(others[:, None, :] - moved[None, :, :], axis=2).min()
        if lo <= d <= hi and np.linalg.norm(v) >= 7.0:
            return moved
    raise RuntimeError("no free spot")


def _protein_rows(dev: Path, ligand_xyz: np.ndarray) -> list[tuple]:
    """(record, name, resname, chain, num, xyz, element) of the 4cwb protein cut around the ligand."""
    import gemmi

    st = gemmi.read_structure(str(dev / "4cwb" / "4cwb_protein.pdb"))
    st.remove_hydrogens()
    rows = []
    for ch in st[0]:
        for r in ch:
            pos = np.array([[a.pos.x, a.pos.y, a.pos.z] for a in r])
            if np.linalg.norm(pos[:, None] - ligand_xyz[None], axis=2).min() > CUT:
                continue
            rec = "HETATM" if r.het_flag == "H" else "ATOM"
            for a, p in zip(r, pos):
                rows.append((rec, a.name, r.name, ch.name, r.seqid.num, p, a.element.name.upper()))
    return rows


def make_copies(dev: Path) -> None:
    """``4cwb_copies.pdb.gz``: the 4cwb protein cut to 12 Å around its ligand (chain A), with
    X6L A 1201, a glycerol (GOL A 1301) and a sulfate (SO4 A 1302) placed in contact with the
    protein (RDKit conformers), a free arginine (ARG A 1401, a copy of ARG 88's atoms plus an OXT,
    moved into contact, bonded to nothing) and the two MG ions of the entry; then chain B = chain A's protein
    and X6L copy moved by ``COPY_SHIFT``.  No hydrogens."""
    from rdkit import Chem

    lig = Chem.MolFromMol2File(str(dev / "4cwb" / "4cwb_ligand.mol2"), removeHs=False)
    lpos = lig.GetConformer().GetPositions()
    x6l = [(a.GetProp("_TriposAtomName"), a.GetSymbol().upper(), lpos[a.GetIdx()]) for a in lig.GetAtoms()
           if a.GetAtomicNum() > 1]
    lxyz = np.array([p for _, _, p in x6l])
    prot = _protein_rows(dev, lxyz)
    taken = np.vstack([np.array([r[5] for r in prot]), lxyz])
    extra = []
    for res, num, smiles in (("GOL", 1301, "OCC(O)CO"), ("SO4", 1302, "[O-]S(=O)(=O)[O-]")):
        m = _embedded(smiles)
        xyz = _free_spot(m.GetConformer().GetPositions(), taken, lxyz.mean(axis=0))
        taken = np.vstack([taken, xyz])
        counts: dict[str, int] = {}
        for a, p in zip(m.GetAtoms(), xyz):
            counts[a.GetSymbol()] = counts.get(a.GetSymbol(), 0) + 1
            extra.append(("HETATM", f"{a.GetSymbol()}{counts[a.GetSymbol()]}", res, "A", num, p, a.GetSymbol().upper()))
    arg = [r for r in prot if r[2] == "ARG" and r[4] == 88 and r[1] not in ("OXT",)]
    at = {r[1]: r[5] for r in arg}  # a free amino acid ends in a carboxylate: add its OXT (trigonal, 1.25 Å)
    v = (at["C"] - at["CA"]) / np.linalg.norm(at["C"] - at["CA"]) + (at["C"] - at["O"]) / np.linalg.norm(at["C"] - at["O"])
    arg.append(("ATOM", "OXT", "ARG", "A", 88, at["C"] + 1.25 * v / np.linalg.norm(v), "O"))
    xyz = _free_spot(np.array([r[5] for r in arg]), taken, lxyz.mean(axis=0))
    extra += [("HETATM", r[1], "ARG", "A", 1401, p, r[6]) for r, p in zip(arg, xyz)]
    lines, serial = [], 0

    def add(rec, name, res, chain, num, p, el):
        nonlocal serial
        serial += 1
        lines.append(_pdb_line(rec, serial, name, res, chain, num, p, el))

    for r in prot:
        if r[3] == "A":
            add(*r)
    lines.append("TER")
    for name, el, p in x6l:
        add("HETATM", name, "X6L", "A", 1201, p, el)
    for r in extra:
        add(*r)
    for r in prot:  # ions (blank chain) as in the entry
        if r[3] != "A":
            add(*r)
    shift = np.array(COPY_SHIFT)
    for r in prot:
        if r[3] == "A":
            add(r[0], r[1], r[2], "B", r[4], r[5] + shift, r[6])
    lines.append("TER")
    for name, el, p in x6l:
        add("HETATM", name, "X6L", "B", 1201, p + shift, el)
    lines.append("END")
    _write_gz(HERE / "4cwb_copies.pdb.gz", "\n".join(lines) + "\n")


#: The covalent ligand: benzonitrile as a thioimidate on CYS 58 (atoms of the adduct; S and the
#: methyl stand for the cysteine's SG and CB while it is placed, then are dropped).
ADDUCT_SMILES = "CSC(=N)c1ccccc1"
#: What a user gives as the template: the unreacted nitrile (as the chemical component lists it).
NITRILE_SMILES = "N#Cc1ccccc1"


def make_covalent(dev: Path) -> None:
    """``4cwb_covalent.pdb.gz``: the 4cwb protein (no H, ligand and waters left out) with a
    benzonitrile bonded to CYS 58 SG as a thioimidate (``UNL A 1501``, 8 heavy atoms, C-S 1.75 Å)
    and a ``LINK`` record.  The adduct ``CSC(=N)c1ccccc1`` is an RDKit ETKDG + MMFF conformer whose
    S and methyl C are superposed on SG and CB, the rest turned about CB-SG and about the C-S bond
    (10° steps) to the orientation with no protein atom within 2.9 Å and the most protein N/O
    within 3.4 Å of the imine N, then S and methyl are dropped."""
    import gemmi
    from rdkit import Chem
    from rdkit.Chem import AllChem

    st = gemmi.read_structure(str(dev / "4cwb" / "4cwb_protein.pdb"))
    st.remove_hydrogens()
    st.remove_waters()
    prot = [(a, r, ch) for ch in st[0] for r in ch for a in r]
    cys = {a.name: np.array([a.pos.x, a.pos.y, a.pos.z]) for a, r, ch in prot if r.name == "CYS" and r.seqid.num == 58}
    mol = Chem.AddHs(Chem.MolFromSmiles(ADDUCT_SMILES))
    AllChem.EmbedMolecule(mol, randomSeed=11)
    AllChem.MMFFOptimizeMolecule(mol)
    mol = Chem.RemoveHs(mol)
    xyz = mol.GetConformer().GetPositions()  # atom 0: methyl C, 1: S, 2: the former nitrile C
    # place S on SG and the methyl C on CB (bond vector aligned), then scan the turn about that axis
    u = xyz[1] - xyz[0]
    v = cys["SG"] - cys["CB"]
    u, v = u / np.linalg.norm(u), v / np.linalg.norm(v)
    w = np.cross(u, v)
    c, s_ = float(u @ v), float(np.linalg.norm(w))
    k = np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])
    rot = np.eye(3) + k + k @ k * ((1 - c) / (s_ ** 2)) if s_ > 1e-8 else np.eye(3)
    base = (xyz - xyz[1]) @ rot.T + cys["SG"]
    others = np.array([[a.pos.x, a.pos.y, a.pos.z] for a, r, ch in prot
                       if not (r.name == "CYS" and r.seqid.num == 58)])
    polar = np.array([[a.pos.x, a.pos.y, a.pos.z] for a, r, ch in prot
                      if a.element.name in ("N", "O") and not (r.name == "CYS" and r.seqid.num == 58)])

    def turn(axis: np.ndarray, deg: int) -> np.ndarray:
        axis = axis / np.linalg.norm(axis)
        kk = np.array([[0, -axis[2], axis[1]], [axis[2], 0, -axis[0]], [-axis[1], axis[0], 0]])
        t = np.radians(deg)
        return np.eye(3) + np.sin(t) * kk + (1 - np.cos(t)) * kk @ kk

    best, placed = -np.inf, None
    for a1 in range(0, 360, 10):  # about CB-SG
        c1 = (base - cys["SG"]) @ turn(v, a1).T + cys["SG"]
        for a2 in range(0, 360, 10):  # about SG-C (the C-S torsion)
            cand = c1.copy()
            cand[2:] = (c1[2:] - c1[1]) @ turn(c1[2] - c1[1], a2).T + c1[1]
            d = np.linalg.norm(others[:, None] - cand[None, 2:], axis=2).min()
            hb = int((np.linalg.norm(polar - cand[3], axis=1) <= 3.4).sum())  # atom 3: the imine N
            score = d - 10.0 if d < 2.9 else hb + d / 10.0
            if score > best:
                best, placed = score, cand
    lines, serial = [], 0
    near = placed[2:]
    keep = {(ch.name, r.seqid.num) for a, r, ch in prot
            if np.linalg.norm(near - np.array([a.pos.x, a.pos.y, a.pos.z]), axis=1).min() <= CUT}
    for a, r, ch in prot:
        if (ch.name, r.seqid.num) in keep and r.het_flag != "H":
            serial += 1
            lines.append(_pdb_line("ATOM", serial, a.name, r.name, ch.name, r.seqid.num,
                                   (a.pos.x, a.pos.y, a.pos.z), a.element.name.upper()))
    lines.append("TER")
    counts: dict[str, int] = {}
    names = []
    for atom, p in zip(list(mol.GetAtoms())[2:], placed[2:]):
        sym = atom.GetSymbol()
        counts[sym] = counts.get(sym, 0) + 1
        names.append(f"{sym}{counts[sym]}")
        serial += 1
        lines.append(_pdb_line("HETATM", serial, names[-1], "UNL", "A", 1501, p, sym.upper()))
    link = (f"LINK        {' SG ':4} CYS A{58:>4} {'':15}{' ' + names[0]:<4} UNL A{1501:>4} {'':2}{'1555':>6} "
            f"{'1555':>6} {np.linalg.norm(placed[2] - cys['SG']):5.2f}")  # PDB v3.3 LINK columns
    _write_gz(HERE / "4cwb_covalent.pdb.gz", "\n".join([link] + lines + ["END"]) + "\n")


def _write_gz(path: Path, text: str) -> None:
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as fh:
        fh.write(text.encode())


if __name__ == "__main__":
    dev_root = Path(sys.argv[1])
    make_mol2_poses(dev_root)
    make_pdbqt_poses(dev_root)
    make_copies(dev_root)
    make_covalent(dev_root)
