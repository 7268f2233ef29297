"""Loading PDBbind-layout complexes: bundled samples, pockets built from proteins, clean-up rules.

Counts are checked against an independent reading of the files' text (column-based PDB parsing and
the mol2 ATOM block), not against the loader itself.  Edge cases are 3–6-line inline PDB strings,
each with a comment naming the kind of real entry it stands for.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from misi_geom import Complex, find_complex_dirs, load_complex, load_complexes, read_structure
from misi_geom.elements import METALS
from misi_geom.samples import SAMPLE_IDS, sample_dirs, sample_root

# Values from sample_data/PROVENANCE.md: (ligand heavy atoms, pocket residues incl. ions, no waters)
PROVENANCE = {"2pyy": (10, 44), "2w9r": (87, 27), "1h1d": (31, 33), "4cjq": (32, 34), "3pvu": (34, 57)}
WATER = {"HOH", "WAT", "DOD"}


# --- an independent reading of the files -----------------------------------------------------
def pdb_rows(path: Path) -> list[dict]:
    """ATOM/HETATM records by PDB column positions."""
    rows = []
    for line in path.read_text().splitlines():
        if line.startswith(("ATOM  ", "HETATM")):
            rows.append(
                dict(
                    name=line[12:16].strip(), alt=line[16].strip(), res_name=line[17:20].strip(),
                    chain=line[21].strip(), res_id=int(line[22:26]), icode=line[26].strip(),
                    xyz=(float(line[30:38]), float(line[38:46]), float(line[46:54])),
                    element=line[76:78].strip().capitalize(),
                )
            )
    return rows


def mol2_atoms(path: Path) -> list[dict]:
    """Atoms of the mol2 file's @<TRIPOS>ATOM block."""
    atoms, inside = [], False
    for line in path.read_text().splitlines():
        if line.startswith("@<TRIPOS>"):
            inside = line.strip() == "@<TRIPOS>ATOM"
            continue
        parts = line.split()
        if inside and parts:
            atoms.append(dict(name=parts[1], xyz=tuple(map(float, parts[2:5])), type=parts[5]))
    return atoms


def is_heavy_pdb(r: dict) -> bool:
    return r["element"] not in ("H", "D") and r["res_name"] not in WATER


def is_heavy_mol2(a: dict) -> bool:
    return a["type"].split(".")[0] != "H"


def residue_key(name: str, res_id: int, icode: str) -> tuple:
    # pocket files have blank chain ids where the protein file has "A": compare without the chain
    return (name, int(res_id), icode)


# --- bundled samples --------------------------------------------------------------------------
def test_bundled_samples_are_found_and_all_load():
    assert [d.name for d in sample_dirs()] == list(SAMPLE_IDS)
    assert [d.name for d in find_complex_dirs(sample_root())] == list(SAMPLE_IDS)
    ok, failed = load_complexes(sample_root())
    assert failed == []
    assert [c.pdb_id for c in ok] == list(SAMPLE_IDS)


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_heavy_atom_counts_match_the_files(samples, sample_paths, pdb_id):
    c, folder = samples[pdb_id], sample_paths[pdb_id]
    rows = pdb_rows(folder / f"{pdb_id}_pocket.pdb")
    assert not any(r["alt"] for r in rows), "sample pockets have no alt-locs; this count would need them"
    pocket_heavy = [r for r in rows if is_heavy_pdb(r)]
    pocket = c.pocket[~c.pocket.is_hydrogen]
    assert len(pocket) == len(pocket_heavy)
    assert Counter(pocket.element.tolist()) == Counter(r["element"] for r in pocket_heavy)
    assert np.allclose(pocket.coord, [r["xyz"] for r in pocket_heavy], atol=1e-3)

    atoms = mol2_atoms(folder / f"{pdb_id}_ligand.mol2")
    lig = c.ligand
    assert int((~lig.is_hydrogen).sum()) == sum(map(is_heavy_mol2, atoms)) == PROVENANCE[pdb_id][0]
    # all ligand atoms (H included) in mol2 order, with mol2 names, even where RDKit reads only the SDF
    assert lig.atom_name.tolist() == [a["name"] for a in atoms]
    assert np.allclose(lig.coord, [a["xyz"] for a in atoms], atol=1e-3)
    assert (lig.res_index == c.pocket.res_index.max() + 1).all()


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_pocket_residues_and_no_water(samples, sample_paths, pdb_id):
    c = samples[pdb_id]
    pocket = c.pocket
    assert not np.isin(pocket.res_name, list(WATER)).any()
    res = pocket.residues()
    assert len(res) == PROVENANCE[pdb_id][1]
    assert [r.res_index for r in res] == list(range(len(res)))
    rows = [r for r in pdb_rows(sample_paths[pdb_id] / f"{pdb_id}_pocket.pdb") if r["res_name"] not in WATER]
    expected = list(dict.fromkeys((r["chain"], r["res_id"], r["icode"], r["res_name"]) for r in rows))
    assert [(r.chain_id, r.res_id, r.ins_code, r.res_name) for r in res] == expected


