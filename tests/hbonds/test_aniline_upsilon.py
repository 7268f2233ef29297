"""The aniline NH2 donor's sp3 N upsilon limit is +161, as in ChimeraX ``hbonds``: pinned, with its effect.

ChimeraX's donor table (``hbond.py``, row "aniline-like", the sp3 N triple marked "estimated") lists
``3.42, 90, 161, 125, None, 140``: an upper upsilon limit written positive where every other row has
it negative.  ChimeraX relaxes a positive angle as a lower limit (161 - 20 = 141) and then tests
``upsilon > -141``, which every angle satisfies, so the upsilon test always fails: an aniline NH2
never donates to a tetrahedral N.  misi follows ChimeraX (its ground truth), so it keeps the value;
these tests say so, and show that the same geometry towards a tetrahedral O does pass.
"""

from __future__ import annotations

import numpy as np
import pytest

from misi_geom import Complex, assign_hbond_types
from misi_geom.hbonds.criteria import FAILURES, Context, donor_failures
from misi_geom.hbonds.limits import relaxed


def _aniline() -> Complex:
    """Aniline in the xy plane (ring centred at the origin, N on +x), hydrogens explicit."""
    ang = np.radians(np.arange(6) * 60.0)
    ring = np.column_stack([1.39 * np.cos(ang), 1.39 * np.sin(ang), np.zeros(6)])
    ring_h = np.column_stack([2.47 * np.cos(ang[1:]), 2.47 * np.sin(ang[1:]), np.zeros(5)])
    n = np.array([2.79, 0.0, 0.0])
    nh = n + 1.01 * np.array([[0.5, 0.866, 0.0], [0.5, -0.866, 0.0]])
    bonds = [(i, (i + 1) % 6) for i in range(6)] + [(i + 1, 6 + i) for i in range(5)] + [(0, 11), (11, 12), (11, 13)]
    return Complex.from_atoms(np.vstack([ring, ring_h, n, nh]), ["C"] * 6 + ["H"] * 5 + ["N", "H", "H"],
                              [f"C{i + 1}" for i in range(6)] + [f"H{i + 2}" for i in range(5)] + ["N1", "HN1", "HN2"],
                              bonds=bonds, bond_order=[2, 1, 2, 1, 2, 1] + [1] * 8)


def _tetrahedral(element: str, at: np.ndarray, away: np.ndarray) -> Complex:
    """Methylamine (N) or methanol (O) at ``at``, substituents pointing along ``away`` so that a
    lone pair points back."""
    u = np.cross(away, [0.0, 0.0, 1.0])
    u /= np.linalg.norm(u)
    w = np.cross(away, u)
    dirs = [0.334 * away + 0.943 * (np.cos(t) * u + np.sin(t) * w) for t in (0.0, 2.094, 4.189)]
    c_pos = at + 1.47 * dirs[0]
    own_h = [at + 1.01 * d for d in dirs[1:3 if element == "N" else 2]]
    methyl_h = [c_pos + 1.09 * (c_pos - at) / 1.47 + 0.4 * d for d in dirs]
    nh = len(own_h)
    return Complex.from_atoms([at, c_pos, *own_h, *methyl_h], [element, "C"] + ["H"] * (nh + 3),
                              [element + "A", "CA"] + [f"H{i}" for i in range(nh + 3)],
                              bonds=[(0, 1)] + [(0, 2 + i) for i in range(nh)] + [(1, 2 + nh + i) for i in range(3)])


def _scene(element: str, direction: np.ndarray, dist: float = 2.95) -> tuple[Complex, int]:
    lig = _aniline()
    d_pos = lig.coord[11]
    acc = _tetrahedral(element, d_pos + dist * direction, direction)
    return Complex.concatenate([acc, lig]), len(acc) + 11


def test_the_aniline_row_keeps_chimerax_positive_sp3n_upsilon_high():
    c, donor = _scene("O", np.array([0.5, 0.866, 0.0]))
    don = assign_hbond_types(c).donor[donor]
    assert don.name == "aniline NH2"
    assert don.limits.sp3n.upsilon_high == 161  # ChimeraX's value; the sp2 O / sp3 O rows are negative
    assert don.limits.sp2o.upsilon_high < 0 and don.limits.sp3o.upsilon_high < 0
    assert relaxed(don.limits, 0.4, 20.0).sp3n.upsilon_high == 141  # a positive angle relaxes downwards


@pytest.mark.parametrize("ds, da", [(0.4, 20.0), (0.0, 0.0)])
def test_an_aniline_nh2_never_donates_to_a_tetrahedral_n_but_does_to_a_tetrahedral_o(ds, da):
    rng = np.random.default_rng(3)
    h_dir = np.array([0.5, 0.866, 0.0])
    directions = [h_dir] + [v / np.linalg.norm(v) for v in h_dir + 0.25 * rng.normal(size=(20, 3))]
    for direction in directions:
        for element, want in (("N", "upsilon"), ("O", None)):
            c, donor = _scene(element, direction)
            typing = assign_hbond_types(c)
            assert (element, typing.idatm[0][:2]) in (("N", "N3"), ("O", "O3"))
            code = donor_failures(Context(c, typing), np.array([donor]), np.array([0]), ds, da)[0]
            if element == "N":
                assert FAILURES[code] == "upsilon"  # every upsilon angle fails "upsilon > -141"
            elif direction is h_dir:
                assert FAILURES[code] is want  # the ideal geometry passes against an sp3 O
