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
