"""What a newcomer meets first: the set-up's work folder is ignored by git, and the examples name
the datasets the set-up command (``misi-gen --task all --out misi_out`` on the bundled samples) produces."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

from misi_geom.samples import SAMPLE_IDS
from misi_tasks.engine.units import work_dir_for
from misi_tasks.export.cli import build_parser
from misi_tasks.export.vlmevalkit import dataset_name
from misi_tasks.definitions.registry import task_names
from misi_tasks.tasks.seeding import split_of

ROOT = Path(__file__).resolve().parents[1]


def test_the_setup_work_folder_is_ignored_by_git() -> None:
    patterns = [line.strip().strip("/") for line in (ROOT / ".gitignore").read_text().splitlines()
                if line.strip() and not line.startswith("#")]
    name = work_dir_for(Path("misi_out")).name                  # what `misi-gen --out misi_out` creates
    assert name == ".misi_out.misi-gen"
    assert any(fnmatch.fnmatch(name, p) for p in patterns)
    assert not any(fnmatch.fnmatch("misi_tasks", p) for p in patterns)   # the sources are not ignored


def test_export_examples_name_the_datasets_the_setup_produces() -> None:
    splits = {split_of(cid) for cid in SAMPLE_IDS}              # the set-up's default split: by complex id
    produced = {dataset_name(task, split) for task in task_names() for split in splits}
    epilog = build_parser().epilog or ""
    named = set(re.findall(r"MiSI_T\d_\w+", epilog))
    assert named and named <= produced, (named, produced)
