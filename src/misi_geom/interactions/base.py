"""The declaration base of every pocket–ligand interaction type, and its one result form.

A declaration reads like ProLIF's interaction classes: the roles on each side, the named thresholds
(value, unit, meaning, and the PLIP setting it mirrors) at the declaration site, a vectorised
measurement over candidate group pairs and the ordered criteria.  ``mirror = True`` derives the
swapped roles (a cation on either side) instead of declaring them twice::

    class SaltBridge(Interaction):
        name = "salt_bridge"
        roles = ("cation", "anion")
        mirror = True
        distance = Threshold(5.5, "Å", "charge centre to charge centre, below", plip="SALTBRIDGE_DIST_MAX")
        reach = "distance"

        def measure(self, p, l): return {"distance": dist(p.point, l.point)}
        def criteria(self, m): return [("distance", MIN_DIST < m["distance"] < self.distance)]

Thresholds are keyword arguments of the constructor (``SaltBridge(distance=5.0)``); an unknown
keyword is a ``TypeError``.  Every type shares the pruning (:func:`candidate_pairs`, one KD-tree
query between the two sides' group points within the type's ``reach``) and returns
:class:`Contact` records; :meth:`Interaction.explain` says which criterion one pair fails.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar, Mapping, Sequence

import numpy as np
from scipy.spatial import cKDTree

from misi_geom.complex import Complex
from misi_geom.interactions.groups import GroupSet, Perception

__all__ = ["MIN_DIST", "Threshold", "Contact", "Criterion", "Verdict", "Interaction", "INTERACTION_TYPES",
           "candidate_pairs"]

#: Smallest distance any interaction accepts, Å (PLIP ``MIN_DIST``): overlapping atoms are no contact.
MIN_DIST = 0.5

#: Every declared type by name, in declaration (import) order.
INTERACTION_TYPES: dict[str, type["Interaction"]] = {}


@dataclass(frozen=True)
class Threshold:
    """A named limit of a declaration: ``value`` in ``unit`` ("Å" or "°"), what it limits, and the
    PLIP 3.0.1 configuration name it mirrors (empty when PLIP has none)."""

    value: float
    unit: str
    doc: str
    plip: str = ""

    def __post_init__(self) -> None:
        if self.unit not in ("Å", "°"):
            raise ValueError(f"threshold unit must be 'Å' or '°', not {self.unit!r}")


@dataclass(frozen=True)
class Contact:
    """One interaction: the pocket and ligand atoms (rows of the complex) of each side's group and
    the measured geometry (Å and degrees; a few text fields such as ``stack_type``)."""

    type: str
    pocket_atoms: tuple[int, ...]
    ligand_atoms: tuple[int, ...]
    geometry: Mapping[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple:
        """(type, pocket atoms, ligand atoms): what identifies the contact."""
        return self.type, self.pocket_atoms, self.ligand_atoms


@dataclass(frozen=True)
class Criterion:
    """One criterion of :meth:`Interaction.explain`: its name, the measured value and whether it held."""

    name: str
    value: float | str | None
    passed: bool


@dataclass(frozen=True)
class Verdict:
    """Why one group pair does or does not interact: the criteria in test order (empty when the atoms
    are not groups of the type's roles; ``reason`` then says so)."""

    type: str
    criteria: tuple[Criterion, ...]
    reason: str = ""

    @property
    def passed(self) -> bool:
        return bool(self.criteria) and all(c.passed for c in self.criteria)

    @property
    def failed(self) -> tuple[str, ...]:
        """Names of the criteria that failed."""
        return tuple(c.name for c in self.criteria if not c.passed)

    def __str__(self) -> str:
        if not self.criteria:
            return f"{self.type}: {self.reason}"
        parts = [f"{c.name} {_fmt(c.value)} {'ok' if c.passed else 'fails'}" for c in self.criteria]
        return f"{self.type}: " + ", ".join(parts)


def _fmt(v) -> str:
    return f"{v:.2f}" if isinstance(v, (float, np.floating)) else str(v)


def candidate_pairs(a: np.ndarray, b: np.ndarray, reach: float) -> tuple[np.ndarray, np.ndarray]:
    """Index arrays (ia, ib) of the point pairs of ``a`` (n, 3) and ``b`` (m, 3) within ``reach`` Å,
    sorted by (ia, ib): the pruning stage every interaction type shares (one KD-tree query)."""
    if len(a) == 0 or len(b) == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    hits = cKDTree(b).query_ball_point(a, reach)
    ia = np.repeat(np.arange(len(a)), [len(h) for h in hits]).astype(np.int64)
    ib = np.fromiter((j for h in hits for j in sorted(h)), dtype=np.int64, count=len(ia))
    return ia, ib


class Interaction:
    """Base of an interaction declaration (see the module docs).

    Subclasses set ``name``, ``roles`` (pocket role, ligand role: names of :class:`Perception` group
    kinds), optionally ``mirror``, the :class:`Threshold` class attributes, ``reach`` (the name of the
    threshold that bounds the group-point distance, or a number of Å), and implement
    :meth:`measure` and :meth:`criteria`; :meth:`refine` may drop contacts given the types found
    before (``after`` names them).
    """

    name: ClassVar[str] = ""
    roles: ClassVar[tuple[str, str]] = ("", "")
    mirror: ClassVar[bool] = False
    reach: ClassVar[str | float] = 0.0
    after: ClassVar[tuple[str, ...]] = ()
    thresholds: ClassVar[dict[str, Threshold]] = {}

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        found: dict[str, Threshold] = {}
        for klass in reversed(cls.__mro__):
            found.update({k: v for k, v in vars(klass).items() if isinstance(v, Threshold)})
        cls.thresholds = found
        if cls.name:
            if cls.name in INTERACTION_TYPES and INTERACTION_TYPES[cls.name].__qualname__ != cls.__qualname__:
                raise ValueError(f"interaction type {cls.name!r} is declared twice")
            INTERACTION_TYPES[cls.name] = cls

    def __init__(self, **thresholds: float) -> None:
        for key, value in thresholds.items():
            if key not in self.thresholds:
                raise TypeError(f"{type(self).__name__} has no threshold {key!r} "
                                f"(it has: {', '.join(self.thresholds) or 'none'})")
            setattr(self, key, float(value))
        for key, t in self.thresholds.items():
            if key not in thresholds:
                setattr(self, key, float(t.value))

    # --- what a declaration provides ------------------------------------------------------------
    def measure(self, p: GroupSet, l: GroupSet) -> dict[str, np.ndarray]:
        """Geometry of the (k,) aligned group rows ``p`` (pocket) and ``l`` (ligand)."""
        raise NotImplementedError

    def criteria(self, m: Mapping[str, np.ndarray]) -> list[tuple[str, np.ndarray]]:
        """Ordered (name, (k,) bool) tests over the measurements; a pair interacts if all hold."""
        raise NotImplementedError

    def refine(self, contacts: list[Contact], perception: Perception,
               earlier: Mapping[str, list[Contact]]) -> list[Contact]:
        """Drop contacts given the types in ``after`` (default: keep all)."""
        return contacts

    def geometry(self, m: Mapping[str, np.ndarray], k: int, p: GroupSet, l: GroupSet) -> dict[str, Any]:
        """The measured values of row ``k`` written into its :class:`Contact` (default: all, rounded)."""
        return {name: round(float(v[k]), 3) for name, v in m.items() if np.asarray(v).dtype.kind == "f"}

    # --- shared machinery ------------------------------------------------------------------------
    def _reach(self) -> float:
        return float(getattr(self, self.reach) if isinstance(self.reach, str) else self.reach)

    def _orientations(self) -> list[tuple[str, str]]:
        a, b = self.roles
        return [(a, b), (b, a)] if self.mirror and a != b else [(a, b)]

    def find(self, c: Complex, perception: Perception | None = None,
             earlier: Mapping[str, list[Contact]] | None = None) -> list[Contact]:
        """Contacts of this type between the pocket and the ligand of ``c``, sorted by atoms."""
        per = perception or Perception(c)
        out: list[Contact] = []
        for prole, lrole in self._orientations():
            p_all, l_all = per.groups(prole, ligand=False), per.groups(lrole, ligand=True)
            ip, il = candidate_pairs(p_all.point, l_all.point, self._reach())
            if len(ip) == 0:
                continue
            p, l = p_all.take(ip), l_all.take(il)
            m = self.measure(p, l)
            ok = np.ones(len(ip), dtype=bool)
            for _name, test in self.criteria(m):
                ok &= np.asarray(test, dtype=bool)
            for k in np.flatnonzero(ok).tolist():
                geo = {"pocket_role": prole, "ligand_role": lrole} if self.mirror else {}
                geo.update(self.geometry(m, k, p, l))
                out.append(Contact(self.name, p.atoms[k], l.atoms[k], geo))
        out = self.refine(out, per, earlier or {})
        return sorted(out, key=lambda x: (x.pocket_atoms, x.ligand_atoms))

    def explain(self, c: Complex, pocket_atoms: Sequence[int], ligand_atoms: Sequence[int],
                perception: Perception | None = None) -> Verdict:
        """Which criterion the pair of groups holding ``pocket_atoms`` and ``ligand_atoms`` fails.

        Each side's group is the one of the type's roles that contains all the given atoms (e.g. one
        ring atom names its ring).  Refinements (:meth:`refine`) are not applied.
        """
        per = perception or Perception(c)
        want_p, want_l = set(int(i) for i in pocket_atoms), set(int(i) for i in ligand_atoms)
        for prole, lrole in self._orientations():
            p_all, l_all = per.groups(prole, ligand=False), per.groups(lrole, ligand=True)
            ip = [k for k, a in enumerate(p_all.atoms) if want_p <= set(a)]
            il = [k for k, a in enumerate(l_all.atoms) if want_l <= set(a)]
            if not ip or not il:
                continue
            p, l = p_all.take(np.array(ip[:1])), l_all.take(np.array(il[:1]))
            m = self.measure(p, l)
            crit = []
            for name, test in self.criteria(m):
                value = m.get(name)
                crit.append(Criterion(name, None if value is None else _scalar(value), bool(np.asarray(test)[0])))
            return Verdict(self.name, tuple(crit))
        return Verdict(self.name, (), f"no {'/'.join(self.roles)} groups hold these atoms")


def _scalar(v):
    x = np.asarray(v)[0]
    return float(x) if np.asarray(v).dtype.kind == "f" else str(x)
