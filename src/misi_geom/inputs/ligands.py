"""Which residues of an entry are ligands: polymer residues, the exclusion list, every copy / every ligand.

PLIP's way, made explicit:

- a **polymer residue** is a standard residue written as an ``ATOM`` record, or one peptide-bonded
  (its ``C`` within 1.75 Å of another residue's ``N``, or the other way round) or
  phosphodiester-linked (``O3'``-``P`` within 1.9 Å) to a neighbour; it is a
  ligand only when asked for as a whole chain (``--ligand chain:B``, a peptide ligand);
- ``--ligand all`` takes every residue that is none of: a polymer residue, a standard amino acid or
  nucleotide (free ones are named explicitly, e.g. ``ARG:A:130``), a single heavy atom (ions), or a
  residue of :data:`EXCLUDED` (waters are removed on reading);
- ``--ligand RES:*`` takes every non-polymer copy of ``RES``.

Each residue found becomes its own complex (``<id>_<RES>_<CHAIN>_<NUM>``, see :func:`copy_id`); the
other copies stay with the protein, as for any selection.
"""

from __future__ import annotations

import numpy as np

from misi_geom.complex import Complex

__all__ = ["EXCLUDED", "STANDARD_RESIDUES", "atom_record_residues", "polymer_residues", "residue_keys", "ligand_residues", "copy_id"]

#: Residue names ``--ligand all`` never takes: crystallisation additives, buffers, cryo-protectants,
#: detergents, reducing agents and common anions (after PLIP's list of biologically irrelevant groups).
EXCLUDED: frozenset[str] = frozenset(
    "GOL EDO PEG PGE PG4 PG5 PG6 1PE 2PE P6G P33 PE4 PE8 12P 15P MPD MRD IPA EOH MOH BU3 BU1 PGO PGR "
    "DMS DMSO ACT ACY ACE ACN FMT FOR CIT FLC TAR TLA MLI MLA MAL SIN SUC TRS TRIS EPE MES MPO HEPES "
    "BME DTT DTU TCE SO4 SUL PO4 PI 2HP NO3 SCN AZI NH4 IOD CL BR FLUO CO3 BCT OXL "
    "BOG LDA SDS C8E LMT DDQ HTO".split())
#: Standard amino acids (with MSE/SEC/PYL) and nucleotides.
STANDARD_RESIDUES: frozenset[str] = frozenset(
    "ALA ARG ASN ASP CYS GLN GLU GLY HIS ILE LEU LYS MET PHE PRO SER THR TRP TYR VAL "
    "MSE SEC PYL A C G U DA DC DG DT DU I DI".split())

Key = tuple[str, str, int, str]  # residue name, chain, number, insertion code


def residue_keys(c: Complex) -> list[Key]:
    """(name, chain, number, insertion code) of every residue of ``c``, file order."""
    starts = np.flatnonzero(np.r_[True, c.res_index[1:] != c.res_index[:-1]])
    return [(str(c.res_name[k]), str(c.chain_id[k]), int(c.res_id[k]), str(c.ins_code[k])) for k in starts]


def atom_record_residues(path) -> set[Key]:
    """Standard residues written as ``ATOM`` records (PDB; ``group_PDB`` in mmCIF) in the structure
    file ``path``: the chain's own residues, even where a cut pocket leaves them with no neighbour."""
    import gemmi

    try:
        st = gemmi.read_structure(str(path))
    except Exception:  # noqa: BLE001 - the caller's own reader reports unreadable files
        return set()
    if len(st) == 0:
        return set()
    return {(r.name, ch.name, r.seqid.num, r.seqid.icode.strip()) for ch in st[0] for r in ch
            if r.het_flag == "A" and r.name in STANDARD_RESIDUES}


def polymer_residues(c: Complex, atom_records: set[Key] | None = None) -> set[Key]:
    """Residues peptide- or phosphodiester-bonded to another residue (see the module docs), plus
    ``atom_records`` (:func:`atom_record_residues`) when given."""
    from scipy.spatial import cKDTree

    out: set[Key] = set(atom_records or ())
    for a, b, cutoff in (("C", "N", 1.75), ("O3'", "P", 1.9)):
        ia = np.flatnonzero((c.atom_name == a) & ~c.is_hydrogen)
        ib = np.flatnonzero((c.atom_name == b) & ~c.is_hydrogen)
        if not len(ia) or not len(ib):
            continue
        for i, near in zip(ia, cKDTree(c.coord[ib]).query_ball_point(c.coord[ia], cutoff)):
            for j in (ib[k] for k in near):
                if c.res_index[i] != c.res_index[j]:
                    out.add(_key(c, i))
                    out.add(_key(c, j))
    return out


def _key(c: Complex, i: int) -> Key:
    return (str(c.res_name[i]), str(c.chain_id[i]), int(c.res_id[i]), str(c.ins_code[i]))


def ligand_residues(c: Complex, res_name: str | None = None,
                    atom_records: set[Key] | None = None) -> tuple[list[Key], list[str]]:
    """Residues of ``c`` taken by ``--ligand all`` (``res_name=None``) or ``--ligand RES:*``, file
    order, and a note per kind of residue left out (e.g. ``"GOL: excluded additive"``)."""
    polymer = polymer_residues(c, atom_records)
    heavy_count: dict[int, int] = {}
    for k in np.flatnonzero(~c.is_hydrogen):
        heavy_count[int(c.res_index[k])] = heavy_count.get(int(c.res_index[k]), 0) + 1
    starts = np.flatnonzero(np.r_[True, c.res_index[1:] != c.res_index[:-1]])
    keys, left_out = [], {}
    for k in starts:
        key = _key(c, k)
        name = key[0]
        if res_name is not None:
            if name != res_name.upper():
                continue
            if key in polymer:
                left_out[name] = "polymer residue"
                continue
            keys.append(key)
            continue
        why = ("polymer residue" if key in polymer else
               "standard residue (name it to use a free one)" if name in STANDARD_RESIDUES else
               "single atom (ion)" if heavy_count.get(int(c.res_index[k]), 0) <= 1 else
               "excluded additive" if name in EXCLUDED else None)
        if why is None:
            keys.append(key)
        elif why != "polymer residue" or name not in STANDARD_RESIDUES:
            left_out.setdefault(name, why)
    return keys, [f"{n}: {w}" for n, w in sorted(left_out.items())]


def copy_id(base: str, key: Key) -> str:
    """Complex id of one ligand copy: ``<id>_<RES>_<CHAIN>_<NUM>`` (a blank chain is written ``-``).

    >>> copy_id("1abc", ("ATP", "B", 501, ""))
    '1abc_ATP_B_501'
    """
    name, chain, num, icode = key
    return f"{base}_{name}_{chain or '-'}_{num}{icode}"
