"""Own structures the way PLIP/PoseBusters users give them -- every ligand copy, polymer
residues, covalent ligands, mol2/PDBQT poses, pose order, and messages that say why.

Fixtures: the 4CWB files of ``data/`` and the files ``data/make_structures.py`` cut from public
entries (see ``data/PROVENANCE.md``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from misi_tasks.engine.cli import main
from misi_tasks.engine.provenance import card_sources_section
from misi_tasks.inputs import check_inputs, discover_inputs


def _many_poses(data: Path, tmp_path: Path, n: int = 11) -> Path:
    """An SDF with ``n`` poses: the three 4cwb poses repeated (pose k is record k)."""
    records = [r for r in (data / "4cwb_poses.sdf").read_text().split("$$$$\n") if r.strip()]
    path = tmp_path / "many.sdf"
    path.write_text("".join(records[k % len(records)] + "$$$$\n" for k in range(n)))
    return path


# --- pose order and --check --limit ------------------------------------------------------------------
def test_pose_ids_sort_naturally_and_limit_keeps_the_first_poses(data, tmp_path):
    sdf = _many_poses(data, tmp_path)
    plan = discover_inputs(data / "4cwb_apo.pdb.gz", ligand=str(sdf))
    assert plan.ordered_ids()[:3] == ["4cwb_apo_pose1", "4cwb_apo_pose2", "4cwb_apo_pose3"]
    assert plan.ordered_ids()[-2:] == ["4cwb_apo_pose10", "4cwb_apo_pose11"]
    assert list(plan.limited(3).sources) == ["4cwb_apo_pose1", "4cwb_apo_pose2", "4cwb_apo_pose3"]


def test_check_honours_limit(data, tmp_path, capsys):
    sdf = _many_poses(data, tmp_path)
    assert main(["--input", str(data / "4cwb_apo.pdb.gz"), "--ligand", str(sdf), "--check", "--limit", "2"]) == 0
    out = capsys.readouterr().out
    assert "4cwb_apo_pose1 " in out and "4cwb_apo_pose2 " in out and "pose3" not in out and "pose10" not in out
    assert "2 complexes: 2 ok" in out


# --- messages that say why ------------------------------------------------------------------------
def test_when_every_complex_fails_the_summary_gives_each_reason_and_exits_non_zero(data, tmp_path, capsys):
    shutil.copy(data / "4cwb_poses.sdf", tmp_path)
    far = tmp_path / "far.pdb"  # the 4cwb protein moved 60 Å away: no pocket near any pose
    lines = []
    import gzip

    for ln in gzip.open(data / "4cwb_apo.pdb.gz", "rt").read().splitlines():
        if ln.startswith(("ATOM", "HETATM")):
            ln = ln[:30] + f"{float(ln[30:38]) + 60:8.3f}" + ln[38:]
        lines.append(ln)
    far.write_text("\n".join(lines) + "\n")
    (tmp_path / "m.csv").write_text("id,protein,ligand\nfar,far.pdb,4cwb_poses.sdf\n")
    rc = main(["--input", str(tmp_path / "m.csv"), "--out", str(tmp_path / "out"), "--task", "T1", "--quiet"])
    out, err = capsys.readouterr()
    assert rc == 1
    assert out.count("skipped complex far_pose") == 3 and "far.pdb" in out
    assert "none of the 3 input complexes loaded" in err
    assert "not a misi dataset" not in err
    assert (tmp_path / "out" / "failures.txt").read_text().count("far_pose") == 3


def test_card_hydrogen_counts_are_disjoint_parts_of_the_whole():
    def src(pocket: bool, ligand: bool) -> dict:
        return {"explicit_hydrogens": {"pocket": pocket, "ligand": ligand}, "files": {}, "pocket": "cut",
                "bond_orders": "file", "warnings": []}

    sources = {"a": src(True, True), "b": src(True, False), "c": src(True, False), "d": src(False, False)}
    text = "\n".join(card_sources_section(sources))
    assert ("Of these 4 complexes, 1 have explicit hydrogens on both pocket and ligand, 2 on the pocket only, "
            "0 on the ligand only and 1 on neither") in text


# --- docking-pose formats -------------------------------------------------------------------------
#: ChimeraX 1.7.1 ``hbonds`` (relaxed, oracle of ``shared/tools/hbond_oracle``) on the 4cwb apo
#: protein with pose 1 of ``4cwb_poses.mol2`` (the crystal pose with all its hydrogens).
CHIMERAX_POSE1 = "THR 43 OG1 A, N1; ALA 44 O A, N1; ASN 56 ND2 A, O26; ASN 56 OD1 A, N27"


def _t9(c) -> str:
    import warnings

    from misi_geom import find_hbonds
    from ..hbond_text import format_t9

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return format_t9(find_hbonds(c), c)


def test_a_multi_molecule_mol2_gives_one_complex_per_pose_with_its_names(data):
    from misi_geom.inputs import count_poses

    assert count_poses(data / "4cwb_poses.mol2") == 3
    plan = discover_inputs(data / "4cwb_apo.pdb.gz", ligand=str(data / "4cwb_poses.mol2"))
    assert plan.ordered_ids() == ["4cwb_apo_pose1", "4cwb_apo_pose2", "4cwb_apo_pose3"]
    loaded = [plan.sources[cid].load().complex for cid in plan.ordered_ids()]
    ligs = [c[c.is_ligand] for c in loaded]
    assert all(len(lig) == 43 and lig.is_hydrogen.sum() == 16 for lig in ligs)  # hydrogens kept
    assert all(list(lig.atom_name) == list(ligs[0].atom_name) for lig in ligs) and ligs[0].atom_name[0] == "C22"
    shift = ligs[2].coord - ligs[0].coord  # pose 3 = pose 1 moved by (1, -0.5, 0.5) Å
    assert abs(shift - [1.0, -0.5, 0.5]).max() < 1e-3
    assert _t9(loaded[0]) == CHIMERAX_POSE1
    assert plan.limited(2).ordered_ids() == ["4cwb_apo_pose1", "4cwb_apo_pose2"]


def test_pdbqt_without_smiles_is_one_line_naming_the_converters(data):
    from misi_geom import MisiInputError
    from misi_geom.inputs import FileSource

    src = FileSource("q", protein=data / "4cwb_apo.pdb.gz", ligand=data / "4cwb_poses.pdbqt", pose=1)
    with pytest.raises(MisiInputError) as err:
        src.load()
    msg = str(err.value)
    assert "\n" not in msg and "4cwb_poses.pdbqt" in msg and "SMILES" in msg
    assert "mk_export.py" in msg and "obabel" in msg


def test_pdbqt_poses_with_a_smiles_load_and_answer_like_chimerax(data, smiles_4cwb):
    plan = discover_inputs(data / "4cwb_apo.pdb.gz", ligand=str(data / "4cwb_poses.pdbqt"), smiles=smiles_4cwb)
    assert plan.ordered_ids() == ["4cwb_apo_pose1", "4cwb_apo_pose2"]
    loaded = plan.sources["4cwb_apo_pose1"].load()
    c = loaded.complex
    lig = c[c.is_ligand]
    assert len(lig) == 32 and lig.is_hydrogen.sum() == 5  # Vina keeps polar hydrogens only
    assert set(lig.element[~lig.is_hydrogen]) == {"C", "N", "O", "S"}
    assert lig.formal_charge.sum() == 1  # the amidinium, from the SMILES
    assert loaded.provenance["bond_orders"] == "smiles template"
    assert any("holds 5 of its 16 hydrogens" in w for w in loaded.provenance["warnings"])
    assert _t9(c) == CHIMERAX_POSE1
    pose2 = plan.sources["4cwb_apo_pose2"].load().complex  # MODEL 2 = pose 1 shifted
    assert abs((pose2.coord[pose2.is_ligand] - lig.coord) - [1.0, -0.5, 0.5]).max() < 2e-3


def test_partial_hydrogens_without_smiles_say_why_perception_fails(data, tmp_path):
    """An entry ligand with its polar hydrogens only: RDKit's perception fails, and the message says
    the ligand has only some of its hydrogens."""
    import gzip

    from misi_geom import MisiInputError
    from misi_geom.inputs import FileSource

    protein = gzip.open(data / "4cwb_apo.pdb.gz", "rt").read().splitlines()
    het = []
    for k, ln in enumerate((data / "4cwb_poses.pdbqt").read_text().splitlines()):
        if ln.startswith("ENDMDL"):
            break
        if ln.startswith("ATOM"):
            el = "H" if ln[77:79].strip() == "HD" else ln[12:16].strip()[0]
            het.append(f"HETATM{k:>5} {ln[12:16]} X6L A1201    {ln[30:54]}  1.00 20.00          {el:>2}")
    body = [ln for ln in protein if not ln.startswith(("END", "MASTER", "CONECT"))]
    (tmp_path / "e.pdb").write_text("\n".join(body + het + ["END"]) + "\n")
    with pytest.raises(MisiInputError) as err:
        FileSource("e", protein=tmp_path / "e.pdb", selection=__import__("misi_geom.inputs", fromlist=["x"])
                   .LigandSelection.parse("X6L:A")).load()
    assert "holds only some of its hydrogens (5;" in str(err.value) and "\n" not in str(err.value)


# --- every ligand, and only ligands ---------------------------------------------------------------
#: Arginine as a free amino acid (zwitterion), for the free ARG A 1401 of ``4cwb_copies.pdb.gz``.
ARG_SMILES = "N[C@@H](CCCNC(N)=[NH2+])C(=O)[O-]"


@pytest.mark.parametrize("form", ["all", "*", "X6L:*", "x6l:*"])
def test_every_copy_and_every_ligand_give_one_complex_per_copy(data, smiles_4cwb, form):
    plan = discover_inputs(data / "4cwb_copies.pdb.gz", ligand=form, smiles=smiles_4cwb)
    assert plan.ordered_ids() == ["4cwb_copies_X6L_A_1201", "4cwb_copies_X6L_B_1201"]
    a, b = (plan.sources[cid].load() for cid in plan.ordered_ids())
    assert a.provenance["ligand_selection"] == "X6L:A:1201" and b.provenance["ligand_selection"] == "X6L:B:1201"
    la, lb = (x.complex[x.complex.is_ligand] for x in (a, b))
    assert len(la) == len(lb) == 27
    assert abs((lb.coord - la.coord) - [60.0, 0.0, 0.0]).max() < 1e-3  # chain B's copy, moved 60 Å
    # each pocket is cut around its own copy: chain A residues for A, chain B residues for B
    assert set(a.complex.chain_id[~a.complex.is_ligand]) <= {"A", ""}
    assert set(b.complex.chain_id[~b.complex.is_ligand]) == {"B"}


def test_all_leaves_out_ions_additives_polymer_and_free_standard_residues(data):
    from misi_geom.inputs.ligands import atom_record_residues, ligand_residues
    from misi_geom.io import read_structure

    path = data / "4cwb_copies.pdb.gz"
    keys, left_out = ligand_residues(read_structure(path), None, atom_record_residues(path))
    assert [k[0] for k in keys] == ["X6L", "X6L"]
    assert left_out == ["ARG: standard residue (name it to use a free one)", "GOL: excluded additive",
                        "MG: single atom (ion)", "SO4: excluded additive"]


def test_check_lists_every_copy(data, smiles_4cwb, capsys):
    rc = main(["--input", str(data / "4cwb_copies.pdb.gz"), "--ligand", "all", "--smiles", smiles_4cwb, "--check"])
    out = capsys.readouterr().out
    assert rc == 0 and "4cwb_copies_X6L_A_1201" in out and "4cwb_copies_X6L_B_1201" in out
    assert "2 complexes: 2 ok" in out


def test_a_short_selection_prefers_the_free_residue_over_the_chains_own(data):
    from misi_geom.inputs import read_entry_ligand

    e = read_entry_ligand(data / "4cwb_copies.pdb.gz", "ARG:A", smiles=ARG_SMILES)
    assert e.selected == "ARG:A:1401" and e.warnings == ()
    assert len(e.ligand) == 12 and set(e.ligand.res_name) == {"ARG"}


@pytest.mark.parametrize("text", ["LYS:A", "LYS:A:86", "ARG:A:88"])
def test_a_polymer_residue_is_refused_with_the_peptide_form_named(data, text):
    from misi_geom import MisiInputError
    from misi_geom.inputs import read_entry_ligand

    with pytest.raises(MisiInputError) as err:
        read_entry_ligand(data / "4cwb_copies.pdb.gz", text, smiles=ARG_SMILES)
    msg = str(err.value)
    assert "polymer chain A" in msg and "--ligand chain:ID" in msg and "\n" not in msg


def test_every_copy_of_a_polymer_residue_name_finds_none_and_says_why(data):
    with pytest.raises(ValueError, match=r"no non-polymer residue LYS in 4cwb_copies.pdb.gz \(left out: LYS: polymer"):
        discover_inputs(data / "4cwb_copies.pdb.gz", ligand="LYS:*")


def test_a_smiles_with_one_atom_more_names_the_missing_leaving_atom(data):
    from misi_geom import MisiInputError
    from misi_geom.inputs import read_entry_ligand

    with pytest.raises(MisiInputError, match="SMILES has 13 heavy atoms, the ligand 12; a residue linked"):
        read_entry_ligand(data / "4cwb_copies.pdb.gz", "ARG:A", smiles="N[C@@H](CCCNC(N)=[NH2+])C(=O)OC")


# --- covalent ligands -----------------------------------------------------------------------------
#: ChimeraX 1.7.1's IDATM types of the benzonitrile adduct of ``4cwb_covalent.pdb.gz`` (oracle of
#: ``shared/tools/hbond_oracle``, pocket = the file's ATOM records, ligand = its UNL atoms as SDF):
#: the former nitrile C and N are sp2 (thioimidate), not the template's sp C#N.
CHIMERAX_ADDUCT_TYPES = {"C1": "C2", "N1": "Npl", "C2": "Car", "C3": "Car", "C4": "Car", "C5": "Car",
                         "C6": "Car", "C7": "Car"}


@pytest.fixture(scope="module")
def covalent(data):
    from misi_geom.inputs import FileSource, LigandSelection

    return FileSource("cov", protein=data / "4cwb_covalent.pdb.gz", selection=LigandSelection.parse("UNL:A"),
                      smiles="N#Cc1ccccc1").load()


def test_a_covalent_ligand_is_reported_with_its_bond(covalent):
    assert covalent.provenance["covalent"] == ["C1 - CYS 58 SG A (1.75 Å)"]
    (w,) = [w for w in covalent.provenance["warnings"] if w.startswith("covalent ligand")]
    assert "C1 - CYS 58 SG A" in w and "C1#N1 -> C1=N1" in w


def test_the_linked_atom_is_typed_by_the_adduct_not_the_templates_triple_bond(covalent):
    import numpy as np

    from misi_geom import assign_hbond_types

    c = covalent.complex
    types = assign_hbond_types(c).idatm
    got = {str(c.atom_name[i]): str(types[i]) for i in np.flatnonzero(c.is_ligand)}
    assert got == CHIMERAX_ADDUCT_TYPES
    assert _t9(c) == ""  # ChimeraX finds no H-bond here either


def test_check_table_has_a_covalent_column(data, capsys):
    rc = main(["--input", str(data / "4cwb_covalent.pdb.gz"), "--ligand", "UNL:A", "--smiles", "N#Cc1ccccc1",
               "--check"])
    out = capsys.readouterr().out
    assert rc == 0
    head, _rule, row = out.splitlines()[:3]
    assert "covalent" in head.split()
    assert "C1 - CYS 58 SG A (1.75 Å)" in row


def test_non_covalent_complexes_say_no(data, smiles_4cwb, capsys):
    main(["--input", str(data / "4cwb_entry.cif.gz"), "--ligand", "X6L:A", "--smiles", smiles_4cwb, "--check"])
    row = capsys.readouterr().out.splitlines()[2]
    assert row.split()[9] == "no"  # the covalent column (no note follows)


# --- template bond orders over deposited lengths -----------------------------------------------------
@pytest.mark.parametrize("oxygen, carbon", [("O26", "C25"), ("O12", "C11")])
def test_a_templates_carbonyl_stays_a_carbonyl_at_an_unusual_length(data, smiles_4cwb, tmp_path, oxygen, carbon):
    """A C=O deposited at 1.38 Å (as in one entry of the issue) is typed from the SMILES's double
    bond, not as a hydroxyl from its length, and the answer is the one of the usual geometry."""
    import gemmi
    import numpy as np

    from misi_geom import assign_hbond_types
    from misi_geom.inputs import FileSource, LigandSelection

    def load(path):
        return FileSource("e", protein=path, selection=LigandSelection.parse("X6L:A"), smiles=smiles_4cwb).load().complex

    st = gemmi.read_structure(str(data / "4cwb_entry.cif.gz"))
    (res,) = [r for ch in st[0] for r in ch if r.name == "X6L"]
    at = {a.name: a for a in res}
    c, o = np.array(at[carbon].pos.tolist()), np.array(at[oxygen].pos.tolist())
    at[oxygen].pos = gemmi.Position(*(c + (o - c) / np.linalg.norm(o - c) * 1.38))
    st.write_pdb(str(tmp_path / "stretched.pdb"))
    stretched = load(tmp_path / "stretched.pdb")
    i = int(np.flatnonzero(stretched.is_ligand & (stretched.atom_name == oxygen))[0])
    assert abs(np.linalg.norm(stretched.coord[i] - stretched.coord[stretched.atom_name == carbon][0]) - 1.38) < 1e-3
    assert assign_hbond_types(stretched).idatm[i] == "O2"
    assert _t9(stretched) == _t9(load(data / "4cwb_entry.cif.gz"))


# --- peptide ligands, on request ------------------------------------------------------------------
PEPTIDE_SMILES = "C[C@H](N)C(=O)NCC(=O)N[C@@H](CO)C(=O)O"  # Ala-Gly-Ser


@pytest.fixture(scope="module")
def peptide_entry(data, tmp_path_factory) -> Path:
    """The 4cwb apo protein with a tripeptide Ala-Gly-Ser as chain P (ATOM records, with its
    hydrogens) in the ligand site: RDKit's ``MolFromSequence`` + ETKDG/MMFF, centred on pose 1."""
    import gzip

    import numpy as np
    from rdkit import Chem
    from rdkit.Chem import AllChem

    pep = Chem.AddHs(Chem.MolFromSequence("AGS"), addResidueInfo=True)
    AllChem.EmbedMolecule(pep, randomSeed=3)
    AllChem.MMFFOptimizeMolecule(pep)
    site = Chem.MolFromMolBlock((data / "4cwb_poses.sdf").read_text().split("$$$$")[0])
    xyz = pep.GetConformer().GetPositions()
    xyz = xyz - xyz.mean(axis=0) + site.GetConformer().GetPositions().mean(axis=0)
    for k, p in enumerate(xyz):
        pep.GetConformer().SetAtomPosition(k, [float(v) for v in p])
    for a in pep.GetAtoms():
        a.GetPDBResidueInfo().SetChainId("P")
    protein = [ln for ln in gzip.open(data / "4cwb_apo.pdb.gz", "rt").read().splitlines()
               if ln.startswith(("ATOM", "HETATM"))]
    peptide = [ln for ln in Chem.MolToPDBBlock(pep, flavor=2).splitlines() if ln.startswith("ATOM")]
    path = tmp_path_factory.mktemp("peptide") / "peptide_entry.pdb"
    path.write_text("\n".join(protein + ["TER"] + peptide + ["END"]) + "\n")
    return path


