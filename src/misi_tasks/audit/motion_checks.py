"""Checks of the motion tasks: T1 translation, T2 rotation, T3 zooming, T5/T6 choices, T7 docking.

Each check projects the structure with the item's recorded camera (its own projection), finds the
atoms in the pixels by colour, and re-derives the answer as the best of every answer the prompt
allows: the move that shifts image 1 into image 4 (T1; with a perspective camera, as T2), the
roll that puts the atoms where image 4 shows them (T2), the magnification that turns image 1 into
image 4 (T3), the option that shows the demonstrated motion applied to the
asked complex (T5, T6), the displacement the ligand images show, undone by the answer (T7).
"""

from __future__ import annotations

import re
from functools import lru_cache

import numpy as np

from misi_tasks.audit.geometry import apply, as_matrix, motion_of, parse_commands, symmetric_rmsd, turn
from misi_tasks.audit.item import Findings, Item, prompt_range
from misi_tasks.audit.structures import Structures
from misi_tasks.audit.views import (VIEW_FLOOR, best_motion, differing_fraction, pose_scores, shift_scores, view_seen,
                                   zoom_scores)

__all__ = ["check_single_motion", "check_choice", "check_docking", "SAME_PICTURE"]

#: Two images differing in less than this fraction of their pixels show the same picture.
SAME_PICTURE = 0.005
_VIEWS3 = ("front", "left", "top")


@lru_cache(maxsize=16)
def _stacked(texts: tuple[str, ...]) -> np.ndarray:
    out = np.stack([motion_of(t) for t in texts])
    out.setflags(write=False)
    return out


def _stack(texts: list[str]) -> np.ndarray:
    """4x4 motions of command texts (rolls about the origin), cached for the candidate lists."""
    return _stacked(tuple(texts))


def _best(scores: np.ndarray, cands: list[str], answer: str, what: str, f: Findings) -> str:
    """The best candidate; fail unless it is the answer and no other candidate fits as well."""
    i = int(np.argmax(scores))
    if answer not in cands:
        f.fail(f"the answer {answer!r} is not among the answers the prompt allows")
        return cands[i]
    j = cands.index(answer)
    rivals = [k for k in range(len(cands)) if k != j and scores[k] >= scores[j]]
    if rivals:
        k = max(rivals, key=lambda r: scores[r])
        f.fail(f"{what} fits {cands[k]!r} ({scores[k]:.3g}) at least as well as the answer {answer!r} ({scores[j]:.3g})")
    return cands[i]


def check_single_motion(item: Item, structures: Structures) -> list[str]:
    """T1, T2, T3: images 1-3 are the front, left and top views; image 4 the front view after the answer."""
    f = Findings()
    a = structures.get(item.complex_id)
    cam = item.camera()
    front = cam.front(a.xyz)
    for k, v in enumerate(_VIEWS3):
        f.check_view(item, k, cam, front, a, v, f"the {v} view")
    try:
        parse_commands(item.answer)
    except ValueError as exc:
        f.fail(f"the answer is malformed: {exc}")
        return f.reasons
    mine = motion_of(item.answer)
    if "motion" in item.meta and not np.allclose(as_matrix(item.meta["motion"]), mine, atol=1e-4):
        f.fail("metadata.motion is not the motion of the answer")
    after_cam = item.camera("camera_after") if "camera_after" in item.meta else cam
    f.check_view(item, 3, after_cam, apply(mine, front), a, "front", f"the front view after {item.answer!r}")
    if len(item.images) < 4:
        return f.reasons
    q = item.question
    if item.code == "T1":
        lo, hi, _ = prompt_range(q, (-4, 4, 1))
        cands = [f"move {ax} {d}" for ax in "xy" for d in range(lo, hi + 1) if d]
    elif item.code == "T2":
        lo, hi, step = prompt_range(q, (-90, 90, 15))
        cands = [f"roll {ax} {d}" for ax in "xyz" for d in range(lo, hi + 1) if d and d % step == 0]
    else:
        lo, hi, _ = prompt_range(q, (40, 60, 1))
        cands = [f"move z {d}" for d in range(lo, hi + 1)]
        m = re.search(r"D = (\d+(?:\.\d+)?) Å", q)
        if not m:
            f.fail("the prompt does not state the camera distance D")
            return f.reasons
        dist = float(m.group(1))
        if abs(dist - cam.distance) > 0.051:
            f.fail(f"the prompt states D = {dist} Å but the camera is {cam.distance:.2f} Å away")
        if cam.projection == "orthographic":
            mags = np.array([dist / (dist - d) if dist - d > 0 else np.inf for d in range(lo, hi + 1)])
            _best(zoom_scores(item.image(0), item.image(3), mags), cands, item.answer,
                  "image 4 (image 1 magnified by D / (D - d))", f)
            return f.reasons
    if item.code == "T1" and cam.projection == "orthographic":  # image 4 is image 1 shifted by d x scale
        shifts = [(v * cam.scale, 0.0) if ax == "x" else (0.0, -v * cam.scale)
                  for _, ax, v in (parse_commands(c)[0] for c in cands)]
        _best(shift_scores(item.image(0), item.image(3), np.array(shifts)), cands, item.answer,
              "image 4 (image 1 shifted by d x the scale)", f)
        return f.reasons
    scores = pose_scores(item.image(3), after_cam if item.code != "T3" else cam, front, a.classes, _stack(cands))
    if cam.projection == "perspective" and item.code == "T3":  # neighbouring zooms differ by a pixel or two
        near = [c for c in cands if abs(float(c.split()[-1]) - float(item.answer.split()[-1])) <= 1]
        if item.answer in cands and cands[int(np.argmax(scores))] not in near:
            f.fail(f"image 4 fits {cands[int(np.argmax(scores))]!r} best, more than 1 Å from the answer {item.answer!r}")
        return f.reasons
    _best(scores, cands, item.answer, "image 4", f)
    return f.reasons


