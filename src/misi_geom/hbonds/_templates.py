"""Residue templates for IDATM typing (private): the 20 standard amino acids (and the
state-named variants programs write), the chain-fragment and C-terminus rules, and explicit
hydrogens deciding acid and histidine protonation, as ChimeraX's templates do.

The tables describe chemistry, not any program's code.
"""

from __future__ import annotations

import numpy as np

from misi_geom.complex import Complex
from misi_geom.hbonds._graph import AtomGraph

__all__ = ["template_types"]

_BACKBONE = {"N": "Npl", "CA": "C3", "C": "C2", "O": "O2", "OXT": "O2-"}
_SIDE = {
    "ALA": {"CB": "C3"},
    "ARG": {"CB": "C3", "CG": "C3", "CD": "C3", "NE": "Ng+", "CZ": "C2", "NH1": "Ng+", "NH2": "Ng+"},
    "ASN": {"CB": "C3", "CG": "C2", "OD1": "O2", "ND2": "Npl"},
    "ASP": {"CB": "C3", "CG": "Cac", "OD1": "O2-", "OD2": "O2-"},
    "CYS": {"CB": "C3", "SG": "S3"},
    "GLN": {"CB": "C3", "CG": "C3", "CD": "C2", "OE1": "O2", "NE2": "Npl"},
    "GLU": {"CB": "C3", "CG": "C3", "CD": "Cac", "OE1": "O2-", "OE2": "O2-"},
    "GLY": {},
    "HIS": {"CB": "C3", "CG": "Car", "ND1": "Npl", "CD2": "Car", "CE1": "Car", "NE2": "Npl"},
    "ILE": {"CB": "C3", "CG1": "C3", "CG2": "C3", "CD1": "C3"},
    "LEU": {"CB": "C3", "CG": "C3", "CD1": "C3", "CD2": "C3"},
    "LYS": {"CB": "C3", "CG": "C3", "CD": "C3", "CE": "C3", "NZ": "N3+"},
    "MET": {"CB": "C3", "CG": "C3", "SD": "S3", "CE": "C3"},
    "PHE": {"CB": "C3", **{n: "Car" for n in ("CG", "CD1", "CD2", "CE1", "CE2", "CZ")}},
    "PRO": {"CB": "C3", "CG": "C3", "CD": "C3"},
    "SER": {"CB": "C3", "OG": "O3"},
    "THR": {"CB": "C3", "OG1": "O3", "CG2": "C3"},
    "TRP": {"CB": "C3", "NE1": "Npl",
            **{n: "Car" for n in ("CG", "CD1", "CD2", "CE2", "CE3", "CZ2", "CZ3", "CH2")}},
    "TYR": {"CB": "C3", "OH": "O3", **{n: "Car" for n in ("CG", "CD1", "CD2", "CE1", "CE2", "CZ")}},
    "VAL": {"CB": "C3", "CG1": "C3", "CG2": "C3"},
}
_SIDE["HID"] = _SIDE["HIE"] = _SIDE["HIP"] = _SIDE["HIS"]
_SIDE["CYX"] = _SIDE["CYM"] = _SIDE["CYS"]
_SIDE["ASH"], _SIDE["GLH"], _SIDE["LYN"] = _SIDE["ASP"], _SIDE["GLU"], _SIDE["LYS"]


def template_types(c: Complex, g: AtomGraph, out: np.ndarray) -> np.ndarray:
    """Type (in ``out``) every atom a residue template covers; returns which atoms it typed."""
    done = np.zeros(len(c), dtype=bool)
    pocket = ~c.is_ligand
    _ligand_template_types(c, out, done)
    for i in np.flatnonzero(pocket & ~c.is_hydrogen):
        side = _SIDE.get(str(c.res_name[i]))
        if side is None:
            continue
        name = str(c.atom_name[i])
        t = side.get(name) or _BACKBONE.get(name)
        if t is None:
            continue
        out[i] = t
        done[i] = True
    # chain-fragment starts: a backbone N without a peptide bond is charged (N3+), unless the
    # residue before it in the file continues the numbering (same chain, number +0/+1): ChimeraX
    # then sees missing structure inside one fragment, not a new N-terminus.
    # C-termini: OXT present -> carboxylate
    res_key = {int(r): (str(ch), int(n)) for r, ch, n in zip(c.res_index[pocket], c.chain_id[pocket], c.res_id[pocket])}
    for i in np.flatnonzero(done):
        name = str(c.atom_name[i])
        if name == "N":
            if any(c.atom_name[j] == "C" and c.res_index[j] != c.res_index[i] for j in g.nbrs[i]):
                continue
            prev = res_key.get(int(c.res_index[i]) - 1)
            if prev is None or prev[0] != c.chain_id[i] or int(c.res_id[i]) - prev[1] not in (0, 1):
                out[i] = "N3+"
        elif name == "OXT":
            for j in g.nbrs[i]:
                out[j] = "Cac"
                for k in g.nbrs[j]:
                    if c.atom_name[k] == "O":
                        out[k] = "O2-"
    for i in np.flatnonzero(pocket & c.is_hydrogen):
        out[i] = "HC" if any(c.element[j] == "C" for j in g.nbrs[i]) else "H"
        done[i] = True
    _protonation_from_hydrogens(c, g, out)
    return done


