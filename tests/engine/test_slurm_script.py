"""The committed SLURM script, run for real on this machine: ``srun``, ``scontrol`` and ``hostname``
are stand-ins (two "nodes", both this machine on loopback), everything else is the script's own Ray
start-up, misi-gen run and shut-down.  Skipped when Ray is not installed.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason='Ray is not installed: pip install "misi[ray]" to run the SLURM script test')

from .conftest import TASKS, descendants, digest  # noqa: E402
from .test_ray_cluster import _free_port  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "examples" / "slurm" / "misi_gen_ray.sbatch"

SHIMS = {
    # srun [options] command...: run the command here (every "node" is this machine)
    "srun": '#!/bin/bash\nwhile [[ "$1" == -* ]]; do case "$1" in -w|-N|-n) shift 2;; *) shift;; esac; done\nexec "$@"\n',
    "scontrol": '#!/bin/bash\nprintf "node1\\nnode2\\n"\n',
    "hostname": '#!/bin/bash\necho 127.0.0.1\n',
    "python": f'#!/bin/bash\nexec {sys.executable} "$@"\n',
    "ray": f'#!/bin/bash\nexec {sys.executable} -m ray.scripts.scripts "$@"\n',
    "misi-gen": f'#!/bin/bash\nexec {sys.executable} -m misi_tasks.engine.cli "$@"\n',
}


def test_the_sbatch_script_starts_ray_runs_misi_gen_and_stops_ray(local_reference, tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in SHIMS.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    out = tmp_path / "out"
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
           "PYTHONPATH": os.pathsep.join(p for p in [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")] if p),
           "SLURM_JOB_NODELIST": "node[1-2]", "SLURM_CPUS_PER_TASK": "1", "RAY_PORT": str(_free_port()),
           "INPUT": str(Path(__import__("misi_geom.samples").samples.sample_root())), "OUT": str(out),
           "MISI_ARGS": f"--task {','.join(TASKS)} --split test --seed 3 --size 96 --group-size 2"}
    env.pop("RAY_ADDRESS", None)
    run = subprocess.run(["bash", str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600,
                         cwd=tmp_path)
    assert run.returncode == 0, run.stderr[-3000:]
    assert "from 5 complexes" in run.stdout
    assert digest(out) == local_reference
    port = env["RAY_PORT"]
    leftover = [cmd for cmd in descendants(1).values() if f"127.0.0.1:{port}" in cmd or f"port={port}" in cmd]
    assert not leftover, leftover  # the script stopped both Ray nodes (GCS, raylets, workers)
