"""Ligand atom names come from the mol2 file even when only the SDF can be parsed.

PDBbind ships each ligand twice; when RDKit cannot sanitise the mol2 the loader reads the SDF and
matches the mol2's names back onto its atoms.  The two files of one ligand often differ by ~0.1 Å
and may list atoms in another order, so the match goes by element and bond graph (symmetric
alternatives decided by position), else by nearest position within 0.5 Å.  The cases are built
from the bundled sample 1h1d (whose mol2 and SDF agree): its mol2 is rewritten with every atom
moved ~0.1 Å, atoms listed in reverse order, and one bond order made impossible (a five-valent
carbon) so that RDKit refuses it, as it refuses many PDBbind mol2 files.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest
from rdkit import Chem

from misi_geom import find_hbonds, load_complex
from ..hbond_text import format_t9
from misi_geom.io import MOL2_MATCH_TOLERANCE
from misi_geom.samples import sample_dirs

SAMPLE = next(d for d in sample_dirs() if d.name == "1h1d")


def _sections(text: str) -> tuple[list[str], list[str], list[str], list[str]]:
    """(lines before ATOM, atom lines, bond lines, lines from the next section on)."""
    lines = text.splitlines()
    a = lines.index("@<TRIPOS>ATOM")
    b = lines.index("@<TRIPOS>BOND")
    end = next((k for k in range(b + 1, len(lines)) if lines[k].startswith("@<TRIPOS>")), len(lines))
    return lines[:a + 1], lines[a + 1:b], lines[b + 1:end], lines[end:]


def _rewrite_mol2(src: Path, dst: Path, *, shift: float, reverse: bool, break_valence: bool,
                  drop_bonds: bool = False) -> list[str]:
    """Write a changed copy of mol2 ``src``; returns the atom names in the original order."""
    head, atoms, bonds, tail = _sections(src.read_text())
    atoms = [a.split() for a in atoms if a.strip()]
    n = len(atoms)
    rng = np.random.default_rng(7)
    new_id = {k + 1: (n - k if reverse else k + 1) for k in range(n)}
    rows = [None] * n
    for k, f in enumerate(atoms):
        step = rng.normal(size=3)
        xyz = np.array(f[2:5], float) + shift * step / np.linalg.norm(step)
        rows[new_id[k + 1] - 1] = (f"{new_id[k + 1]:7d} {f[1]:<8s}{xyz[0]:10.4f}{xyz[1]:10.4f}{xyz[2]:10.4f} "
                                   f"{f[5]:<9s}" + " ".join(f[6:]))
    out_bonds = []
    broken = False
    for line in bonds:
        f = line.split()
        if len(f) < 4:
            continue
        i, j, order = int(f[1]), int(f[2]), f[3]
        if break_valence and not broken and order == "1" and atoms[i - 1][5] == "C.3" and atoms[j - 1][5] == "C.3":
            order, broken = "2", True
        out_bonds.append(f"{len(out_bonds) + 1:6d}{new_id[i]:6d}{new_id[j]:6d} {order}")
    assert broken or not break_valence
    if drop_bonds:
        out_bonds = []
    dst.write_text("\n".join(head + rows + ["@<TRIPOS>BOND"] + out_bonds + tail) + "\n")
    return [f[1] for f in atoms]


@pytest.fixture()
def make_case(tmp_path):
    def make(**kw) -> tuple[Path, list[str]]:
        folder = tmp_path / "1h1d"
        folder.mkdir(exist_ok=True)
        for f in ("1h1d_pocket.pdb", "1h1d_ligand.sdf"):
            shutil.copy(SAMPLE / f, folder / f)
        names = _rewrite_mol2(SAMPLE / "1h1d_ligand.mol2", folder / "1h1d_ligand.mol2", **kw)
        return folder, names
    return make


def _heavy_names(c) -> list[str]:
    return [str(n) for n, h in zip(c.atom_name[c.is_ligand], c.is_hydrogen[c.is_ligand]) if not h]


def test_case_is_what_it_claims(make_case):
    folder, _ = make_case(shift=0.1, reverse=True, break_valence=True)
    assert Chem.MolFromMol2File(str(folder / "1h1d_ligand.mol2"), removeHs=False) is None  # RDKit refuses it
    assert Chem.MolFromMolFile(str(folder / "1h1d_ligand.sdf"), removeHs=False) is not None


@pytest.mark.parametrize("shift, reverse", [(0.1, True), (0.1, False), (0.3, True)])
def test_names_follow_the_mol2_by_graph(make_case, shift, reverse):
    """The SDF's atoms get the names of the mol2 atoms they are (element, graph, position) — not
    O1..O6 — and the H-bond answer names the atoms as ChimeraX (reading the mol2) does."""
    folder, names = make_case(shift=shift, reverse=reverse, break_valence=True)
    c = load_complex(folder)
    original = load_complex(SAMPLE)
    assert _heavy_names(c) == _heavy_names(original)  # same atoms (the SDF's order), same names
    assert set(_heavy_names(c)) <= set(names)
    assert format_t9(find_hbonds(original), original) == "LYS 144 NZ ?, O5; ASN 170 ND2 ?, O9"
    assert "O5" in format_t9(find_hbonds(c), c) and "O9" in format_t9(find_hbonds(c), c)


def test_names_by_nearest_position_without_bonds(make_case):
    """A mol2 whose BOND section is unusable still lends its names by nearest position."""
    folder, _ = make_case(shift=0.1, reverse=True, break_valence=True, drop_bonds=True)
    assert _heavy_names(load_complex(folder)) == _heavy_names(load_complex(SAMPLE))


def test_no_names_when_the_files_disagree(make_case):
    """Atoms farther apart than the tolerance are not paired: the SDF's own names stay."""
    folder, _ = make_case(shift=MOL2_MATCH_TOLERANCE + 0.3, reverse=True, break_valence=True)
    names = _heavy_names(load_complex(folder))
    assert names[:3] == ["N1", "C1", "C2"]  # element + running index, ChimeraX's SDF names
