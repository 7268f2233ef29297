"""Decoy commands for the multiple-choice tasks and the check that decoy images differ visibly.

Schemes for T5/T6 (spec section 3), each producing one decoy (f1, f2) from the true pair:

1. change the magnitude of both f1 and f2;
2. flip the sign of f1 and change the magnitude of f2;
3. change the axis of f1 and the magnitude of f2; when f1 and f2 are both rolls (T6) the new axis
   is the one used by neither, so a decoy never rolls twice about one axis (which could cancel to
   the identity).

A decoy must be a different command sequence from the answer and from the other decoys, must not
produce the same motion (e.g. through ±180° symmetry), and its image must differ visibly from the
correct image, from the other options' images and from the item's image 4 (what the query complex
already shows): SSIM (scikit-image's ``structural_similarity``, bit for bit, computed by numba
kernels in :mod:`misi_tasks.tasks._ssim_kernels`, on grey images downsampled to ``SSIM_SIZE`` px)
below :data:`SSIM_MAX`; otherwise it is drawn again.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from misi_tasks.definitions.answers import Command, Move
from misi_tasks.definitions.choice import SSIM_MAX, TranslationRotationSpec
from misi_tasks.tasks import _ssim_kernels as _kernels

__all__ = [
    "SSIM_MAX", "SSIM_SIZE", "change_magnitude", "flip_sign", "change_axis", "t5t6_decoy",
    "grey_thumbnail", "SsimThumb", "thumbnail_similarity", "image_similarity", "warm_up_ssim",
]

#: Side (px) of the grey images compared by SSIM.
SSIM_SIZE = 256

# the value ranges of the default T5 spec (a task passes its own spec's ranges)
_MOVES: tuple[int, ...] = TranslationRotationSpec().distances()
_ROLLS: tuple[int, ...] = TranslationRotationSpec().angles()


def _value(cmd: Command) -> int:
    return cmd.dist_A if isinstance(cmd, Move) else cmd.angle_deg


def _with_value(cmd: Command, v: int) -> Command:
    return replace(cmd, dist_A=int(v)) if isinstance(cmd, Move) else replace(cmd, angle_deg=int(v))


def change_magnitude(cmd: Command, rng: np.random.Generator, values: Sequence[int] | None = None) -> Command:
    """Same axis and sign, another magnitude from ``values`` (the task's range for ``cmd``'s kind;
    default the default T5 spec's)."""
    if values is None:
        values = _MOVES if isinstance(cmd, Move) else _ROLLS
    v = _value(cmd)
    pool = [x for x in values if np.sign(x) == np.sign(v) and abs(x) != abs(v)]
    return _with_value(cmd, int(rng.choice(pool)))


def flip_sign(cmd: Command, rng: np.random.Generator | None = None) -> Command:
    return _with_value(cmd, -_value(cmd))


def change_axis(cmd: Command, rng: np.random.Generator, avoid: tuple[str, ...] = ()) -> Command:
    """Same value about/along another axis, never ``cmd``'s own nor any in ``avoid``."""
    axes = ("x", "y") if isinstance(cmd, Move) else ("x", "y", "z")
    pool = [a for a in axes if a != cmd.axis and a not in avoid]
    if not pool:
        raise ValueError(f"no axis left for {cmd} avoiding {avoid}")
    return replace(cmd, axis=str(rng.choice(pool)))


def t5t6_decoy(scheme: int, f1: Command, f2: Command, rng: np.random.Generator, *,
               moves: Sequence[int] = _MOVES, rolls: Sequence[int] = _ROLLS) -> tuple[Command, Command]:
    """One decoy pair by scheme 1, 2 or 3 (see the module docs); magnitudes come from the task
    spec's ``moves`` (Å) and ``rolls`` (degrees)."""
    def magnitude(cmd: Command) -> Command:
        return change_magnitude(cmd, rng, moves if isinstance(cmd, Move) else rolls)

    if scheme == 1:
        return magnitude(f1), magnitude(f2)
    if scheme == 2:
        return flip_sign(f1), magnitude(f2)
    if scheme == 3:
        avoid = (f2.axis,) if type(f1) is type(f2) else ()  # T6: an axis used by neither f1 nor f2
        return change_axis(f1, rng, avoid), magnitude(f2)
    raise ValueError(f"decoy scheme must be 1, 2 or 3, got {scheme}")


def grey_thumbnail(image: np.ndarray) -> np.ndarray:
    """Grey image in [0, 1] (float64), box-averaged down to about ``SSIM_SIZE`` px.

    ``image`` is uint8, shape (H, W, C).  Each output pixel is the exact integer sum of one
    ``f`` x ``f`` block's bytes over all channels (no resampling filter; ``f = H // SSIM_SIZE``)
    divided by ``255 f f C``, so it is cheap enough to run for every candidate decoy; one numba
    pass (:func:`misi_tasks.tasks._ssim_kernels.grey_block_sums`).
    """
    image = np.ascontiguousarray(image)
    if image.dtype != np.uint8 or image.ndim != 3:
        raise ValueError(f"grey_thumbnail needs a uint8 (H, W, C) image, got {image.dtype} {image.shape}")
    f = max(1, image.shape[0] // SSIM_SIZE)
    return _kernels.grey_block_sums(image, f, 255.0 * f * f * image.shape[2])


#: SSIM window and constants, as scikit-image's ``structural_similarity`` defaults (uniform 7x7
#: window, sample covariance, K1 = 0.01, K2 = 0.03) with ``data_range=1``.
_WIN, _K1, _K2 = 7, 0.01, 0.03
_COV_NORM = _WIN**2 / (_WIN**2 - 1)
_C1, _C2 = (_K1 * 1.0) ** 2, (_K2 * 1.0) ** 2


class SsimThumb:
    """A :func:`grey_thumbnail` with the SSIM terms that depend on it alone, computed once.

    :func:`thumbnail_similarity` of two of these does only the cross term, so comparing a decoy
    candidate with every option chosen so far filters each image once instead of once per pair.
    The arithmetic is scikit-image's, operation for operation (numba kernels in
    :mod:`misi_tasks.tasks._ssim_kernels`), so the value is bit-identical to
    ``structural_similarity(a, b, data_range=1.0)``.
    """

    __slots__ = ("im", "ux", "ux2", "vx")

    def __init__(self, thumb: np.ndarray) -> None:
        im = np.ascontiguousarray(thumb, dtype=np.float64)
        if im.ndim != 2:
            raise ValueError(f"a thumbnail is a 2-D grey image, got shape {im.shape}")
        self.im = im
        self.ux, self.vx, self.ux2 = _kernels.thumb_terms(im, _WIN, _COV_NORM)


def _ssim(x: SsimThumb, y: SsimThumb) -> float:
    s = _kernels.ssim_map(x.im, y.im, x.ux, y.ux, x.vx, y.vx, x.ux2, y.ux2, _WIN, _COV_NORM, _C1, _C2)
    pad = (_WIN - 1) // 2  # scikit-image's crop of the filter radius, then numpy's (pairwise) mean
    return float(s[pad:-pad, pad:-pad].mean(dtype=np.float64))


def thumbnail_similarity(a: np.ndarray | SsimThumb, b: np.ndarray | SsimThumb) -> float:
    """SSIM of two :func:`grey_thumbnail` images (or their :class:`SsimThumb`).

    Equal to scikit-image's ``structural_similarity(a, b, data_range=1.0)``, bit for bit.
    """
    x = a if isinstance(a, SsimThumb) else SsimThumb(a)
    y = b if isinstance(b, SsimThumb) else SsimThumb(b)
    if x.im.shape != y.im.shape:
        raise ValueError(f"thumbnails differ in shape: {x.im.shape} and {y.im.shape}")
    if min(x.im.shape) < _WIN:
        raise ValueError(f"thumbnails must be at least {_WIN} px a side, got {x.im.shape}")
    return _ssim(x, y)


def image_similarity(a: np.ndarray, b: np.ndarray) -> float:
    """SSIM of two RGB uint8 images after grey conversion and downsampling to ``SSIM_SIZE``."""
    return thumbnail_similarity(grey_thumbnail(a), grey_thumbnail(b))


def warm_up_ssim() -> None:
    """Load (or, on a cold cache, compile) the decoy check's numba kernels on a tiny image."""
    image = np.zeros((SSIM_SIZE, SSIM_SIZE // 32, 3), dtype=np.uint8)
    image_similarity(image, image)
