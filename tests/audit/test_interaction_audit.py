"""misi-audit on the interaction tasks X1, X2, X3: a clean run on the real 4hlc complex (a salt bridge,
two pi-stacks) passes; rows with a wrong answer, a decoy equal to the answer, an impossible decoy, a
contact out of range or a ``No`` that hides a clear contact fail, each with its reason."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from misi_tasks.audit.cli import main as audit_main
from misi_tasks.audit.interaction_geometry import (contact_problem, ligand_rings, near_contacts, obvious_contacts,
                                                   stack_measures)
from misi_tasks.audit.structures import Structures
from misi_tasks.engine.cli import main as gen_main

DATA = Path(__file__).resolve().parents[1] / "interactions" / "data"


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """X1, X2, X3 on 4hlc at 256 px (train split), generated with ``--audit``."""
    out = tmp_path_factory.mktemp("xaudit") / "ds"
    rc = gen_main(["--task", "X1,X2,X3", "--input", str(DATA), "--out", str(out), "--size", "256",
                   "--split", "train", "--workers", "1", "--quiet", "--audit"])
    assert rc == 0  # every item passed the audit
    return out


def _rows(ds: Path, task: str) -> list[dict]:
    return pq.read_table(next((ds / "data" / task).glob("*.parquet"))).to_pylist()


def _broken(clean: Path, tmp_path: Path, task: str, pick, change) -> tuple[Path, str]:
    """A copy of the dataset with ``change(row, metadata)`` applied to the first row ``pick(row, metadata)``
    accepts; returns the copy and that row's id."""
    ds = tmp_path / "broken"
    shutil.copytree(clean, ds)
    path = next((ds / "data" / task).glob("*.parquet"))
    table = pq.read_table(path)
    rows = table.to_pylist()
    for row in rows:
        meta = json.loads(row["metadata"])
        if pick(row, meta):
            change(row, meta)
            row["metadata"] = json.dumps(meta)
            break
    else:
        raise AssertionError(f"no {task} row to break")
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    return ds, row["id"]


def _reasons(ds: Path, item_id: str, capsys) -> list[str]:
    rc = audit_main([str(ds), "--input", str(DATA), "--quiet", "--no-card", "--max-failures", "100"])
    out = capsys.readouterr().out
    assert rc == 1, out
    return [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(f"FAIL {item_id}: ")]


def test_clean_interaction_dataset_passes(clean, capsys):
    rc = audit_main([str(clean), "--input", str(DATA), "--quiet", "--no-card"])
    out = capsys.readouterr().out
    assert rc == 0, out
    for code in ("X1", "X2", "X3"):
        assert f"| {code} |" in out
    assert "no audit check" not in out


def _is_arg48(row, meta):
    return meta.get("residue") == "ARG 48"


def test_x1_wrong_answer_fails(clean, tmp_path, capsys):
    def wrong(row, meta):
        row["answer"] = "B" if row["answer"] != "B" else "C"

    ds, item = _broken(clean, tmp_path, "interaction-type", _is_arg48, wrong)
    assert any("is not the recorded types" in r for r in _reasons(ds, item, capsys))


def test_x1_decoy_equal_to_the_answer_fails(clean, tmp_path, capsys):
    def same(row, meta):
        k = "ABCD".index(row["answer"])
        row["options"][(k + 1) % 4] = row["options"][k]

    ds, item = _broken(clean, tmp_path, "interaction-type", _is_arg48, same)
    assert any("equals the answer" in r for r in _reasons(ds, item, capsys))


def test_x1_decoy_the_residue_cannot_make_fails(clean, tmp_path, capsys):
    def ringless(row, meta):
        k = "ABCD".index(row["answer"])
        row["options"][(k + 1) % 4] = "pi-stacking"  # ARG has no ring

    ds, item = _broken(clean, tmp_path, "interaction-type", _is_arg48, ringless)
    reasons = _reasons(ds, item, capsys)
    assert any("offers ['pi_stacking'], which ARG cannot make" in r for r in reasons), reasons


def _is_salt(row, meta):
    return meta.get("interaction_type") == "salt_bridge"


def _is_stack(row, meta):
    return meta.get("interaction_type") == "pi_stacking"


def test_x2_answer_missing_a_contact_fails(clean, tmp_path, capsys):
    def drop(row, meta):
        row["answer"] = row["answer"].split("; ")[0]

    ds, item = _broken(clean, tmp_path, "interaction-list", _is_stack, drop)
    assert any("are not metadata.interactions (1 vs 2" in r for r in _reasons(ds, item, capsys))


def test_x2_contact_out_of_range_fails(clean, tmp_path, capsys):
    """TYR 100's ring and the ligand's C2-C7 ring do not stack: recorded and answered, the audit rejects it."""
    def far(row, meta):
        rec = meta["interactions"][1]
        assert rec["ligand_atoms"][0] == "C4"
        rec["residue"] = "TYR 100 ?"
        row["answer"] = row["answer"].replace("PHE 66 CD1-CD2-CE1-CE2-CG-CZ ?, C2-", "TYR 100 CD1-CD2-CE1-CE2-CG-CZ ?, C2-")

    ds, item = _broken(clean, tmp_path, "interaction-list", _is_stack, far)
    reasons = _reasons(ds, item, capsys)
    assert any(r.startswith("pi_stacking TYR 100 ?") and ("apart (needs < 5.5)" in r or "offset" in r or "planes" in r)
               for r in reasons), reasons


