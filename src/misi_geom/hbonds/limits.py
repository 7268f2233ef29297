"""The limits of each H-bond criterion family as named records (Mills & Dean 1996, ChimeraX ``hbonds``).

One frozen dataclass per family.  Acceptor-side families: :class:`SynAnti`, :class:`PhiPsi`,
:class:`ThetaTau`, :class:`GenericAcceptor`; donor-side families: :class:`UpsilonTauDonor`,
:class:`ThetaTauDonor`, :class:`GenericDonor`.  The donor-side limits depend on the acceptor's own
family (sp2 O, sp3 O, sp3 N): a donor record holds one *target* record per acceptor family
(:class:`UpsilonTauTarget`, :class:`ThetaTauTarget`, :class:`DistanceTarget`), and
:data:`GENERIC_TARGETS` holds the targets used against acceptors of no such family.

Every field is declared a distance (Å, ``*_dist``), an angle (degrees) or a nested target with
:func:`dist` / :func:`angle` / :func:`target`, and :func:`relaxed` relaxes by that declaration
(recursively), never by the value: a distance becomes
``(d + dist_slop) ** 2`` (the tests compare squared distances), an angle lower limit ``max(0,
a - angle_slop)``; an upper limit is stored negated (``-limit``, ChimeraX's encoding) and becomes
``max(-180, a - angle_slop)``.  ``None`` (a test that does not apply) stays ``None``.

>>> relaxed(PhiPsi(dist=3.30, phi=110, theta=130), 0.4, 20.0)
PhiPsi(dist=13.689999999999998, phi=90.0, theta=110.0)
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from typing import Any, TypeVar

__all__ = [
    "AcceptorLimits",
    "DonorLimits",
    "GenericAcceptor",
    "DistanceTarget",
    "GenericDonor",
    "GenericTarget",
    "PhiPsi",
    "SynAnti",
    "ThetaTau",
    "ThetaTauDonor",
    "ThetaTauTarget",
    "UpsilonTauDonor",
    "UpsilonTauTarget",
    "GENERIC_TARGETS",
    "acceptor_limits",
    "angle",
    "dist",
    "donor_limits",
    "relaxed",
    "target",
]

_DIST, _ANGLE, _RECORD = "distance", "angle", "record"


def dist() -> Any:
    """Declare a field a distance limit, Å."""
    return field(metadata={"unit": _DIST})


def angle(*default: float | None) -> Any:
    """Declare a field an angle limit, degrees (a negative value encodes an upper limit); an
    optional ``default``."""
    return field(metadata={"unit": _ANGLE}, **({"default": default[0]} if default else {}))


def target() -> Any:
    """Declare a field a nested record of limits (a donor's limits against one acceptor family)."""
    return field(metadata={"unit": _RECORD})


# --- acceptor side ----------------------------------------------------------------------------
@dataclass(frozen=True)
class SynAnti:
    """Carboxylate-like acceptors: limits for a donor on the syn side and on the anti side."""

    syn_dist: float = dist()
    syn_phi: float = angle()
    syn_theta: float = angle()
    anti_dist: float = dist()
    anti_phi: float = angle()
    anti_theta: float = angle()


@dataclass(frozen=True)
class PhiPsi:
    """sp2 acceptors: D..A distance, in-plane angle phi, D-H..A angle theta."""

    dist: float = dist()
    phi: float = angle()
    theta: float = angle()


@dataclass(frozen=True)
class ThetaTau:
    """sp3 acceptors: D..A distance, upsilon window (``upsilon_high`` negated), theta."""

    dist: float = dist()
    upsilon_low: float = angle()
    upsilon_high: float = angle()
    theta: float = angle()


@dataclass(frozen=True)
class GenericAcceptor:
    """D..A distance and the smallest angle (bonded atom)-A..D."""

    dist: float = dist()
    min_angle: float = angle()


AcceptorLimits = SynAnti | PhiPsi | ThetaTau | GenericAcceptor


# --- donor side: the limits against one acceptor family ------------------------------------------
@dataclass(frozen=True)
class UpsilonTauTarget:
    """An upsilon/tau donor against one acceptor family: D..A distance, upsilon window
    (``upsilon_high`` negated), theta, tau (None: no tau test)."""

    dist: float = dist()
    upsilon_low: float = angle()
    upsilon_high: float = angle()
    theta: float = angle()
    tau: float | None = angle(None)


@dataclass(frozen=True)
class ThetaTauTarget:
    """A theta/tau donor against one acceptor family: H..A distance and theta."""

    h_dist: float = dist()
    theta: float = angle()


@dataclass(frozen=True)
class DistanceTarget:
    """A generic donor against one acceptor family: H..A distance (with hydrogens) and D..A
    distance (without)."""

    h_dist: float = dist()
    dist: float = dist()


@dataclass(frozen=True)
class GenericTarget:
    """A generic donor against an acceptor of no family: H..A and D..A distances; and, against
    every acceptor, the smallest D-H..A and (bonded atom)-D..A angles."""

    h_dist: float = dist()
    dist: float = dist()
    min_hyd_angle: float = angle()
    min_bonded_angle: float = angle()


# --- donor side: one record per donor family, a target per acceptor family ---------------------------
@dataclass(frozen=True)
class UpsilonTauDonor:
    """Donors whose hydrogens rotate (OH, NH2, NH3): their limits against sp2 O, sp3 O and sp3 N
    acceptors; ``sp3o_phi`` is ChimeraX's unused slot; ``sp3n_lone_pair_angle``: the smallest
    lone pair-A..D angle for an sp3 N acceptor with more than one neighbour."""

    sp2o: UpsilonTauTarget = target()
    sp3o: UpsilonTauTarget = target()
    sp3n: UpsilonTauTarget = target()
    sp3o_phi: float = angle()
    sp3n_lone_pair_angle: float = angle()


@dataclass(frozen=True)
class ThetaTauDonor:
    """Donors with a fixed hydrogen: their limits against sp2 O, sp3 O and sp3 N acceptors, plus
    the phi limit of two-neighbour sp3 O acceptors and the lone-pair angle of sp3 N acceptors."""

    sp2o: ThetaTauTarget = target()
    sp3o: ThetaTauTarget = target()
    sp3n: ThetaTauTarget = target()
    sp3o_phi: float = angle()
    sp3n_lone_pair_angle: float = angle()


@dataclass(frozen=True)
class GenericDonor:
    """Untemplated donors: their distances against sp2 O, sp3 O and sp3 N acceptors."""

    sp2o: DistanceTarget = target()
    sp3o: DistanceTarget = target()
    sp3n: DistanceTarget = target()


DonorLimits = UpsilonTauDonor | ThetaTauDonor | GenericDonor

#: Unrelaxed donor-side limits against an acceptor of no family, by donor family (generic,
#: theta/tau, upsilon/tau).
GENERIC_TARGETS = (GenericTarget(2.48, 3.42, 130, 90), ThetaTauTarget(2.48, 132),
                   UpsilonTauTarget(3.42, 90, -161, 125, None))

_ACCEPTORS = {"syn_anti": SynAnti, "phi_psi": PhiPsi, "theta_tau": ThetaTau, "generic": GenericAcceptor}


@lru_cache(maxsize=None)
def acceptor_limits(kind: str, values: tuple) -> AcceptorLimits:
    """The record of acceptor family ``kind`` from a row of the typing tables (fields in order)."""
    return _ACCEPTORS[kind](*values)


@lru_cache(maxsize=None)
def donor_limits(kind: str, values: tuple) -> DonorLimits:
    """The record of donor family ``kind`` from a flat row of the typing tables.

    Rows list the limits in ChimeraX's order: upsilon/tau -- sp2 O (dist, upsilon low/high, theta,
    tau), sp3 O (the same), ``sp3o_phi``, sp3 N (the same), ``sp3n_lone_pair_angle``; theta/tau --
    sp2 O (H..A dist, theta), sp3 O (the same), ``sp3o_phi``, sp3 N (the same),
    ``sp3n_lone_pair_angle``; generic -- the three H..A distances, then the three D..A distances.
    """
    v = tuple(values)
    if kind == "upsilon_tau":
        return UpsilonTauDonor(UpsilonTauTarget(*v[0:5]), UpsilonTauTarget(*v[5:10]), UpsilonTauTarget(*v[11:16]),
                               v[10], v[16])
    if kind == "theta_tau":
        return ThetaTauDonor(ThetaTauTarget(*v[0:2]), ThetaTauTarget(*v[2:4]), ThetaTauTarget(*v[5:7]), v[4], v[7])
    if kind == "generic":
        return GenericDonor(*(DistanceTarget(v[k], v[k + 3]) for k in range(3)))
    raise KeyError(kind)


_L = TypeVar("_L")


@lru_cache(maxsize=1024)
def relaxed(limits: _L, dist_slop: float, angle_slop: float) -> _L:
    """``limits`` relaxed by field: distances squared after adding ``dist_slop`` (Å), angles
    loosened by ``angle_slop`` (degrees); see the module docstring."""
    out = {}
    for f in fields(limits):
        v = getattr(limits, f.name)
        if v is None:
            continue
        if f.metadata["unit"] == _RECORD:
            out[f.name] = relaxed(v, dist_slop, angle_slop)
        elif f.metadata["unit"] == _DIST:
            out[f.name] = (v + dist_slop) ** 2
        elif v < 0.0:
            out[f.name] = max(-180.0, v - angle_slop)
        else:
            out[f.name] = max(0.0, v - angle_slop)
    return replace(limits, **out)
