"""misi-audit on datasets built here from the bundled samples: a clean run passes and its counts go
into the card; deliberately broken datasets fail, each with the right reason."""

from __future__ import annotations

import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from misi_geom.samples import sample_root
from misi_tasks.audit.cli import main as audit_main
from misi_tasks.audit.structures import Structures
from misi_tasks.engine.cli import main as gen_main


@pytest.fixture(scope="module")
def clean(tmp_path_factory) -> Path:
    """All nine tasks on two sample complexes at 256 px, generated with ``--audit``."""
    out = tmp_path_factory.mktemp("audit") / "ds"
    rc = gen_main(["--task", "all", "--out", str(out), "--size", "256", "--limit", "2", "--split", "train",
                   "--workers", "1", "--quiet", "--audit"])
    assert rc == 0  # misi-gen --audit: generation done and every item passed the audit
    return out


def _copy(clean: Path, tmp_path: Path) -> Path:
    dst = tmp_path / "broken"
    shutil.copytree(clean, dst)
    return dst


def _edit(ds: Path, task: str, index: int, change) -> str:
    """Apply ``change(row)`` to row ``index`` of ``task``'s shard, keeping the schema; returns its id."""
    path = next((ds / "data" / task).glob("*.parquet"))
    table = pq.read_table(path)
    rows = table.to_pylist()
    change(rows[index])
    pq.write_table(pa.Table.from_pylist(rows, schema=table.schema), path)
    return rows[index]["id"]


def _audit(ds: Path, capsys, *extra: str) -> tuple[int, str]:
    rc = audit_main([str(ds), "--quiet", "--max-failures", "100", *extra])
    return rc, capsys.readouterr().out


def _reasons(out: str, item_id: str) -> list[str]:
    return [line.split(": ", 1)[1] for line in out.splitlines() if line.startswith(f"FAIL {item_id}: ")]


def test_clean_dataset_passes_and_the_card_holds_the_counts(clean, capsys):
    card = (clean / "README.md").read_text()
    assert "## Audit" in card and "Every item passed." in card
    assert "| translation | T1 | 8 | 8 | 0 |" in card and "| pocket-ligand | T9 | 2 | 2 | 0 |" in card
    assert card.index("## Audit") < card.index("## Provenance")
    rc, out = _audit(clean, capsys)
    assert rc == 0 and "78 items audited, all items passed" in out
    assert (clean / "README.md").read_text() == card  # idempotent: the same section, once


def test_report_does_not_depend_on_workers(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)

    def wrong(row):
        row["answer"] = "roll x 15" if row["answer"] != "roll x 15" else "roll x 30"

    _edit(ds, "rotation", 1, wrong)
    one = _audit(ds, capsys, "--workers", "1", "--no-card")
    two = _audit(ds, capsys, "--workers", "2", "--no-card")
    strip = lambda out: out.rsplit("\n", 2)[0]  # the last line holds the timings
    assert one[0] == two[0] == 1 and strip(one[1]) == strip(two[1])


def test_swapped_image_fails(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)

    def swap(row):
        row["images"][1], row["images"][2] = row["images"][2], row["images"][1]

    item = _edit(ds, "translation", 0, swap)
    rc, out = _audit(ds, capsys, "--task", "T1")
    assert rc == 1
    reasons = _reasons(out, item)
    assert any(r.startswith("image 2 does not show the left view") for r in reasons), reasons
    assert any(r.startswith("image 3 does not show the top view") for r in reasons), reasons
    assert "| translation | T1 | 8 | 7 | 1 |" in (ds / "README.md").read_text()


@pytest.mark.parametrize("task,new_answer,expected", [
    ("rotation", "roll z 45", "image 4 fits"),
    ("translation", "move y 3", "image 4 (image 1 shifted by d x the scale) fits"),
    ("zooming", "move z 60", "image 4 (image 1 magnified by D / (D - d)) fits"),
    ("docking", "roll y 45, move x 10", "the answer 'roll y 45, move x 10' leaves the ligand"),
])
def test_wrong_motion_answer_fails(clean, tmp_path, capsys, task, new_answer, expected):
    ds = _copy(clean, tmp_path)
    rows = pq.read_table(next((ds / "data" / task).glob("*.parquet"))).to_pylist()
    k = next(i for i, r in enumerate(rows) if r["answer"] != new_answer)

    def wrong(row):
        row["answer"] = new_answer

    item = _edit(ds, task, k, wrong)
    rc, out = _audit(ds, capsys, "--task", task)
    assert rc == 1
    assert any(expected in r for r in _reasons(out, item)), out


def test_decoy_equal_to_the_answer_fails(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)
    first_option = 4  # T6: three views, image 4, then options A-D

    def copy_answer(row):
        want = "ABCD".index(row["answer"])
        decoy = (want + 1) % 4
        row["images"][first_option + decoy] = row["images"][first_option + want]

    item = _edit(ds, "rotation-rotation", 0, copy_answer)
    rc, out = _audit(ds, capsys, "--task", "T6")
    assert rc == 1
    reasons = _reasons(out, item)
    assert any("show the same picture" in r for r in reasons), reasons
    assert any("fits the re-derived motion almost as well" in r for r in reasons), reasons


