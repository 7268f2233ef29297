"""Covalent ligands: ligand atoms bonded to a pocket atom, and the bond orders at the linked atom.

A ligand heavy atom and a pocket heavy atom closer than the sum of their covalent radii plus
:data:`~misi_geom.bonds.DEFAULT_BOND_TOLERANCE` (the rule that bonds pocket atoms) are covalently
linked; metals are never linked this way (coordination, not a covalent bond).  For a ligand picked
from an entry, the bonds the file declares (PDB ``LINK``, mmCIF ``struct_conn``) count too
(:func:`declared_links`).  A covalent ligand's
bond-order template (a SMILES, or the ligand file) usually describes the molecule before it reacted:
a nitrile's ``C#N`` or an acrylamide's ``C=C`` at the atom that now bonds the cysteine.  The linked
atom gained a bond, so :func:`relink_bond_orders` lowers one multiple bond there by one (a triple
before a double, a bond to a heteroatom first): the thioimidate ``C=N`` a nitrile becomes, the
single bond of a Michael adduct.  The hydrogen-bond typing then follows the real adduct.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from misi_geom.bonds import DEFAULT_BOND_TOLERANCE
from misi_geom.complex import Complex
from misi_geom.elements import METALS, covalent_radii

__all__ = ["CovalentLink", "covalent_links", "declared_links", "relink_bond_orders"]


@dataclass(frozen=True)
class CovalentLink:
    """One ligand-pocket bond: row indices into the pocket and the ligand, and its length (Å)."""

    pocket_atom: int
    ligand_atom: int
    distance: float
    declared: bool = False  # only the file's LINK / struct_conn says so (beyond the radius rule)

    def describe(self, pocket: Complex, ligand: Complex) -> str:
        """``"C7 - CYS 58 SG A (1.82 Å)"`` (``", declared in the file"`` added for a declared-only bond)."""
        p, k = self.pocket_atom, self.ligand_atom
        chain = f" {pocket.chain_id[p]}" if pocket.chain_id[p] else ""
        return (f"{ligand.atom_name[k]} - {pocket.res_name[p]} {pocket.res_id[p]}{pocket.ins_code[p]} "
                f"{pocket.atom_name[p]}{chain} ({self.distance:.2f} Å{', declared in the file' if self.declared else ''})")


def covalent_links(pocket: Complex, ligand: Complex, tolerance: float = DEFAULT_BOND_TOLERANCE) -> list[CovalentLink]:
    """Ligand-pocket heavy-atom pairs within bonding distance (module docs), by ligand atom."""
    from scipy.spatial import cKDTree

    ph = np.flatnonzero(~pocket.is_hydrogen & ~np.isin(pocket.element, list(METALS)))
    lh = np.flatnonzero(~ligand.is_hydrogen & ~np.isin(ligand.element, list(METALS)))
    if not len(ph) or not len(lh):
        return []
    rp, rl = covalent_radii(pocket.element[ph]), covalent_radii(ligand.element[lh])
    out = []
    for a, near in enumerate(cKDTree(pocket.coord[ph]).query_ball_point(ligand.coord[lh], 2.6)):
        for b in near:
            d = float(np.linalg.norm(ligand.coord[lh[a]] - pocket.coord[ph[b]]))
            if 0.4 < d < rl[a] + rp[b] + tolerance:
                out.append(CovalentLink(int(ph[b]), int(lh[a]), d))
    return sorted(out, key=lambda x: (x.ligand_atom, x.pocket_atom))


def declared_links(path, ligand_keys, pocket: Complex, ligand: Complex,
                   found: list[CovalentLink]) -> list[CovalentLink]:
    """Covalent bonds the structure file declares (PDB ``LINK``, mmCIF ``struct_conn`` of type
    ``covale``, read by gemmi) between a residue of ``ligand_keys`` and a pocket atom, that are not
    in ``found`` (e.g. longer than the radius rule allows); by ligand atom."""
    import gemmi

    try:
        conns = gemmi.read_structure(str(path)).connections
    except Exception:  # noqa: BLE001 - the structure reader reports unreadable files
        return []
    keys = {(k[1], k[2], k[3], k[0]) for k in ligand_keys}
    have = {(x.pocket_atom, x.ligand_atom) for x in found}
    out = []
    for conn in conns:
        if conn.type != gemmi.ConnectionType.Covale:
            continue
        ends = []
        for part in (conn.partner1, conn.partner2):
            rid = part.res_id
            ends.append(((part.chain_name, rid.seqid.num, rid.seqid.icode.strip(), rid.name), part.atom_name))
        for (lk, lname), (pk, pname) in (ends, ends[::-1]):
            if lk not in keys or pk in keys:
                continue
            lrow = np.flatnonzero(ligand.atom_name == lname)
            prow = np.flatnonzero((pocket.chain_id == pk[0]) & (pocket.res_id == pk[1]) & (pocket.ins_code == pk[2])
                                  & (pocket.res_name == pk[3]) & (pocket.atom_name == pname))
            if len(lrow) == 1 and len(prow) == 1 and (int(prow[0]), int(lrow[0])) not in have:
                d = float(np.linalg.norm(ligand.coord[lrow[0]] - pocket.coord[prow[0]]))
                out.append(CovalentLink(int(prow[0]), int(lrow[0]), d, declared=True))
                have.add((int(prow[0]), int(lrow[0])))
    return sorted(out, key=lambda x: (x.ligand_atom, x.pocket_atom))


def relink_bond_orders(ligand: Complex, links: list[CovalentLink]) -> tuple[Complex, list[str]]:
    """``ligand`` with one multiple bond lowered at each linked atom (module docs), and a note per
    change (``"C7=N8 -> C7-N8"``); unchanged when the linked atom has no multiple bond."""
    order = ligand.bond_order.astype(np.float64).copy()
    notes = []
    for link in links:
        k = link.ligand_atom
        rows = [r for r in range(len(ligand.bonds)) if k in ligand.bonds[r] and order[r] >= 2.0]
        if not rows:
            continue

        def rank(r: int) -> tuple:
            other = int(ligand.bonds[r][0] if ligand.bonds[r][1] == k else ligand.bonds[r][1])
            return (-order[r], ligand.element[other] == "C", other)

        r = min(rows, key=rank)
        i, j = (int(x) for x in ligand.bonds[r])
        sym = {3.0: "#", 2.0: "="}
        notes.append(f"{ligand.atom_name[i]}{sym.get(order[r], '=')}{ligand.atom_name[j]} -> "
                     f"{ligand.atom_name[i]}{sym.get(order[r] - 1, '-')}{ligand.atom_name[j]}")
        order[r] -= 1.0
    if not notes:
        return ligand, []
    return replace(ligand, bond_order=order.astype(ligand.bond_order.dtype)), notes
