"""misi-audit on a homodimer pocket whose two copies have blank chain ids: the loader
names the copies A and B, every answer names one atom, and T4 agrees with T9 chain by chain."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq

from misi_tasks.engine.cli import main as gen_main

#: residues 24-27 of both copies of 2p3a's pocket and its ligand (see the folder's PROVENANCE.md)
FIXTURE = Path(__file__).parents[1] / "geom" / "data" / "blank_dimer"


def test_blank_dimer_items_pass_the_audit_and_name_both_chains(tmp_path):
    out = tmp_path / "ds"
    rc = gen_main(["--task", "residue-ligand,pocket-ligand", "--input", str(FIXTURE), "--out", str(out),
                   "--size", "256", "--split", "train", "--workers", "1", "--quiet", "--audit"])
    assert rc == 0  # generation done and every item passed the audit (T4 against T9 included)
    t9 = pq.read_table(next((out / "data" / "pocket-ligand").glob("*.parquet"))).to_pylist()
    answer = t9[0]["answer"]
    assert "GLY 27 O A, N1" in answer and "GLY 27 O B, N51" in answer, answer
    chains = {b["chain"] for b in json.loads(t9[0]["metadata"])["hbonds"]}
    assert chains == {"A", "B"}
    t4 = pq.read_table(next((out / "data" / "residue-ligand").glob("*.parquet"))).to_pylist()
    assert any(" A form hydrogen bonds" in r["question"] or " B form hydrogen bonds" in r["question"] for r in t4)
