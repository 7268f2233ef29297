"""Deterministic randomness and the train/test split.

Every random choice is drawn from a generator seeded by a hash of (run seed, task, complex id,
purpose), never by process or worker, so results do not depend on the number of workers or on
the order in which complexes are processed.

>>> int(rng_for(0, "rotation", "2pyy").integers(1000)) == int(rng_for(0, "rotation", "2pyy").integers(1000))
True
>>> split_of("2pyy") in ("train", "test")
True
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["stable_hash", "rng_for", "split_of", "DEFAULT_TEST_FRACTION"]

#: Share of complexes that the automatic split puts in the test split (paper: 490 of 3,993).
DEFAULT_TEST_FRACTION = 0.125


def stable_hash(*parts: object) -> int:
    """64-bit hash of the parts' string forms, identical on every platform and run (a folder name
    that is not UTF-8 text hashes too: its undecodable bytes are kept as they are)."""
    h = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(h[:8], "little")


def rng_for(seed: int, *parts: object) -> np.random.Generator:
    """A numpy Generator seeded by ``seed`` and the given parts (task, complex id, purpose)."""
    return np.random.Generator(np.random.PCG64(stable_hash(int(seed), *parts)))


def split_of(complex_id: str, test_fraction: float = DEFAULT_TEST_FRACTION) -> str:
    """``"test"`` or ``"train"`` for a complex, by a hash of its lower-cased id (so a complex
    always lands in the same split, whatever else is in the input)."""
    u = stable_hash("misi-split", complex_id.lower()) / 2.0**64
    return "test" if u < test_fraction else "train"
