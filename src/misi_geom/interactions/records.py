"""Contacts as the JSON records of ``misi-interactions`` and of the tasks' ``metadata.interactions``.

One object per contact: ``{"type", "residue": "ARG 45 A", "pocket_atoms": [...], "ligand_atoms":
[...], <geometry>}``.  The residue is name, number with insertion code, and chain (``?`` for a blank
chain, as the PLIP oracle writes it); atom names are as drawn (the files' names).  For a metal the
residue is the ion's.  Records are ordered by type (evaluation order), then chain, residue number,
insertion code and atom names.
"""

from __future__ import annotations

from typing import Any, Mapping

from misi_geom.complex import Complex
from misi_geom.interactions.base import Contact
from misi_geom.residues import atom_residue_label

__all__ = ["residue_label", "to_records", "format_table"]


def residue_label(c: Complex, i: int) -> str:
    """``"ARG 45 A"`` for atom row ``i`` (``"GLY 184A B"`` with an insertion code, ``?`` blank chain):
    :func:`misi_geom.residues.atom_residue_label` with the chain."""
    return atom_residue_label(c, i, with_chain=True)


def _key(c: Complex, rec: dict, x: Contact) -> tuple:
    i = x.pocket_atoms[0]
    return (str(c.chain_id[i]), int(c.res_id[i]), str(c.ins_code[i]), rec["pocket_atoms"], rec["ligand_atoms"])


def to_records(c: Complex, found: Mapping[str, list[Contact]]) -> list[dict[str, Any]]:
    """JSON-ready records of ``find_interactions`` output (see the module docs)."""
    out = []
    for kind, contacts in found.items():
        rows = []
        for x in contacts:
            rec = {"type": kind, "residue": residue_label(c, x.pocket_atoms[0]),
                   "pocket_atoms": [str(c.atom_name[i]) for i in x.pocket_atoms],
                   "ligand_atoms": [str(c.atom_name[i]) for i in x.ligand_atoms]}
            rec.update(x.geometry)
            rows.append((_key(c, rec, x), rec))
        out.extend(r for _, r in sorted(rows, key=lambda t: t[0]))
    return out


def format_table(records: list[dict[str, Any]]) -> str:
    """Plain-text table, one line per record (type, residue, atoms, geometry)."""
    head = ("type", "residue", "pocket atoms", "ligand atoms", "geometry")
    rows = [head]
    for r in records:
        geo = " ".join(f"{k}={v}" for k, v in r.items()
                       if k not in ("type", "residue", "pocket_atoms", "ligand_atoms"))
        rows.append((r["type"], r["residue"], " ".join(r["pocket_atoms"]), " ".join(r["ligand_atoms"]), geo))
    widths = [max(len(row[k]) for row in rows) for k in range(4)]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(row[:4], widths)) + "  " + row[4] for row in rows]
    return "\n".join(line.rstrip() for line in lines)
