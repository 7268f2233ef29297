"""Does an image show a given pose?  Pose scores from atom colours, and image-to-image comparisons.

* :func:`view_seen`: the fraction of the atoms that no nearer atom hides whose centre pixel has
  their colour, for one image and one pose (a true view scores ~0.8-0.95, any other ~0.1).
* :func:`pose_scores`: for many candidate motions at once, how many atoms are seen where each
  candidate puts them; the answer is re-derived as the best candidate.
* :func:`zoom_scores`: image 4 of T3 compared with image 1 magnified about the centre by each
  candidate's ``D / (D - d)``, pixel by pixel (neighbouring zooms differ by a few pixels only).
* :func:`differing_fraction`: how much of two images differ (options against each other).
"""

from __future__ import annotations

import numpy as np

from misi_tasks.audit.geometry import Camera, view_matrix
from misi_tasks.audit.pixels import DARK_CLASS, Pixels, in_image, seen, seen_fraction, unhidden

__all__ = ["VIEW_MIN", "view_seen", "pose_scores", "zoom_scores", "differing_fraction", "visible_atoms"]

#: Least fraction of unhidden atoms seen for an image to show a pose.
VIEW_MIN = 0.35


def _cam_xyz(front: np.ndarray, view: str) -> np.ndarray:
    return front if view == "front" else front @ view_matrix(view).T


def visible_atoms(cam: Camera, front: np.ndarray, radii_A: np.ndarray, view: str = "front") -> tuple:
    """(x px, y px, unhidden and inside the image) of front-frame points in ``view``."""
    q = _cam_xyz(front, view)
    x, y, k = cam.pixels(q)
    inside = in_image(x, y, cam.size, margin=1.0)
    return x, y, unhidden(x, y, q[:, 2], radii_A * k) & inside


#: (image, camera, view, pose) -> (the class map, fraction): the map is held so its id stays unique.
_SEEN_CACHE: dict[tuple, tuple[Pixels, float]] = {}


def view_seen(classes: Pixels, cam: Camera, front: np.ndarray, atom_cls: np.ndarray, radii_A: np.ndarray,
              view: str = "front") -> float:
    """Fraction of unhidden atoms (in the image) seen at their projected centres (``classes``: the
    image's colour classes, :func:`misi_tasks.audit.pixels.class_map`).  Items share base views, so
    the results of the last calls are kept."""
    key = (id(classes), cam.key(), view, hash(front.tobytes()), hash(atom_cls.tobytes()), hash(radii_A.tobytes()))
    hit = _SEEN_CACHE.get(key)
    if hit is not None and hit[0] is classes:
        return hit[1]
    if len(_SEEN_CACHE) >= 128:
        _SEEN_CACHE.clear()
    x, y, vis = visible_atoms(cam, front, radii_A, view)
    value = seen_fraction(classes, x, y, atom_cls, vis)
    _SEEN_CACHE[key] = (classes, value)
    return value


def pose_scores(classes: Pixels, cam: Camera, front: np.ndarray, atom_cls: np.ndarray,
                motions: np.ndarray, view: str = "front") -> np.ndarray:
    """Atoms seen (count) for each of K candidate 4x4 motions (K, 4, 4) of the front-frame points."""
    rot = motions[:, :3, :3]
    if view != "front":
        rot = view_matrix(view) @ rot
    trans = motions[:, :3, 3] if view == "front" else motions[:, :3, 3] @ view_matrix(view).T
    pts = np.matmul(front[None], rot.transpose(0, 2, 1)) + trans[:, None, :]
    x, y, _ = cam.pixels(pts)
    return seen(classes, x, y, atom_cls).sum(axis=-1)


def zoom_scores(before: Pixels, after: Pixels, magnifications: np.ndarray, stride: int = 4) -> np.ndarray:
    """For each magnification m: the fraction of sampled pixels of ``after`` that agree (the
    same colour class) with ``before`` at the point m times nearer the image centre."""
    size = after.shape[0]
    c = size / 2.0
    g = np.arange(stride // 2, size, stride) + 0.5
    X, Y = np.meshgrid(g, g)
    target = after.strided(stride)
    lit = target != DARK_CLASS
    out = []
    for m in magnifications:
        xs = np.clip(np.floor(c + (X - c) / m).astype(np.int64), 0, size - 1)
        ys = np.clip(np.floor(c + (Y - c) / m).astype(np.int64), 0, size - 1)
        src = before.at(ys, xs)
        out.append(float(((src == target) & (lit | (src == DARK_CLASS))).mean()))
    return np.array(out)


def differing_fraction(a: Pixels, b: Pixels, stride: int = 2) -> float:
    """Fraction of sampled pixels where two images disagree (0: the same picture)."""
    if a.shape != b.shape:
        return 1.0
    return float((a.strided(stride) != b.strided(stride)).mean())
