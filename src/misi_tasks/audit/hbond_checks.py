"""Checks of the H-bond tasks: T4 residue-ligand, T8 interaction location, T9 pocket-ligand.

Every bond an answer names is looked up in the structure files by its names (ligand atoms by their
drawn labels) and tested with the audit's own geometry: both atoms can take part in an H-bond
(N, O, S or F), their distance lies in 2.2-4.0 Å and matches the recorded one, and neither atom
has the other behind its own covalent bonds (every angle neighbour-atom-partner at least 60 deg).
Each atom an answer or question names must be seen, by its colour at its projected centre, in at
least one of the item's images.  This is a plausibility test of the recorded list, not a second
H-bond detector: it cannot tell a missing bond from a true negative (see docs/audit.md).
"""

from __future__ import annotations

import re

import numpy as np

from misi_tasks.audit.geometry import Camera
from misi_tasks.audit.item import Findings, Item
from misi_tasks.audit.pixels import in_image, seen
from misi_tasks.audit.structures import Atoms, Structures

__all__ = ["check_residue_ligand", "check_interaction_location", "check_pocket_ligand", "bond_problem", "chain_problems",
           "decoy_margin", "DEFAULT_DECOY_MARGIN_A"]

_VIEWS6 = ("front", "left", "top", "back", "right", "bottom")
_POLAR = {"N", "O", "S", "F"}
MIN_A, MAX_A, MIN_ANGLE = 2.2, 4.0, 60.0


def bond_problem(a: Atoms, i: int, j: int, recorded: float | None = None) -> str | None:
    """Why atoms ``i`` (pocket) and ``j`` (ligand) cannot be an H-bond, or None."""
    for k in (i, j):
        if str(a.element[k]).capitalize() not in _POLAR:
            return f"{a.name[k]} is {a.element[k]}, not N, O, S or F"
    d = float(np.linalg.norm(a.xyz[i] - a.xyz[j]))
    if not MIN_A <= d <= MAX_A:
        return f"its atoms are {d:.2f} Å apart (an H-bond needs {MIN_A}-{MAX_A} Å)"
    if recorded is not None and abs(d - float(recorded)) > 0.011:
        return f"its atoms are {d:.3f} Å apart, not the recorded {recorded} Å"
    for x, y in ((i, j), (j, i)):
        nb = a.neighbours(x)
        if len(nb):
            v1 = a.xyz[nb] - a.xyz[x]
            v2 = a.xyz[y] - a.xyz[x]
            cos = (v1 @ v2) / (np.linalg.norm(v1, axis=1) * np.linalg.norm(v2))
            ang = float(np.degrees(np.arccos(np.clip(cos, -1, 1))).min())
            if ang < MIN_ANGLE:
                return f"{a.name[y]} lies behind {a.name[x]}'s covalent bonds ({ang:.0f} deg < {MIN_ANGLE:.0f})"
    return None


def _seen_somewhere(item: Item, cam: Camera, front: np.ndarray, a: Atoms, rows: list[int], f: Findings,
                    what: dict[int, str]) -> None:
    """Fail for every atom of ``rows`` seen in none of the six views."""
    radii = a.radii(item.style)
    found = np.zeros(len(rows), dtype=bool)
    for k, view in enumerate(_VIEWS6[: len(item.images)]):
        x, y, vis = item.cache.visible(cam, front, radii, view)
        r = np.asarray(rows)
        ok = vis[r] & seen(item.image(k), x[r], y[r], a.classes[r])
        found |= ok
        if found.all():
            return
    for i, ok in zip(rows, found):
        if not ok:
            f.fail(f"{what[i]} is seen (unhidden, in its colour) in none of the {len(item.images)} images")


def _whole_complex(item: Item, structures: Structures) -> tuple[Findings, Atoms, Camera, np.ndarray]:
    """(findings, atoms, camera, front-frame coordinates) of an item whose six views show the whole
    complex (T8, T9), the views already checked."""
    f = Findings()
    a = structures.get(item.complex_id)
    cam = item.camera()
    front = cam.front(a.xyz)
    _check_views(item, cam, front, a, f)
    return f, a, cam, front


