"""Inputs and outputs in object storage (``s3://``, ``gs://``, ...) through fsspec.

Generation needs a real filesystem (atomic renames, a lock, a run state to resume from), so a URL is
*staged*: ``--input URL`` is downloaded once into a local folder, ``--out URL`` is generated into a local folder as any
run is, and only a completed dataset is uploaded, file by file, README.md last.  A rerun resumes
from the staged folder and uploads the same bytes again.  The stage is ``--stage DIR`` (on a
cluster, a shared filesystem every worker sees), by default a folder under ``~/.cache/misi/stage``
named after the URLs.

A staged input file is kept on a rerun only if the object store still describes it as when it was
fetched: its *fingerprint* (what fsspec's listing gives: ETag, checksums, last-modified time,
generation, size; see :func:`fingerprint`) is recorded beside the stage in ``.<name>.fetched.json``
with the local copy's size and mtime.  A file whose fingerprint changed (an edited PDB keeps its size:
fixed-width columns), whose local copy was touched, or whose store gives nothing but a size, is
fetched again.  :func:`staged_version` sums the recorded fingerprints up: it is part of the run's
fingerprint, so a rerun after the remote input changed does not report the old dataset as done; it
is refused as "generated with other arguments" until ``--overwrite`` regenerates it from the new input.

The remote output is protected like a local one: if it already holds files that are not the
dataset's (another dataset, someone's own files), the upload is refused unless ``--overwrite``,
which then removes the other files under the dataset's own names (``README.md``,
``failures.txt``, ``figures/``, ``data/``: no stale shard stays mixed in) and leaves the rest.

fsspec and the protocol's package (``s3fs``, ``gcsfs``, ...) are needed only when a URL is given:
``pip install "misi[remote]" s3fs``.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

__all__ = ["RemoteError", "check_url", "download_input", "fingerprint", "is_url", "published_files", "stage_dir",
           "staged_version", "upload_output"]

#: What misi-gen publishes in OUT (everything else there is its own or the user's).
PUBLISHED = ("README.md", "failures.txt", "figures", "data")


class RemoteError(ValueError):
    """A URL cannot be used (no fsspec, unknown protocol, foreign files at the output)."""


def is_url(text: str | os.PathLike | None) -> bool:
    """True for ``protocol://...`` other than ``file://`` (those are staged); False for local paths."""
    if text is None:
        return False
    m = re.match(r"^([A-Za-z][A-Za-z0-9+.-]*)://", str(text))
    return bool(m) and m.group(1).lower() != "file"


def _fs(url: str) -> tuple[Any, str]:
    try:
        import fsspec
    except ImportError:
        raise RemoteError(f'{url}: URLs need fsspec: pip install "misi[remote]" (and s3fs, gcsfs, ...)') from None
    try:
        fs, path = fsspec.core.url_to_fs(url)
    except (ImportError, ValueError) as exc:
        raise RemoteError(f"{url}: cannot open this URL ({' '.join(str(exc).split())})") from None
    return fs, path.rstrip("/")


@contextmanager
def _store_errors(url: str) -> Iterator[None]:
    """Turn whatever the store's driver raises (botocore's ``EndpointConnectionError`` for an
    unreachable endpoint, access denied, ...) into one :class:`RemoteError` line naming ``url``."""
    try:
        yield
    except RemoteError:
        raise
    except Exception as exc:  # noqa: BLE001 - drivers raise their own exception types
        text = " ".join(str(exc).split()) or type(exc).__name__
        raise RemoteError(f"{url}: {text[:300]}") from None


def check_url(url: str) -> None:
    """Raise :class:`RemoteError` now if ``url``'s filesystem cannot be opened (no fsspec, unknown
    protocol, missing driver), so that a run never generates a dataset it cannot upload."""
    _fs(url)


def stage_dir(urls: list[str], stage: Path | None = None) -> Path:
    """The local folder that stages ``urls``: ``stage`` if given, else one named after the URLs."""
    if stage is not None:
        return Path(stage)
    key = hashlib.sha256("\n".join(urls).encode()).hexdigest()[:12]
    name = re.sub(r"[^A-Za-z0-9._-]+", "_", urls[-1].split("://", 1)[-1]).strip("_")[-40:]
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "misi" / "stage" / f"{name}-{key}"


#: fsspec ``info()`` keys (lower case, any part) that tell one version of an object from another.
_VERSION_KEYS = re.compile(r"etag|checksum|md5|crc|sha|modified|mtime|created|updated|generation|version|size")