def _pair_candidates(code: str, item: Item) -> list[str]:
    rolls = [v for v in range(-90, 91, 15) if v]
    if code == "T5":
        cands = [f"move {m} {d}, roll {r} {v}" for m in "xy" for d in range(-4, 5) if d for r in "xyz" for v in rolls]
    else:
        cands = [f"roll {r1} {v1}, roll {r2} {v2}" for r1 in "xyz" for r2 in "xyz" if r1 != r2
                 for v1 in rolls for v2 in rolls]
    extra = [o for o in item.meta.get("options_canonical", []) if o not in cands]
    return cands + extra


def check_choice(item: Item, structures: Structures) -> list[str]:
    """T5, T6: the demonstrated motion, re-derived from image 4, picks the option the answer names."""
    f = Findings()
    meta = item.meta
    demo = structures.get(meta.get("demo_complex", item.complex_id))
    query = structures.get(meta.get("query_complex", item.complex_id))
    cam = item.camera()
    qcam = item.camera("query_camera") if "query_camera" in meta else cam
    dfront, qfront = cam.front(demo.xyz), qcam.front(query.xyz)
    for k, v in enumerate(_VIEWS3):
        f.check_view(item, k, cam, dfront, demo, v, f"the {v} view of {demo.complex_id}")
    shown = motion_of(f"{_cmd(meta['f1'])}, {_cmd(meta['f2'])}")
    f.check_view(item, 3, cam, apply(shown, dfront), demo, "front", "the demonstrated motion")
    first_option = 4
    if item.code == "T5":
        for k, v in enumerate(_VIEWS3):
            f.check_view(item, 4 + k, qcam, qfront, query, v, f"the {v} view of {query.complex_id}")
        first_option = 7
    n_opt = len(item.images) - first_option
    if n_opt != 4:
        f.fail(f"{n_opt} option images, expected 4")
        return f.reasons
    cands = _pair_candidates(item.code, item)
    motions = _stack(cands)
    best = motions[best_motion([item.image(3)], cam, dfront, demo.classes, demo.radii(item.style), motions)]
    predicted = best if item.code == "T5" else best @ best
    radii = query.radii(item.style)
    at = apply(predicted, qfront)
    fits = [view_seen(item.image(first_option + j), qcam, at, query.classes, radii, cache=item.cache) for j in range(4)]
    pick = int(np.argmax(fits))
    want = item.letter_index()
    if want is None:
        f.fail(f"the answer {item.answer!r} is not a letter A-D")
    elif pick != want or fits[pick] < VIEW_FLOOR:
        f.fail(f"the motion image 4 shows, applied {'to ' + query.complex_id if item.code == 'T5' else 'again'}, "
               f"looks like option {'ABCD'[pick]} ({fits[pick]:.0%} of atoms seen), not the answer "
               f"{item.answer} ({fits[want]:.0%})")
    elif any(j != pick and fits[j] >= 0.85 * fits[pick] for j in range(4)):
        j = max((j for j in range(4) if j != pick), key=lambda j: fits[j])
        f.fail(f"option {'ABCD'[j]} fits the re-derived motion almost as well ({fits[j]:.0%}) as the answer "
               f"{item.answer} ({fits[pick]:.0%})")
    _check_option_images(item, f, first_option, qcam, qfront, query, shown)
    return f.reasons


def _cmd(c: dict) -> str:
    return f"{c['op']} {c['axis']} {c['value']}"


