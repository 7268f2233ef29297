"""Per-atom tables the H-bond criteria read (private): neighbours, hydrogen and lone-pair positions.

:class:`Context` holds a complex's coordinates and typing, flat neighbour tables built once, and
per-atom positions computed on first use and cached: the hydrogens of a donor (explicit, else those
its heavy neighbours fix), the lone-pair directions of an acceptor, and the substituents its tau test
is measured against.  The ``*_table`` methods return them for (k,) atom rows as padded arrays,
(k, m, 3) positions with a (k, m) bool mask, ready for the vectorised tests of
:mod:`misi_geom.hbonds.criteria`.  Ideal positions depend on each atom's own geometry and
neighbour count (:func:`~misi_geom.hbonds.geometry.bond_positions`), so they are built atom by atom,
once per atom, never per pair.
"""

from __future__ import annotations

import numpy as np

from misi_geom.hbonds._idatm import PLANAR, TETRAHEDRAL, TYPE_INFO
from misi_geom.complex import Complex
from misi_geom.hbonds.geometry import bond_positions
from misi_geom.hbonds.donor_acceptor import HBondTyping

__all__ = ["Context", "TAU_TEST", "TAU_PASS", "TAU_FAIL", "distinct"]

#: Status of an atom's tau test: measure it, pass it (nothing to measure against), fail it.
TAU_TEST, TAU_PASS, TAU_FAIL = 0, 1, 2

_GEOM = {t: geom for t, (geom, _subs) in TYPE_INFO.items()}
_BOND_RADIUS = {"H": 0.23, "C": 0.68, "N": 0.68, "O": 0.68, "S": 1.02, "P": 1.05}


