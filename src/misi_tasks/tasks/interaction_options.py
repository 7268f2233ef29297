"""The interaction-type task's answer and decoys (I1), as pure functions of the contacts.

An option is the set of interaction types one residue makes with the ligand, written in a fixed
order joined by " and " (``"hydrogen bond and salt bridge"``).  Decoys follow the task's rules
(``docs/interactions.md``): (1) one true type replaced by a type another residue of the complex
makes (a hard negative: what a neighbour in contact does); (2) one true type removed, or for a
single-type truth one type present in the complex added; (3) one type absent from the complex added;
redrawn from other non-empty sets where these collide.  Every decoy is a set of types the residue
could make (``possible``: :func:`misi_geom.interactions.possible_types`): a ring-less residue is never
offered pi-stacking, an amino acid never metal coordination (the ion is the partner), ALA never a salt
bridge.  A residue with fewer than three such sets besides its answer (:func:`enough_decoys`: GLY,
SER, CYS, which can make only H-bonds and halogen bonds) is not asked about.

>>> type_set_text(frozenset({"salt_bridge", "hbond"}))
'hydrogen bond and salt bridge'
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations

import numpy as np

from misi_geom.complex import Complex
from misi_geom.interactions import Contact

__all__ = ["TYPE_WORDS", "type_set_text", "residue_types", "type_decoys", "enough_decoys"]

#: Interaction type -> its words in prompts and options, in option order.
TYPE_WORDS: dict[str, str] = {
    "hbond": "hydrogen bond",
    "salt_bridge": "salt bridge",
    "pi_stacking": "pi-stacking",
    "cation_pi": "cation-pi",
    "halogen_bond": "halogen bond",
    "metal": "metal coordination",
    "hydrophobic": "hydrophobic contact",
}


def type_set_text(types: frozenset[str]) -> str:
    """The option text of a set of types, in :data:`TYPE_WORDS` order."""
    unknown = set(types) - set(TYPE_WORDS)
    if unknown or not types:
        raise ValueError(f"not a non-empty set of interaction types: {sorted(types)}")
    return " and ".join(TYPE_WORDS[t] for t in TYPE_WORDS if t in types)


def residue_types(found: Mapping[str, Sequence[Contact]], c: Complex) -> dict[int, frozenset[str]]:
    """Pocket residue (``res_index``) -> the types it makes with the ligand (metal ions: their own)."""
    out: dict[int, set[str]] = {}
    for kind, contacts in found.items():
        for x in contacts:
            out.setdefault(int(c.res_index[x.pocket_atoms[0]]), set()).add(kind)
    return {r: frozenset(t) for r, t in sorted(out.items())}


def enough_decoys(truth: frozenset[str], possible: frozenset[str] | None = None) -> bool:
    """True if at least three non-empty type sets within ``possible`` (every type if None) differ
    from ``truth``."""
    n = len((set(TYPE_WORDS) if possible is None else set(possible) & set(TYPE_WORDS)) | set(truth))
    return 2 ** n - 2 >= 3


def type_decoys(truth: frozenset[str], others: frozenset[str], rng: np.random.Generator,
                possible: frozenset[str] | None = None) -> list[frozenset[str]]:
    """Three distinct non-empty decoy sets for ``truth``; ``others``: types other residues make;
    ``possible``: the types this residue could make (every type if None), the only types decoys use.

    Raises ValueError if ``possible`` leaves fewer than three decoys (see :func:`enough_decoys`).
    """
    allowed = set(TYPE_WORDS) if possible is None else (set(possible) & set(TYPE_WORDS)) | set(truth)
    if not enough_decoys(truth, frozenset(allowed)):
        raise ValueError(f"fewer than three decoy type sets for {sorted(truth)} within {sorted(allowed)}")
    all_types = [t for t in TYPE_WORDS if t in allowed]
    present = sorted((others & allowed) - truth)
    absent = [t for t in all_types if t not in truth and t not in others]
    missing = [t for t in all_types if t not in truth]

    def pick(pool: Sequence[str]) -> str | None:
        return str(pool[int(rng.integers(len(pool)))]) if len(pool) else None

    cands: list[frozenset[str] | None] = []
    out_type, in_type = pick(sorted(truth)), pick(present) or pick(missing)
    cands.append((truth - {out_type}) | {in_type} if out_type and in_type else None)
    if len(truth) > 1:
        cands.append(truth - {pick(sorted(truth))})
    else:
        add = pick(present) or pick(missing)
        cands.append(truth | {add} if add else None)
    add = pick(absent) or pick(missing)
    cands.append(truth | {add} if add else None)
    decoys: list[frozenset[str]] = []
    for cand in cands:
        if cand and cand != truth and cand not in decoys:
            decoys.append(frozenset(cand))
    sets = [frozenset(x) for k in range(1, len(all_types) + 1) for x in combinations(all_types, k)]
    for pool in ([x for x in sets if len(x) <= 2], [x for x in sets if len(x) > 2]):
        pool = [x for x in pool if x != truth and x not in decoys]  # collisions: one- and two-type sets first
        while len(decoys) < 3 and pool:
            decoys.append(pool.pop(int(rng.integers(len(pool)))))
    return decoys
