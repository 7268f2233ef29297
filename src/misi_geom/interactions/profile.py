"""Profile a complex: every declared interaction type, on one shared group perception."""

from __future__ import annotations

from typing import Iterable

from misi_geom.complex import Complex
from misi_geom.interactions.base import INTERACTION_TYPES, Contact, Interaction
from misi_geom.interactions.groups import Perception, residue_kinds

__all__ = ["find_interactions", "interaction_types", "possible_types"]


def interaction_types() -> tuple[str, ...]:
    """Names of the declared types, in evaluation order."""
    return tuple(INTERACTION_TYPES)


def possible_types(c: Complex, res: int) -> frozenset[str]:
    """The declared types residue ``res`` (a ``res_index``) could make with some ligand: those whose
    pocket-side role (either role for a ``mirror`` type) is a group kind the residue holds
    (:func:`~misi_geom.interactions.groups.residue_kinds`).  A ring-less residue cannot π-stack; an
    amino acid never makes ``metal`` (the ion is the pocket partner); ALA can make a cation–π contact
    only if it had a ring or a cation, so it cannot."""
    kinds = residue_kinds(c, res)
    out = set()
    for name, cls in INTERACTION_TYPES.items():
        sides = {cls.roles[0], cls.roles[1]} if cls.mirror else {cls.roles[0]}
        if sides & kinds:
            out.add(name)
    return frozenset(out)


def _ordered(decls: list[Interaction]) -> list[Interaction]:
    """Declarations with every type's ``after`` types first (stable otherwise)."""
    by_name = {d.name: d for d in decls}
    out: list[Interaction] = []

    def visit(d: Interaction, path: tuple[str, ...]) -> None:
        if d in out:
            return
        if d.name in path:
            raise ValueError(f"interaction types refine against each other in a cycle: {' -> '.join(path)}")
        for dep in d.after:
            if dep in by_name:
                visit(by_name[dep], path + (d.name,))
        out.append(d)

    for d in decls:
        visit(d, ())
    return out


def find_interactions(
    c: Complex,
    types: Iterable[str | Interaction] | None = None,
) -> dict[str, list[Contact]]:
    """Pocket–ligand interactions of ``c`` by type (every declared type by default).

    ``types`` names types or gives configured declarations (``SaltBridge(distance=5.0)``).  A type
    that refines against another (``after``) sees that type's contacts only if it is profiled too.
    Returns a dict in the order asked for (default: declaration order), each list sorted by atoms.
    """
    if not isinstance(c, Complex):
        raise TypeError(f"find_interactions needs a Complex, got {type(c).__name__}")
    decls: list[Interaction] = []
    for t in (types if types is not None else INTERACTION_TYPES):
        if isinstance(t, Interaction):
            decls.append(t)
        elif t in INTERACTION_TYPES:
            decls.append(INTERACTION_TYPES[t]())
        else:
            raise ValueError(f"unknown interaction type {t!r} (known: {', '.join(INTERACTION_TYPES)})")
    per = Perception(c)
    found: dict[str, list[Contact]] = {}
    for d in _ordered(decls):
        found[d.name] = d.find(c, per, found)
    return {d.name: found[d.name] for d in decls}

