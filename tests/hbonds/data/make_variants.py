"""Variants of the bundled samples for the H-bond tests, and their ChimeraX answers.

Two causes of disagreement with ChimeraX get their own cases, built from the bundled samples
(``src/misi_geom/sample_data``) by editing the files as text, so the tests need nothing else:

- ``protonated``: one pocket aspartate/glutamate gets its acid hydrogen (HD1/HD2, HE1/HE2, on the
  oxygen the name says, in the carboxyl plane at 109.5 deg, O-H 0.97 Å, pointing at a ligand atom
  or away from it), as PDBbind writes catalytic aspartates; one case renames the residue ASH
  (Amber's name for the neutral state);
- ``hydrogen_free``: every hydrogen removed from pocket, mol2 and SDF
  (``benchmarks/strip_hydrogens.py``); ``hydrogen_free_sdf``: the same with the SDF as the only
  ligand file (PDBbind's SDFs write guanidinium C with two C=N, among other quirks).

Expected answers come from the real ChimeraX ``hbonds`` on the very same files
(``shared/tools/hbond_oracle/oracle.py``, ChimeraX 1.7.1, relaxed, pocket-ligand).  Regenerate by hand::

    python tests/hbonds/data/make_variants.py OUT_DIR
    VENV/bin/python shared/tools/hbond_oracle/oracle.py OUT_DIR/protonated --out prot.json
    VENV/bin/python shared/tools/hbond_oracle/oracle.py OUT_DIR/hydrogen_free --out hfree.json
    VENV/bin/python shared/tools/hbond_oracle/oracle.py OUT_DIR/hydrogen_free_sdf --out hfree_sdf.json
    python tests/hbonds/data/make_variants.py OUT_DIR --collect prot.json hfree.json hfree_sdf.json

which rewrites ``expected_variants.json`` beside this file.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[3]

#: (variant id, sample, residue number, residue name, acid O, H name, ligand atom aimed at,
#: aim away, residue renamed to)
PROTONATED = [
    ("1h1d-d141hd1", "1h1d", 141, "ASP", "OD1", "HD1", "O5", False, None),
    ("1h1d-d169hd2", "1h1d", 169, "ASP", "OD2", "HD2", "O9", False, None),
    ("1h1d-e199he2", "1h1d", 199, "GLU", "OE2", "HE2", "O9", False, None),
    ("1h1d-e199he1", "1h1d", 199, "GLU", "OE1", "HE1", "O9", False, None),
    ("2pyy-d156hd2", "2pyy", 156, "ASP", "OD2", "HD2", "N", False, None),
    ("2pyy-d156away", "2pyy", 156, "ASP", "OD2", "HD2", "N", True, None),
    ("2pyy-ash156", "2pyy", 156, "ASP", "OD2", "HD2", "N", False, "ASH"),
    ("2nnk-d125hd2", "2nnk", 125, "ASP", "OD2", "HD2", "O4", False, None),
    ("2nnk-d25hd1", "2nnk", 25, "ASP", "OD1", "HD1", "O4", False, None),
]
#: Small extra complexes (``sites/``): dev-set pockets cut to the residues within 6 Å of the ligand.
SITES = Path(__file__).with_name("sites")


def strip_module():
    """``benchmarks/strip_hydrogens.py`` imported by path (benchmarks is not a package)."""
    path = ROOT / "benchmarks" / "strip_hydrogens.py"
    spec = importlib.util.spec_from_file_location("misi_strip_hydrogens", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _xyz(line: str) -> np.ndarray:
    return np.array([float(line[30:38]), float(line[38:46]), float(line[46:54])])


def _mol2_xyz(path: Path, name: str) -> np.ndarray:
    section = ""
    for line in path.read_text().splitlines():
        if line.startswith("@<TRIPOS>"):
            section = line.strip()
            continue
        p = line.split()
        if section == "@<TRIPOS>ATOM" and len(p) > 5 and p[1] == name:
            return np.array(p[2:5], float)
    raise KeyError(name)


def add_acid_hydrogen(pocket_text: str, resnum: int, resname: str, oxygen: str, hname: str,
                      target: np.ndarray, away: bool = False, rename: str | None = None) -> str:
    """Pocket PDB text with an H on ``oxygen`` of residue ``resname resnum`` (in the carboxyl
    plane, C-O-H 109.5 deg, O-H 0.97 Å, on the side nearer ``target`` or, with ``away``, farther),
    written after the residue's last atom; with ``rename`` the residue gets that name."""
    lines = pocket_text.splitlines()
    rows = [k for k, l in enumerate(lines) if l.startswith(("ATOM", "HETATM"))
            and l[17:20] == resname and int(l[22:26]) == resnum]
    atoms = {lines[k][12:16].strip(): k for k in rows}
    carbon = "CG" if resname == "ASP" else "CD"
    other = {"OD1": "OD2", "OD2": "OD1", "OE1": "OE2", "OE2": "OE1"}[oxygen]
    o, c, o2 = (_xyz(lines[atoms[n]]) for n in (oxygen, carbon, other))
    u = (o - c) / np.linalg.norm(o - c)
    n = np.cross(o - c, o2 - c)
    w = np.cross(n / np.linalg.norm(n), u)
    ang = np.radians(180.0 - 109.5)
    cands = [o + 0.97 * (np.cos(ang) * u + s * np.sin(ang) * w) for s in (1.0, -1.0)]
    dist = [float(np.linalg.norm(p - target)) for p in cands]
    h = cands[int(np.argmax(dist) if away else np.argmin(dist))]
    src = lines[atoms[oxygen]]
    serial = max(int(lines[k][6:11]) for k in range(len(lines)) if lines[k].startswith(("ATOM", "HETATM"))) + 1
    new = (src[:6] + f"{serial:5d}" + " " + f" {hname:<3s}" + src[16:30] + "%8.3f%8.3f%8.3f" % tuple(h)
           + src[54:76] + " H")
    lines.insert(max(rows) + 1, new)
    if rename:
        for k in rows:
            lines[k] = lines[k][:17] + rename + lines[k][20:]
        lines[max(rows) + 1] = lines[max(rows) + 1][:17] + rename + lines[max(rows) + 1][20:]
    return "\n".join(lines) + "\n"


