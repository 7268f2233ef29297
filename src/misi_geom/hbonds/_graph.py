"""Bond graph of a complex for atom typing (private): neighbour lists, bond orders, rings."""

from __future__ import annotations

from misi_geom.complex import Complex

__all__ = ["AtomGraph"]


class AtomGraph:
    """Adjacency of a complex: neighbour lists, bond orders, and (lazily) the rings of each atom."""

    def __init__(self, c: Complex) -> None:
        n = len(c)
        self.nbrs: list[list[int]] = [[] for _ in range(n)]
        self.order: dict[tuple[int, int], float] = {}
        for (i, j), o in zip(c.bonds.tolist(), c.bond_order.tolist()):
            self.nbrs[i].append(j)
            self.nbrs[j].append(i)
            self.order[(i, j)] = self.order[(j, i)] = o
        self.is_h: list[bool] = c.is_hydrogen.tolist()
        self.element: list[str] = c.element.tolist()
        self._rings: dict[int, list[frozenset]] = {}

    def heavy(self, i: int) -> list[int]:
        return [j for j in self.nbrs[i] if not self.is_h[j]]

    def rings(self, i: int) -> list[frozenset]:
        """Smallest ring (heavy atoms, up to 8) through each bond of atom ``i``, deduplicated."""
        if i not in self._rings:
            found = {_smallest_ring(self.nbrs, self.is_h, i, j) for j in self.nbrs[i] if not self.is_h[j]}
            found.discard(None)
            self._rings[i] = sorted(found, key=lambda r: (len(r), sorted(r)))
        return self._rings[i]


def _smallest_ring(nbrs: list[list[int]], is_h: list[bool], a: int, b: int, max_size: int = 8):
    """Atoms of the smallest ring through bond a-b (breadth-first from b back to a), or None."""
    prev = {b: -1}
    frontier = [b]
    for _depth in range(max_size - 1):
        nxt = []
        for u in frontier:
            for v in nbrs[u]:
                if is_h[v] or v in prev or (u == b and v == a):
                    continue
                prev[v] = u
                if v == a:
                    path, w = [], a
                    while w != -1:
                        path.append(w)
                        w = prev[w]
                    return frozenset(path)
                nxt.append(v)
        if not nxt:
            return None
        frontier = nxt
    return None
