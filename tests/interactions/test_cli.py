"""``misi-interactions``: one complex from any ``misi-gen --input`` form, as a table or JSON."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from misi_geom.samples import sample_dirs
from misi_tasks.interactions.cli import main


def _sample(name: str):
    return next(d for d in sample_dirs() if d.name == name)


def test_json_form_of_a_pdbbind_folder(capsys):
    assert main([str(_sample("3pvu")), "--format", "json"]) == 0
    records = json.loads(capsys.readouterr().out)
    by_type = {r["type"]: r for r in records}
    assert set(by_type) == {"hbond", "cation_pi", "halogen_bond", "hydrophobic"}
    assert by_type["cation_pi"]["residue"] == "LYS 220 ?"
    assert by_type["cation_pi"]["pocket_atoms"] == ["NZ"]
    assert by_type["cation_pi"]["ligand_atoms"] == ["C15", "C16", "C17", "C18", "C19", "C20"]
    assert by_type["halogen_bond"]["ligand_atoms"] == ["F34"] and 2.6 < by_type["halogen_bond"]["distance"] < 2.7
    for r in records:
        assert set(r) >= {"type", "residue", "pocket_atoms", "ligand_atoms"}


def test_table_and_type_filter(capsys):
    assert main([str(_sample("2pyy")), "--type", "salt_bridge"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["type", "residue"]
    assert len(lines) == 3 and all(line.startswith("salt_bridge") for line in lines[1:])


def test_a_folder_of_several_complexes_needs_an_id(capsys, tmp_path):
    for name in ("2pyy", "3pvu"):
        shutil.copytree(_sample(name), tmp_path / name)
    assert main([str(tmp_path)]) == 2
    assert "names 2 complexes; pick one with --id" in capsys.readouterr().err
    assert main([str(tmp_path), "--id", "3pvu", "--type", "halogen_bond"]) == 0
    assert "F34" in capsys.readouterr().out


def test_an_entry_with_a_ligand_file(capsys, tmp_path):
    src = _sample("3pvu")
    assert main([str(src / "3pvu_pocket.pdb"), "--ligand", str(src / "3pvu_ligand.mol2"), "--format", "json",
                 "--type", "cation_pi"]) == 0
    (rec,) = json.loads(capsys.readouterr().out)
    assert rec["residue"] == "LYS 220 ?"


def test_explain_and_bad_input(capsys):
    assert main([str(_sample("3pvu")), "--explain", "LYS 220 ?", "N9", "--type", "cation_pi,hbond"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("cation_pi: distance") and "offset" in out[0] and "fails" in out[0]
    assert out[1].startswith("hbond: pocket donor")
    assert main([str(_sample("3pvu")), "--type", "ionic"]) == 2
    assert "unknown interaction type 'ionic'" in capsys.readouterr().err
    assert main([str(_sample("3pvu")), "--explain", "ARG 1 Z", "N9"]) == 2
    assert "no pocket residue 'ARG 1 Z'" in capsys.readouterr().err


def test_an_mmcif_entry_and_a_manifest_row_give_the_same_contacts(capsys):
    """The H-free 4cwb entry with its ligand picked by residue (bond orders from SMILES) and the same
    pose docked into the apo protein as a manifest row (an SDF without H): the same contacts, by type,
    residue and distance (atom names differ: the SDF names atoms by element and index)."""
    data = Path(__file__).resolve().parents[1] / "inputs" / "data"
    smiles = "[NH2+]=c1[nH]c(=O)c2[nH]c(SCC(=O)c3ccc(-c4ccccc4)cc3)nc2[nH]1"
    types = "salt_bridge,pi_stacking,cation_pi,halogen_bond,metal"

    def contacts(args):
        assert main(args + ["--format", "json", "--type", types]) == 0
        return sorted((r["type"], r["residue"], r["distance"]) for r in json.loads(capsys.readouterr().out))

    entry = contacts([str(data / "4cwb_entry.cif.gz"), "--ligand", "X6L:A", "--smiles", smiles])
    row = contacts([str(data / "manifest.csv"), "--id", "4cwb_dock_pose1"])
    assert entry == row
    assert {("pi_stacking", "PHE 54 A"), ("cation_pi", "PHE 123 A")} <= {t[:2] for t in entry}
