"""Explicit-file sources: a ligand picked by name in an mmCIF entry, multi-pose SDFs, H-free proteins,
pockets cut from proteins, provenance."""

from __future__ import annotations

import gzip
import hashlib
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rdkit import Chem

from misi_geom import MisiInputError, load_complex, pocket_from_protein, read_ligand, read_structure
from misi_geom.inputs import FileSource, LigandSelection, count_poses, read_entry_ligand, read_ligand_pose
from misi_geom.samples import sample_root


def _heavy_smiles(mol) -> str:
    m = Chem.RemoveHs(mol, sanitize=False)
    for a in m.GetAtoms():  # stereo is not what is compared
        a.SetChiralTag(Chem.ChiralType.CHI_UNSPECIFIED)
    return Chem.MolToSmiles(m)


@pytest.fixture(scope="module")
def entry(data, smiles_4cwb):
    return read_entry_ligand(data / "4cwb_entry.cif.gz", "X6L", smiles=smiles_4cwb, pdb_id="4cwb")


def test_mmcif_ligand_by_name_takes_atoms_from_the_entry_and_bond_orders_from_the_smiles(entry, data, smiles_4cwb):
    pose1, pose_mol = read_ligand_pose(data / "4cwb_poses.sdf", 1)  # the crystal pose, bond orders from the mol2
    lig = entry.ligand
    assert entry.selected == "X6L:A:1201" and entry.bond_orders == "smiles template" and entry.warnings == ()
    assert len(lig) == 27 and not lig.is_hydrogen.any() and set(lig.res_name) == {"X6L"}
    np.testing.assert_allclose(lig.coord, pose1.coord, atol=1e-3)  # same atoms, same order
    assert list(lig.atom_name[:3]) == ["C22", "C21", "C23"]  # names from the structure, not C1, C2...
    assert _heavy_smiles(entry.mol) == _heavy_smiles(Chem.MolFromSmiles(smiles_4cwb))
    # the SDF's explicit bond orders and the template's agree bond by bond
    sdf_orders = {tuple(sorted(b)): o for b, o in zip(pose1.bonds.tolist(), pose1.bond_order.tolist())}
    ours = {tuple(sorted(b)): o for b, o in zip(lig.bonds.tolist(), lig.bond_order.tolist())}
    assert sdf_orders.keys() == ours.keys()
    assert sum(lig.formal_charge) == 1  # the amidinium of the SMILES


def test_entry_clean_up_follows_the_pocket_rules(entry):
    p = entry.protein
    assert "X6L" not in set(p.res_name)  # the ligand left the protein
    assert "HOH" not in set(p.res_name)  # waters removed
    assert (p.element == "Mg").sum() == 2  # ions stay, as in pocket files
    assert not p.is_hydrogen.any()  # a protein without hydrogens


@pytest.mark.parametrize("text, ok", [
    ("X6L", True), ("x6l:A", True), ("X6L:A:1201", True),
    ("X6L:B", False), ("X6L:A:1200", False), ("ATP", False),
])
def test_ligand_selections(data, smiles_4cwb, text, ok):
    path = data / "4cwb_entry.cif.gz"
    if ok:
        assert read_entry_ligand(path, text, smiles=smiles_4cwb).selected == "X6L:A:1201"
    else:
        with pytest.raises(MisiInputError, match=r"4cwb_entry\.cif\.gz: no residue matches .*X6L"):
            read_entry_ligand(path, text, smiles=smiles_4cwb)


@pytest.mark.parametrize("bad", ["", "A:B:C:D", "X6L:A:1x2", "toolongname"])
def test_bad_selection_text_names_the_form(bad):
    with pytest.raises(ValueError, match=r"RESNAME\[:CHAIN\[:RESNUM\]\]"):
        LigandSelection.parse(bad)


def test_no_smiles_and_no_hydrogens_is_a_one_line_error(data):
    with pytest.raises(MisiInputError) as err:
        read_entry_ligand(data / "4cwb_entry.cif.gz", "X6L")
    assert "no hydrogens and no SMILES" in str(err.value) and "\n" not in str(err.value)