def _check_views(item: Item, cam: Camera, front: np.ndarray, a: Atoms, f: Findings) -> None:
    for k, v in enumerate(_VIEWS6):
        f.check_view(item, k, cam, front, a, v, f"the {v} view")


def _check_label_record(item: Item, cam: Camera, front: np.ndarray, a: Atoms, f: Findings, resolve) -> None:
    """``metadata.label_check`` (when present): each recorded visible atom is seen there, each label box
    lies inside its image."""
    rec = item.meta.get("label_check")
    if not isinstance(rec, dict):
        return
    size = cam.size
    for name, v in (rec.get("visible") or {}).items():
        i, k = resolve(name), int(v.get("image", -1))
        if i is None or not 0 <= k < len(item.images):
            f.fail(f"label_check names {name!r} in image {k + 1}, which the audit cannot find")
            continue
        x, y, vis = item.cache.visible(cam, front, a.radii(item.style), _VIEWS6[k])
        if not (vis[i] and seen(item.image(k), x[i:i + 1], y[i:i + 1], a.classes[i:i + 1])[0]):
            f.fail(f"label_check says {name} is visible in image {k + 1}, but it is not seen there")
    for name, v in (rec.get("labels") or {}).items():
        box, k = v.get("box"), int(v.get("image", -1))
        if not 0 <= k < len(item.images) or box is None or not (
                in_image(np.array([box[0]]), np.array([box[1]]), size + 1)[0]
                and box[2] <= size and box[3] <= size):
            f.fail(f"label_check's label of {name!r} is not inside image {k + 1}")


def _check_equivalents(item: Item, f: Findings, resolve, a: Atoms) -> None:
    """``metadata.equivalent_atoms`` (when present): each class holds atoms of one element, pocket
    atoms of one residue, ligand atoms with the same neighbour elements."""
    for cls in item.meta.get("equivalent_atoms") or []:
        rows = [resolve(n) for n in cls]
        if any(r is None for r in rows):
            f.fail(f"equivalent_atoms class {cls} names an atom the audit cannot find")
            continue
        els = {str(a.element[r]) for r in rows}
        residues = {(a.res_name[r], a.res_num[r], a.chain[r]) for r in rows if not a.is_ligand[r]}
        env = {tuple(sorted(str(a.element[n]) for n in a.neighbours(r))) for r in rows}
        mixed = len({bool(a.is_ligand[r]) for r in rows}) > 1
        if len(els) > 1 or len(residues) > 1 or len(env) > 1 or mixed:
            f.fail(f"equivalent_atoms class {cls} joins atoms that differ (element, residue or neighbours)")


def _resolver(a: Atoms, residue: tuple[str, str, str | None] | None = None):
    """Atom identifiers as answers write them -> rows: ``"O1"`` (ligand), ``"ASP 29 OD1 A"``, and with
    ``residue`` given (T4) ``"ASP OD1"``."""
    def resolve(name: str) -> int | None:
        parts = name.split()
        if len(parts) == 1:
            return a.ligand_atom(parts[0])
        if len(parts) == 2 and residue is not None and parts[0] == residue[0]:
            return a.pocket_atom(residue[0], residue[1], parts[1], residue[2])
        if len(parts) == 4:
            return a.pocket_atom(parts[0], parts[1], parts[2], None if parts[3] == "?" else parts[3])
        return None
    return resolve


def _bonds_of(text: str) -> list[tuple[str, str]]:
    """``"A B C D, O1; ..."`` -> [(pocket identifier, ligand label)]; ValueError if malformed."""
    out = []
    for part in text.split(";"):
        left, sep, right = part.partition(",")
        if not sep or not left.strip() or len(right.split()) != 1:
            raise ValueError(f"not a bond: {part.strip()!r}")
        out.append((" ".join(left.split()), right.strip()))
    return out


def _how_many(a: Atoms, ident: str, resolve) -> str:
    """Why a pocket identifier resolves to no atom: none, or several (a residue name and number
    that repeat in the pocket, e.g. two chains without chain ids)."""
    parts = ident.split()
    if len(parts) == 4:
        chain = None if parts[3] == "?" else parts[3]
        n = sum(1 for i in a.residue_rows(parts[0], parts[1], chain) if a.name[i] == parts[2])
    elif len(parts) == 2:
        n = int(np.sum((a.res_name == parts[0]) & (a.name == parts[1]) & ~a.is_ligand))
    else:
        n = 0
    return "no pocket atom" if n == 0 else f"{n} pocket atoms (its residue's name and number repeat in the pocket)"


