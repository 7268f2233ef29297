"""Checks of the interaction tasks: X1 interaction type, X2 interaction list, X3 ring stacking.

Every contact an item records (``metadata.interactions``) is looked up in the structure files by its
names and re-measured with the audit's own geometry (:mod:`misi_tasks.audit.interaction_geometry`,
not :mod:`misi_geom.interactions`); the answer is compared with the records; decoys are checked
against the records and the audit's rule tables; and the atoms a question is about must be seen in
at least one image by the audit's own projection (as T4 and T9).

* X1: the answer's type set is the set of the named residue's recorded types; no decoy equals it;
  every type of every option is possible for the residue (the audit's rule table); no type outside
  the answer has a clear contact by the audit's absence test; some atom of the residue is seen.
* X2: the answer's contacts are ``metadata.interactions`` (sets, rings as atom sets); each holds;
  ``No`` only when the audit finds no clear contact of that type either, nor a near miss within the
  margins the item records (``none_margin_A`` / ``none_margin_deg``); the chain is derivable as
  T9's; every named atom is seen in some image.
* X3: the answer's rings stack by the audit's own centroid/normal test and are the recorded pair;
  no decoy pair stacks (even with the audit's slack), nor lies within the recorded decoy margins
  (``decoy_margin_A`` / ``decoy_margin_deg``, less the slack); every named ligand ring atom is seen,
  and some atom of every named residue ring.
"""

from __future__ import annotations

import re

import numpy as np

from misi_tasks.audit.geometry import Camera
from misi_tasks.audit.hbond_checks import (_check_equivalents, _check_label_record, _check_views,
                                           _resolver, _seen_somewhere, _whole_complex)
from misi_tasks.audit.interaction_geometry import (DIST_TOL, RESIDUE_RINGS, STACK_MAX, _in_window, _is_ring,
                                                   contact_problem, metal_target, near_contacts, obvious_contacts,
                                                   possible_for_residue, stack_measures, stack_window)
from misi_tasks.audit.item import Findings, Item
from misi_tasks.audit.pixels import seen
from misi_tasks.audit.structures import Atoms, Structures

__all__ = ["check_interaction_type", "check_interaction_list", "check_ring_stacking", "TYPE_OF_WORDS"]

_VIEWS6 = ("front", "left", "top", "back", "right", "bottom")
#: Option words -> interaction type (the audit's own table of the prompt's vocabulary).
TYPE_OF_WORDS = {
    "hydrogen bond": "hbond", "salt bridge": "salt_bridge", "pi-stacking": "pi_stacking", "cation-pi": "cation_pi",
    "halogen bond": "halogen_bond", "metal coordination": "metal", "hydrophobic contact": "hydrophobic",
}
_ABSENCE_TYPES = ("salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal")


def _type_set(text: str) -> frozenset[str] | None:
    words = [w.strip() for w in text.split(" and ")]
    if not words or any(w not in TYPE_OF_WORDS for w in words):
        return None
    return frozenset(TYPE_OF_WORDS[w] for w in words)


def _residue_key(label: str) -> tuple[str, str, str | None]:
    """``"ARG 45 A"`` / ``"ARG 45 ?"`` / ``"ARG 45"`` -> (name, number, chain or None)."""
    parts = label.split()
    if len(parts) not in (2, 3):
        raise ValueError(f"not a residue label: {label!r}")
    return parts[0], parts[1], (parts[2] if len(parts) == 3 and parts[2] != "?" else None)


def _record_rows(a: Atoms, rec: dict, f: Findings) -> tuple[list[int], list[int]] | None:
    """(pocket rows, ligand rows) of a recorded contact, or None (a failure said) when a name is not
    one atom of the structure."""
    try:
        res = _residue_key(str(rec.get("residue", "")))
    except ValueError as exc:
        f.fail(f"metadata.interactions: {exc}")
        return None
    p = [a.pocket_atom(res[0], res[1], str(n), res[2]) for n in rec.get("pocket_atoms") or []]
    l_ = [a.ligand_atom(str(n)) for n in rec.get("ligand_atoms") or []]
    if not p or not l_ or any(i is None for i in p + l_):
        f.fail(f"recorded {rec.get('type')} contact {rec.get('residue')} {rec.get('pocket_atoms')} / "
               f"{rec.get('ligand_atoms')} names atoms that are not single atoms of the structure")
        return None
    return [int(i) for i in p], [int(i) for i in l_]