def test_x2_recorded_distance_must_match(clean, tmp_path, capsys):
    def moved(row, meta):
        meta["interactions"][0]["distance"] += 0.5

    ds, item = _broken(clean, tmp_path, "interaction-list", _is_salt, moved)
    assert any("not the recorded 3.862" in r for r in _reasons(ds, item, capsys))


def test_x2_no_that_hides_a_clear_salt_bridge_fails(clean, tmp_path, capsys):
    def hide(row, meta):
        row["answer"] = "No"
        meta["interactions"] = []
        meta["label"] = "none"
        meta.pop("label_check", None)
        meta.pop("equivalent_atoms", None)

    ds, item = _broken(clean, tmp_path, "interaction-list", _is_salt, hide)
    reasons = _reasons(ds, item, capsys)
    assert any("the audit finds a clear salt_bridge: ARG 48 N" in r for r in reasons), reasons


def test_x2_no_within_the_recorded_margin_fails(clean, tmp_path, capsys):
    """A No salt bridge recorded with a 1.0 Å margin: ARG 36's charge centre 6.37 Å from the carboxylate
    (inside 5.5 + 1.0) is named, besides ARG 48's clear one."""
    def hide(row, meta):
        row["answer"] = "No"
        meta.update(interactions=[], label="none", none_margin_A=1.0, none_margin_deg=10.0)
        meta.pop("label_check", None)
        meta.pop("equivalent_atoms", None)

    ds, item = _broken(clean, tmp_path, "interaction-list", _is_salt, hide)
    reasons = _reasons(ds, item, capsys)
    assert any("within the recorded margins (1.0 Å, 10.0°): ARG 36 NE" in r for r in reasons), reasons


def test_x2_and_x3_rows_record_their_margins(clean):
    for row in _rows(clean, "interaction-list"):
        meta = json.loads(row["metadata"])
        assert (meta["none_margin_A"], meta["none_margin_deg"]) == (0.5, 10.0)
    for row in _rows(clean, "ring-stacking"):
        meta = json.loads(row["metadata"])
        assert (meta["decoy_margin_A"], meta["decoy_margin_deg"]) == (0.5, 10.0)


def test_x3_decoy_within_the_recorded_margin_fails(clean, tmp_path, capsys):
    """A margin wider than the one the decoys were drawn with (2.0 Å, 20°): some decoy lies inside it."""
    def widen(row, meta):
        meta.update(decoy_margin_A=2.0, decoy_margin_deg=20.0)

    ds, item = _broken(clean, tmp_path, "ring-stacking", lambda r, m: True, widen)
    reasons = _reasons(ds, item, capsys)
    assert any(r.startswith("decoy ") and "within the recorded decoy margins (2.0 Å, 20.0°)" in r for r in reasons), reasons


def test_x3_wrong_answer_and_equal_decoy_fail(clean, tmp_path, capsys):
    def wrong(row, meta):
        row["answer"] = "B" if row["answer"] != "B" else "A"

    ds, item = _broken(clean, tmp_path, "ring-stacking", lambda r, m: True, wrong)
    reasons = _reasons(ds, item, capsys)
    assert any("is not the pi-stacking pair of metadata.interactions" in r for r in reasons)
    assert any("does not stack by the audit's test" in r for r in reasons)

    def same(row, meta):
        k = "ABCD".index(row["answer"])
        row["options"][(k + 1) % 4] = row["options"][k]

    ds2 = tmp_path / "again"
    shutil.move(str(tmp_path / "broken"), str(ds2))
    ds, item = _broken(clean, tmp_path, "ring-stacking", lambda r, m: True, same)
    reasons = _reasons(ds, item, capsys)
    assert any("name the same ring pair" in r for r in reasons)
    assert any(r.startswith("decoy ") and "stacks too" in r for r in reasons)


def test_own_geometry_on_4hlc():
    a = Structures(DATA).get("4hlc")
    rings = ligand_rings(a)
    names = {frozenset(str(a.name[i]) for i in r) for r in rings}
    assert frozenset({"C2", "C3", "C4", "C5", "C6", "C7"}) in names
    phe = [i for i in np.flatnonzero(~a.is_ligand) if a.res_name[i] == "PHE" and a.res_num[i] == "66"
           and a.name[i] in {"CG", "CD1", "CD2", "CE1", "CE2", "CZ"}]
    lig = [a.ligand_atom(n) for n in ("C2", "C3", "C4", "C5", "C6", "C7")]
    d, ang, off = stack_measures(a, phe, lig)
    assert abs(d - 4.738) < 0.02 and off < 2.0 and (ang <= 30 or ang >= 60)
    assert contact_problem(a, "pi_stacking", phe, lig, {"distance": 4.738}) == []
    assert contact_problem(a, "pi_stacking", phe, lig, {"distance": 5.2})  # a record that does not match
    assert any("ARG 48" in h for h in obvious_contacts(a, "salt_bridge"))
    assert obvious_contacts(a, "halogen_bond") == [] and obvious_contacts(a, "metal") == []
    # near misses widen the limits by the margin: ARG 36 (charge centres 6.37 Å) only past 0.87 Å
    assert [h.split(" and ")[0] for h in near_contacts(a, "salt_bridge", 0.5, 10.0)] == ["ARG 48 NE"]
    assert any(h.startswith("ARG 36 ") for h in near_contacts(a, "salt_bridge", 1.0, 10.0))
