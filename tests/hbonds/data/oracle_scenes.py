"""Cross-check the hand-built scenes of ``test_geometry_cases.py`` with the real ChimeraX (by hand).

    python tests/hbonds/data/oracle_scenes.py OUT_DIR
    VENV/bin/python shared/tools/hbond_oracle/oracle.py OUT_DIR --out relaxed.json [--no-relax]

writes each scene as a PDBbind-style folder (pocket PDB + ligand mol2) and prints misi's relaxed and
precise answers, to compare with the oracle's ``misi_answer``.  Last run (ChimeraX 1.7.1): all
scenes agree in both modes.  Not used by the test suite.
"""

from __future__ import annotations

import sys
from pathlib import Path


def write_scene(c, folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    name = folder.name
    p, lig = c[~c.is_ligand], c[c.is_ligand]
    with open(folder / f"{name}_pocket.pdb", "w") as f:
        for k in range(len(p)):
            x, y, z = p.coord[k]
            nm = p.atom_name[k] if len(p.atom_name[k]) == 4 else " " + p.atom_name[k]
            f.write("ATOM  %5d %-4s %3s %1s%4d%1s   %8.3f%8.3f%8.3f  1.00  0.00          %2s\n" % (
                k + 1, nm, p.res_name[k], p.chain_id[k] or " ", p.res_id[k], p.ins_code[k] or " ", x, y, z,
                p.element[k]))
        f.write("END\n")
    with open(folder / f"{name}_ligand.mol2", "w") as f:
        f.write("@<TRIPOS>MOLECULE\nLIG\n%d %d 1\nSMALL\nNO_CHARGES\n\n@<TRIPOS>ATOM\n" % (len(lig), len(lig.bonds)))
        for k in range(len(lig)):
            x, y, z = lig.coord[k]
            f.write("%d %s %.4f %.4f %.4f %s 1 LIG 0.0\n" % (k + 1, lig.atom_name[k], x, y, z, lig.element[k]))
        f.write("@<TRIPOS>BOND\n")
        for b, (i, j) in enumerate(lig.bonds):
            o = lig.bond_order[b]
            f.write("%d %d %d %s\n" % (b + 1, i + 1, j + 1, "ar" if o == 1.5 else str(int(o))))
        f.write("@<TRIPOS>SUBSTRUCTURE\n1 LIG 1\n")


def main(out: str) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[3]))  # the project root: tests as a namespace package
    import tests.hbonds.test_geometry_cases as T

    from misi_geom import find_hbonds
    from tests.hbond_text import format_t9

    scenes = {f"ser{int(d * 100)}": T._scene(T._serine_donor(d), T._ketone_ligand([0, 0, 0], 0.0))
              for d in (3.15, 3.20, 3.55, 3.60)}
    scenes["serbad"] = T._scene(T._serine_donor(2.8, h_towards=False), T._ketone_ligand([0, 0, 0], 0.0))
    for h in (2.21, 2.25, 2.61, 2.65):
        pocket, d = T._backbone_nh(h)
        scenes[f"nh{int(h * 100)}"] = T._scene(pocket, T._ketone_ligand([0, d, 0], 270.0))
    scenes["argace"] = T._arginine_acetate()
    scenes["zn60"], scenes["zn-60"] = T._serine_zinc_scene(60.0), T._serine_zinc_scene(-60.0)
    for name, c in scenes.items():
        write_scene(c, Path(out) / name)
        print(name, "relaxed:", repr(format_t9(find_hbonds(c), c)),
              "precise:", repr(format_t9(find_hbonds(c, relax=False), c)))


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "hbond_scenes")
