"""Chemical-group matching for H-bond typing (private).

A group is written as a tree of atom conditions: ``cond`` or ``(cond, [conditions on the other
neighbours])``.  Conditions name IDATM types, elements or type properties (geometry, exclusions);
a child condition that may be a hydrogen can stay unmatched, because hydrogens are often absent.
The number of children bounds the number of neighbours, and indistinguishable sibling conditions
take neighbours in neighbour order, so one set of atoms matches once, not once per permutation.
Ring groups (ring N and O acceptors, ring NH donors, aromatic amines) are found by small functions.
"""

from __future__ import annotations

from typing import Callable

import numpy as np

from misi_geom.hbonds._idatm import TYPE_INFO, AtomGraph
from misi_geom.complex import Complex

__all__ = ["Cond", "Node", "GroupContext", "match", "ring_groups", "aro_amines"]


class Cond:
    """An atom test ``f(i) -> bool``; ``may_be_h``: it can match a hydrogen (so may match nothing);
    ``types``/``elements``: shortlist for finding roots; ``key``: equality of indistinguishable tests."""

    def __init__(self, f: Callable[[int], bool], may_be_h: bool = False, types=None, elements=None,
                 key=None) -> None:
        self.f, self.may_be_h = f, may_be_h
        self.types, self.elements = types, elements  # when set: the only types/elements that match
        self.key = key if key is not None else id(self)  # equal keys = indistinguishable conditions


class Node:
    """A compiled pattern node: a condition and (optionally) conditions for its other neighbours."""

    __slots__ = ("cond", "kids", "n_kids", "n_h", "key", "size", "may_be_h")

    def __init__(self, spec) -> None:
        cond, kids = spec if isinstance(spec, tuple) else (spec, None)
        self.cond = cond
        self.kids = None if kids is None else [Node(k) for k in kids]
        self.may_be_h = cond.may_be_h
        self.n_kids = 0 if kids is None else len(self.kids)
        self.n_h = 0 if kids is None else sum(1 for k in self.kids if k.may_be_h)
        self.key = cond.key if kids is None else (cond.key, tuple(k.key for k in self.kids))
        self.size = 1 if kids is None else 1 + sum(k.size for k in self.kids)


def match(nbrs, node: Node, a: int, parent: int = -1) -> list[list]:
    """All matches of ``node`` rooted at atom ``a`` (flattened atom lists in pattern order;
    children that may be hydrogen can stay unmatched, giving None)."""
    if not node.cond.f(a):
        return []
    if node.kids is None:
        return [[a]]
    nbs = [n for n in nbrs[a] if n != parent]
    if node.n_kids < len(nbs) or node.n_kids - node.n_h > len(nbs):
        return []
    return [[a] + rest for rest in _assign(nbrs, node.kids, 0, nbs, a, nbs, None, -1)]


def _assign(nbrs, kids, k, nbs, a, order, prev_key, last):
    """Assign neighbours ``nbs`` to conditions ``kids[k:]``.  Indistinguishable consecutive
    conditions take neighbours in increasing neighbour order (and an omitted one omits the rest), so
    the same atoms are not matched once per permutation."""
    if k == len(kids):
        if not nbs:
            yield []
        return
    kid = kids[k]
    lo = last if kid.key == prev_key else -1
    for pos, n in enumerate(order):
        if pos <= lo or n not in nbs:
            continue
        for sub in match(nbrs, kid, n, a):
            others = [m for m in nbs if m != n]
            for tail in _assign(nbrs, kids, k + 1, others, a, order, kid.key, pos):
                yield sub + tail
    if kid.may_be_h and len(kids) - k - 1 >= 0:
        for tail in _assign(nbrs, kids, k + 1, nbs, a, order, kid.key, len(order)):
            yield [None] * kid.size + tail