def test_wrong_smiles_is_a_one_line_error(data):
    with pytest.raises(MisiInputError, match="SMILES has 2 heavy atoms, the ligand 27"):
        read_entry_ligand(data / "4cwb_entry.cif.gz", "X6L", smiles="CO")


def _entry_of_bundled_complex(cid: str, out: Path) -> Path:
    """A bundled complex's pocket plus its mol2 ligand, hydrogens included, written as one PDB entry
    with the ligand as HETATM residue LIG."""
    import gemmi

    folder = sample_root() / cid
    mol2 = Chem.MolFromMol2File(str(folder / f"{cid}_ligand.mol2"), removeHs=False)
    st = gemmi.read_structure(str(folder / f"{cid}_pocket.pdb"))
    res = gemmi.Residue()
    res.name, res.seqid, res.het_flag = "LIG", gemmi.SeqId(999, " "), "H"
    for a, xyz in zip(mol2.GetAtoms(), mol2.GetConformer().GetPositions()):
        at = gemmi.Atom()
        at.name, at.element, at.occ = a.GetProp("_TriposAtomName"), gemmi.Element(a.GetSymbol()), 1.0
        at.pos = gemmi.Position(*map(float, xyz))
        res.add_atom(at)
    st[0][0].add_residue(res)
    st.write_pdb(str(out))
    return out


def test_a_large_ligand_without_smiles_is_refused_at_once_asking_for_its_smiles(tmp_path, capsys):
    """2w9r's ligand (87 heavy atoms, hydrogens included) selected by name: RDKit's perception of it
    ran for minutes; misi-gen --check now lists it as failed in one line that asks for the SMILES."""
    from misi_geom.inputs.bond_orders import MAX_PERCEIVE_HEAVY_ATOMS
    from misi_tasks.engine.cli import main

    entry = _entry_of_bundled_complex("2w9r", tmp_path / "2w9r_entry.pdb")
    assert main(["--input", str(entry), "--ligand", "LIG", "--check"]) == 1
    out = capsys.readouterr().out
    assert "87 heavy atoms, too many for RDKit to perceive bond orders" in out
    assert f"(at most {MAX_PERCEIVE_HEAVY_ATOMS}); give the ligand's SMILES" in out


def test_without_smiles_rdkit_perceives_bond_orders_of_a_protonated_ligand_with_a_warning(tmp_path):
    """2pyy (bundled) as one PDB entry: RDKit's perception must find the mol2's chemistry."""
    folder = sample_root() / "2pyy"
    got = FileSource("2pyy", protein=_entry_of_bundled_complex("2pyy", tmp_path / "2pyy_entry.pdb"),
                     selection=LigandSelection("LIG")).load()
    prov = got.provenance
    assert prov["bond_orders"] == "rdDetermineBonds"
    assert len(prov["warnings"]) == 1 and "rdDetermineBonds" in prov["warnings"][0]
    assert prov["explicit_hydrogens"] == {"pocket": True, "ligand": True}
    lig = got.complex[got.complex.is_ligand]
    ref, _ = read_ligand(folder / "2pyy_ligand.mol2")
    assert sorted(lig.formal_charge.tolist()) == sorted(ref.formal_charge.tolist())
    assert sorted(lig.bond_order.tolist()) == sorted(ref.bond_order.tolist())


def test_multi_pose_sdf_gives_one_complex_per_pose(data):
    path = data / "4cwb_poses.sdf"
    assert count_poses(path) == 3
    poses = [read_ligand_pose(path, k)[0] for k in (1, 2, 3)]
    c = poses[0].coord.mean(axis=0)
    t = np.radians(30.0)
    rot = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    np.testing.assert_allclose(poses[1].coord, (poses[0].coord - c) @ rot.T + c, atol=2e-3)  # as PROVENANCE says
    np.testing.assert_allclose(poses[2].coord, poses[0].coord + [1.0, -0.5, 0.5], atol=2e-3)
    with pytest.raises(MisiInputError, match="pose 4 requested, the file holds 3"):
        read_ligand_pose(path, 4)


