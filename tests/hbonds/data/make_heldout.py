"""Build ``heldout/``: small complexes with ligand chemistry misi's typing was not written against.

Source: ``benchmarks/swap_ligands.py`` run on the dev set (``shared/data/pdbbind_dev``, PDBbind via
GIGN's toy set, see its PROVENANCE): molecules from the SMILES files bundled with RDKit (ChEMBL
actives ``Contrib/fraggle/data/ChEMBL_11265_actives.smi``, NCI open set ``Data/NCI/first_5K.smi``),
ETKDG + MMFF94 conformers with hydrogens, placed in a dev pocket.  Two runs:

- ``--seed 0`` (folders ``<pdb>s<k>``): the set the H-free typing rules were fixed
  on (N-alkyl anilines, aryl hydrazines, hydrazides without hydrogens);
- ``--seed 1`` (renamed ``<pdb>h<k>``): held out, looked at only after those fixes.

Each chosen complex is cut here to the pocket residues with an atom within ``CUT`` Å of a ligand
atom (waters dropped, records otherwise as written) plus the ligand SDF unchanged, so the files stay
small.  The answers are ChimeraX's on these cut files (``shared/tools/hbond_oracle/oracle.py``,
ChimeraX core 1.7.1; relaxed protocol), with hydrogens as given and with every hydrogen stripped::

    python benchmarks/swap_ligands.py /work/shared/data/pdbbind_dev --out /tmp/hb/swap --per-pocket 4 --seed 0
    python benchmarks/swap_ligands.py /work/shared/data/pdbbind_dev --out /tmp/hb/held --per-pocket 3 --seed 1
    python tests/hbonds/data/make_heldout.py cut /tmp/hb/swap /tmp/hb/held
    VENV/bin/python shared/tools/hbond_oracle/oracle.py tests/hbonds/data/heldout --out /tmp/hb/h.json
    VENV/bin/python shared/tools/hbond_oracle/oracle.py tests/hbonds/data/heldout --strip-h --out /tmp/hb/nh.json
    python tests/hbonds/data/make_heldout.py collect /tmp/hb/h.json /tmp/hb/nh.json

``collect`` writes ``expected_heldout.json``: per complex its set (``tuned``/``held_out``), the T9
answer with and without hydrogens and ChimeraX's IDATM type of every ligand heavy atom in both modes.
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent
OUT = HERE / "heldout"
CUT = 5.0
#: (source folder name, run): the complexes kept, with at least one H-bond or a typing case.
TUNED = ["2fv5s0", "2p3as0", "4ap7s1", "4ap7s2", "4da5s0", "2pv2s0", "2wtis1", "2pyys1", "3twss1", "2b1is2"]
HELD = ["4cgis2", "3rups2", "4fn5s0", "2w8ws2", "4da5s1", "3dgqs0", "4qz7s0", "3mg6s1", "2l1rs1", "1eves2"]


def _xyz(line: str) -> np.ndarray:
    return np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])


def cut_pocket(pocket: Path, ligand_xyz: np.ndarray, dest: Path) -> None:
    """Write the residues of ``pocket`` with an atom within :data:`CUT` Å of a ligand atom (no waters)."""
    lines = pocket.read_text().splitlines()
    keep: set[tuple[str, str, str]] = set()
    for ln in lines:
        if ln.startswith(("ATOM", "HETATM")) and ln[17:20] != "HOH":
            if np.min(np.linalg.norm(ligand_xyz - _xyz(ln), axis=1)) <= CUT:
                keep.add((ln[21], ln[22:27], ln[17:20]))
    out = [ln for ln in lines if not ln.startswith(("ATOM", "HETATM", "ANISOU", "CONECT", "TER"))
           or (ln.startswith(("ATOM", "HETATM")) and (ln[21], ln[22:27], ln[17:20]) in keep)]
    dest.write_text("\n".join(out) + "\n")


def cut(swap: Path, held: Path) -> None:
    from rdkit import Chem

    shutil.rmtree(OUT, ignore_errors=True)
    for root, names, tag in ((swap, TUNED, "s"), (held, HELD, "h")):
        for name in names:
            src = root / name
            new = name[:4] + tag + name[5:]
            d = OUT / new
            d.mkdir(parents=True)
            sdf = src / f"{name}_ligand.sdf"
            mol = Chem.MolFromMolFile(str(sdf), sanitize=False, removeHs=False)
            cut_pocket(src / f"{name}_pocket.pdb", mol.GetConformer().GetPositions(), d / f"{new}_pocket.pdb")
            shutil.copyfile(sdf, d / f"{new}_ligand.sdf")


def collect(with_h: Path, h_free: Path) -> None:
    a = json.loads(with_h.read_text())["complexes"]
    b = json.loads(h_free.read_text())["complexes"]
    out = {}
    for cid in sorted(a):
        out[cid] = {
            "set": "tuned" if cid[4] == "s" else "held_out",
            "with_h": {"misi_answer": a[cid]["misi_answer"], "ligand_idatm": a[cid]["ligand_idatm"]},
            "hydrogen_free": {"misi_answer": b[cid]["misi_answer"], "ligand_idatm": b[cid]["ligand_idatm"]},
        }
    (HERE / "expected_heldout.json").write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")


if __name__ == "__main__":
    cmd, *rest = sys.argv[1:]
    {"cut": cut, "collect": collect}[cmd](*map(Path, rest))
