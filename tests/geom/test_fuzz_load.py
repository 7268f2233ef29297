"""Seeded fuzz test of the loader: hundreds of corrupted folders of every kind, built
from the bundled samples at test time.  ``load_complex`` may only return a sane complex or raise
:class:`MisiInputError` with a one-line, printable message; absurd geometry never loads."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from misi_geom import MisiInputError, load_complex, load_complexes
from misi_geom.io import MAX_ABS_COORD, MAX_LIGAND_EXTENT, MAX_POCKET_EXTENT
from misi_geom.samples import SAMPLE_IDS, sample_root

from ..fuzz_inputs import KINDS, corrupt

SEEDS_PER_KIND = 3  # x 21 kinds x 5 samples = 315 corrupted folders


def _extent(xyz: np.ndarray) -> float:
    return float(np.linalg.norm(xyz.max(axis=0) - xyz.min(axis=0)))


def _check_sane(c) -> None:
    assert np.isfinite(c.coord).all() and np.abs(c.coord).max() <= MAX_ABS_COORD
    assert _extent(c.coord[c.is_ligand]) <= MAX_LIGAND_EXTENT
    assert _extent(c.coord[~c.is_ligand & ~c.is_hydrogen]) <= MAX_POCKET_EXTENT
    for col in (c.atom_name, c.res_name, c.chain_id):
        "".join(col.tolist()).encode("utf-8")  # printable names only
    key = list(zip(c.chain_id, c.res_id, c.ins_code, c.res_name, c.atom_name, *np.round(c.coord, 3).T))
    assert len(set(key)) == len(key), "duplicated atoms survived"


@pytest.fixture(scope="module")
def corrupted(tmp_path_factory) -> list[tuple[str, str, Path]]:
    root = tmp_path_factory.mktemp("fuzz")
    out = []
    for kind in KINDS:
        for sample in SAMPLE_IDS:
            for seed in range(SEEDS_PER_KIND):
                d = corrupt(sample_root() / sample, root / f"{kind}-{sample}-{seed}", kind, seed)
                out.append((kind, sample, d))
    return out


def test_every_corruption_gives_a_complex_or_one_misi_input_error(corrupted):
    outcomes: dict[str, set[str]] = {}
    for kind, sample, d in corrupted:
        try:
            c = load_complex(d)
        except MisiInputError as exc:
            msg = str(exc)
            assert "\n" not in msg and msg.encode("utf-8")
            assert msg.startswith(str(d)), msg  # names the file (inside the folder) or the folder
            if "unexpected" in msg:
                pytest.fail(f"{kind}: an unexpected exception leaked through as {msg}")
            outcomes.setdefault(kind, set()).add("reject")
            continue
        _check_sane(c)
        outcomes.setdefault(kind, set()).add("load")
    for kind, (_, expected) in KINDS.items():
        if expected != "either":
            assert outcomes[kind] == {expected}, (kind, outcomes[kind])


def test_duplicated_atom_lines_are_dropped(corrupted, sample_paths):
    for kind, sample, d in corrupted:
        if kind == "duplicated_atom_lines":
            c, clean = load_complex(d), load_complex(sample_paths[sample])
            assert len(c) == len(clean) and np.array_equal(c.bonds, clean.bonds)


def test_non_utf8_mol2_names_fall_back_to_the_sdf(corrupted):
    for kind, sample, d in corrupted:
        if kind == "non_utf8_mol2_name":
            c = load_complex(d)
            assert c.ligand.atom_name[0] in ("N1", "C1", "O1", "S1", "Cl1", "F1", "P1", "Br1")


@pytest.mark.parametrize("kind, file_end, words", [
    ("huge_pocket_all", "_pocket.pdb", "out of range"),
    ("pocket_symlink_loop", "_pocket.pdb", "link loop"),
    ("pocket_is_folder", "_pocket.pdb", "is a folder"),
    ("pocket_broken_link", "_pocket.pdb", "broken symbolic link"),
    ("blank_residue_number", "_pocket.pdb", "blank residue number"),
    ("non_utf8_pdb_name", "_pocket.pdb", "not UTF-8"),
    ("protein_only_huge", "_protein.pdb", "out of range"),
])
def test_messages_blame_the_right_file(corrupted, kind, file_end, words):
    for k, sample, d in corrupted:
        if k == kind:
            with pytest.raises(MisiInputError) as info:
                load_complex(d)
            assert info.value.path.endswith(file_end) and words in info.value.problem, str(info.value)


def test_folder_name_that_is_not_utf8(tmp_path):
    d = corrupt(sample_root() / "2pyy", tmp_path, "truncated_file", 0, name=os.fsdecode(b"2pyy\xff"))
    with pytest.raises(MisiInputError, match="not UTF-8") as info:
        load_complex(d)
    str(info.value).encode("utf-8")
    ok, failed = load_complexes(tmp_path)
    assert not ok and len(failed) == 1 and failed[0].message.encode("utf-8")


def test_batch_of_corrupted_and_good_folders_never_aborts(corrupted, tmp_path):
    dirs = [d for _, _, d in corrupted[::7]] + [sample_root() / s for s in SAMPLE_IDS]
    ok, failed = load_complexes(dirs)
    assert len(ok) + len(failed) == len(dirs)
    assert {c.pdb_id for c in ok} >= set(SAMPLE_IDS)
    assert all("\n" not in f.message for f in failed)
