"""Provenance of explicit-file inputs across a run: kept beside the work units, summed up in the card.

A worker that loads a complex from explicit files (manifest or structure entry) stores the load's
provenance (:meth:`misi_geom.inputs.FileSource.load`: file names, sha256 checksums, bond-order
origin, warnings, explicit hydrogens) as ``units/<complex>/source.json`` in the run's work folder
(:func:`misi_tasks.engine.units.work_dir_for`, beside ``OUT``), read for the card before the units are cleared, so that a
resumed run still knows every complex's sources; items carry the same record as
``metadata["source"]``.  PDBbind folders record nothing here, so their output is unchanged.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterable

from misi_tasks._atomic import atomic_write_bytes
from misi_tasks.engine.units import WorkDir
from misi_tasks.inputs.discover import natural_key

__all__ = ["save_provenance", "load_provenance", "card_sources_section"]


def _path(out_dir: Path, complex_id: str) -> Path:
    return WorkDir(out_dir).root / "units" / complex_id / "source.json"


def save_provenance(out_dir: Path, complex_id: str, provenance: dict[str, Any] | None) -> None:
    """Store one complex's provenance (nothing for ``None``)."""
    if provenance is not None:
        atomic_write_bytes(_path(out_dir, complex_id), json.dumps(provenance, sort_keys=True).encode())


def load_provenance(out_dir: Path, complex_ids: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Provenance of those complexes that have one, by id."""
    out = {}
    for cid in complex_ids:
        p = _path(out_dir, cid)
        if p.is_file():
            out[cid] = json.loads(p.read_text())
    return out


def card_sources_section(sources: dict[str, dict[str, Any]]) -> list[str]:
    """Markdown lines of the card's "Sources" section; none when no complex came from explicit files.

    >>> card_sources_section({})
    []
    """
    if not sources:
        return []
    n = len(sources)
    sides = [(p["explicit_hydrogens"]["pocket"], p["explicit_hydrogens"]["ligand"]) for p in sources.values()]
    n_both, n_pocket, n_ligand = sides.count((True, True)), sides.count((True, False)), sides.count((False, True))
    files: dict[str, str] = {}
    for p in sources.values():
        for f in p["files"].values():
            files[f["file"]] = f["sha256"]
    lines = [
        "## Sources",
        "",
        f"{n} complexes were read from explicit files (a manifest or a structure entry). Of these {n} "
        f"complexes, {n_both} have explicit hydrogens on both pocket and ligand, {n_pocket} on the pocket only, "
        f"{n_ligand} on the ligand only and {n - n_both - n_pocket - n_ligand} on neither; where they are "
        "missing, hydrogen-bond ground truth infers them. "
        "Each item's `metadata.source` names its files with their sha256 checksums, how the pocket and "
        "the ligand's bond orders were obtained, and any warning.",
        "",
        "| complex | protein | ligand | pocket | bond orders | explicit H | warnings |",
        "|---|---|---|---|---|---|---|",
    ]
    for cid in sorted(sources, key=natural_key):
        p = sources[cid]
        f = p["files"]
        lig = p.get("ligand_selection") or f.get("ligand", {}).get("file", "")
        if "pose" in p:
            lig += f" (pose {p['pose']})"
        h = "+".join(k for k in ("pocket", "ligand") if p["explicit_hydrogens"][k]) or "none"
        lines.append(f"| `{cid}` | {f.get('protein', {}).get('file', '')} | {lig} | "
                     f"{f['pocket']['file'] if 'pocket' in f else p['pocket']} | {p['bond_orders']} | {h} | "
                     f"{len(p['warnings'])} |")
    lines += ["", "| file | sha256 |", "|---|---|"]
    lines += [f"| {name} | `{sha}` |" for name, sha in sorted(files.items())]
    lines.append("")
    return lines