def test_hydrogens_are_kept_and_flagged(samples, sample_paths):
    c = samples["1h1d"]
    rows = [r for r in pdb_rows(sample_paths["1h1d"] / "1h1d_pocket.pdb") if r["res_name"] not in WATER]
    assert int(c.pocket.is_hydrogen.sum()) == sum(r["element"] == "H" for r in rows) > 0
    assert np.array_equal(c.is_hydrogen, c.element == "H")
    assert c.ligand.is_hydrogen.any()


def test_metal_ion_is_kept_and_not_covalently_bonded(samples):
    c = samples["1h1d"]  # 1h1d's pocket holds a Mg2+ ion (HETATM MG)
    mg = np.flatnonzero(c.element == "Mg")
    assert len(mg) == 1 and c.res_name[mg[0]] == "MG" and not c.is_ligand[mg[0]]
    assert not np.isin(c.bonds, mg).any()


# --- pocket from protein ----------------------------------------------------------------------
def test_pocket_built_from_protein_follows_the_10A_rule(sample_copy, sample_paths):
    folder = sample_copy("2w9r", ["2w9r_protein.pdb", "2w9r_ligand.mol2", "2w9r_ligand.sdf"])
    c = load_complex(folder)
    built = c.pocket

    # the rule, computed independently from the file text: whole residues (waters excluded) with a
    # heavy atom within 10 Å of a ligand heavy atom (hydrogens not counted, PDBbind's convention)
    lig = np.array([a["xyz"] for a in mol2_atoms(folder / "2w9r_ligand.mol2") if is_heavy_mol2(a)])
    rows = [r for r in pdb_rows(folder / "2w9r_protein.pdb") if r["res_name"] not in WATER]
    xyz = np.array([r["xyz"] for r in rows])
    dmin = np.sqrt(((xyz[:, None, :] - lig[None, :, :]) ** 2).sum(-1)).min(axis=1)
    keys = [(r["chain"], r["res_id"], r["icode"], r["res_name"]) for r in rows]
    near = {k for k, d, r in zip(keys, dmin, rows) if d <= 10.0 and r["element"] not in ("H", "D")}
    expected_atoms = [r for r, k in zip(rows, keys) if k in near]
    got = [(r.chain_id, r.res_id, r.ins_code, r.res_name) for r in built.residues()]
    assert got == list(dict.fromkeys(k for k in keys if k in near))  # file order, each residue whole
    assert len(built) == len(expected_atoms)
    assert np.allclose(built.coord, [r["xyz"] for r in expected_atoms], atol=1e-3)

    # every residue of PDBbind's own pocket file (itself within 10 Å) is in the built pocket
    real = {residue_key(r["res_name"], r["res_id"], r["icode"])
            for r in pdb_rows(sample_paths["2w9r"] / "2w9r_pocket.pdb") if r["res_name"] not in WATER}
    assert real <= {residue_key(n, i, ic) for _, i, ic, n in got}
    # residues renumbered 0..R-1 and the ligand is R
    assert np.array_equal(np.unique(built.res_index), np.arange(len(got)))
    assert (c.ligand.res_index == len(got)).all()


def test_pocket_file_wins_over_protein_file(samples, sample_paths):
    c = load_complex(sample_paths["2w9r"])  # both files present: the pocket file is used
    assert len(c.pocket.residues()) == PROVENANCE["2w9r"][1]


# --- clean-up rules on inline PDB snippets ----------------------------------------------------
def _read(tmp_path: Path, text: str) -> Complex:
    p = tmp_path / "snippet_pocket.pdb"
    p.write_text(text)
    return read_structure(p)


# A high-resolution serine-protease pocket whose catalytic Ser side chain has two conformers (A, B).
ALTLOC_SER = """\
ATOM      1  N   SER A 195      10.000  10.000  10.000  1.00 10.00           N
ATOM      2  CA  SER A 195      11.458  10.000  10.000  1.00 10.00           C
ATOM      3  CB ASER A 195      12.000  11.400  10.000{a:6.2f} 10.00           C
ATOM      4  CB BSER A 195      12.000   8.600  10.000{b:6.2f} 10.00           C
ATOM      5  OG ASER A 195      13.400  11.400  10.000{a:6.2f} 10.00           O
ATOM      6  OG BSER A 195      13.400   8.600  10.000{b:6.2f} 10.00           O
"""


