"""Manifests and the misi-gen input kinds: parsing, bad rows, --check, provenance in items and card,
and a PDBbind complex read through a manifest giving the folder path's exact answers."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from misi_geom import MisiInputError, load_complex
from misi_tasks.engine.cli import main
from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_tasks.inputs import check_inputs, discover_inputs, read_manifest
from misi_tasks.definitions.registry import TASK_NAMES
from misi_geom.samples import SAMPLE_IDS, sample_root


def _pdbbind_manifest(tmp_path: Path, ids, ligand_ext: str = "mol2") -> Path:
    """A manifest of bundled PDBbind samples, paths relative to the manifest."""
    root = tmp_path / "set"
    shutil.copytree(sample_root(), root, ignore=shutil.ignore_patterns("*.md"))
    lines = ["id,protein,ligand,pocket,smiles,split"]
    lines += [f"{i},,{i}/{i}_ligand.{ligand_ext},{i}/{i}_pocket.pdb,," for i in ids]
    path = root / "complexes.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("pdb_id", SAMPLE_IDS)
def test_pdbbind_complex_through_a_manifest_is_the_folder_complex(tmp_path, pdb_id):
    plan = discover_inputs(_pdbbind_manifest(tmp_path, [pdb_id]))
    got = plan.sources[pdb_id].load().complex
    want = load_complex(sample_root() / pdb_id)
    for name in ("coord", "element", "atom_name", "res_name", "res_id", "chain_id", "res_index", "is_ligand",
                 "is_hydrogen", "formal_charge", "atom_type", "bonds", "bond_order"):
        np.testing.assert_array_equal(getattr(got, name), getattr(want, name), err_msg=name)
    assert got.pdb_id == want.pdb_id


def _rows(out: Path) -> dict[str, dict]:
    rows = {}
    for f in sorted((out / "data").rglob("*.parquet")):
        for r in pq.read_table(f).to_pylist():
            rows[r["id"]] = r
    return rows


def test_pdbbind_manifest_generates_the_folder_answers_and_images(tmp_path):
    ids = ["1h1d", "2pyy"]
    manifest = _pdbbind_manifest(tmp_path, ids)
    folder_in = tmp_path / "folders"
    folder_in.mkdir()
    for i in ids:
        shutil.copytree(sample_root() / i, folder_in / i)
    common = dict(tasks=TASK_NAMES, split="test", seed=3, size=64)
    generate_dataset(GenerateConfig(input_dir=folder_in, out_dir=tmp_path / "a", **common), progress=False)
    generate_dataset(GenerateConfig(input_dir=manifest, out_dir=tmp_path / "b", **common), progress=False)
    a, b = _rows(tmp_path / "a"), _rows(tmp_path / "b")
    assert a.keys() == b.keys() and len(a) >= 30  # at 64 px most T8/T9 labels cannot be legible: those items drop
    for key in a:
        ra, rb = a[key], b[key]
        for col in ("question", "answer", "options", "image_roles", "images"):
            assert ra[col] == rb[col], (key, col)
        ma, mb = json.loads(ra["metadata"]), json.loads(rb["metadata"])
        source = mb.pop("source")
        assert ma == mb, key
        assert "source" not in ma  # folder items keep today's bytes
        assert source["files"]["ligand"]["file"] == f"{ra['complex_id']}/{ra['complex_id']}_ligand.mol2"
    card = (tmp_path / "b" / "README.md").read_text()
    assert "## Sources" in card and "Of these 2 complexes, 2 have explicit hydrogens on both pocket and ligand" in card
    assert "## Sources" not in (tmp_path / "a" / "README.md").read_text()


def test_csv_and_yaml_manifests_give_the_same_sources(data, tmp_path):
    csv_read = read_manifest(data / "manifest.csv")
    yaml_path = tmp_path / "m.yaml"
    yaml_path.write_text(
        "complexes:\n"
        f"  - id: 4cwb_entry\n    protein: {data}/4cwb_entry.cif.gz\n    ligand: X6L:A\n"
        "    smiles: '[NH2+]=c1[nH]c(=O)c2[nH]c(SCC(=O)c3ccc(-c4ccccc4)cc3)nc2[nH]1'\n    split: test\n"
        f"  - id: 4cwb_dock\n    protein: {data}/4cwb_apo.pdb.gz\n    ligand: {data}/4cwb_poses.sdf\n    split: train\n"
    )
    yaml_read = read_manifest(yaml_path)
    assert csv_read.failures == yaml_read.failures == {}
    strip = lambda s: (s.id, s.protein, s.ligand, s.selection, s.pocket, s.smiles, s.pose, s.split, s.group)  # noqa: E731
    assert [strip(s) for s in csv_read.sources] == [strip(s) for s in yaml_read.sources]
    assert [s.id for s in csv_read.sources] == ["4cwb_entry", "4cwb_dock_pose1", "4cwb_dock_pose2", "4cwb_dock_pose3"]
    assert [s.id for s in read_manifest(data / "manifest.csv", poses=2).sources][1:] == ["4cwb_dock_pose1",
                                                                                          "4cwb_dock_pose2"]


def test_bad_rows_are_reported_and_the_others_kept(data, tmp_path):
    m = tmp_path / "bad.csv"
    shutil.copy(data / "4cwb_apo.pdb.gz", tmp_path)
    shutil.copy(data / "4cwb_poses.sdf", tmp_path)
    m.write_text(
        "id,protein,ligand,split\n"
        "good,4cwb_apo.pdb.gz,4cwb_poses.sdf,\n"
        "good,4cwb_apo.pdb.gz,4cwb_poses.sdf,\n"  # duplicate id
        "bad/id,4cwb_apo.pdb.gz,4cwb_poses.sdf,\n"
        "splitless,4cwb_apo.pdb.gz,4cwb_poses.sdf,validation\n"
        "noprotein,,X6L,\n"
        "missing,4cwb_apo.pdb.gz,missing.sdf,\n"
        "notastructure,4cwb_poses.sdf,4cwb_poses.sdf,\n"
    )
    read = read_manifest(m)
    assert {s.group for s in read.sources} == {"good", "missing"}
    assert set(read.failures) == {"good (row 2)", "bad/id", "splitless", "noprotein", "notastructure"}
    assert all("\n" not in why and "bad.csv row" in why for why in read.failures.values())
    rows = check_inputs(discover_inputs(m))
    by_id = {r.id: r for r in rows}
    assert by_id["good_pose1"].ok and by_id["good_pose3"].ok
    assert not by_id["missing"].ok and "missing.sdf: file not found" in by_id["missing"].note


@pytest.mark.parametrize("text, message", [
    ("idx,ligand\n1,a.sdf\n", "unknown column"),
    ("protein,ligand\na.pdb,a.sdf\n", "no 'id' column"),
])
def test_unreadable_manifests_raise(tmp_path, text, message):
    m = tmp_path / "m.csv"
    m.write_text(text)
    with pytest.raises(MisiInputError, match=message):
        read_manifest(m)


def test_check_prints_a_table_and_renders_nothing(data, tmp_path, capsys):
    assert main(["--input", str(data / "manifest.csv"), "--check"]) == 0
    out = capsys.readouterr().out
    assert "4cwb_dock_pose3" in out and "4 complexes: 4 ok, 0 with errors" in out
    bad = tmp_path / "bad.csv"
    bad.write_text(f"id,protein,ligand\nx,{data}/4cwb_entry.cif.gz,X6L\n")  # no SMILES, no hydrogens
    assert main(["--input", str(bad), "--check"]) == 1
    out = capsys.readouterr().out
    assert "ERROR" in out and "no hydrogens and no SMILES" in out
    assert not any(tmp_path.glob("**/*.parquet"))


def test_manifest_run_carries_provenance_and_counts_hydrogens(data, tmp_path):
    out = tmp_path / "out"
    summary = generate_dataset(GenerateConfig(input_dir=data / "manifest.csv", out_dir=out,
                                              tasks=("translation", "pocket-ligand"), seed=1, size=64), progress=False)
    assert summary.complexes == 4 and not summary.failed_complexes
    rows = _rows(out)
    splits = {r["complex_id"]: r["split"] for r in rows.values()}
    assert splits["4cwb_entry"] == "test"  # the manifest's split
    assert {splits[f"4cwb_dock_pose{k}"] for k in (1, 2, 3)} == {"train"}
    for r in rows.values():
        src = json.loads(r["metadata"])["source"]
        assert len(src["files"]["protein"]["sha256"]) == 64
        assert src["explicit_hydrogens"] == {"pocket": False, "ligand": False}
    card = (out / "README.md").read_text()
    assert "Of these 4 complexes, 0 have explicit hydrogens on both pocket and ligand, 0 on the pocket only, 0 on the ligand only and 4 on neither" in card
    assert "| 4cwb_poses.sdf |" in card and "| `4cwb_entry` | 4cwb_entry.cif.gz | X6L:A:1201 |" in card


def test_cli_entry_with_ligand_by_name(data, tmp_path, smiles_4cwb, capsys):
    out = tmp_path / "out"
    rc = main(["--input", str(data / "4cwb_entry.cif.gz"), "--ligand", "X6L:A", "--smiles", smiles_4cwb,
               "--out", str(out), "--task", "T1", "--size", "64", "--workers", "1", "--quiet", "--split", "test"])
    assert rc == 0
    rows = _rows(out)
    assert {r["complex_id"] for r in rows.values()} == {"4cwb_entry"}
    assert json.loads(next(iter(rows.values()))["metadata"])["source"]["ligand_selection"] == "X6L:A:1201"


@pytest.mark.parametrize("argv, message", [
    (["--check", "--ligand", "X6L"], "apply to a structure file"),  # with the bundled folder
    (["--out", "o", "--poses", "0"], "--poses must be at least 1"),
    ([], "--out is required"),
])
def test_cli_rejects_misused_input_options(argv, message, capsys):
    try:
        rc = main(argv)
    except SystemExit as exc:
        rc = exc.code
    assert rc != 0
    assert message in capsys.readouterr().err


def test_a_bad_row_never_stops_the_batch_and_a_resumed_run_keeps_the_card(data, tmp_path):
    m = tmp_path / "m.csv"
    m.write_text(
        "id,protein,ligand,smiles,split\n"
        f"entry,{data}/4cwb_entry.cif.gz,X6L,[NH2+]=c1[nH]c(=O)c2[nH]c(SCC(=O)c3ccc(-c4ccccc4)cc3)nc2[nH]1,test\n"
        f"nosmiles,{data}/4cwb_entry.cif.gz,X6L,,test\n"  # fails when loaded
        f"badsplit,{data}/4cwb_entry.cif.gz,X6L,,dev\n"  # fails when read
    )
    cfg = GenerateConfig(input_dir=m, out_dir=tmp_path / "out", tasks=("translation",), seed=1, size=64)
    summary = generate_dataset(cfg, progress=False)
    assert set(summary.failed_complexes) == {"nosmiles", "badsplit"}
    assert "no hydrogens and no SMILES" in summary.failed_complexes["nosmiles"]
    assert {r["complex_id"] for r in _rows(cfg.out_dir).values()} == {"entry"}
    card = (cfg.out_dir / "README.md").read_bytes()
    assert b"`nosmiles`" in card and b"| `entry` |" in card
    again = generate_dataset(cfg, progress=False)  # everything done: nothing reloaded
    assert again.sources == summary.sources
    assert (cfg.out_dir / "README.md").read_bytes() == card


def test_structure_input_with_a_pose_file_and_a_pose_limit(data):
    plan = discover_inputs(data / "4cwb_apo.pdb.gz", ligand=str(data / "4cwb_poses.sdf"), poses=2)
    assert plan.kind == "entry" and list(plan.sources) == ["4cwb_apo_pose1", "4cwb_apo_pose2"]
    assert {s.group for s in plan.sources.values()} == {"4cwb_apo"}
    with pytest.raises(ValueError, match="needs --ligand"):
        discover_inputs(data / "4cwb_apo.pdb.gz")


def test_selected_ligand_with_a_pocket_file_leaves_the_pocket_without_it(data, smiles_4cwb, tmp_path):
    """A pocket file cut around the ligand (here: the entry itself) must not keep the ligand as a residue."""
    m = tmp_path / "m.csv"
    m.write_text(f"id,protein,ligand,pocket,smiles\nx,{data}/4cwb_entry.cif.gz,X6L,{data}/4cwb_entry.cif.gz,{smiles_4cwb}\n")
    loaded = read_manifest(m).sources[0].load()
    c = loaded.complex
    assert loaded.provenance["pocket"] == "file"
    assert (c.res_name == "X6L").sum() == (c.is_ligand).sum() == 27


def test_poses_of_one_complex_share_the_split_drawn_from_its_id(data, tmp_path):
    from misi_tasks.inputs import assign_splits
    from misi_tasks.tasks.seeding import split_of

    m = tmp_path / "m.csv"
    rows = "".join(f"c{k},{data}/4cwb_apo.pdb.gz,{data}/4cwb_poses.sdf\n" for k in range(40))
    m.write_text("id,protein,ligand\n" + rows)
    sources = discover_inputs(m).sources
    assert len(sources) == 120
    splits = assign_splits(sources, "auto", 0.5)
    for k in range(40):
        assert {splits[f"c{k}_pose{p}"] for p in (1, 2, 3)} == {split_of(f"c{k}", 0.5)}
    assert set(splits.values()) == {"train", "test"}
