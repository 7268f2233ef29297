"""Compare lossless image encodings on real misi images: size, encode and decode CPU, determinism.

Usage::

    python benchmarks/bench_encoding.py [--dataset OUT] [--every 4] [--repeats 3] [--only NAME ...]

``--dataset`` is a misi-gen output folder; its images (every ``--every``-th, all nine tasks) are
decoded once to pixels and then re-encoded by every option.  Without it, a small dataset is
generated from the bundled samples at 1024 px into a temporary folder.  For each option it prints:
mean bytes per image, the same after Parquet's zstd level -1 (what a shard stores), encode and
decode CPU ms per image (best of ``--repeats``, ``time.process_time``: steadier than wall time on a
shared machine), whether decoding gives exactly the pixels back, and whether the bytes are the
same in a freshly spawned process.  Decoding is what Hugging Face ``datasets`` does for an
``Image`` feature: ``PIL.Image.open`` and converting to an array.

Options that need a package that is not installed (``deflate`` for libdeflate, ``imagecodecs``)
are skipped with a note.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import multiprocessing as mp
import struct
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image
from zlib_ng import zlib_ng

Encoder = Callable[[np.ndarray], bytes]


# --- PNG building blocks -------------------------------------------------------------------------
def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib_ng.crc32(data, zlib_ng.crc32(tag)))


def _png(a: np.ndarray, idat: bytes) -> bytes:
    h, w = a.shape[:2]
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
            + _chunk(b"IDAT", idat) + _chunk(b"IEND", b""))


def _filtered(a: np.ndarray, kind: str) -> np.ndarray:
    """Rows of ``a`` (H, W, 3) with one PNG filter applied to every row, filter byte first."""
    h, w = a.shape[:2]
    flat = a.reshape(h, w * 3)
    raw = np.empty((h, 1 + w * 3), dtype=np.uint8)
    if kind == "none":
        raw[:, 0] = 0
        raw[:, 1:] = flat
    elif kind == "sub":
        raw[:, 0] = 1
        raw[:, 1:4] = flat[:, :3]
        np.subtract(flat[:, 3:], flat[:, :-3], out=raw[:, 4:])
    elif kind == "up":
        raw[:, 0] = 2
        raw[0, 1:] = flat[0]
        np.subtract(flat[1:], flat[:-1], out=raw[1:, 1:])
    elif kind == "paeth":
        raw[:, 0] = 4
        x = flat.astype(np.int16)
        left = np.zeros_like(x)
        left[:, 3:] = x[:, :-3]
        up = np.zeros_like(x)
        up[1:] = x[:-1]
        ul = np.zeros_like(x)
        ul[1:, 3:] = x[:-1, :-3]
        p = left + up - ul
        pa_, pb, pc = np.abs(p - left), np.abs(p - up), np.abs(p - ul)
        pred = np.where((pa_ <= pb) & (pa_ <= pc), left, np.where(pb <= pc, up, ul))
        raw[:, 1:] = (x - pred).astype(np.uint8)
    else:
        raise ValueError(kind)
    return raw


def png_zlib_ng(kind: str, level: int, strategy: int = 0) -> Encoder:
    def enc(a: np.ndarray) -> bytes:
        if strategy == 0:
            return _png(a, zlib_ng.compress(_filtered(a, kind), level))
        c = zlib_ng.compressobj(level, zlib_ng.DEFLATED, 15, 8, strategy)
        return _png(a, c.compress(_filtered(a, kind)) + c.flush())
    return enc


def png_libdeflate(kind: str, level: int) -> Encoder:
    import deflate

    def enc(a: np.ndarray) -> bytes:
        return _png(a, deflate.zlib_compress(_filtered(a, kind).tobytes(), level))
    return enc


def current_misi(a: np.ndarray) -> bytes:
    from misi_render.png import encode_png

    return encode_png(a)


def pillow(fmt: str, **params) -> Encoder:
    def enc(a: np.ndarray) -> bytes:
        buf = io.BytesIO()
        Image.fromarray(a).save(buf, fmt, **params)
        return buf.getvalue()
    return enc


def imagecodecs_encoder(name: str, **params) -> Encoder:
    import imagecodecs

    fn = getattr(imagecodecs, f"{name}_encode")

    def enc(a: np.ndarray) -> bytes:
        return bytes(fn(a, **params))
    return enc


def options() -> dict[str, Callable[[], Encoder]]:
    """Option name -> factory (a factory may raise ImportError)."""
    opts: dict[str, Callable[[], Encoder]] = {"misi encode_png (fpng)": lambda: current_misi}
    for lvl in (1, 2, 3, 4):
        opts[f"PNG Up, zlib-ng {lvl}"] = lambda lvl=lvl: png_zlib_ng("up", lvl)
    opts["PNG Up, zlib-ng 1 RLE"] = lambda: png_zlib_ng("up", 1, zlib_ng.Z_RLE)
    opts["PNG Up, zlib-ng 4 RLE"] = lambda: png_zlib_ng("up", 4, zlib_ng.Z_RLE)
    for kind in ("none", "sub", "paeth"):
        opts[f"PNG {kind.capitalize()}, zlib-ng 2"] = lambda kind=kind: png_zlib_ng(kind, 2)
    for lvl in (1, 2, 3, 4, 6):
        opts[f"PNG Up, libdeflate {lvl}"] = lambda lvl=lvl: png_libdeflate("up", lvl)
    for kind in ("sub", "paeth"):
        opts[f"PNG {kind.capitalize()}, libdeflate 2"] = lambda kind=kind: png_libdeflate(kind, 2)
    opts["Pillow PNG level 1"] = lambda: pillow("PNG", compress_level=1)
    for method, quality in ((0, 0), (1, 25), (2, 25), (4, 50)):
        opts[f"WebP lossless m{method} q{quality} (Pillow)"] = \
            lambda m=method, q=quality: pillow("WEBP", lossless=True, method=m, quality=q)
    opts["QOI (imagecodecs)"] = lambda: imagecodecs_encoder("qoi")
    opts["PNG (imagecodecs libspng)"] = lambda: imagecodecs_encoder("spng")
    return opts


# --- measuring ---------------------------------------------------------------------------------
def load_images(dataset: Path, every: int) -> list[np.ndarray]:
    blobs = []
    for f in sorted(dataset.glob("data/*/*.parquet")):
        for row in pq.read_table(f, columns=["images"]).to_pylist():
            blobs += [im["bytes"] for im in row["images"]]
    return [np.asarray(Image.open(io.BytesIO(b)).convert("RGB")) for b in blobs[::every]]


def decode(data: bytes) -> np.ndarray:
    """What ``datasets`` does with an ``Image`` cell: PIL opens it, the user takes the array."""
    return np.asarray(Image.open(io.BytesIO(data)).convert("RGB"))


def _cpu_ms(fn: Callable[[], object], n: int, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        best = min(best, time.process_time() - t0)
    return 1000 * best / n


def _digest(name: str, images: list[np.ndarray]) -> str:
    enc = options()[name]()
    h = hashlib.sha256()
    for a in images:
        h.update(enc(a))
    return h.hexdigest()


def measure(name: str, enc: Encoder, images: list[np.ndarray], repeats: int, zstd: pa.Codec) -> dict:
    encoded = [enc(a) for a in images]
    exact = all(np.array_equal(decode(b), a) for b, a in zip(encoded, images))
    n = len(images)
    return {
        "bytes": sum(map(len, encoded)) / n,
        "zstd": sum(zstd.compress(b).size for b in encoded) / n,
        "encode": _cpu_ms(lambda: [enc(a) for a in images], n, repeats),
        "decode": _cpu_ms(lambda: [decode(b) for b in encoded], n, repeats),
        "exact": exact,
        "digest": hashlib.sha256(b"".join(encoded)).hexdigest(),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dataset", type=Path, help="a misi-gen output folder (default: generate one from the samples)")
    ap.add_argument("--every", type=int, default=4, help="use every N-th image of the dataset")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--only", nargs="*", help="option names to measure (default: all)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="misi-enc-") as tmp:
        dataset = args.dataset
        if dataset is None:
            dataset = Path(tmp) / "ds"
            subprocess.run([sys.executable, "-m", "misi_tasks.engine.cli", "--task", "all", "--size", "1024",
                            "--split", "test", "--workers", "1", "--quiet", "--out", str(dataset)], check=True)
        images = load_images(dataset, args.every)
    print(f"{len(images)} images of {dataset} (every {args.every}th), {images[0].shape[1]} px; "
          f"CPU ms per image, best of {args.repeats}; 'zstd' = bytes after Parquet's zstd -1")
    zstd = pa.Codec("zstd", compression_level=-1)
    spawn = mp.get_context("spawn")
    base = None
    print(f"{'option':<36}{'kB':>7}{'zstd kB':>9}{'ratio':>7}{'enc ms':>8}{'dec ms':>8}  exact  same bytes in a new process")
    with spawn.Pool(1) as pool:
        for name, factory in options().items():
            if args.only and name not in args.only:
                continue
            try:
                enc = factory()
            except ImportError as exc:
                print(f"{name:<36} skipped: {exc}")
                continue
            r = measure(name, enc, images, args.repeats, zstd)
            base = base or r["zstd"]
            same = pool.apply(_digest, (name, images[:8])) == hashlib.sha256(
                b"".join(enc(a) for a in images[:8])).hexdigest()
            print(f"{name:<36}{r['bytes'] / 1e3:7.1f}{r['zstd'] / 1e3:9.1f}{r['zstd'] / base:7.2f}"
                  f"{r['encode']:8.2f}{r['decode']:8.2f}  {'yes' if r['exact'] else 'NO ':<5}  {'yes' if same else 'NO'}",
                  flush=True)


if __name__ == "__main__":
    main()