def test_a_peptide_ligand_is_its_whole_chain_when_asked(peptide_entry):
    from misi_geom.inputs import FileSource, LigandSelection

    loaded = FileSource("pep", protein=peptide_entry, selection=LigandSelection.parse("chain:P"),
                        smiles=PEPTIDE_SMILES).load()
    c = loaded.complex
    lig = c[c.is_ligand]
    assert loaded.provenance["ligand_selection"] == "chain:P"
    assert (~lig.is_hydrogen).sum() == 16 and list(dict.fromkeys(lig.res_name)) == ["ALA", "GLY", "SER"]
    assert "P" not in set(c.chain_id[~c.is_ligand])  # the chain left the protein
    # without a SMILES its hydrogens let RDKit perceive the bond orders
    perceived = FileSource("pep", protein=peptide_entry, selection=LigandSelection.parse("chain:P")).load()
    assert perceived.provenance["bond_orders"] == "rdDetermineBonds"


def test_one_residue_of_a_peptide_is_refused(peptide_entry):
    from misi_geom import MisiInputError
    from misi_geom.inputs import read_entry_ligand

    with pytest.raises(MisiInputError, match="polymer chain P"):
        read_entry_ligand(peptide_entry, "GLY:P", smiles="NCC(=O)O")
    with pytest.raises(MisiInputError, match="no chain 'Q' for the peptide ligand chain:Q"):
        read_entry_ligand(peptide_entry, "chain:Q")


