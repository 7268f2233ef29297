"""Why a pocket–ligand atom pair is, or is not, an H-bond: :func:`explain`.

:func:`explain` runs the same typing and tests as :func:`~misi_geom.hbonds.search.find_hbonds` on one
atom pair, in both directions (each atom as donor, the other as acceptor), and reports every test
separately instead of stopping at the first failure: the donor and acceptor classes (or that an atom
has none), the donor–acceptor distance against the acceptor class's reach, the acceptor-side and
donor-side criteria of Mills & Dean (1996) with the first failing test of each side (a distance or
which angle: phi, theta, upsilon, tau, ...), and the metal rule.

>>> from misi_geom import Complex
>>> pocket = Complex.from_atoms([[0, 0, 0], [0.96, 0, 0], [-0.24, 0.93, 0]], ["O", "H", "H"],
...                             ["OG", "HG", "HB"], res_name="SER", res_id=7, chain_id="A",
...                             is_ligand=False, bonds=[(0, 1), (0, 2)])
>>> lig = Complex.from_atoms([[2.8, 0, 0], [3.3, 0.8, 0.3]], ["O", "C"], ["O1", "C1"], bonds=[(0, 1)],
...                          bond_order=[2])
>>> c = Complex.concatenate([pocket, lig])
>>> e = explain(c, 0, 3)
>>> e.bonded, e.directions[0].passed
(True, True)
>>> print(e)
OG->O1 D..A 2.80: donor 'water' ok, acceptor 'generic O2' ok
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from misi_geom.complex import Complex
from misi_geom.hbonds.criteria import FAILURES, Context, acceptor_failures, donor_failures
from misi_geom.hbonds.geometry import SULFUR_COMP
from misi_geom.hbonds.search import ANGLE_SLOP, DIST_SLOP, acceptor_reach, metal_blocked
from misi_geom.hbonds.donor_acceptor import HBondTyping, assign_hbond_types

__all__ = ["DirectionVerdict", "PairVerdict", "explain"]


@dataclass(frozen=True)
class DirectionVerdict:
    """The tests of one direction: atom ``donor`` donating to atom ``acceptor``.

    ``donor_class`` / ``acceptor_class`` are the class names (None: the atom is not typed as donor /
    acceptor, and no further test ran).  ``da_distance`` and ``reach`` are in Å (``reach`` is the
    acceptor class's relaxed D..A limit, sulfur allowance included); ``acceptor_ok`` and ``donor_ok``
    are the acceptor-side and donor-side criteria (angles and the H..A/D..A limits of each class),
    and ``acceptor_failed`` / ``donor_failed`` name the first test of that side that failed (e.g.
    ``"phi"``, ``"theta (D-H..A)"``, ``"upsilon"``, ``"H..A distance"``; None when it passed);
    ``metal_ok`` is False when the metal rule rejects the pair.
    """

    donor: int
    acceptor: int
    donor_class: str | None
    acceptor_class: str | None
    da_distance: float
    reach: float | None
    within_reach: bool
    acceptor_ok: bool
    donor_ok: bool
    metal_ok: bool
    acceptor_failed: str | None = None
    donor_failed: str | None = None

    @property
    def typed(self) -> bool:
        """Both atoms are typed for this direction."""
        return self.donor_class is not None and self.acceptor_class is not None

    @property
    def passed(self) -> bool:
        """Every test holds: :func:`find_hbonds` reports this direction."""
        return self.typed and self.within_reach and self.acceptor_ok and self.donor_ok and self.metal_ok

    @property
    def failed_tests(self) -> tuple[str, ...]:
        """Names of the failing tests, in order: typing, distance, acceptor, donor, metal."""
        if not self.typed:
            return ("typing",)
        names = ("distance", "acceptor", "donor", "metal")
        flags = (self.within_reach, self.acceptor_ok, self.donor_ok, self.metal_ok)
        return tuple(n for n, ok in zip(names, flags) if not ok)


@dataclass(frozen=True)
class PairVerdict:
    """Both directions of one atom pair; ``str()`` gives one line per typed direction."""

    atoms: tuple[int, int]
    directions: tuple[DirectionVerdict, ...]
    text: str

    @property
    def bonded(self) -> bool:
        """Some direction passes: the pair is an H-bond."""
        return any(v.passed for v in self.directions)

    def __str__(self) -> str:
        return self.text


def explain(
    c: Complex,
    i: int,
    j: int,
    *,
    relax: bool = True,
    dist_slop: float = DIST_SLOP,
    angle_slop: float = ANGLE_SLOP,
    metal_rule: bool = True,
    typing: HBondTyping | None = None,
) -> PairVerdict:
    """Why atoms ``i`` and ``j`` of ``c`` are (or are not) H-bonded, test by test.

    Parameters
    ----------
    c : Complex
        The complex, as given to :func:`~misi_geom.hbonds.search.find_hbonds`.
    i, j : int
        Atom rows of ``c`` (either order; both directions are tested).
    relax, dist_slop, angle_slop, metal_rule
        As for :func:`~misi_geom.hbonds.search.find_hbonds`.
    typing : HBondTyping, optional
        Precomputed :func:`~misi_geom.hbonds.donor_acceptor.assign_hbond_types` of ``c`` (default: computed).

    Returns
    -------
    PairVerdict
        One :class:`DirectionVerdict` per direction whose atoms are typed as donor and acceptor
        (empty when neither is); ``str()`` says which side's test failed.
    """
    n = len(c)
    i, j = int(i), int(j)
    if not (0 <= i < n and 0 <= j < n) or i == j:
        raise ValueError(f"explain needs two different atom rows of the complex (0..{n - 1}), got {i}, {j}")
    typing = typing if typing is not None else assign_hbond_types(c)
    ds, da = (float(dist_slop), float(angle_slop)) if relax else (0.0, 0.0)
    ctx = Context(c, typing)
    verdicts, notes = [], []
    for d, a in ((i, j), (j, i)):
        don, acc = typing.donor.get(d), typing.acceptor.get(a)
        if don is None or acc is None:
            continue
        dist = float(np.linalg.norm(c.coord[d] - c.coord[a]))
        reach = acceptor_reach(acc, ds) + (SULFUR_COMP if c.element[d] == "S" else 0.0)
        rows = np.array([d]), np.array([a])  # the vectorised tests of find_hbonds, on one row
        a_fail = FAILURES[acceptor_failures(ctx, *rows, ds, da)[0]]
        d_fail = FAILURES[donor_failures(ctx, *rows, ds, da)[0]]
        a_ok, d_ok = a_fail is None, d_fail is None
        m_ok = not (metal_rule and metal_blocked(c, *rows)[0])
        verdicts.append(DirectionVerdict(d, a, don.name, acc.name, dist, reach, dist <= reach, bool(a_ok),
                                         bool(d_ok), bool(m_ok), a_fail, d_fail))
        line = (f"{c.atom_name[d]}->{c.atom_name[a]} D..A {dist:.2f}: donor '{don.name}' "
                f"{'ok' if d_ok else f'fails ({d_fail})'}, acceptor '{acc.name}' "
                f"{'ok' if a_ok else f'fails ({a_fail})'}")
        if dist > reach:
            line += f", beyond reach {reach:.2f}"
        if not m_ok:
            line += ", blocked by the metal rule"
        notes.append(line)
    text = "; ".join(notes) or "neither atom is typed as donor/acceptor toward the other"
    return PairVerdict((i, j), tuple(verdicts), text)
