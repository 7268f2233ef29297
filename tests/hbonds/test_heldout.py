"""Agreement with ChimeraX on ligand chemistry misi was not tuned on (``data/heldout/``, made by
``data/make_heldout.py``): drug-like molecules from RDKit's bundled ChEMBL/NCI SMILES placed in dev
pockets, half of them ("held_out") looked at only after the H-free typing rules were fixed.
Each complex is compared with hydrogens as given and with every hydrogen stripped from the files
(``benchmarks/strip_hydrogens.py``), against ChimeraX's answers on the same files.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest

from misi_geom import Complex, assign_hbond_types, find_hbonds, load_complex
from ..hbond_text import format_t9

DATA = Path(__file__).parent / "data"
HELDOUT = DATA / "heldout"
EXPECTED = json.loads((DATA / "expected_heldout.json").read_text())


def _strip():
    import importlib.util

    spec = importlib.util.spec_from_file_location("misi_make_variants", DATA / "make_variants.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.strip_module()


@pytest.fixture(scope="module")
def hydrogen_free(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("heldout_hfree")
    strip = _strip()
    for cid in EXPECTED:
        strip.strip_complex(HELDOUT / cid, out)
    return out


def _pairs(answer: str) -> set[str]:
    return {e for e in answer.split("; ") if e}


def _answer(c: Complex, folder: Path) -> set[str]:
    """misi's T9 bonds; chain letters misi gave to the copies of a blank chain (docs/loading.md) are
    written ``?`` as ChimeraX writes that chain (its answers cannot tell the copies apart)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = _pairs(format_t9(find_hbonds(c), c))
    pocket = next(folder.glob("*_pocket.pdb"))
    in_file = {ln[21] for ln in pocket.read_text().splitlines() if ln.startswith(("ATOM", "HETATM"))}
    renamed = set(c.chain_id.tolist()) - in_file - {""}
    out = set()
    for e in got:
        left, sep, right = e.partition(", ")
        parts = left.split()
        if len(parts) == 4 and parts[3] in renamed:
            parts[3] = "?"
        out.add(" ".join(parts) + sep + right)
    return out


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_with_hydrogens_matches_chimerax(cid):
    c = load_complex(HELDOUT / cid)
    assert c.is_hydrogen[c.is_ligand].any()
    assert _answer(c, HELDOUT / cid) == _pairs(EXPECTED[cid]["with_h"]["misi_answer"])


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_hydrogen_free_matches_chimerax(hydrogen_free, cid):
    c = load_complex(hydrogen_free / cid)
    assert not c.is_hydrogen.any()
    assert _answer(c, hydrogen_free / cid) == _pairs(EXPECTED[cid]["hydrogen_free"]["misi_answer"])


@pytest.mark.parametrize("cid", sorted(EXPECTED))
def test_hydrogen_free_nitrogen_typing(hydrogen_free, cid):
    """Every ligand N typed as ChimeraX types it without hydrogens (the donors the issue names:
    amines on aromatic rings, hydrazines, amides, sulfonamides, ring NH)."""
    c = load_complex(hydrogen_free / cid)
    types = assign_hbond_types(c).idatm
    want = EXPECTED[cid]["hydrogen_free"]["ligand_idatm"]
    rows = np.flatnonzero(c.is_ligand & (c.element == "N"))
    got = {str(c.atom_name[i]): str(types[i]) for i in rows}
    assert got == {k: want[k] for k in got}


def test_both_sets_are_present_and_answer_something():
    """The fixture holds tuned and held-out complexes, and H-bonds to compare in each."""
    sets = {s: [v for v in EXPECTED.values() if v["set"] == s] for s in ("tuned", "held_out")}
    for rows in sets.values():
        assert len(rows) >= 8
        assert sum(len(_pairs(r["hydrogen_free"]["misi_answer"])) for r in rows) >= 15
