"""A batch of corrupted complexes of every kind beside good ones: the run never aborts,
every bad complex is reported, and no item comes from a complex with absurd geometry."""

from __future__ import annotations


import pyarrow.parquet as pq

from misi_geom import MisiInputError, load_complex
from misi_tasks.engine.generate import FAILURES_FILE, GenerateConfig, generate_dataset
from misi_geom.samples import sample_root

from ..fuzz_inputs import KINDS, corrupt


def test_batch_of_corrupted_complexes_never_aborts(tmp_path):
    inp = tmp_path / "in"
    ids = {}
    for k, kind in enumerate(KINDS):
        for seed in range(2):
            sample = ("1h1d", "2pyy", "2w9r", "3pvu", "4cjq")[(k + seed) % 5]
            cid = f"{k:02d}{seed}{kind.replace('_', '')[:12]}"
            corrupt(sample_root() / sample, inp, kind, seed, name=cid)
            ids[cid] = kind
    for good in ("2pyy", "4cjq"):
        corrupt(sample_root() / good, inp, "duplicated_atom_lines", 0, name=f"zz{good}")
    loadable = set()
    for cid in sorted(ids) + ["zz2pyy", "zz4cjq"]:
        try:
            load_complex(inp / cid)
            loadable.add(cid)
        except MisiInputError:
            pass
    cfg = GenerateConfig(input_dir=inp, out_dir=tmp_path / "out", tasks=("translation", "translation-rotation"),
                         split="test", size=64, workers=1)
    summary = generate_dataset(cfg, progress=False)
    written = set()
    for shard in (tmp_path / "out" / "data").rglob("*.parquet"):
        written |= set(pq.read_table(shard, columns=["complex_id"]).column("complex_id").to_pylist())
    assert {"zz2pyy", "zz4cjq"} <= written <= loadable
    assert not any(ids.get(c, "").startswith(("huge", "nan", "protein_only_huge")) for c in written)
    assert set(summary.failed_complexes) == (set(ids) | {"zz2pyy", "zz4cjq"}) - loadable
    failures = (tmp_path / "out" / FAILURES_FILE).read_text().splitlines()
    assert len(failures) == len(summary.failed_complexes) and all("\t" in line for line in failures)


def test_a_folder_name_that_is_not_utf8_is_one_failure(tmp_path):
    import os

    inp = tmp_path / "in"
    corrupt(sample_root() / "2pyy", inp, "duplicated_atom_lines", 0, name="2pyy")
    corrupt(sample_root() / "2pyy", inp, "duplicated_atom_lines", 0, name=os.fsdecode(b"2pyy\xff"))
    cfg = GenerateConfig(input_dir=inp, out_dir=tmp_path / "out", tasks=("translation",), split="test", size=64,
                         workers=1)
    summary = generate_dataset(cfg, progress=False)
    assert list(summary.failed_complexes) == ["2pyy\\udcff"]
    assert "not UTF-8" in summary.format() and sum(summary.items.values()) == 2
    assert (tmp_path / "out" / FAILURES_FILE).read_text().startswith("2pyy\\udcff\t")
