"""Contract: the T4/T9 answers misi_tasks formats from real complexes parse back to themselves."""

from __future__ import annotations

import importlib.util
import warnings

import pytest

from misi_tasks.eval.parse import parse_answer
from misi_tasks.eval.score import score_item

pytestmark = pytest.mark.skipif(importlib.util.find_spec("misi_geom.hbonds") is None,
                                reason="misi_geom.hbonds does not exist yet")

SAMPLES = ["1h1d", "2pyy", "2w9r", "3pvu", "4cjq"]


@pytest.mark.parametrize("pdb_id", SAMPLES)
def test_formatted_answers_round_trip(pdb_id: str) -> None:
    from misi_geom.hbonds import find_hbonds, hbond_pairs
    from ..hbond_text import format_t4, format_t9
    from misi_geom.io import load_complex
    from misi_geom.samples import sample_root

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = load_complex(sample_root() / pdb_id)
        bonds = find_hbonds(c)
    t9 = format_t9(bonds, c)
    assert t9, f"{pdb_id}: expected at least one H-bond"
    assert parse_answer("T9", t9).text == t9
    item = {"id": pdb_id, "task": "pocket-ligand", "answer": t9, "options": [], "metadata": "{}"}
    assert score_item(item, f"Here they are:\n{t9.lower()}").score == 1.0
    for res in sorted({int(c.res_index[i]) for i, _ in hbond_pairs(bonds, c)}):
        own = [b for b in bonds if any(c.res_index[k] == res and not c.is_ligand[k] for k in b.pair)]
        t4 = "Yes: " + format_t4(own, c)
        assert parse_answer("T4", t4).text == t4