def test_gzipped_ligand_reads_like_the_plain_file(data, tmp_path):
    gz = tmp_path / "poses.sdf.gz"
    gz.write_bytes(gzip.compress((data / "4cwb_poses.sdf").read_bytes()))
    assert count_poses(gz) == 3
    a, b = read_ligand_pose(gz, 2)[0], read_ligand_pose(data / "4cwb_poses.sdf", 2)[0]
    np.testing.assert_array_equal(a.coord, b.coord)
    assert list(a.atom_name) == list(b.atom_name)


def test_pocket_cut_counts_heavy_atoms_only(data):
    """Whole residues with a heavy atom within 10 Å of a ligand heavy atom; hydrogens never decide."""
    protein = read_structure(sample_root() / "2w9r" / "2w9r_protein.pdb")
    ligand, _ = read_ligand(sample_root() / "2w9r" / "2w9r_ligand.mol2")
    assert protein.is_hydrogen.any()
    pocket = pocket_from_protein(protein, ligand)
    stripped = pocket_from_protein(protein[~protein.is_hydrogen], ligand[~ligand.is_hydrogen])
    np.testing.assert_array_equal(pocket.coord[~pocket.is_hydrogen], stripped.coord)
    # brute force over residues
    heavy_lig = ligand.coord[~ligand.is_hydrogen]
    d = np.linalg.norm(protein.coord[:, None] - heavy_lig[None], axis=2).min(axis=1)
    near_res = set(protein.res_index[(d <= 10.0) & ~protein.is_hydrogen].tolist())
    want = np.isin(protein.res_index, list(near_res))
    np.testing.assert_array_equal(pocket.coord, protein.coord[want])


def test_a_given_pocket_file_wins_over_the_cut(tmp_path):
    folder = sample_root() / "2w9r"
    src = FileSource("2w9r", protein=folder / "2w9r_protein.pdb", ligand=folder / "2w9r_ligand.mol2",
                     pocket=folder / "2w9r_pocket.pdb")
    got = src.load()
    np.testing.assert_array_equal(got.complex.coord, load_complex(folder).coord)
    assert got.provenance["pocket"] == "file"
    cut = FileSource("2w9r", protein=folder / "2w9r_protein.pdb", ligand=folder / "2w9r_ligand.mol2").load()
    assert cut.provenance["pocket"].startswith("cut from protein")
    assert len(cut.complex) != len(got.complex)


def test_provenance_names_files_relative_to_the_root_with_their_sha256(data, smiles_4cwb, tmp_path):
    sub = tmp_path / "structures"
    sub.mkdir()
    shutil.copy(data / "4cwb_entry.cif.gz", sub)
    got = FileSource("x", protein=sub / "4cwb_entry.cif.gz", selection=LigandSelection.parse("X6L:A"),
                     smiles=smiles_4cwb, root=tmp_path).load()
    files = got.provenance["files"]
    assert files == {"protein": {"file": "structures/4cwb_entry.cif.gz",
                                 "sha256": hashlib.sha256((data / "4cwb_entry.cif.gz").read_bytes()).hexdigest()}}
    assert got.provenance["ligand_selection"] == "X6L:A:1201"
    assert got.provenance["explicit_hydrogens"] == {"pocket": False, "ligand": False}


@pytest.mark.parametrize("make, message", [
    (lambda d: FileSource("a", protein=d / "missing.pdb", ligand=d / "4cwb_poses.sdf", pose=1),
     "missing.pdb: file not found"),
    (lambda d: FileSource("a", protein=d / "4cwb_apo.pdb.gz", ligand=d / "nope.sdf"), "nope.sdf: file not found"),
    (lambda d: FileSource("a", protein=d / "4cwb_apo.pdb.gz", ligand=d / "manifest.csv"), "ligand must be"),
])
def test_bad_files_raise_one_line_errors_naming_the_file(data, make, message):
    with pytest.raises(MisiInputError, match=message):
        make(data).load()


@pytest.fixture(scope="module")
def protein_2w9r():
    protein = read_structure(sample_root() / "2w9r" / "2w9r_protein.pdb")
    ligand, _ = read_ligand(sample_root() / "2w9r" / "2w9r_ligand.mol2")
    return protein, ligand