def fingerprint(info: dict[str, Any]) -> dict[str, str] | None:
    """What identifies this version of a remote file in fsspec's ``info()``: ETag, checksums,
    modification time, generation and size, as strings; ``None`` when only the size is known (then
    the file cannot be told from an edited one of the same size and is always fetched).

    >>> fingerprint({"name": "b/x.pdb", "size": 10, "ETag": '"9a0364b9"', "type": "file"})
    {'ETag': '"9a0364b9"', 'size': '10'}
    >>> fingerprint({"name": "b/x.pdb", "size": 10}) is None
    True
    """
    found = {k: str(v) for k, v in sorted(info.items())
             if k not in ("name", "type") and _VERSION_KEYS.search(k.lower()) and v is not None}
    return found if set(found) - {"size"} else None


def _local_stamp(path: Path) -> list[int] | None:
    try:
        st = path.stat()
    except OSError:
        return None
    return [st.st_size, st.st_mtime_ns]


def download_input(url: str, stage: Path) -> Path:
    """Copy the file or folder at ``url`` to ``stage/<its name>``; return that local path, to use as
    ``--input``.  A file already staged is fetched again unless its remote fingerprint and its local
    size and mtime are those recorded when it was fetched (see the module docs).  The local path keeps
    the URL's last name, so the card's command line reads as it would for a local copy of the input."""
    with _store_errors(url):
        return _download(url, stage)


def _download(url: str, stage: Path) -> Path:
    fs, root = _fs(url)
    fs.invalidate_cache()  # a listing cached by an earlier call in this process may be stale
    if not fs.exists(root):
        raise RemoteError(f"{url}: not found")
    name = Path(root).name or "input"
    local = stage / name
    if fs.isfile(root):
        pairs = [(root, fs.info(root), local)]
    else:
        found = fs.find(root, detail=True)
        pairs = [(r, found[r], local / r[len(root):].lstrip("/")) for r in sorted(found)]
    record_path = stage / f".{name}.fetched.json"
    try:
        record = json.loads(record_path.read_text())
    except (OSError, ValueError):
        record = {}
    fresh = {}
    for remote, info, target in pairs:
        key = target.relative_to(stage).as_posix()
        fp = fingerprint(info)
        seen = record.get(key)
        if fp is not None and seen == {"remote": fp, "local": _local_stamp(target)}:
            fresh[key] = seen
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = target.with_name(f".{target.name}.part")
        fs.get_file(remote, str(tmp))
        os.replace(tmp, target)
        fresh[key] = {"remote": fp, "local": _local_stamp(target)}
    for gone in set(record) - set(fresh):  # deleted from the store since: not part of the input any more
        (stage / gone).unlink(missing_ok=True)
    if fresh != record:
        tmp = record_path.with_name(record_path.name + ".part")
        tmp.write_text(json.dumps(fresh, indent=1, sort_keys=True))
        os.replace(tmp, record_path)
    return local


def staged_version(url: str, stage: Path) -> str:
    """A short hash of the remote fingerprints of the input :func:`download_input` staged from ``url``
    into ``stage`` (the same while the store's files are the same)."""
    name = Path(_fs(url)[1]).name or "input"
    try:
        record = json.loads((stage / f".{name}.fetched.json").read_text())
    except (OSError, ValueError):
        record = {}
    remote = {k: v.get("remote") for k, v in sorted(record.items())}
    return hashlib.sha256(json.dumps(remote, sort_keys=True).encode()).hexdigest()[:16]


def published_files(out: Path) -> list[str]:
    """The dataset's files under ``out`` (relative, sorted), README.md last."""
    files = []
    for top in PUBLISHED:
        p = out / top
        if p.is_file():
            files.append(top)
        elif p.is_dir():
            files += sorted(str(f.relative_to(out)) for f in p.rglob("*")
                            if f.is_file() and not f.name.startswith("."))
    return sorted(files, key=lambda f: (f == "README.md", f))


def upload_output(out: Path, url: str, overwrite: bool = False) -> list[str]:
    """Upload the completed dataset in ``out`` to ``url``; return the uploaded relative paths.

    Raises
    ------
    RemoteError
        If ``url`` holds files that are not this dataset's and ``overwrite`` is false.
    """
    with _store_errors(url):
        return _upload(out, url, overwrite)


def _upload(out: Path, url: str, overwrite: bool) -> list[str]:
    fs, root = _fs(url)
    files = published_files(out)
    existing = [p[len(root):].lstrip("/") for p in fs.find(root)] if fs.exists(root) else []
    foreign = sorted(set(existing) - set(files))
    if foreign and not overwrite:
        raise RemoteError(f"{url}: holds files that are not this dataset's (e.g. {foreign[0]}); choose another "
                          "--out, or pass --overwrite to replace the dataset's own files there (README.md, "
                          "failures.txt, figures/, data/; other files are kept)")
    for rel in foreign:
        if rel.split("/", 1)[0] in PUBLISHED:
            fs.rm_file(f"{root}/{rel}")
    for rel in files:
        fs.put_file(str(out / rel), f"{root}/{rel}")
    return files