def _remeasure(a: Atoms, recs: list[dict], f: Findings) -> list[tuple[list[int], list[int]]]:
    out = []
    for rec in recs:
        rows = _record_rows(a, rec, f)
        if rows is None:
            continue
        for why in contact_problem(a, str(rec.get("type")), rows[0], rows[1], rec):
            f.fail(f"{rec.get('type')} {rec.get('residue')} {'-'.join(rec['pocket_atoms'])}, "
                   f"{'-'.join(rec['ligand_atoms'])}: {why}")
        out.append(rows)
    return out


def _some_seen(item: Item, cam: Camera, front: np.ndarray, a: Atoms, groups: dict[str, list[int]], f: Findings) -> None:
    """Fail for every group (a residue, a ring) of which no atom is seen in any image."""
    radii = a.radii(item.style)
    left = dict(groups)
    for k, view in enumerate(_VIEWS6[: len(item.images)]):
        if not left:
            return
        x, y, vis = item.cache.visible(cam, front, radii, view)
        img = item.image(k)
        for name, rows in list(left.items()):
            r = np.asarray(rows)
            if (vis[r] & seen(img, x[r], y[r], a.classes[r])).any():
                del left[name]
    for name in left:
        f.fail(f"no atom of {name} is seen (unhidden, in its colour) in any of the {len(item.images)} images")


_X1_RES = re.compile(r"Which interactions does (.+?) make with the ligand\?")


