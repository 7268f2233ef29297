"""Fixtures for the backend tests: one small generation run and a digest of its output files."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from misi_tasks.engine.generate import GenerateConfig, generate_dataset
from misi_geom.samples import sample_root

#: A few tasks, one of them (T5) reading a second complex, at a small size to stay fast.
TASKS = ("translation", "residue-ligand", "translation-rotation")


def small_config(out: Path, **kw) -> GenerateConfig:
    """The run every backend test compares: all five bundled samples, three tasks, 96 px, in three
    groups (of 2, 2 and 1 complexes: three jobs, nine shards)."""
    return GenerateConfig(input_dir=sample_root(), out_dir=out, tasks=TASKS, split="test", seed=3, size=96,
                          **{"group_size": 2, **kw})


def digest(out: Path) -> dict[str, str]:
    """sha256 of every output file (the work folder lives beside ``out``, not in it)."""
    files = sorted(p for p in out.rglob("*") if p.is_file())
    return {str(p.relative_to(out)): hashlib.sha256(p.read_bytes()).hexdigest() for p in files}


@pytest.fixture(scope="session")
def local_reference(tmp_path_factory) -> dict[str, str]:
    """Digest of the small run on the local backend, in this process."""
    out = tmp_path_factory.mktemp("local-ref")
    generate_dataset(small_config(out), progress=False)
    files = digest(out)
    assert any(name.endswith(".parquet") for name in files)
    return files


def descendants(root: int) -> dict[int, str]:
    """pid -> command line of every process below ``root`` (Linux /proc)."""
    parent, cmd = {}, {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmd[int(entry.name)] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        parent[int(entry.name)] = int(stat.rsplit(")", 1)[1].split()[1])
    found, frontier = {}, [root]
    while frontier:
        p = frontier.pop()
        for child, pp in parent.items():
            if pp == p and child not in found:
                found[child] = cmd[child]
                frontier.append(child)
    return found


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def s3(monkeypatch):
    """A real S3 API on loopback (moto's server, in a thread) with an empty bucket ``misi``; fsspec's
    ``s3://`` URLs reach it through ``AWS_ENDPOINT_URL`` (read by botocore).  Yields a boto3 client."""
    pytest.importorskip("s3fs", reason="s3fs is not installed: pip install s3fs")
    server_mod = pytest.importorskip("moto.server", reason='moto is not installed: pip install "moto[server]"')
    import boto3
    import s3fs

    port = _free_port()
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    endpoint = f"http://127.0.0.1:{port}"
    for var, value in (("AWS_ACCESS_KEY_ID", "testing"), ("AWS_SECRET_ACCESS_KEY", "testing"),
                       ("AWS_DEFAULT_REGION", "us-east-1"), ("AWS_ENDPOINT_URL", endpoint)):
        monkeypatch.setenv(var, value)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    s3fs.S3FileSystem.clear_instance_cache()
    client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    client.create_bucket(Bucket="misi")
    yield client
    s3fs.S3FileSystem.clear_instance_cache()
    server.stop()