@pytest.mark.parametrize("occ_a, occ_b, kept_y", [(0.40, 0.60, 8.6), (0.70, 0.30, 11.4), (0.50, 0.50, 11.4)],
                         ids=["B-higher", "A-higher", "tie-first-letter"])
def test_altloc_highest_occupancy_conformer_is_kept(tmp_path, occ_a, occ_b, kept_y):
    c = _read(tmp_path, ALTLOC_SER.format(a=occ_a, b=occ_b))
    assert c.atom_name.tolist() == ["N", "CA", "CB", "OG"]
    assert np.allclose(c.coord[2:, 1], kept_y)
    assert c.bonds.tolist() == [[0, 1], [1, 2], [2, 3]]


def test_altloc_conformers_with_different_atom_counts(tmp_path):
    # A disordered surface Lys as high-resolution entries often model it: conformer A (0.35) is built
    # out to NZ, conformer B (0.65) only to CD.  B has the higher occupancy although A lists more atoms.
    text = """\
ATOM      1  CG  LYS A  33      10.000  10.000  10.000  1.00 10.00           C
ATOM      2  CD ALYS A  33      11.500  10.000  10.000  0.35 10.00           C
ATOM      3  CE ALYS A  33      12.200  11.300  10.000  0.35 10.00           C
ATOM      4  NZ ALYS A  33      13.700  11.300  10.000  0.35 10.00           N
ATOM      5  CD BLYS A  33      10.500   8.600  10.000  0.65 10.00           C
"""
    c = _read(tmp_path, text)
    assert c.atom_name.tolist() == ["CG", "CD"]
    assert np.allclose(c.coord[1], [10.5, 8.6, 10.0])


# Thrombin-like pocket as PDBbind writes it (1a61 in the dev set): chymotrypsinogen numbering with
# insertion codes (TYR 60A, PRO 60C) and a blank chain id.
THROMBIN_INSERTIONS = """\
ATOM      1  CA  LEU    59       0.000   0.000   0.000  1.00 10.00           C
ATOM      2  CA  TYR    60A      3.800   0.000   0.000  1.00 10.00           C
ATOM      3  CA  PRO    60C      7.600   0.000   0.000  1.00 10.00           C
ATOM      4  CA  PRO    60D     11.400   0.000   0.000  1.00 10.00           C
ATOM      5  CA  LYS    60      15.200   0.000   0.000  1.00 10.00           C
"""


def test_insertion_codes_and_blank_chain_are_kept(tmp_path):
    c = _read(tmp_path, THROMBIN_INSERTIONS)
    res = c.residues()
    assert [(r.res_name, r.res_id, r.ins_code, r.chain_id) for r in res] == [
        ("LEU", 59, "", ""), ("TYR", 60, "A", ""), ("PRO", 60, "C", ""), ("PRO", 60, "D", ""), ("LYS", 60, "", "")]
    assert [r.label for r in res] == ["LEU 59", "TYR 60A", "PRO 60C", "PRO 60D", "LYS 60"]
    assert c.res_index.tolist() == [0, 1, 2, 3, 4]  # 60C and 60D (same name) stay separate residues


def test_insertion_codes_in_a_real_pocket():
    d = Path("/work/shared/data/pdbbind_dev/1a61")
    if not d.is_dir():
        pytest.skip("dev set not present")
    c = load_complex(d)
    labels = [r.label for r in c.pocket.residues()]
    assert "TYR 60A" in labels and set(c.chain_id) == {""}


# Waters under their various names (HOH in PDB files, WAT from MD set-ups, DOD in neutron entries)
# next to a zinc ion bound by a Cys SG, as in alcohol-dehydrogenase or zinc-finger pockets.
WATERS_AND_ZINC = """\
ATOM      1  SG  CYS A  97       0.000   0.000   0.000  1.00 10.00           S
HETATM    2 ZN    ZN A 301       2.300   0.000   0.000  1.00 10.00          ZN
HETATM    3  O   HOH A 401       4.300   0.000   0.000  1.00 10.00           O
HETATM    4  O   WAT A 402       6.300   0.000   0.000  1.00 10.00           O
HETATM    5  O   DOD A 403       8.300   0.000   0.000  1.00 10.00           O
"""