class GroupContext:
    """Typed graph of a complex plus the condition factories (``ty``, ``el``, ``prop``, ``any_of``)
    the group tables are written with; ``restrict`` limits the atoms that get classified."""

    def __init__(self, c: Complex, g: AtomGraph, t: np.ndarray) -> None:
        self.c, self.g = c, g
        self.t: list[str] = t.tolist()
        self.el_: list[str] = g.element
        self.geoms = [TYPE_INFO[x][0] if x in TYPE_INFO else None for x in self.t]
        self.by_type: dict[str, list[int]] = {}
        for i, x in enumerate(self.t):
            self.by_type.setdefault(x, []).append(i)
        self.by_el: dict[str, list[int]] = {}
        for i, x in enumerate(self.el_):
            self.by_el.setdefault(x, []).append(i)

    def restrict(self, atoms) -> None:
        """Only classify ``atoms``: groups may then start only at them or their neighbours."""
        self.wanted = set(int(i) for i in atoms)
        near = set(self.wanted)
        for i in self.wanted:
            near.update(self.g.nbrs[i])
        self.near = near

    wanted: set | None = None
    near: set | None = None

    def candidates(self) -> list[int]:
        return sorted(self.wanted) if self.wanted is not None else list(range(len(self.t)))

    def roots(self, cond: Cond) -> list[int]:
        """Atoms that can match ``cond`` (a shortlist when it names types or elements)."""
        if cond.types is not None:
            out = [i for x in cond.types for i in self.by_type.get(x, ())]
        elif cond.elements is not None:
            out = [i for x in cond.elements for i in self.by_el.get(x, ())]
        else:
            out = range(len(self.t))
        if self.near is not None:
            out = [i for i in out if i in self.near]
        return sorted(out)

    def geom(self, i: int):
        return self.geoms[i]

    def ty(self, *types: str) -> Cond:
        t = self.t
        return Cond(lambda i: t[i] in types, any(x in ("H", "HC") for x in types), types=types, key=("ty", types))

    def el(self, e: str) -> Cond:
        el = self.el_
        return Cond(lambda i: el[i] == e, e == "H", elements=(e,), key=("el", e))

    def prop(self, geom=None, not_type=(), default=False) -> Cond:
        t, geoms = self.t, self.geoms

        def f(i):
            if geoms[i] is None:
                return default
            return t[i] not in not_type and (geom is None or geoms[i] == geom)

        return Cond(f, geom == 1 and "H" not in not_type, key=("prop", geom, not_type, default))

    def any_of(self, *conds: Cond) -> Cond:
        return Cond(lambda i: any(k.f(i) for k in conds), any(k.may_be_h for k in conds),
                     key=("any",) + tuple(k.key for k in conds))


def _ring(ctx, i):
    return ctx.g.rings(i)


def ring_groups(ctx, kind: str, size: int = 0, symmetric: bool = False, aromatic: bool = False):
    """Ring N/O groups: (atom, neighbour1, neighbour2) tuples in atom order."""
    g, t = ctx.g, ctx.t
    el = ctx.el_
    wanted = {"NH": ("Npl", "N2+"), "N5": ("N2", "Npl", "N2+"), "N6": ("N2",), "ether": ("O3",), "NR2": ("N2",)}
    for a in ctx.candidates():
        if (el[a] != "O") if kind == "O5" else (t[a] not in wanted[kind]):
            continue
        rings = _ring(ctx, a)
        nb = g.nbrs[a]
        if kind == "NH":
            if t[a] not in ("Npl", "N2+") or len(rings) != 1 or len(rings[0]) != size:
                continue
            if len(nb) == 3 and not any(g.is_h[j] for j in nb):
                continue
            if aromatic and not all(ctx.geom(r) == 3 for r in rings[0]):
                continue
            yield (a,)
        elif kind in ("N5", "N6"):
            ok_type = t[a] == "N2" or (kind == "N5" and t[a] in ("Npl", "N2+") and len(nb) == 2)
            if not ok_type or len(rings) != 1 or len(rings[0]) != size or len(nb) < 2:
                continue
            ring = rings[0]
            if kind == "N5" and t[a] != "N2" and not any(el[r] == "N" for r in ring if r != a):
                continue
            b1, b2 = nb[0], nb[1]
            same_b = el[b1] == el[b2]
            if kind == "N5":
                rem = [r for r in sorted(ring) if r not in (a, b1, b2)]
            else:
                rem = [next((r for r in sorted(ring) if r not in (a, b1, b2) and r in g.nbrs[b]), None)
                       for b in (b1, b2)]
                if None in rem:
                    continue
            same_r = el[rem[0]] == el[rem[1]]
            if symmetric == (same_b and same_r):
                yield (a, b1, b2)
        elif kind == "O5":
            if el[a] != "O":
                continue
            for r in rings:
                if len(r) == 5 and len(nb) >= 2:
                    yield (a, nb[0], nb[1])
        elif kind == "ether":
            if t[a] == "O3" and not rings and len(nb) == 2 and all(el[j] == "C" for j in nb):
                yield (a, nb[0], nb[1])
        elif kind == "NR2":
            if t[a] == "N2" and not rings and len(nb) == 2 and all(el[j] == "C" for j in nb):
                yield (a, nb[0], nb[1])


def aro_amines(x: GroupContext):
    """Npl not in an aromatic ring, bonded to H and exactly one carbon, an aromatic one."""
    g, t = x.g, x.t
    for a in x.candidates():
        if t[a] != "Npl" or any(all(x.geom(r) == 3 for r in ring) for ring in g.rings(a)):
            continue
        carbons, aro = 0, False
        for n in g.nbrs[a]:
            if g.is_h[n]:
                continue
            if g.element[n] == "C" and t[n] in ("Car", "C3"):
                carbons += 1
                aro |= t[n] == "Car"
                continue
            aro = False
            break
        if aro and carbons == 1:
            yield (a,)