def check_interaction_type(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """X1: the answer is the residue's recorded type set, every recorded contact holds, the decoys
    differ from it and are possible for the residue, and the residue is seen."""
    f = Findings()
    full = structures.get(item.complex_id)
    m = _X1_RES.search(item.question)
    label = str(item.meta.get("residue", ""))
    if not m or m.group(1) != label:
        f.fail(f"the prompt names {m.group(1) if m else 'no residue'!r}, metadata.residue {label!r}")
        return f.reasons
    name, num, chain = _residue_key(label)
    chain = chain or (None if item.meta.get("chain") in (None, "?") else str(item.meta["chain"]))
    rows = full.residue_rows(name, num, chain)
    if len(rows) == 0 or len({(str(full.chain[i])) for i in rows}) > 1:
        f.fail(f"residue {label} is {'not in' if len(rows) == 0 else 'not one residue of'} the structure")
        return f.reasons
    recs = item.meta.get("interactions") or []
    for rec in recs:
        rn, rnum, rch = _residue_key(str(rec.get("residue", "")))
        if (rn, rnum) != (name, num) or (rch is not None and rch != str(full.chain[rows[0]])):
            f.fail(f"metadata.interactions lists a contact of {rec.get('residue')}, not of {label}")
    _remeasure(full, recs, f)
    truth = frozenset(str(r.get("type")) for r in recs)
    opts = [_type_set(o) for o in item.options]
    want = item.letter_index()
    if len(opts) != 4 or any(o is None for o in opts):
        f.fail(f"the options {item.options} are not four sets of the prompt's type words")
        return f.reasons
    if want is None:
        f.fail(f"the answer {item.answer!r} is not an option letter")
        return f.reasons
    if not truth:
        f.fail("metadata.interactions lists no contact of the residue")
    elif opts[want] != truth:
        f.fail(f"the answer {item.answer} ({item.options[want]}) is not the recorded types {sorted(truth)}")
    if set(item.meta.get("types") or truth) != set(truth):
        f.fail(f"metadata.types {item.meta.get('types')} is not the recorded types {sorted(truth)}")
    for k, o in enumerate(opts):
        if k != want and o == truth:
            f.fail(f"decoy {'ABCD'[k]} ({item.options[k]}) equals the answer")
    if len(set(opts)) != 4:
        f.fail(f"two options are the same set: {item.options}")
    possible = possible_for_residue(full, rows)
    for k, o in enumerate(opts):
        if k != want and o - possible:
            f.fail(f"decoy {'ABCD'[k]} offers {sorted(o - possible)}, which {name} cannot make")
    for kind in _ABSENCE_TYPES:
        if kind not in truth:
            hits = obvious_contacts(full, kind, rows)
            if hits:
                f.fail(f"{label} makes no recorded {kind}, but the audit finds {hits[0]}")
    a = full.subset(np.concatenate([rows, np.flatnonzero(full.is_ligand)]))
    cam = item.camera()
    front = cam.front(a.xyz)
    _check_views(item, cam, front, a, f)
    mine = np.flatnonzero(~a.is_ligand)
    _some_seen(item, cam, front, a, {f"residue {label}": mine.tolist()}, f)
    return f.reasons


def _contacts_of(text: str) -> list[tuple[str, str, str, frozenset[str], frozenset[str]]]:
    """``"PHE 330 CD1-CD2 ?, N14; ..."`` -> [(res, num, chain, pocket atoms, ligand atoms)]."""
    out = []
    for part in text.split(";"):
        left, sep, right = part.partition(",")
        words = left.split()
        if not sep or len(words) != 4 or len(right.split()) != 1:
            raise ValueError(f"not a contact: {part.strip()!r}")
        pocket = frozenset(x for x in re.split(r"[-/]", words[2]) if x)
        lig = frozenset(x for x in re.split(r"[-/]", right.strip()) if x)
        out.append((words[0], words[1], words[3], pocket, lig))
    return out


def _chain_shown(a: Atoms, chain: str, question: str) -> bool:
    """A chain letter an answer carries is derivable: ``?``, or stated in the prompt, or drawn (residue
    labels carry chains when the pocket's heavy atoms have more than one chain id, a blank one counting
    as one: a chain-A pocket with a blank-chain ion draws "PHE 54 A")."""
    ids = {str(c).strip() for c in a.chain[~a.is_ligand]}
    return chain == "?" or len(ids) > 1 or re.search(rf"\bchain {re.escape(chain)}\b", question) is not None


def check_interaction_list(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """X2: the answer lists exactly the recorded contacts of the type, each holds by the audit's
    geometry, ``No`` agrees with the audit's absence test, chains are derivable, named atoms are seen."""
    f, a, cam, front = _whole_complex(item, structures)
    kind = str(item.meta.get("interaction_type", ""))
    if kind not in _ABSENCE_TYPES:
        f.fail(f"metadata.interaction_type {kind!r} is not one of {', '.join(_ABSENCE_TYPES)}")
        return f.reasons
    recs = item.meta.get("interactions") or []
    if any(r.get("type") != kind for r in recs):
        f.fail(f"metadata.interactions holds contacts of another type than {kind}")
    recorded = set()
    for r in recs:
        res = str(r.get("residue", "")).split()
        recorded.add((res[0], res[1], res[2] if len(res) > 2 else "?",
                      frozenset(str(x).upper() for x in r.get("pocket_atoms") or []),
                      frozenset(str(x).upper() for x in r.get("ligand_atoms") or [])))
    ans = item.answer.strip()
    if ans == "No":
        named: list[tuple] = []
        if recs:
            f.fail(f"the answer is No but metadata.interactions lists {len(recs)} {kind} contacts")
        hits = obvious_contacts(a, kind)
        if hits:
            f.fail(f"the answer is No, but the audit finds a clear {kind}: {hits[0]}")
        margins = _margins(item, "none_margin_A", "none_margin_deg", f)
        near = near_contacts(a, kind, *margins) if margins else []
        if near:
            more = f" (and {len(near) - 1} more)" if len(near) > 1 else ""
            f.fail(f"the answer is No, but the audit finds a {kind} within the recorded margins "
                   f"({margins[0]} Å, {margins[1]}°): {near[0]}{more}")
    else:
        try:
            named = _contacts_of(ans)
        except ValueError as exc:
            f.fail(f"the answer is malformed: {exc}")
            return f.reasons
        if len(set(named)) != len(named):
            f.fail("the answer lists a contact twice")
        if set(named) != recorded:
            f.fail(f"the answer's contacts are not metadata.interactions ({len(set(named))} vs {len(recorded)}; "
                   f"{len(set(named) & recorded)} in common)")
        for res, num, chain, _, _ in named:
            if not _chain_shown(a, chain, item.question):
                f.fail(f"{res} {num} carries chain {chain}, which neither the labels (one chain) nor the prompt show")
    rows = _remeasure(a, recs, f)
    _check_near_misses(item, a, kind, f)
    atoms = sorted({i for p, l_ in rows for i in p + l_})
    if atoms:
        _seen_somewhere(item, cam, front, a, atoms, f, {i: _who(a, i) for i in atoms})
    resolve = _resolver(a)
    _check_label_record(item, cam, front, a, f, resolve)
    _check_equivalents(item, f, resolve, a)
    return f.reasons


#: How far (Å, degrees) inside the true limits a recorded X2 near miss must not hold, by the audit's
#: geometry: its least-squares ring planes differ from PLIP's three-atom ones by a few degrees (dev
#: 4mx1 TYR 123: 31.5° by PLIP, a near miss; 28.3° by the fit).
_CLEAR = (0.5, 5.0)


def _check_near_misses(item: Item, a: Atoms, kind: str, f: Findings) -> None:
    """X2: every recorded near miss (``metadata.near_misses``; absent in older datasets) holds by the
    audit's geometry with the item's margins widening the limits (plus :data:`DIST_TOL`), and is no
    clear contact: it fails the true limits tightened by :data:`_CLEAR` (metals: or its ligand atom is
    no target of the definition, :func:`~misi_tasks.audit.interaction_geometry.metal_target`)."""
    near = item.meta.get("near_misses")
    if near is None:
        return
    margins = _margins(item, "none_margin_A", "none_margin_deg", f)
    if not isinstance(near, list) or any(not isinstance(r, dict) or r.get("type") != kind for r in near):
        f.fail(f"metadata.near_misses is not a list of {kind} records")
        return
    if near and margins is None:
        f.fail("metadata.near_misses needs the margins none_margin_A / none_margin_deg")
        return
    for rec in near:
        rows = _record_rows(a, rec, f)
        if rows is None:
            continue
        what = f"near miss {rec.get('residue')} {'-'.join(rec['pocket_atoms'])}, {'-'.join(rec['ligand_atoms'])}"
        wide = contact_problem(a, kind, rows[0], rows[1], rec, (margins[0] + DIST_TOL, margins[1]))
        if wide:
            f.fail(f"{what} is not within the margins ({margins[0]} Å, {margins[1]}°): {wide[0]}")
        elif not contact_problem(a, kind, rows[0], rows[1], {}, (-_CLEAR[0], -_CLEAR[1])) and (
                kind != "metal" or metal_target(a, rows[1][0])):  # a metal near miss may be a non-target at 2 Å
            f.fail(f"{what} is a {kind} by the audit's geometry, not a near miss")


def _margins(item: Item, key_A: str, key_deg: str, f: Findings) -> tuple[float, float] | None:
    """The fairness margins an item records (Å, °); None for an item that records none (made before
    the margins), a failure for a malformed one."""
    if key_A not in item.meta and key_deg not in item.meta:
        return None
    try:
        out = float(item.meta[key_A]), float(item.meta[key_deg])
    except (KeyError, TypeError, ValueError):
        f.fail(f"metadata.{key_A} / {key_deg} are not two numbers: {item.meta.get(key_A)!r}, {item.meta.get(key_deg)!r}")
        return None
    if min(out) < 0:
        f.fail(f"metadata.{key_A} / {key_deg} are negative: {out}")
        return None
    return out


def _who(a: Atoms, i: int) -> str:
    if a.is_ligand[i]:
        return f"ligand atom {a.name[i]}"
    return f"atom {a.name[i]} of {a.res_name[i]} {a.res_num[i]}"


_X3_OPTION = re.compile(r"^(\S+) (\S+)(?: (\S))?(?: (six|five)-membered)? ring, ligand ring ((?:\S+ ?)+)$")


def _option_rings(a: Atoms, text: str) -> tuple[str, list[int], list[int]]:
    """An X3 option -> (residue ring text, pocket ring rows, ligand ring rows); ValueError when it
    does not name one residue ring and one ligand ring."""
    m = _X3_OPTION.match(text.strip())
    if not m:
        raise ValueError(f"option {text!r} is not 'RES NUM ring, ligand ring ATOMS'")
    name, num, chain, size, lig = m.groups()
    rings = RESIDUE_RINGS.get(name, ())
    if name == "TRP":
        if size is None:
            raise ValueError(f"option {text!r} names a TRP ring without its size")
        rings = (rings[0 if size == "six" else 1],)
    if len(rings) != 1:
        raise ValueError(f"option {text!r}: {name} has no aromatic ring")
    rows = a.residue_rows(name, num, chain)
    if len({str(a.chain[i]) for i in rows}) > 1:
        raise ValueError(f"option {text!r}: {name} {num} is not one residue (several chains)")
    p = [int(i) for i in rows if a.name[i] in rings[0]]
    if len(p) != len(rings[0]):
        raise ValueError(f"option {text!r}: {name} {num}'s ring atoms are not in the structure")
    l_ = [a.ligand_atom(x) for x in lig.split()]
    if any(i is None for i in l_) or not _is_ring(a, [int(i) for i in l_]):
        raise ValueError(f"option {text!r}: the ligand atoms are not one 5- or 6-membered ring")
    return f"{name} {num}" + (f" {size}-membered" if size else ""), p, [int(i) for i in l_]


def check_ring_stacking(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """X3: the answer's ring pair stacks (the audit's own test) and is the recorded one; no decoy
    pair stacks, even with the audit's slack; the named rings are seen."""
    f, a, cam, front = _whole_complex(item, structures)
    want = item.letter_index()
    if len(item.options) != 4 or want is None:
        f.fail(f"{len(item.options)} options and answer {item.answer!r}: expected four and a letter")
        return f.reasons
    try:
        opts = [_option_rings(a, o) for o in item.options]
    except ValueError as exc:
        f.fail(str(exc))
        return f.reasons
    pairs = [(frozenset(p), frozenset(l_)) for _, p, l_ in opts]
    if len(set(pairs)) != 4:
        f.fail(f"two options name the same ring pair: {item.options}")
    recs = [r for r in item.meta.get("interactions") or [] if r.get("type") == "pi_stacking"]
    rec_rows = _remeasure(a, recs, f)
    if len(rec_rows) != 1 or (frozenset(rec_rows[0][0]), frozenset(rec_rows[0][1])) != pairs[want]:
        f.fail(f"the answer {item.answer} ({item.options[want]}) is not the pi-stacking pair of metadata.interactions")
    margins = _margins(item, "decoy_margin_A", "decoy_margin_deg", f) or (0.0, 0.0)
    window = stack_window(*margins)
    for k, (_, p, l_) in enumerate(opts):
        d, ang, off = stack_measures(a, p, l_)
        strict = d < STACK_MAX and (ang <= 30 or ang >= 60) and off < 2.0
        if k == want and not strict:
            f.fail(f"the answer {item.answer} does not stack by the audit's test "
                   f"(centroids {d:.2f} Å, planes {ang:.0f}°, offset {off:.2f} Å)")
        elif k != want and _in_window(d, ang, off, window):
            what = "stacks too by the audit's test" if strict or not any(margins) else \
                f"is within the recorded decoy margins ({margins[0]} Å, {margins[1]}°) of stacking"
            f.fail(f"decoy {'ABCD'[k]} ({item.options[k]}) {what} "
                   f"(centroids {d:.2f} Å, planes {ang:.0f}°, offset {off:.2f} Å)")
    lig_atoms = sorted({i for _, _, l_ in opts for i in l_})
    _seen_somewhere(item, cam, front, a, lig_atoms, f, {i: _who(a, i) for i in lig_atoms})
    _some_seen(item, cam, front, a, {f"the {t} ring": p for t, p, _ in opts}, f)
    return f.reasons