def test_waters_removed_metal_kept_and_not_bonded(tmp_path):
    c = _read(tmp_path, WATERS_AND_ZINC)
    assert c.res_name.tolist() == ["CYS", "ZN"]
    assert c.element.tolist() == ["S", "Zn"]
    assert c.bonds.tolist() == []  # SG-Zn at 2.3 Å is coordination, not a covalent bond


# A cytochrome-P450-like pocket: the heme iron sits inside the HEM residue, 2.0 Å from its pyrrole N,
# so only the metal rule (not the same-residue rule) keeps Fe-N out of the covalent bonds.
HEME_IRON = """\
HETATM    1 FE   HEM A 500       0.000   0.000   0.000  1.00 10.00          FE
HETATM    2  NA  HEM A 500       2.000   0.000   0.000  1.00 10.00           N
HETATM    3  C1A HEM A 500       2.800   1.100   0.000  1.00 10.00           C
HETATM    4  C4A HEM A 500       2.800  -1.100   0.000  1.00 10.00           C
"""


def test_metal_inside_a_residue_is_not_bonded(tmp_path):
    c = _read(tmp_path, HEME_IRON)
    assert c.element.tolist() == ["Fe", "N", "C", "C"] and set(c.res_index.tolist()) == {0}
    assert c.bonds.tolist() == [[1, 2], [1, 3]]


# A joint X-ray/neutron entry: exchanged hydrogens written as deuterium (element D).
DEUTERATED_SER = """\
ATOM      1  OG  SER A  70       0.000   0.000   0.000  1.00 10.00           O
ATOM      2  DG  SER A  70       0.960   0.000   0.000  1.00 10.00           D
ATOM      3  CB  SER A  70      -0.700   1.200   0.000  1.00 10.00           C
ATOM      4  HB2 SER A  70      -1.700   1.000   0.000  1.00 10.00           H
"""


def test_hydrogens_and_deuterium_flagged(tmp_path):
    c = _read(tmp_path, DEUTERATED_SER)
    assert c.element.tolist() == ["O", "H", "C", "H"]
    assert c.is_hydrogen.tolist() == [False, True, False, True]
    assert sorted(map(tuple, c.bonds.tolist())) == [(0, 1), (0, 2), (2, 3)]


# --- covalent pocket bonds --------------------------------------------------------------------
BACKBONE = [("N", "CA"), ("CA", "C"), ("C", "O")]


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_pocket_bonds_within_residues_and_along_the_backbone(samples, pdb_id):
    c = samples[pdb_id]
    pocket = c.pocket
    bonds = {tuple(b) for b in pocket.bonds.tolist()}
    res = pocket.residues()
    idx = [{pocket.atom_name[k]: k for k in range(r.start, r.stop)} for r in res]
    n_backbone = n_peptide = 0
    for r, names in zip(res, idx):
        for a, b in BACKBONE:
            if a in names and b in names:
                assert tuple(sorted((names[a], names[b]))) in bonds, (r.label, a, b)
                n_backbone += 1
    for (r1, n1), (r2, n2) in zip(zip(res, idx), zip(res[1:], idx[1:])):
        if "C" in n1 and "N" in n2 and r1.chain_id == r2.chain_id:
            d = np.linalg.norm(pocket.coord[n1["C"]] - pocket.coord[n2["N"]])
            if d < 1.5:  # consecutive in sequence, not a chain break
                assert tuple(sorted((n1["C"], n2["N"]))) in bonds, (r1.label, r2.label)
                n_peptide += 1
    assert n_backbone > 2 * len(res) and n_peptide > 0
    # between residues only peptide (C-N) and disulfide (SG-SG) bonds
    i, j = pocket.bonds.T
    cross = pocket.res_index[i] != pocket.res_index[j]
    pairs = {tuple(sorted(p)) for p in zip(pocket.atom_name[i[cross]], pocket.atom_name[j[cross]])}
    assert pairs <= {("C", "N"), ("SG", "SG")}
    # every bond has a plausible length and no bond touches a metal
    lengths = np.linalg.norm(pocket.coord[i] - pocket.coord[j], axis=1)
    assert lengths.min() > 0.4 and lengths.max() < 2.2
    assert not np.isin(pocket.element[pocket.bonds], list(METALS)).any()


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_ligand_bonds_come_from_the_file(samples, pdb_id):
    lig = samples[pdb_id].ligand
    assert len(lig.bonds) >= len(lig) - 1  # connected molecule
    assert set(np.unique(lig.bond_order)) <= {1.0, 1.5, 2.0, 3.0}