def source_dirs(sample_root: Path) -> list[Path]:
    """The bundled samples and the :data:`SITES` complexes."""
    return sorted([d for d in sample_root.iterdir() if d.is_dir()] + [d for d in SITES.iterdir() if d.is_dir()])


def make_protonated(sample_root: Path, out: Path) -> list[Path]:
    """Write every :data:`PROTONATED` variant under ``out``; returns the folders."""
    made = []
    sources = {d.name: d for d in source_dirs(sample_root)}
    for vid, sample, resnum, resname, oxygen, hname, target, away, rename in PROTONATED:
        src = sources[sample]
        dest = out / vid
        dest.mkdir(parents=True, exist_ok=True)
        text = (src / f"{sample}_pocket.pdb").read_text()
        aim = _mol2_xyz(src / f"{sample}_ligand.mol2", target)
        (dest / f"{vid}_pocket.pdb").write_text(
            add_acid_hydrogen(text, resnum, resname, oxygen, hname, aim, away, rename))
        for ext in ("mol2", "sdf"):
            if (src / f"{sample}_ligand.{ext}").is_file():
                shutil.copy(src / f"{sample}_ligand.{ext}", dest / f"{vid}_ligand.{ext}")
        made.append(dest)
    return made


def make_hydrogen_free(sample_root: Path, out: Path) -> list[Path]:
    """H-free copies of every bundled sample and site under ``out``."""
    strip = strip_module()
    return [strip.strip_complex(d, out) for d in source_dirs(sample_root)]


def make_hydrogen_free_sdf(sample_root: Path, out: Path) -> list[Path]:
    """H-free copies with the SDF as the only ligand file (ChimeraX then names atoms O1, C2, ...)."""
    made = make_hydrogen_free(sample_root, out)
    for d in made:
        for f in d.glob("*_ligand.mol2"):
            f.unlink()
        if not any(d.glob("*_ligand.sdf")):
            shutil.rmtree(d)
    return [d for d in made if d.is_dir()]


def collect(prot_json: Path, hfree_json: Path, hfree_sdf_json: Path) -> None:
    out = {"source": "shared/tools/hbond_oracle/oracle.py (ChimeraX core 1.7.1), relaxed, on the files "
                     "make_variants.py writes", "protonated": {}, "hydrogen_free": {}, "hydrogen_free_sdf": {}}
    for key, path in (("protonated", prot_json), ("hydrogen_free", hfree_json), ("hydrogen_free_sdf", hfree_sdf_json)):
        doc = json.loads(Path(path).read_text())
        for cid, rec in sorted(doc["complexes"].items()):
            out[key][cid] = {"misi_answer": rec["misi_answer"],
                             "ligand_idatm": rec["ligand_idatm"],
                             "pocket_idatm": {k: v for k, v in rec["pocket_idatm"].items()
                                              if "/OD" in k or "/OE" in k}}
    dest = Path(__file__).with_name("expected_variants.json")
    dest.write_text(json.dumps(out, indent=1, sort_keys=True) + "\n")
    print("wrote", dest)


def main(argv: list[str]) -> None:
    out = Path(argv[0])
    if "--collect" in argv:
        k = argv.index("--collect")
        collect(Path(argv[k + 1]), Path(argv[k + 2]), Path(argv[k + 3]))
        return
    samples = ROOT / "src" / "misi_tasks" / "sample_data"
    make_protonated(samples, out / "protonated")
    make_hydrogen_free(samples, out / "hydrogen_free")
    make_hydrogen_free_sdf(samples, out / "hydrogen_free_sdf")
    print("wrote", out)


if __name__ == "__main__":
    main(sys.argv[1:])