def _check_option_images(item, f, first, qcam, qfront, query, shown):
    """Each option image shows its own command; no two options, and no option and image 4, look alike."""
    canon = item.meta.get("options_canonical", [])
    order = item.meta.get("option_order", list(range(len(canon))))
    if len(set(canon)) != len(canon):
        f.fail(f"two options have the same command: {canon}")
    base = np.eye(4) if item.code == "T5" else shown
    for j, ci in enumerate(order[:4]):
        m = motion_of(canon[ci], center=apply(base, np.zeros((1, 3)))[0]) @ base
        f.check_view(item, first + j, qcam, apply(m, qfront), query, "front",
                     f"option {'ABCD'[j]}'s own command {canon[ci]!r}")
    imgs = [item.image(first + j) for j in range(4)]
    for i in range(4):
        for j in range(i + 1, 4):
            if differing_fraction(imgs[i], imgs[j]) < SAME_PICTURE:
                f.fail(f"options {'ABCD'[i]} and {'ABCD'[j]} show the same picture")
        if item.code == "T6" and differing_fraction(imgs[i], item.image(3)) < SAME_PICTURE:
            f.fail(f"option {'ABCD'[i]} shows the same picture as image 4")


def check_docking(item: Item, structures: Structures) -> list[str]:
    """T7: the displacement seen in images 4-6, undone by the answer, docks the ligand (1 Å)."""
    f = Findings()
    a = structures.get(item.complex_id)
    cam = item.camera()
    front = cam.front(a.xyz)
    lig, pocket = a.subset(np.flatnonzero(a.is_ligand)), a.subset(np.flatnonzero(~a.is_ligand))
    lfront, pfront = front[a.is_ligand], front[~a.is_ligand]
    for k, v in enumerate(_VIEWS3):
        f.check_view(item, k, cam, pfront, pocket, v, f"the pocket alone, {v} view")
    lo, hi, step = prompt_range(item.question, (-90, 90, 15))
    rolls = [(ax, v) for ax in "xyz" for v in range(lo, hi + 1) if v and v % step == 0]
    centre = lfront.mean(axis=0)
    lit = np.flatnonzero((item.image(3).strided(2) >= 0).any(axis=0)) * 2 + 1  # columns showing an atom colour
    if len(lit) == 0:
        f.fail("image 4 shows no atom of the ligand's colours")
        return f.reasons
    x_lo, x_hi = ((lit[[0, -1]] + 0.5 - cam.size / 2.0) / cam.scale)  # Å in the centre plane
    moves = [d for d in range(int(np.floor(x_lo - centre[0])) - 1, int(np.ceil(x_hi - centre[0])) + 2) if d]
    turns = np.stack([turn(ax, v, centre) for ax, v in rolls])
    motions = np.repeat(turns, len(moves), axis=0)  # shift((d, 0, 0)) @ t for t in turns for d in moves
    motions[:, 0, 3] += np.tile(np.asarray(moves, dtype=np.float64), len(turns))
    seen_motion = motions[best_motion([item.image(3 + k) for k in range(3)], cam, lfront, lig.classes,
                                      lig.radii(item.style), motions, _VIEWS3)]
    displaced = apply(seen_motion, lfront)
    for k, v in enumerate(_VIEWS3):
        f.check_view(item, 3 + k, cam, displaced, lig, v, f"the displaced ligand alone, {v} view")
    together = np.where(a.is_ligand[:, None], 0.0, front)
    together[a.is_ligand] = displaced
    f.check_view(item, 6, cam, together, a, "front", "pocket and displaced ligand, front view")
    try:
        cmds = parse_commands(item.answer)
    except ValueError as exc:
        f.fail(f"the answer is malformed: {exc}")
        return f.reasons
    if [c[0] for c in cmds] != ["roll", "move"] or cmds[1][1] != "x":
        f.fail(f"the answer {item.answer!r} is not 'roll <axis> <angle>, move x <d>'")
        return f.reasons
    limit = float(item.meta.get("equivalent_max_rmsd_A", 1.0))
    for ans in [item.answer] + list(item.meta.get("equivalent_answers", [])):
        docked = apply(motion_of(ans, center=displaced.mean(axis=0)), displaced)
        r = symmetric_rmsd(docked, lfront, lig.element)
        if r > limit:
            f.fail(f"{'the answer' if ans == item.answer else 'the equivalent answer'} {ans!r} leaves the ligand "
                   f"of images 4-6 {r:.2f} Å RMSD from its bound pose (limit {limit:g} Å)")
    right = displaced[:, 0].mean() > 0
    gap = displaced[:, 0].min() - pfront[:, 0].max() if right else pfront[:, 0].min() - displaced[:, 0].max()
    recorded = item.meta.get("gap_A")
    if gap < 2.0 - 0.05 or gap > 9.0:
        f.fail(f"the ligand is {gap:.2f} Å from the pocket along x in the front view (2-8 Å, plus < 1 Å of rounding)")
    elif recorded is not None and not (recorded - 0.05 <= gap <= recorded + 1.05):
        f.fail(f"the drawn gap is {gap:.2f} Å but metadata.gap_A says {recorded}")
    return f.reasons
