"""Issue 25: own structures the way PLIP/PoseBusters users give them -- every ligand copy, polymer
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
    from misi_tasks.tasks.hbond_answers import format_t9

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
