"""``--task-params`` yields a new spec that prompt, sampler, decoys, scorer and baseline all follow.

One row per (task, parameter) of every task spec: each generates items with a non-default value
and checks what that parameter governs (the prompt states it, the answers and decoys respect it,
the scorer and the random baseline use it).  Every item must also carry the override in its
metadata (``task_params``), so that the scorer, which sees only the dataset, rebuilds the same
spec: the oracle scores 1 and every random reply parses and lies in the new range.
"""

from __future__ import annotations

import json
import random

import numpy as np
import pytest

import misi_tasks.tasks  # noqa: F401  (registers the generators)
from misi_tasks.eval.baselines import baseline_reply
from misi_tasks.eval.parse import parse_answer
from misi_tasks.eval.score import score_item
from misi_tasks.definitions.answers import Docking, Move, Roll
from misi_tasks.definitions.registry import SPECS, spec_of_item, task_spec
from misi_tasks.tasks.base import GenContext, TaskSkipped, get_task

_SCENES = ("2pyy", "1h1d")


def _generate(scenes, task: str, params: dict, split: str = "train", ids=_SCENES) -> list[dict]:
    """Dataset rows (MC items with the correct option at A) for ``task`` with ``params``."""
    gen = get_task(task)(**params)
    rows = []
    for cid in ids:
        scene = scenes[cid]
        others = tuple(i for i in sorted(scenes) if i != cid)
        ctx = GenContext(seed=5, split=split, options=scene.run_options, partner_ids=others, partner=scenes.__getitem__)
        for item in gen.generate(scene, ctx):
            rows.append((item.assign_letter(0) if item.options else item).to_row())
    assert rows, f"{task} {params}: no item"
    return rows


def _meta(row: dict) -> dict:
    return json.loads(row["metadata"])