def test_wrong_choice_letters_fail(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)

    def shift_letter(row):
        row["answer"] = "ABCD"[("ABCD".index(row["answer"]) + 1) % 4]

    t5 = _edit(ds, "translation-rotation", 0, shift_letter)
    t8 = _edit(ds, "interaction-location", 0, shift_letter)
    rc, out = _audit(ds, capsys, "--task", "T5,T8")
    assert rc == 1
    assert any("looks like option" in r for r in _reasons(out, t5)), out
    assert any("brings the bond's midpoint nearest the centre" in r for r in _reasons(out, t8)), out


def test_wrong_hbond_answers_fail(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)

    def other_ligand_atom(row):  # first bond names a ligand carbon: a bond the structure does not hold
        atoms = Structures(sample_root()).get(row["complex_id"])
        carbon = next(n for n, e, lig in zip(atoms.name, atoms.element, atoms.is_ligand) if lig and e == "C")
        first, sep, rest = row["answer"].partition(";")
        pocket, _, lig = first.partition(",")
        row["answer"] = f"{pocket}, {carbon}{sep}{rest}"

    t9 = _edit(ds, "pocket-ligand", 0, other_ligand_atom)
    rows = pq.read_table(next((ds / "data" / "residue-ligand").glob("*.parquet"))).to_pylist()
    k = next(i for i, r in enumerate(rows) if r["answer"] != "No")

    def say_no(row):
        row["answer"] = "No"

    t4 = _edit(ds, "residue-ligand", k, say_no)
    rc, out = _audit(ds, capsys, "--task", "T4,T9")
    assert rc == 1
    t9_reasons = _reasons(out, t9)
    assert any("not metadata.hbonds" in r for r in t9_reasons), out
    assert any("is C, not N, O, S or F" in r for r in t9_reasons), out
    assert any("the answer is No but metadata.hbonds lists bonds" in r for r in _reasons(out, t4)), out