def test_a_bond_the_file_declares_counts_beyond_the_radius_rule(data, tmp_path):
    """The entry's LINK record names the bond; with CYS 58 SG pulled 0.6 Å away from the ligand
    (beyond covalent radii + 0.45 Å) the bond is still reported, marked as declared."""
    import gzip

    import numpy as np

    from misi_geom.inputs import FileSource, LigandSelection

    def xyz(ln: str) -> np.ndarray:
        return np.array([float(ln[30:38]), float(ln[38:46]), float(ln[46:54])])

    text = gzip.open(data / "4cwb_covalent.pdb.gz", "rt").read().splitlines()
    is_sg = lambda ln: ln.startswith("ATOM") and ln[12:16] == " SG " and ln[22:26] == "  58"  # noqa: E731
    sg = next(xyz(ln) for ln in text if is_sg(ln))
    c1 = next(xyz(ln) for ln in text if ln.startswith("HETATM") and ln[12:16] == " C1 ")
    moved = sg + (sg - c1) / np.linalg.norm(sg - c1) * 0.6
    out = [ln[:30] + "".join(f"{v:8.3f}" for v in moved) + ln[54:] if is_sg(ln) else ln for ln in text]
    (tmp_path / "far.pdb").write_text("\n".join(out) + "\n")
    got = FileSource("far", protein=tmp_path / "far.pdb", selection=LigandSelection.parse("UNL:A"),
                     smiles="N#Cc1ccccc1").load()
    assert got.provenance["covalent"] == ["C1 - CYS 58 SG A (2.35 Å, declared in the file)"]