def _random_replies(rows: list[dict], n: int = 400) -> list:
    """Parsed random-baseline replies for the rows (several seeds), each checked to parse."""
    out = []
    for seed in range(n // len(rows) + 1):
        for row in rows:
            reply = baseline_reply(row, "random", seed=seed)
            parsed = parse_answer(spec_of_item(row), reply)
            assert parsed is not None, reply
            out.append(parsed)
    return out


def _commands(row: dict) -> list:
    """Every command an item shows as an answer or option (T5/T6: each option's pair)."""
    meta = _meta(row)
    texts = meta.get("options_canonical") or [row["answer"]]
    found = []
    for text in texts:
        for part in text.split(", "):
            found.append(Move.parse(part) if part.startswith("move") else Roll.parse(part))
    return found


# ---------------------------------------------------------------- one check per (task, parameter)
def _translation_max_distance(rows):
    assert all("between -7 and 7, not 0" in r["question"] and "between -4 and 4" not in r["question"] for r in rows)
    values = {abs(int(Move.parse(r["answer"]).dist_A)) for r in rows}
    assert values <= set(range(1, 8)) and max(values) > 4
    assert {abs(int(p.dist_A)) for p in _random_replies(rows)} == set(range(1, 8))
    truth = Move.parse(rows[0]["answer"])
    off = Move(truth.axis, truth.dist_A - 7 if truth.dist_A > 0 else truth.dist_A + 7)
    assert score_item(rows[0], str(off)).score == pytest.approx(0.5)  # R = 14 Å, not 8


def _translation_axes(rows):
    assert all("\"move y d\"" in r["question"] and "\"move x d\"" not in r["question"] for r in rows)
    assert all("move <y> <d>" in r["question"] for r in rows)
    assert {Move.parse(r["answer"]).axis for r in rows} == {"y"}
    assert {p.axis for p in _random_replies(rows)} == {"y"}


def _rotation_axes(rows):
    assert all("(axis z; angle" in r["question"] for r in rows)
    assert {Roll.parse(r["answer"]).axis for r in rows} == {"z"}
    assert {p.axis for p in _random_replies(rows)} == {"z"}


def _rotation_max_angle(rows):
    assert all("between -45 and 45, not 0" in r["question"] for r in rows)
    assert {abs(int(Roll.parse(r["answer"]).angle_deg)) for r in rows} <= {15, 30, 45}
    assert {abs(int(p.angle_deg)) for p in _random_replies(rows)} == {15, 30, 45}
    truth = Roll.parse(rows[0]["answer"])
    off = Roll(truth.axis, truth.angle_deg + 45)
    assert score_item(rows[0], str(off)).score == pytest.approx(0.5)  # R = 90°, not 180°


def _rotation_step(rows):
    assert all("a multiple of 30 degrees" in r["question"] for r in rows)
    assert all(int(Roll.parse(r["answer"]).angle_deg) % 30 == 0 for r in rows)
    assert {abs(int(p.angle_deg)) for p in _random_replies(rows)} == {30, 60, 90}


def _zoom_range(lo, hi):
    def check(rows):
        assert all(f"a whole number between {lo} and {hi})" in r["question"] for r in rows)
        assert all(lo <= Move.parse(r["answer"]).dist_A <= hi for r in rows)
        assert {int(p.dist_A) for p in _random_replies(rows)} == set(range(lo, hi + 1))
    return check


def _skipped_naming(*texts):
    def check(exc):
        assert any(t in str(exc) for t in texts), str(exc)
    return check


def _hard_negatives(rows):
    negatives = [_meta(r) for r in rows if _meta(r)["label"] == "negative"]
    assert negatives and all(m["negative_pool"] == "any" and m["hard_negatives"] is False for m in negatives)


def _hard_negative_cutoff(rows):
    negatives = [_meta(r) for r in rows if _meta(r)["label"] == "negative"]
    assert negatives and all(m["negative_pool"] == "any (no hard negative)" for m in negatives)


def _t8_decoy_step(rows):
    import re

    changed = []
    for r in rows:
        opts = [tuple(map(int, re.fullmatch(r"move x (-?\d+), move y (-?\d+)", o).groups())) for o in r["options"]]
        truth = opts["ABCD".index(r["answer"])]
        changed += [abs(abs(o[k]) - abs(truth[k])) for o in opts for k in (0, 1)]
    assert changed and max(changed) == 1  # magnitude decoys move one component by exactly 1 Å


def _t8_decoy_margin(margin):
    def check(rows):
        import re

        assert rows
        for r in rows:
            mx, my = _meta(r)["bond_midpoint_A"]
            miss = [float(np.hypot(mx + dx, my + dy)) for dx, dy in (
                map(int, re.fullmatch(r"move x (-?\d+), move y (-?\d+)", o).groups()) for o in r["options"])]
            want = miss.pop("ABCD".index(r["answer"]))
            assert min(miss) >= want + margin - 1e-3  # midpoint rounded to 4 decimals in metadata
    return check


def _pair_moves_within(limit):
    def check(rows):
        moves = [abs(c.dist_A) for r in rows for c in _commands(r) if isinstance(c, Move)]
        assert moves and max(moves) <= limit
    return check


def _pair_rolls(max_angle, step):
    def check(rows):
        rolls = [c.angle_deg for r in rows for c in _commands(r) if isinstance(c, Roll)]
        assert rolls and all(abs(a) <= max_angle and a % step == 0 and a != 0 for a in rolls)
    return check


def _docking_gap(lo, hi):
    def check(rows):
        assert all(lo <= _meta(r)["gap_A"] <= hi for r in rows)
    return check


def _no_scale(rows):
    """The paper's wording: no scale sentence (the default states it, see test_fair_rows.py)."""
    assert all("Scale:" not in r["question"] and " px" not in r["question"] for r in rows)


def _docking_max_angle(rows):
    assert all("between -45 and 45)" in r["question"] for r in rows)
    assert all(abs(Docking.parse(r["answer"]).roll.angle_deg) <= 45 for r in rows)
    assert {abs(int(p.roll.angle_deg)) for p in _random_replies(rows)} == {15, 30, 45}
    for row in rows:
        truth = Docking.parse(row["answer"])
        off = Docking(Roll(truth.roll.axis, truth.roll.angle_deg + 45), truth.move)
        assert spec_of_item(row).score(off, truth) == pytest.approx(0.75)  # roll half: R = 90°, not 180°
        if not _meta(row)["equivalent_answers"]:  # no other allowed answer earns more credit
            assert score_item(row, str(off)).score == pytest.approx(0.75)


def _docking_step(rows):
    assert all("a multiple of 30 degrees" in r["question"] for r in rows)
    assert all(Docking.parse(r["answer"]).roll.angle_deg % 30 == 0 for r in rows)
    assert {abs(int(p.roll.angle_deg)) % 30 for p in _random_replies(rows)} == {0}


def _no_none_items(rows):
    """X2 with none_share 0: every item asks a type the complex makes, and the random baseline
    never answers No."""
    assert rows and all(r["answer"] != "No" and _meta(r)["label"] == "positive" for r in rows)
    assert all(p.contacts for p in _random_replies(rows))


def _none_margin(key, value):
    """X2 margins: every item records the override; no No item of the samples has a near miss at the
    wider limits (the detector's declarations widened here, any N/O/S for metals)."""
    def check(rows):
        from misi_geom import load_complex
        from misi_geom.interactions import CationPi, HalogenBond, PiStacking, SaltBridge, find_interactions
        from misi_geom.samples import sample_dirs

        dirs = {d.name: d for d in sample_dirs()}
        assert all(_meta(r)[key] == value for r in rows)
        for r in (r for r in rows if r["answer"] == "No"):
            m, c = _meta(r), load_complex(dirs[r["id"].split("/")[2]])
            a, deg = m["none_margin_A"], m["none_margin_deg"]
            kind = m["interaction_type"]
            if kind == "metal":
                ions = c.coord[~c.is_ligand & np.isin(c.element, ["Zn", "Mg", "Ca", "Mn", "Fe", "Co", "Ni", "Cu"])]
                lig = c.coord[c.is_ligand & np.isin(c.element, ["N", "O", "S"])]
                assert not len(ions) or np.linalg.norm(ions[:, None] - lig[None], axis=2).min() >= 3.0 + a
                continue
            decl = {"salt_bridge": SaltBridge(distance=5.5 + a), "halogen_bond": HalogenBond(distance=4 + a, angle_dev=30 + deg),
                    "pi_stacking": PiStacking(distance=5.5 + a, offset=2 + a, angle_dev=30 + deg),
                    "cation_pi": CationPi(distance=6 + a, offset=2 + a, amine_angle=30 + deg)}[kind]
            assert not find_interactions(c, [decl])[kind], r["id"]
    return check


#: (task, parameter) -> (value, check of the rows, or of the TaskSkipped the value must cause)
CASES = {
    ("translation", "max_distance"): (7, _translation_max_distance),
    ("translation", "axes"): (["y"], _translation_axes),
    ("rotation", "axes"): (["z"], _rotation_axes),
    ("rotation", "max_angle"): (45, _rotation_max_angle),
    ("rotation", "step"): (30, _rotation_step),
    ("zooming", "min_distance"): (45, _zoom_range(45, 60)),
    ("zooming", "max_distance"): (52, _zoom_range(40, 52)),
    ("zooming", "min_gap"): (500.0, TaskSkipped, _skipped_naming("500 Å from the camera")),
    ("zooming", "min_atoms_in_frame"): (100000, TaskSkipped, _skipped_naming("100000 atoms in frame")),
    ("zooming", "min_separation"): (2.0, TaskSkipped, _skipped_naming("visible difference")),
    ("residue-ligand", "hard_negatives"): (False, _hard_negatives),
    ("residue-ligand", "hard_negative_cutoff_A"): (0.01, _hard_negative_cutoff),
    ("interaction-location", "decoy_max_step"): (1, _t8_decoy_step),
    ("interaction-location", "decoy_margin_A"): (1.5, _t8_decoy_margin(1.5)),
    ("translation-rotation", "max_distance"): (2, _pair_moves_within(2)),
    ("translation-rotation", "max_angle"): (30, _pair_rolls(30, 15)),
    ("translation-rotation", "step"): (45, _pair_rolls(90, 45)),
    ("translation-rotation", "ssim_max"): (0.001, TaskSkipped, _skipped_naming("visibly different")),
    ("rotation-rotation", "max_angle"): (30, _pair_rolls(30, 15)),
    ("rotation-rotation", "step"): (45, _pair_rolls(90, 45)),
    ("rotation-rotation", "ssim_max"): (0.001, TaskSkipped, _skipped_naming("visibly different", "looks like image 4")),
    ("docking", "min_gap"): (6.5, _docking_gap(6.5, 8.0)),
    ("docking", "max_gap"): (3.0, _docking_gap(2.0, 3.0)),
    ("translation", "state_scale"): (False, _no_scale),
    ("translation-rotation", "state_scale"): (False, _no_scale),
    ("interaction-location", "state_scale"): (False, _no_scale),
    ("interaction-list", "state_scale"): (False, _no_scale),
    ("interaction-list", "none_share"): (0.0, _no_none_items),
    ("interaction-list", "none_margin_A"): (1.5, _none_margin("none_margin_A", 1.5)),
    ("interaction-list", "none_margin_deg"): (20.0, _none_margin("none_margin_deg", 20.0)),
    # no bundled sample has a pi-stack (X3 is skipped there); the decoy margins are tested on real and
    # hand-made stacks in tests/interactions/test_fair_margins.py
    ("ring-stacking", "decoy_margin_A"): (1.0, TaskSkipped, _skipped_naming("no pi-stacking")),
    ("ring-stacking", "decoy_margin_deg"): (5.0, TaskSkipped, _skipped_naming("no pi-stacking")),
    ("docking", "max_angle"): (45, _docking_max_angle),
    ("docking", "step"): (30, _docking_step),
}


def test_every_task_parameter_has_a_case():
    declared = {(name, p) for name, spec in SPECS.items() for p in spec.defaults()}
    assert declared == set(CASES)


@pytest.mark.parametrize("task, param", sorted(CASES), ids=lambda v: str(v))
def test_task_param_reaches_prompt_answers_decoys_scorer_and_baseline(scenes, task, param):
    value, *checks = CASES[(task, param)]
    params = {param: value}
    assert value != task_spec(task).defaults()[param]
    if checks[0] is TaskSkipped:
        with pytest.raises(TaskSkipped) as exc:
            _generate(scenes, task, params, ids=_SCENES[:1])
        checks[1](exc.value)
        return
    rows = _generate(scenes, task, params)
    for row in rows:  # the override travels with the item, and the scorer rebuilds the spec from it
        assert _meta(row)["task_params"] == params
        assert spec_of_item(row) == task_spec(task, params)
        assert score_item(row, row["answer"]).score == 1.0
    checks[0](rows)


def test_default_parameters_leave_metadata_unchanged(scenes):
    (row, *_) = _generate(scenes, "translation", {}, ids=_SCENES[:1])
    assert "task_params" not in _meta(row) and spec_of_item(row) == task_spec("translation")


def test_count_travels_with_the_items(scenes):
    rows = _generate(scenes, "rotation", {"count": 2, "axes": ["x"]}, split="test", ids=_SCENES[:1])
    assert len(rows) == 2 and _meta(rows[0])["task_params"] == {"axes": ["x"], "count": 2}


@pytest.mark.parametrize("task, params, message", [
    ("translation", {"max_distance": 0}, "max_distance must be >= 1"),
    ("translation", {"axes": ["z"]}, "axes must be distinct"),
    ("rotation", {"step": 7}, "multiple of step"),
    ("zooming", {"min_distance": 61}, "min_distance <= max_distance"),
    ("docking", {"min_gap": 9.0}, r"min_gap \+ 1 <= max_gap"),
    ("docking", {"min_gap": 7.5}, r"min_gap \+ 1 <= max_gap"),  # no whole-Å move would always fit
    ("translation-rotation", {"max_distance": 1}, "max_distance must be >= 2"),
    ("rotation", {"max_angle": 90.5}, "must be a whole number"),
    ("translation", {"axes": []}, "non-empty list"),
    ("interaction-location", {"decoy_margin_A": -0.1}, r"decoy_margin_A must be in \[0, 2\]"),
    ("interaction-list", {"none_share": 0.95}, r"none_share must be in \[0, 0.9\]"),
    ("interaction-list", {"none_margin_A": 2.5}, r"none_margin_A must be in \[0, 2\]"),
    ("interaction-list", {"none_margin_deg": -1}, r"none_margin_deg must be in \[0, 20\]"),
    ("ring-stacking", {"decoy_margin_A": -0.5}, r"decoy_margin_A must be in \[0, 2\]"),
    ("ring-stacking", {"decoy_margin_deg": 45}, r"decoy_margin_deg must be in \[0, 20\]"),
])
def test_invalid_parameters_are_refused_with_a_clear_message(task, params, message):
    with pytest.raises(ValueError, match=message):
        task_spec(task, params)


def test_random_baseline_default_is_unchanged_by_the_spec_refactoring():
    """The random reply of a default item is drawn in the order the old baseline drew it."""
    item = {"id": "docking/test/2pyy/000", "task": "docking", "answer": "roll x 15, move x 3"}
    rng = random.Random("0:docking/test/2pyy/000")
    move = rng.choice((-1, 1)) * rng.choice(tuple(range(5, 31)))
    old = f"roll {rng.choice('xyz')} {rng.choice([a for a in range(-90, 91, 15) if a])}, move x {move}"
    assert baseline_reply(item, "random", seed=0) == old


def test_misi_gen_task_params_reach_misi_eval(tmp_path):
    """End to end through both CLIs: the scorer sees only the dataset, yet scores with ±7 Å."""
    from misi_geom.samples import sample_root
    from misi_tasks.engine.cli import main as gen_main
    from misi_tasks.eval.cli import main as eval_main
    from misi_tasks.dataset import read_items

    out = tmp_path / "ds"
    assert gen_main(["--input", str(sample_root()), "--out", str(out), "--task", "T1", "--split", "test",
                     "--size", "96", "--limit", "2", "--workers", "1", "--quiet",
                     "--task-params", '{"translation": {"max_distance": 7}}']) == 0
    assert "max_distance" in (out / "README.md").read_text()  # the card records the run's parameters
    items = read_items(out)
    assert items and all("between -7 and 7" in it["question"] for it in items)
    replies = tmp_path / "random.jsonl"
    assert eval_main(["--dataset", str(out), "--baseline", "random", "--seed", "1",
                      "--write-predictions", str(replies), "--out-items", str(tmp_path / "scores.jsonl")]) == 0
    preds = [json.loads(line) for line in replies.read_text().splitlines()]
    values = {abs(int(Move.parse(p["reply"]).dist_A)) for p in preds}
    assert values <= set(range(1, 8))
    scores = [json.loads(line) for line in (tmp_path / "scores.jsonl").read_text().splitlines()]
    assert all(s["status"] == "ok" for s in scores)


def test_the_docs_list_every_task_parameter_with_its_default():
    from pathlib import Path

    from misi_tasks.definitions.registry import paper_tasks

    readme = (Path(__file__).parents[2] / "docs" / "generate.md").read_text()
    for name in paper_tasks():
        spec = SPECS[name]
        cells = ", ".join(f"`{k}` {json.dumps(list(v) if isinstance(v, tuple) else v)}"
                          for k, v in spec.defaults().items()) or "—"
        assert f"| {spec.code} {name} | {cells} |" in readme