#: Acid groups of the standard residues: residue -> (carboxyl carbon, {acid O: the H name that
#: protonates it}).  ChimeraX picks the neutral-acid template variant by these names (PDB
#: convention: HD2 on OD2 of a protonated aspartate; HD1/HE1 where a program puts it on the
#: other oxygen), the first listed oxygen winning when both are named.
_ACIDS = {
    "ASP": ("CG", {"OD1": "HD1", "OD2": "HD2"}),
    "GLU": ("CD", {"OE1": "HE1", "OE2": "HE2"}),
}
_ACIDS["ASH"], _ACIDS["GLH"] = _ACIDS["ASP"], _ACIDS["GLU"]
#: Residue names a program (Amber, CHARMM) gives one protonation state; ChimeraX has no template for
#: them and types them from their chemistry, i.e. from the hydrogens actually bonded.
_BY_CHEMISTRY = frozenset({"ASH", "GLH", "HID", "HIE", "HIP"})


def _protonation_from_hydrogens(c: Complex, g: AtomGraph, out: np.ndarray) -> None:
    """Explicit hydrogens decide the protonation of pocket acid and histidine groups, as in ChimeraX.

    * A standard ASP/GLU carrying an acid hydrogen (HD2 on OD2, ...) is a neutral carboxylic acid:
      carbon ``C2``, protonated oxygen ``O3`` (an H-bond donor through its H), the other ``O2``.
      The hydrogen is recognised by its name (ChimeraX's templates do the same).  For the
      state-named residues ASH/GLH the oxygen actually bonded to a hydrogen is the protonated one.
    * HID/HIE/HIP: a ring N without a hydrogen, next to a ring N that has one, is ``N2`` (an
      acceptor only).  Standard HIS keeps its template (both ring N ``Npl``), as ChimeraX does.

    Without hydrogens on the group nothing changes (the charged template stands).
    """
    pocket = ~c.is_ligand
    rows = np.flatnonzero(pocket)
    if not len(rows) or not (c.is_hydrogen[rows]).any():
        return
    by_res: dict[int, list[int]] = {}
    for i in rows.tolist():
        by_res.setdefault(int(c.res_index[i]), []).append(i)
    for atoms in by_res.values():
        res = str(c.res_name[atoms[0]])
        if res not in _ACIDS and res not in ("HID", "HIE", "HIP"):
            continue
        name_of = {str(c.atom_name[i]): i for i in atoms}
        if res in _ACIDS:
            carbon, oxygens = _ACIDS[res]
            if carbon not in name_of or not all(o in name_of for o in oxygens):
                continue
            if res in _BY_CHEMISTRY:
                protonated = [o for o in oxygens if any(g.is_h[j] for j in g.nbrs[name_of[o]])]
            else:
                protonated = [o for o, h in oxygens.items() if h in name_of and g.is_h[name_of[h]]]
            if not protonated:
                continue
            out[name_of[carbon]] = "C2"
            for o in oxygens:
                out[name_of[o]] = "O3" if o == protonated[0] else "O2"
        else:
            ring_n = [name_of[n] for n in ("ND1", "NE2") if n in name_of]
            with_h = [i for i in ring_n if any(g.is_h[j] for j in g.nbrs[i])]
            if with_h:
                for i in ring_n:
                    if i not in with_h:
                        out[i] = "N2"


def _ligand_template_types(c: Complex, out: np.ndarray, done: np.ndarray) -> None:
    """A ligand residue named like a standard amino acid (e.g. a peptide stored as one mol2
    substructure "HIS") is typed as ChimeraX types it: every atom whose name appears in that
    residue's template takes the template type, whatever its chemistry; as a lone residue its N is
    a charged N-terminus (N3+), and with an OXT its C/O form a carboxylate (Cac/O2-)."""
    lig = np.flatnonzero(c.is_ligand & ~c.is_hydrogen)
    for res in set(c.res_name[lig].tolist()):
        side = _SIDE.get(res)
        if side is None:
            continue
        rows = lig[c.res_name[lig] == res]
        names = set(c.atom_name[rows].tolist())
        table = {**_BACKBONE, **side, "N": "N3+"}
        if "OXT" in names:
            table.update(C="Cac", O="O2-")
        for i in rows:
            t = table.get(str(c.atom_name[i]))
            if t is not None:
                out[i] = t
                done[i] = True
