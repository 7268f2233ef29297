"""The limits of each H-bond criterion family as named records (Mills & Dean 1996, ChimeraX ``hbonds``).

One frozen dataclass per family.  Acceptor-side families: :class:`SynAnti`, :class:`PhiPsi`,
:class:`ThetaTau`, :class:`GenericAcceptor`; donor-side families: :class:`UpsilonTauDonor`,
:class:`ThetaTauDonor`, :class:`GenericDonor` -- the donor-side limits depend on the acceptor's own
family (sp2 O, sp3 O, sp3 N), hence the prefixes.  :class:`GenericTarget`, :class:`ThetaTauTarget`
and :class:`UpsilonTauTarget` hold the donor-side limits used against acceptors of no such family.

Every field is declared a distance (Å, ``*_dist``) or an angle (degrees) with :func:`dist` /
:func:`angle`, and :func:`relaxed` relaxes by that declaration, never by the value: a distance becomes
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
]

_DIST, _ANGLE = "distance", "angle"


def dist() -> Any:
    """Declare a field a distance limit, Å."""
    return field(metadata={"unit": _DIST})


def angle() -> Any:
    """Declare a field an angle limit, degrees (a negative value encodes an upper limit)."""
    return field(metadata={"unit": _ANGLE})


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


# --- donor side -------------------------------------------------------------------------------
@dataclass(frozen=True)
class UpsilonTauDonor:
    """Donors whose hydrogens rotate (OH, NH2, NH3): D..A distance, upsilon window, theta, tau, per
    acceptor family; ``sp3o_phi`` is ChimeraX's unused slot; ``sp3n_lone_pair_angle``: the smallest
    lone pair-A..D angle for an sp3 N acceptor with more than one neighbour."""

    sp2o_dist: float = dist()
    sp2o_upsilon_low: float = angle()
    sp2o_upsilon_high: float = angle()
    sp2o_theta: float = angle()
    sp2o_tau: float | None = angle()
    sp3o_dist: float = dist()
    sp3o_upsilon_low: float = angle()
    sp3o_upsilon_high: float = angle()
    sp3o_theta: float = angle()
    sp3o_tau: float | None = angle()
    sp3o_phi: float = angle()
    sp3n_dist: float = dist()
    sp3n_upsilon_low: float = angle()
    sp3n_upsilon_high: float = angle()
    sp3n_theta: float = angle()
    sp3n_tau: float | None = angle()
    sp3n_lone_pair_angle: float = angle()


@dataclass(frozen=True)
class ThetaTauDonor:
    """Donors with a fixed hydrogen: H..A distance and theta per acceptor family, plus the phi limit
    of two-neighbour sp3 O acceptors and the lone-pair angle of sp3 N acceptors."""

    sp2o_h_dist: float = dist()
    sp2o_theta: float = angle()
    sp3o_h_dist: float = dist()
    sp3o_theta: float = angle()
    sp3o_phi: float = angle()
    sp3n_h_dist: float = dist()
    sp3n_theta: float = angle()
    sp3n_lone_pair_angle: float = angle()


@dataclass(frozen=True)
class GenericDonor:
    """Untemplated donors: H..A distance (with hydrogens) and D..A distance (without) per family."""

    sp2o_h_dist: float = dist()
    sp3o_h_dist: float = dist()
    sp3n_h_dist: float = dist()
    sp2o_dist: float = dist()
    sp3o_dist: float = dist()
    sp3n_dist: float = dist()


DonorLimits = UpsilonTauDonor | ThetaTauDonor | GenericDonor


# --- donor side against acceptors of no family ---------------------------------------------------
@dataclass(frozen=True)
class GenericTarget:
    """Generic donors: H..A and D..A distances, smallest D-H..A and (bonded atom)-D..A angles."""

    h_dist: float = dist()
    dist: float = dist()
    min_hyd_angle: float = angle()
    min_bonded_angle: float = angle()


@dataclass(frozen=True)
class ThetaTauTarget:
    """Theta/tau donors: H..A distance and theta."""

    h_dist: float = dist()
    theta: float = angle()


@dataclass(frozen=True)
class UpsilonTauTarget:
    """Upsilon/tau donors: D..A distance, upsilon window, theta."""

    dist: float = dist()
    upsilon_low: float = angle()
    upsilon_high: float = angle()
    theta: float = angle()


#: Unrelaxed donor-side limits against an acceptor of no family, by donor family.
GENERIC_TARGETS = (GenericTarget(2.48, 3.42, 130, 90), ThetaTauTarget(2.48, 132),
                   UpsilonTauTarget(3.42, 90, -161, 125))

_ACCEPTORS = {"syn_anti": SynAnti, "phi_psi": PhiPsi, "theta_tau": ThetaTau, "generic": GenericAcceptor}
_DONORS = {"upsilon_tau": UpsilonTauDonor, "theta_tau": ThetaTauDonor, "generic": GenericDonor}


def acceptor_limits(kind: str, values: tuple) -> AcceptorLimits:
    """The record of acceptor family ``kind`` from a row of the typing tables (fields in order)."""
    return _ACCEPTORS[kind](*values)


def donor_limits(kind: str, values: tuple) -> DonorLimits:
    """The record of donor family ``kind`` from a row of the typing tables (fields in order)."""
    return _DONORS[kind](*values)


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
        if f.metadata["unit"] == _DIST:
            out[f.name] = (v + dist_slop) ** 2
        elif v < 0.0:
            out[f.name] = max(-180.0, v - angle_slop)
        else:
            out[f.name] = max(0.0, v - angle_slop)
    return replace(limits, **out)