@settings(max_examples=15)
@given(rotvec=st.tuples(*[st.floats(-3, 3)] * 3), shift=st.tuples(*[st.floats(-50, 50)] * 3))
def test_pocket_cut_is_invariant_under_rigid_motion(protein_2w9r, rotvec, shift):
    from dataclasses import replace

    from scipy.spatial.transform import Rotation

    from misi_geom import SE3

    protein, ligand = protein_2w9r
    motion = SE3(Rotation.from_rotvec(rotvec).as_matrix(), np.asarray(shift))
    moved = pocket_from_protein(replace(protein, coord=motion.apply(protein.coord)),
                                replace(ligand, coord=motion.apply(ligand.coord)))
    still = pocket_from_protein(protein, ligand)
    # a residue within rounding of the 10 Å boundary could flip; none of 2w9r's is that close
    np.testing.assert_array_equal(moved.atom_name, still.atom_name)
    np.testing.assert_array_equal(moved.res_id, still.res_id)
    np.testing.assert_allclose(moved.coord, motion.apply(still.coord), atol=1e-9)


def test_a_smiles_sets_the_bond_orders_of_a_ligand_file_too(data, smiles_4cwb):
    plain = FileSource("p", protein=data / "4cwb_apo.pdb.gz", ligand=data / "4cwb_poses.sdf", pose=1).load()
    templ = FileSource("p", protein=data / "4cwb_apo.pdb.gz", ligand=data / "4cwb_poses.sdf", pose=1,
                       smiles=smiles_4cwb).load()
    assert plain.provenance["bond_orders"] == "file" and templ.provenance["bond_orders"] == "smiles template"
    a, b = plain.complex, templ.complex
    np.testing.assert_array_equal(a.coord, b.coord)
    np.testing.assert_array_equal(a.atom_name, b.atom_name)
    # the SDF is kekulised, the template aromatic: same bonds, aromatic rings as 1.5
    np.testing.assert_array_equal(a.bonds, b.bonds)
    assert templ.provenance["warnings"] == []
    np.testing.assert_array_equal(a.bond_order, b.bond_order)  # the SDF's own orders were right
    np.testing.assert_array_equal(a.formal_charge, b.formal_charge)
    with pytest.raises(MisiInputError, match="4cwb_poses.sdf: ligand: SMILES does not match"):
        FileSource("p", protein=data / "4cwb_apo.pdb.gz", ligand=data / "4cwb_poses.sdf", pose=1,
                   smiles="c1ccccc1" + "C" * 21).load()


def test_a_selection_matching_two_copies_takes_the_first_and_warns(data, smiles_4cwb, tmp_path):
    """A second copy of X6L (chain B, moved 40 Å away) is added to the entry, as in a dimer."""
    import gemmi

    st = gemmi.read_structure(str(data / "4cwb_entry.cif.gz"))
    copy = next(r for r in st[0]["A"] if r.name == "X6L").clone()
    for at in copy:
        at.pos = gemmi.Position(at.pos.x + 40.0, at.pos.y, at.pos.z)
    chain = gemmi.Chain("B")
    chain.add_residue(copy)
    st[0].add_chain(chain)
    st.setup_entities()
    path = tmp_path / "dimer.cif"
    st.make_mmcif_document().write_file(str(path))
    got = read_entry_ligand(path, "X6L", smiles=smiles_4cwb)
    assert got.selected == "X6L:A:1201"
    assert len(got.warnings) == 1 and "matches 2 residues" in got.warnings[0] and "X6L:B:1201" in got.warnings[0]
    assert ((got.protein.res_name == "X6L") & (got.protein.chain_id == "B")).sum() == 27  # the other copy stays
    assert read_entry_ligand(path, "X6L:B", smiles=smiles_4cwb).selected == "X6L:B:1201"


def test_a_pose_docked_into_a_holo_protein_warns_about_the_overlap(data):
    """The entry still holds X6L; docking pose 1 sits exactly on it."""
    holo = FileSource("h", protein=data / "4cwb_entry.cif.gz", ligand=data / "4cwb_poses.sdf", pose=1).load()
    assert len(holo.provenance["warnings"]) == 1
    assert "X6L 1201 A overlap the ligand (27 heavy atoms" in holo.provenance["warnings"][0]
    apo = FileSource("a", protein=data / "4cwb_apo.pdb.gz", ligand=data / "4cwb_poses.sdf", pose=1).load()
    assert apo.provenance["warnings"] == []