def _padded(rows: list[list], width: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """Lists of 3-vectors as (n, m, 3) float64 positions and a (n, m) bool mask (m >= ``width``)."""
    m = max([len(r) for r in rows] + [width])
    pos = np.zeros((len(rows), m, 3), dtype=np.float64)
    mask = np.zeros((len(rows), m), dtype=bool)
    for i, r in enumerate(rows):
        if r:
            pos[i, :len(r)] = r
            mask[i, :len(r)] = True
    return pos, mask


def distinct(values: np.ndarray) -> tuple[list[int], np.ndarray]:
    """The distinct values of a (k,) int array in first-seen order, and each row's index into them
    (as :func:`numpy.unique` with ``return_inverse``, cheaper for the few rows of a typical call)."""
    index: dict[int, int] = {}
    inv = np.fromiter((index.setdefault(v, len(index)) for v in values.tolist()), dtype=np.int64, count=len(values))
    return list(index), inv


class _AtomTable:
    """Per-atom lists of positions, computed on first request and kept as one padded array."""

    def __init__(self, n: int, compute) -> None:
        self.compute = compute
        self.done = np.zeros(n, dtype=bool)
        self.pos = np.zeros((n, 1, 3), dtype=np.float64)
        self.mask = np.zeros((n, 1), dtype=bool)

    def rows(self, atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(k, m, 3) positions and (k, m) mask of the (k,) ``atoms``."""
        atoms = np.asarray(atoms, dtype=np.int64)
        todo = atoms[~self.done[atoms]]
        if len(todo):
            todo = distinct(todo)[0]
            pos, mask = _padded([self.compute(i) for i in todo], self.pos.shape[1])
            if pos.shape[1] > self.pos.shape[1]:
                grow = pos.shape[1] - self.pos.shape[1]
                self.pos = np.pad(self.pos, ((0, 0), (0, grow), (0, 0)))
                self.mask = np.pad(self.mask, ((0, 0), (0, grow)))
            self.pos[todo], self.mask[todo], self.done[todo] = pos, mask, True
        return self.pos[atoms], self.mask[atoms]


def _neighbour_table(n: int, bonds: np.ndarray) -> np.ndarray:
    """(n, w) int64: each atom's neighbours in bond-table order (that of
    :class:`~misi_geom.hbonds._idatm.AtomGraph`), padded with -1."""
    src = bonds.reshape(-1)
    dst = bonds[:, ::-1].reshape(-1)
    order = np.argsort(src, kind="stable")
    src, dst = src[order], dst[order]
    deg = np.bincount(src, minlength=n)
    out = np.full((n, max(1, int(deg.max(initial=0)))), -1, dtype=np.int64)
    out[src, np.arange(len(src)) - np.repeat(np.cumsum(deg) - deg, deg)] = dst
    return out


class Context:
    """Coordinates + typing of one complex, with its neighbour tables and cached per-atom positions.

    ``nbr`` (N, w) int64 lists each atom's neighbours in bond order, padded with -1 (see
    :meth:`heavy_nbr` for the heavy ones).
    """

    def __init__(self, c: Complex, typing: HBondTyping) -> None:
        self.coord, self.typing, self.element, self.is_h = c.coord, typing, c.element, c.is_hydrogen
        self.nbrs = typing.graph.nbrs
        self.nbr = _neighbour_table(len(c), c.bonds)
        self._hyd: dict[tuple[int, bool], list] = {}
        self._lone: dict[int, list] = {}
        self._tau: dict[tuple[int, int], tuple] = {}
        self._hyd_table = _AtomTable(len(c), self.hyd_positions)
        self._lone_table = _AtomTable(len(c), self.lone_pair_dirs)

    def geom(self, atoms: np.ndarray) -> np.ndarray:
        """(k,) int8: the IDATM geometry of (k,) ``atoms`` (0: a type without one)."""
        return np.array([_GEOM.get(t, 0) for t in self.typing.idatm[atoms].tolist()], dtype=np.int8).reshape(-1)

    def heavy_nbr(self, atoms: np.ndarray) -> np.ndarray:
        """(k, w) int64: the heavy neighbours of (k,) ``atoms`` in bond order, padded with -1."""
        nbr = self.nbr[atoms]
        heavy = (nbr >= 0) & ~self.is_h[np.maximum(nbr, 0)]
        order = np.argsort(~heavy, axis=1, kind="stable")
        return np.take_along_axis(np.where(heavy, nbr, -1), order, axis=1)

    # --- per-atom positions ----------------------------------------------------------------------
    def hyd_positions(self, i: int, lone_pairs: bool = False) -> list:
        """Explicit H positions of atom i, else those fixed by its heavy neighbours (if any); with
        ``lone_pairs``, the explicit H plus the missing substituents of its full geometry."""
        key = (i, lone_pairs)
        if key not in self._hyd:
            self._hyd[key] = self._hyd_positions(i, lone_pairs)
        return self._hyd[key]

    def _hyd_positions(self, i: int, lone_pairs: bool) -> list:
        heavy = [j for j in self.nbrs[i] if not self.is_h[j]]
        hyds = [self.coord[j] for j in self.nbrs[i] if self.is_h[j]]
        if hyds and not lone_pairs:
            return hyds
        info = TYPE_INFO.get(str(self.typing.idatm[i]))
        if info is None:
            return hyds
        geom, subs = info
        if lone_pairs:
            subs = geom
        known = hyds + [self.coord[j] for j in heavy]
        if len(known) >= subs or not known:
            return hyds
        if len(known) == 1 and geom == TETRAHEDRAL:
            return hyds
        if geom - subs > 0:
            return hyds
        length = _BOND_RADIUS.get(str(self.element[i]), 0.68) + 0.23
        coplanar = None
        if geom == PLANAR:
            coplanar = [self.coord[k] for j in heavy if _GEOM.get(str(self.typing.idatm[j])) == PLANAR
                        for k in self.nbrs[j] if k != i]
        try:
            return hyds + bond_positions(self.coord[i], geom, length, known, coplanar=coplanar or None)
        except ValueError:
            return hyds

    def lone_pair_dirs(self, a: int) -> list:
        """Directions from acceptor ``a`` opposite its ideal tetrahedral lone pairs (unit length)."""
        if a not in self._lone:
            ap = self.coord[a]
            lps = bond_positions(ap, TETRAHEDRAL, 1.0, [self.coord[k] for k in self.nbrs[a]])
            self._lone[a] = [ap - (lp - ap) for lp in lps]
        return self._lone[a]

    def tau_frame(self, atom: int, tau_sym: int) -> tuple:
        """(status, axis atom position, substituent positions) of ``atom``'s tau test.

        The substituents are the atom's own hydrogens when its symmetry is 4 and it has two, else
        the lone pairs and other heavy neighbours of its first heavy neighbour (the axis atom); their
        count must be ``tau_sym / 2``.  Status :data:`TAU_PASS` without a heavy neighbour or
        substituents, :data:`TAU_FAIL` for a wrong count.
        """
        key = (atom, tau_sym)
        if key not in self._tau:
            self._tau[key] = self._tau_frame(atom, tau_sym)
        return self._tau[key]

    def _tau_frame(self, atom: int, tau_sym: int) -> tuple:
        none = np.zeros(3)
        bonded = list(self.hyd_positions(atom)) if tau_sym == 4 else []
        heavy = [j for j in self.nbrs[atom] if not self.is_h[j]]
        if not heavy:
            return TAU_PASS, none, []
        if 2 * len(bonded) != tau_sym:
            bonded = list(self.hyd_positions(heavy[0], lone_pairs=True))
            bonded += [self.coord[b] for b in self.nbrs[heavy[0]] if b != atom and not self.is_h[b]]
            if not bonded:
                return TAU_PASS, none, []
        if 2 * len(bonded) != tau_sym:
            return TAU_FAIL, none, []
        return TAU_TEST, self.coord[heavy[0]], bonded

    # --- the same as padded tables over (k,) rows --------------------------------------------------
    def hyd_table(self, atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`hyd_positions` of (k,) atom rows: (k, m, 3) positions and (k, m) mask."""
        return self._hyd_table.rows(atoms)

    def lone_pair_table(self, atoms: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """:meth:`lone_pair_dirs` of (k,) acceptor rows: (k, m, 3) directions and (k, m) mask."""
        return self._lone_table.rows(atoms)

    def tau_table(self, atoms: np.ndarray, tau_sym: np.ndarray) -> tuple:
        """:meth:`tau_frame` of (k,) rows: status (k,) int8, axis atom (k, 3), substituents
        (k, m, 3) and their (k, m) mask."""
        keys = np.asarray(atoms, dtype=np.int64) * 8 + np.asarray(tau_sym, dtype=np.int64)  # tau_sym <= 6
        uniq, inv = distinct(keys)
        frames = [self.tau_frame(key // 8, key % 8) for key in uniq]
        status = np.array([f[0] for f in frames], dtype=np.int8).reshape(len(frames))
        axis = np.array([f[1] for f in frames], dtype=np.float64).reshape(len(frames), 3)
        pos, mask = _padded([f[2] for f in frames])
        inv = inv.reshape(-1)
        return status[inv], axis[inv], pos[inv], mask[inv]