def _check_bonds(a: Atoms, bonds, resolve, f: Findings, recorded: dict) -> list[int]:
    rows = []
    for p, l in bonds:
        i, j = resolve(p), resolve(l)
        if i is None:
            f.fail(f"the answer names {p!r}, which is {_how_many(a, p, resolve)} of the structure")
        if j is None:
            f.fail(f"the answer names ligand atom {l!r}, which no drawn ligand atom is labelled")
        if i is None or j is None:
            continue
        why = bond_problem(a, i, j, recorded.get((p, l)))
        if why:
            f.fail(f"bond {p}, {l}: {why}")
        rows += [i, j]
    return rows


_T4_RES = re.compile(r"Does ([A-Z0-9]{1,4}) (-?\d+[A-Za-z]?)(?: ([A-Za-z0-9]))? form hydrogen bonds")


def check_residue_ligand(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """T4: six views of one residue and the ligand; the answer's bonds hold and are seen; agrees with T9."""
    f = Findings()
    full = structures.get(item.complex_id)
    m = _T4_RES.search(item.question)
    if not m:
        f.fail("the prompt names no residue (\"Does RES N form hydrogen bonds\")")
        return f.reasons
    res = (m.group(1), m.group(2), m.group(3) or item.meta.get("chain"))
    rows = full.residue_rows(*res)
    if len(rows) == 0:
        f.fail(f"residue {' '.join(x for x in res if x)} is not in the structure")
        return f.reasons
    a = full.subset(np.concatenate([rows, np.flatnonzero(full.is_ligand)]))
    cam = item.camera()
    front = cam.front(a.xyz)
    _check_views(item, cam, front, a, f)
    resolve = _resolver(a, res)
    ans = item.answer.strip()
    recorded = {(f"{b['res_name']} {b['pocket_atom_name']}", b["ligand_atom_name"]): b["distance"]
                for b in item.meta.get("hbonds", [])}
    if ans == "No":
        bonds = []
        if recorded:
            f.fail("the answer is No but metadata.hbonds lists bonds")
    elif ans.startswith("Yes:"):
        try:
            bonds = _bonds_of(ans[4:])
        except ValueError as exc:
            f.fail(f"the answer is malformed: {exc}")
            return f.reasons
        if set(bonds) != set(recorded):
            f.fail(f"the answer's bonds {sorted(bonds)} are not metadata.hbonds {sorted(recorded)}")
    else:
        f.fail(f"the answer {ans!r} is neither 'No' nor 'Yes: ...'")
        return f.reasons
    named = _check_bonds(a, bonds, resolve, f, recorded)
    if named:
        _seen_somewhere(item, cam, front, a, sorted(set(named)), f, {i: _who(a, i) for i in named})
    if t9 is not None and item.complex_id in t9:
        key = (res[0], res[1])
        chain = None if res[2] is None else (res[2] or "?")  # T9 writes a blank chain "?"
        other = {(p.split()[2], l) for p, l in t9[item.complex_id]
                 if tuple(p.split()[:2]) == key and chain in (None, p.split()[3])}
        mine = {(p.split()[1], l) for p, l in bonds}
        if other != mine:
            f.fail(f"the pocket-ligand (T9) item of {item.complex_id} lists {sorted(other) or 'no bonds'} for "
                   f"{res[0]} {res[1]}, this answer {sorted(mine) or 'none'}")
    _check_label_record(item, cam, front, a, f, resolve)
    _check_equivalents(item, f, resolve, a)
    return f.reasons


def _who(a: Atoms, i: int) -> str:
    if a.is_ligand[i]:
        return f"ligand atom {a.name[i]}"
    return f"atom {a.name[i]} of {a.res_name[i]} {a.res_num[i]}"


#: The prompt's label sentence when residue labels carry chain ids (what the solver reads).
_LABELS_WITH_CHAIN = re.compile(r"residue carries its name, number and chain id")


def _recorded_labels(item: Item, res_name: str, res_num: str) -> list[str]:
    """The texts ``metadata.label_check`` records for residue labels of ``res_name res_num`` (every
    chain's; empty when the item records none)."""
    rec = item.meta.get("label_check")
    labels = rec.get("labels") if isinstance(rec, dict) else None
    out = []
    for v in (labels or {}).values():
        text = str(v.get("text", "")) if isinstance(v, dict) else ""
        if v.get("kind", "residue") == "residue" and text.split()[:2] == [res_name, res_num]:
            out.append(text)
    return out


def chain_problems(item: Item, a: Atoms, bonds: list[tuple[str, str]]) -> list[str]:
    """Why a chain letter an answer carries cannot be read by the solver.

    A letter is derivable when the prompt states it ("Every pocket residue is in chain H.") or when
    the residue labels show it.  Whether labels show chains is re-derived from the structure by the
    documented rule (:attr:`Atoms.labels_carry_chains`: the pocket's drawn atoms carry more than one
    chain id, a blank one counted), and must agree with the prompt's label sentence; a residue label
    the item records (``metadata.label_check``) must read ``RES NUM CHAIN``.  ``?`` (no chain id in the
    file) is the answer format's own convention."""
    out = []
    multi = a.labels_carry_chains
    says = _LABELS_WITH_CHAIN.search(item.question) is not None
    if says != multi:
        out.append(f"the prompt says residue labels {'carry' if says else 'do not carry'} chain ids, but the pocket's "
                   f"drawn atoms carry {'chains ' + ', '.join(sorted(a.pocket_chains)) if multi else 'one chain id'}")
    for p, _ in bonds:
        parts = p.split()
        if len(parts) != 4 or parts[3] == "?" or re.search(rf"\bchain {re.escape(parts[3])}\b", item.question):
            continue
        if not multi:
            out.append(f"{p} carries chain {parts[3]}, which neither the labels (one chain) nor the prompt show")
            continue
        drawn = _recorded_labels(item, parts[0], parts[1])
        if drawn and f"{parts[0]} {parts[1]} {parts[3]}" not in drawn:
            out.append(f"{p} carries chain {parts[3]}, but its residue's recorded labels read {drawn}")
    return out


def check_pocket_ligand(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """T9: every listed bond holds, is recorded, names a derivable chain, and its atoms are seen."""
    f, a, cam, front = _whole_complex(item, structures)
    try:
        bonds = _bonds_of(item.answer)
    except ValueError as exc:
        f.fail(f"the answer is malformed: {exc}")
        return f.reasons
    recorded = {(f"{b['res_name']} {b['res_id']} {b['pocket_atom_name']} {b['chain']}", b["ligand_atom_name"]):
                b["distance"] for b in item.meta.get("hbonds", [])}
    if set(bonds) != set(recorded):
        f.fail(f"the answer's bonds are not metadata.hbonds ({len(bonds)} vs {len(recorded)})")
    if len(set(bonds)) != len(bonds):
        f.fail("the answer lists a bond twice")
    for why in chain_problems(item, a, bonds):
        f.fail(why)
    resolve = _resolver(a)
    named = _check_bonds(a, bonds, resolve, f, recorded)
    if named:
        _seen_somewhere(item, cam, front, a, sorted(set(named)), f, {i: _who(a, i) for i in named})
    _check_label_record(item, cam, front, a, f, resolve)
    _check_equivalents(item, f, resolve, a)
    return f.reasons


_T8_BOND = re.compile(r"between atom (\S+) of ([A-Z0-9]{1,4}) (-?\d+[A-Za-z]?) \((?:chain (\S+?)|no chain id)\) "
                      r"and ligand atom (\S+?)\.(?:\s|$)")
_T8_MOVE = re.compile(r"^move x (-?\d+), move y (-?\d+)$")
#: T8's documented default decoy margin (docs/fairness.md §2, docs/generate.md): every decoy leaves the
#: bond's midpoint at least this much farther from the image centre than the answer does.
DEFAULT_DECOY_MARGIN_A = 0.5
#: Rounding the audit allows in that comparison (its own projection against the generator's).
_MARGIN_SLACK_A = 1e-3


def decoy_margin(item: Item) -> float | None:
    """The T8 decoy margin (Å) the item was generated with: ``metadata.decoy_margin_A``, else the run's
    ``decoy_margin_A`` task parameter as the dataset card records it, else the documented default when
    the card records that the task ran with its defaults; None when nothing records it."""
    for where in (item.meta, item.params):
        if isinstance(where, dict) and where.get("decoy_margin_A") is not None:
            return float(where["decoy_margin_A"])
    return DEFAULT_DECOY_MARGIN_A if item.params is not None else None


def check_interaction_location(item: Item, structures: Structures, t9: dict | None = None) -> list[str]:
    """T8: the option that brings the named bond's midpoint nearest the image centre is the answer."""
    f, a, cam, front = _whole_complex(item, structures)
    m = _T8_BOND.search(item.question)
    if not m:
        f.fail("the prompt names no bond (\"between atom X of RES N (chain C) and ligand atom Y.\")")
        return f.reasons
    atom, rn, num, chain, lig = m.groups()
    i, j = a.pocket_atom(rn, num, atom, chain), a.ligand_atom(lig)
    if i is None or j is None:
        f.fail(f"the bond's atoms ({atom} of {rn} {num}: "
               f"{_how_many(a, f'{rn} {num} {atom} {chain or chr(63)}', None)}; ligand {lig}: "
               f"{'found' if j is not None else 'no single drawn atom'}) are not single atoms of the structure")
        return f.reasons
    why = bond_problem(a, i, j, (item.meta.get("hbond") or {}).get("distance"))
    if why:
        f.fail(f"the bond {rn} {num} {atom}, {lig}: {why}")
    _seen_somewhere(item, cam, front, a, [i, j], f, {i: _who(a, i), j: _who(a, j)})
    if t9 is not None and item.complex_id in t9:
        named = (f"{rn} {num} {atom} {chain or '?'}", lig)
        if named not in set(t9[item.complex_id]):
            f.fail(f"the bond {named[0]}, {named[1]} is not in the pocket-ligand (T9) item of {item.complex_id}")
    moves = []
    for k, o in enumerate(item.options):
        mm = _T8_MOVE.match(o.strip())
        if not mm:
            f.fail(f"option {'ABCD'[k]} {o!r} is not 'move x dx, move y dy'")
            return f.reasons
        moves.append((int(mm.group(1)), int(mm.group(2))))
    if len(set(moves)) != len(moves):
        f.fail(f"two options are the same move: {item.options}")
    mid = (front[i, :2] + front[j, :2]) / 2.0
    miss = [float(np.hypot(mid[0] + dx, mid[1] + dy)) for dx, dy in moves]
    want = item.letter_index()
    if want is None or want >= len(moves):
        f.fail(f"the answer {item.answer!r} is not one of the option letters")
        return f.reasons
    best = int(np.argmin(miss))
    exact = (round(-mid[0]), round(-mid[1]))
    if best != want:
        f.fail(f"option {'ABCD'[best]} brings the bond's midpoint nearest the centre ({miss[best]:.2f} Å), "
               f"not the answer {item.answer} ({miss[want]:.2f} Å)")
    elif moves[want] != exact and max(abs(mid[0] + moves[want][0]), abs(mid[1] + moves[want][1])) > 0.52:
        f.fail(f"the answer's move {moves[want]} leaves the midpoint {miss[want]:.2f} Å from the centre "
               f"(the whole-Å move is {exact})")
    margin = decoy_margin(item)
    if margin is None:
        f.fail("the decoy margin (metadata or task parameter decoy_margin_A) is recorded nowhere")
    elif best == want:
        near = [k for k in range(len(moves)) if k != want and miss[k] < miss[want] + margin - _MARGIN_SLACK_A]
        if near:
            k = min(near, key=lambda k: miss[k])
            f.fail(f"decoy {'ABCD'[k]} leaves the midpoint {miss[k]:.2f} Å from the centre, less than the recorded "
                   f"decoy margin {margin:g} Å beyond the answer's {miss[want]:.2f} Å")
    _check_label_record(item, cam, front, a, f, _resolver(a))
    _check_equivalents(item, f, _resolver(a), a)
    return f.reasons
