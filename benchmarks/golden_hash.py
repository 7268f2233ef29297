"""Golden hashes of a generated dataset and of misi-eval's report on it.

A refactoring that must not change the output (e.g. a redesign of the code's layout) is checked by
recording these hashes before it and comparing after it::

    python benchmarks/golden_hash.py --write golden.json        # before
    python benchmarks/golden_hash.py --compare golden.json      # after: exit 1 on any difference

It runs ``misi-gen --task all`` on the bundled samples (fixed seed and size) into a temporary folder,
hashes every published file (the Parquet shards and the card; not misi-gen's work files), then scores
the oracle and the random baseline with ``misi-eval`` and hashes both JSON reports.  Hashes depend on
the installed package versions (PNG and Parquet encoders), so compare runs made in one environment.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
import tempfile
from pathlib import Path

#: Arguments of the generation run the hashes pin (small images keep it to ~30 s).
GEN_ARGS = ["--task", "all", "--seed", "7", "--size", "384", "--workers", "1", "--quiet"]


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _run(args: list[str], cwd: Path) -> None:
    proc = subprocess.run(args, capture_output=True, text=True, cwd=cwd)
    if proc.returncode != 0:
        sys.exit(f"golden_hash: {' '.join(args[:4])} ... failed:\n{proc.stderr[-2000:]}")


def collect(work: Path) -> dict[str, str]:
    """Generate, score and return ``{relative path: sha256}`` for every pinned file."""
    out = work / "ds"  # passed as the relative "ds": reports name the dataset path they scored
    _run([sys.executable, "-m", "misi_tasks.engine.cli", *GEN_ARGS, "--out", "ds"], cwd=work)
    hashes = {
        str(p.relative_to(out)): _sha256(p)
        for p in sorted(out.rglob("*"))
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(out).parts)
    }
    for baseline in ("oracle", "random"):
        report = work / f"eval-{baseline}.json"
        _run([sys.executable, "-m", "misi_tasks.eval.cli", "--dataset", "ds", "--baseline", baseline,
              "--split", "all", "--out-json", report.name], cwd=work)
        hashes[f"misi-eval --baseline {baseline}"] = _sha256(report)
    return hashes


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    group = ap.add_mutually_exclusive_group()
    group.add_argument("--write", type=Path, help="record the hashes in this JSON file")
    group.add_argument("--compare", type=Path, help="compare with hashes recorded by --write")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="misi-golden-") as tmp:
        hashes = collect(Path(tmp))
    total = hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest()
    if args.write:
        args.write.write_text(json.dumps({"args": GEN_ARGS, "total": total, "files": hashes}, indent=1) + "\n")
    print(f"{len(hashes)} files, total {total}")
    if args.compare:
        golden = json.loads(args.compare.read_text())["files"]
        diff = sorted(k for k in golden.keys() | hashes.keys() if golden.get(k) != hashes.get(k))
        for k in diff:
            print(f"differs: {k}")
        print("identical" if not diff else f"{len(diff)} of {len(golden)} differ")
        return 1 if diff else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