def test_bad_arguments_are_one_line(tmp_path, capsys):
    assert audit_main([str(tmp_path / "nope")]) == 2
    assert capsys.readouterr().err == f"misi-audit: error: {tmp_path / 'nope'}: not a folder\n"
    assert audit_main([str(tmp_path), "--task", "T12"]) == 2
    assert "unknown task 'T12'" in capsys.readouterr().err
    (tmp_path / "empty").mkdir()
    assert audit_main([str(tmp_path / "empty"), "--quiet"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "no data/ folder" in err


def test_recorded_label_check_and_equivalent_atoms_are_checked_when_present(clean):
    """metadata.label_check / equivalent_atoms (optional): checked independently."""
    from misi_tasks.audit.hbond_checks import check_pocket_ligand
    from misi_tasks.audit.item import Item

    row = pq.read_table(next((clean / "data" / "pocket-ligand").glob("*.parquet"))).to_pylist()[0]
    structures = Structures(sample_root())
    item = Item.from_row(row)
    assert check_pocket_ligand(item, structures) == []
    pocket, lig = item.answer.split(";")[0].split(",")
    lig = lig.strip()
    # the first image where the audit itself sees the ligand atom: recorded there, it passes
    for k in range(6):
        item.meta["label_check"] = {"labels": {lig: {"image": k, "box": [1, 1, 20, 12]}},
                                    "visible": {lig: {"image": k, "px": [0, 0]}}, "relaid_out": False}
        if check_pocket_ligand(item, structures) == []:
            break
    else:
        pytest.fail(f"ligand atom {lig} seen in no image")
    item.meta["label_check"]["visible"] = {"XX9": {"image": k, "px": [0, 0]}}
    item.meta["label_check"]["labels"] = {lig: {"image": k, "box": [-30, 1, 20, 12]}}
    item.meta["equivalent_atoms"] = [[pocket.strip(), lig]]  # a pocket atom and a ligand atom: not equivalent
    reasons = check_pocket_ligand(item, structures)
    assert any("label_check names 'XX9'" in r for r in reasons), reasons
    assert any(f"label_check's label of '{lig}' is not inside image" in r for r in reasons), reasons
    assert any("equivalent_atoms class" in r and "differ" in r for r in reasons), reasons


def test_missing_image_fails(clean, tmp_path, capsys):
    ds = _copy(clean, tmp_path)

    def drop_last(row):
        row["images"] = row["images"][:-1]
        row["image_roles"] = row["image_roles"][:-1]

    item = _edit(ds, "rotation", 2, drop_last)
    rc, out = _audit(ds, capsys, "--task", "rotation")
    assert rc == 1
    reasons = _reasons(out, item)
    assert "the prompt lists images [1, 2, 3, 4] but the item has 3" in reasons, reasons
    assert "image 4 (the front view after 'roll" in " ".join(reasons) or any("is missing" in r for r in reasons), reasons


def test_input_is_read_from_the_card_or_asked_for(clean, tmp_path, capsys):
    from misi_tasks.audit.report import recorded_input

    assert recorded_input(clean) == {}  # generated from the bundled samples: no --input in the command
    ds = _copy(clean, tmp_path)
    card = ds / "README.md"
    card.write_text(card.read_text().replace("misi-gen --task", "misi-gen --input pdbbind --task", 1))
    assert recorded_input(ds) == {"input": "pdbbind"}
    assert audit_main([str(ds), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "was generated from --input pdbbind; pass --input with that path" in err
    assert audit_main([str(ds), "--quiet", "--input", str(sample_root()), "--task", "T1"]) == 0


def test_the_audit_runs_without_the_generators_code(clean):
    """Auditing a folder input loads neither the renderer nor the task generators (nor numba)."""
    import subprocess
    import sys

    code = ("import sys\nfrom misi_tasks.audit import audit_dataset\n"
            f"r = audit_dataset({str(clean)!r}, tasks={{'T2', 'T9'}})\n"
            "assert r.ok, r.format()\n"
            "bad = sorted(m for m in sys.modules if m.startswith(('misi_render', 'misi_tasks.tasks', 'numba')))\n"
            "assert not bad, bad\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_t8_decoys_are_checked_against_the_recorded_margin(clean, tmp_path, capsys):
    """T8: a decoy that leaves the bond's midpoint less than decoy_margin_A (card or metadata; 0.5 Å by
    default) farther from the centre than the answer fails; an item with no recorded margin fails."""
    import json

    import numpy as np

    from misi_tasks.audit.hbond_checks import check_interaction_location
    from misi_tasks.audit.item import Item
    from misi_tasks.audit.report import recorded_task_params

    assert recorded_task_params(clean) == {}  # the card's command sets no --task-params: the defaults
    rows = pq.read_table(next((clean / "data" / "interaction-location").glob("*.parquet"))).to_pylist()
    structures = Structures(sample_root())

    def near_decoy(row):  # a whole-Å move 0-0.5 Å worse than the answer, not already an option
        mx, my = json.loads(row["metadata"])["bond_midpoint_A"]
        want = row["options"]["ABCD".index(row["answer"])]
        dx, dy = (int(v) for v in want.replace("move x ", "").replace(" move y ", "").split(","))
        miss = lambda v: float(np.hypot(mx + v[0], my + v[1]))
        for v in ((dx + s, dy + t) for s in range(-2, 3) for t in range(-2, 3)):
            text = f"move x {v[0]}, move y {v[1]}"
            if v != (dx, dy) and text not in row["options"] and miss((dx, dy)) < miss(v) < miss((dx, dy)) + 0.5:
                return text
        return None

    k = next(i for i, r in enumerate(rows) if near_decoy(r))
    item = Item.from_row(rows[k])
    assert item.meta["decoy_margin_A"] == 0.5  # the item records its margin
    assert check_interaction_location(item, structures) == []
    recorded = item.meta.pop("decoy_margin_A")  # as in items made before the margin was recorded:
    item.params = {}  # the card's defaults
    assert check_interaction_location(item, structures) == []
    item.params = None  # neither the item nor the card records a margin
    assert check_interaction_location(item, structures) == [
        "the decoy margin (metadata or task parameter decoy_margin_A) is recorded nowhere"]
    item.meta["decoy_margin_A"] = recorded
    assert check_interaction_location(item, structures) == []

    ds = _copy(clean, tmp_path)
    decoy_at = ("ABCD".index(rows[k]["answer"]) + 1) % 4

    def closer_decoy(row):
        row["options"][decoy_at] = near_decoy(row)

    bad = _edit(ds, "interaction-location", k, closer_decoy)
    rc, out = _audit(ds, capsys, "--task", "T8", "--no-card")
    assert rc == 1
    (why,) = _reasons(out, bad)
    assert f"decoy {'ABCD'[decoy_at]} leaves the midpoint" in why and "less than the recorded decoy margin 0.5 Å" in why


def test_groups_are_read_a_complex_at_a_time_and_every_row_once(clean):
    """The audit's reading order: shards of one file name form a group; a group's rows come a
    complex at a time across its task shards (its images then stay in the cache), each row once."""
    import pyarrow.parquet as pq

    from misi_tasks.audit.report import _groups, _rows_by_complex, _shards

    files = _shards(clean)
    groups = _groups(files)
    assert sorted(p for g in groups for p in g) == sorted(files)
    assert all(len({p.name for p in g}) == 1 for g in groups) and len({g[0].name for g in groups}) == len(groups)
    for paths in groups:
        rows = list(_rows_by_complex(paths))
        want = sorted(r for p in paths for r in pq.read_table(p, columns=["id"]).column("id").to_pylist())
        assert sorted(r["id"] for r in rows) == want
        order = [r["complex_id"] for r in rows]
        runs = [c for k, c in enumerate(order) if k == 0 or order[k - 1] != c]
        assert len(runs) == len(set(order)) > 1, runs  # each complex's rows together
        assert len({r["task"] for r in rows}) > 1
