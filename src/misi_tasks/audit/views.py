"""Does an image show a given pose?  Pose scores from atom colours, and image-to-image comparisons.

* :func:`view_seen`: the fraction of the atoms that no nearer atom hides whose centre pixel has
  their colour, for one image and one pose (true views score 0.40-0.95, other views at most 0.31).
* :func:`pose_scores`: for many candidate motions at once, how many atoms are seen where each
  candidate puts them; the answer is re-derived as the best candidate.
* :func:`zoom_scores`: image 4 of T3 compared with image 1 magnified about the centre by each
  candidate's ``D / (D - d)``, pixel by pixel (neighbouring zooms differ by a few pixels only).
* :func:`shift_scores`: image 4 of T1 compared with image 1 shifted by each candidate move.
* :func:`differing_fraction`: how much of two images differ (options against each other).
"""

from __future__ import annotations

import numpy as np

from misi_tasks.audit.geometry import Camera, view_matrix
from misi_tasks.audit.pixels import DARK_CLASS, Pixels, clamp, class_map, in_image, seen, seen_fraction, unhidden

__all__ = ["VIEW_MIN", "VIEW_FLOOR", "VIEW_MARGIN", "view_seen", "pose_scores", "best_motion", "zoom_scores", "shift_scores", "differing_fraction", "visible_atoms",
           "AuditCache"]

#: Fraction of unhidden atoms seen at which an image shows a pose (true views: 0.43-0.95 over
#: 256-512 px, both styles and projections; other views of the same atoms: at most 0.31).
VIEW_MIN = 0.45
#: Below VIEW_MIN an image still shows the pose with at least VIEW_FLOOR seen and VIEW_MARGIN more
#: than in any other canonical view of the same atoms.
VIEW_FLOOR, VIEW_MARGIN = 0.2, 0.1


def best_motion(images: list, cam: Camera, front: np.ndarray, atom_cls: np.ndarray, radii_A: np.ndarray,
                motions: np.ndarray, views: tuple[str, ...] = ("front",), shortlist: int = 24) -> int:
    """Index of the candidate motion that best explains ``images`` (one per view): the ``shortlist``
    candidates with most atom centres seen (of up to 160 atoms spread over the list), then the best
    of those counting every atom's centre and outline edges."""
    some = np.linspace(0, len(front) - 1, min(len(front), 160)).astype(np.int64)  # enough to shortlist
    centre = sum(pose_scores(im, cam, front[some], atom_cls[some], motions, v) for im, v in zip(images, views))
    top = np.argsort(-centre, kind="stable")[:shortlist]
    fine = sum(pose_scores(im, cam, front, atom_cls, motions[top], v, radii_A) for im, v in zip(images, views))
    return int(top[int(np.argmax(fine))])


def _cam_xyz(front: np.ndarray, view: str) -> np.ndarray:
    return front if view == "front" else front @ view_matrix(view).T


def visible_atoms(cam: Camera, front: np.ndarray, radii_A: np.ndarray, view: str = "front") -> tuple:
    """(x px, y px, unhidden and inside the image) of front-frame points in ``view`` (read-only arrays).
    Checks call it through :meth:`AuditCache.visible`, which computes each distinct view once."""
    q = _cam_xyz(front, view)
    x, y, k = cam.pixels(q)
    inside = in_image(x, y, cam.size, margin=1.0)
    out = (x, y, unhidden(x, y, q[:, 2] * k, radii_A * k) & inside)
    for arr in out:
        arr.setflags(write=False)
    return out


class AuditCache:
    """What the items of a group of shards share, owned by that group's audit (no process-wide
    state): images decoded once (keyed by their exact bytes: rows repeat base views, and equal
    pictures are equal bytes) and each distinct view of a pose's atoms (keyed by the exact camera,
    view, coordinates and radii).  Both are bounded: the oldest entries go first (the audit reads
    a complex's items of every task together, so what it needs again is recent)."""

    def __init__(self, max_images: int = 256, max_views: int = 256, max_image_bytes: int = 128 << 20) -> None:
        self._images: dict[bytes, Pixels] = {}
        self._views: dict[tuple, tuple] = {}
        self._max_images, self._max_views = max_images, max_views
        self._max_image_bytes, self._image_bytes = max_image_bytes, 0

    def pixels(self, data: bytes) -> Pixels:
        """The PNG ``data`` decoded (:func:`misi_tasks.audit.pixels.class_map`), once per distinct image
        (at most ``max_images`` of them, holding at most ``max_image_bytes`` of class maps)."""
        hit = self._images.get(data)
        if hit is None:
            hit = class_map(data)
            while self._images and (len(self._images) >= self._max_images
                                    or self._image_bytes + hit.nbytes > self._max_image_bytes):
                self._image_bytes -= self._images.pop(next(iter(self._images))).nbytes
            self._images[data] = hit
            self._image_bytes += hit.nbytes
        return hit

    def visible(self, cam: Camera, front: np.ndarray, radii_A: np.ndarray, view: str = "front") -> tuple:
        """:func:`visible_atoms`, once per distinct (camera, view, points, radii)."""
        key = (cam.key(), view, front.shape, front.dtype.str, front.tobytes(), radii_A.dtype.str, radii_A.tobytes())
        hit = self._views.get(key)
        if hit is None:
            if len(self._views) >= self._max_views:
                del self._views[next(iter(self._views))]
            hit = self._views[key] = visible_atoms(cam, front, radii_A, view)
        return hit


def view_seen(classes: Pixels, cam: Camera, front: np.ndarray, atom_cls: np.ndarray, radii_A: np.ndarray,
              view: str = "front", cache: AuditCache | None = None) -> float:
    """Fraction of unhidden atoms (in the image) seen at their projected centres (``classes``: the
    image's colour classes, :func:`misi_tasks.audit.pixels.class_map`; ``cache``: the audit's, which
    computes each view once).  Items share base views, so each image keeps its results (``Pixels.seen``)."""
    key = (cam.key(), view, front.shape, front.tobytes(), atom_cls.tobytes(), radii_A.tobytes())
    hit = classes.seen.get(key)
    if hit is not None:
        return hit
    x, y, vis = (cache.visible if cache is not None else visible_atoms)(cam, front, radii_A, view)
    value = classes.seen[key] = seen_fraction(classes, x, y, atom_cls, vis)
    return value


def pose_scores(classes: Pixels, cam: Camera, front: np.ndarray, atom_cls: np.ndarray,
                motions: np.ndarray, view: str = "front", radii_A: np.ndarray | None = None) -> np.ndarray:
    """Atoms seen (count) for each of K candidate 4x4 motions (K, 4, 4) of the front-frame points.

    With ``radii_A``, each atom also scores a quarter for each of the four points 0.8 of its drawn
    radius left, right, above and below its centre that are not background: a pose off by less
    than a ball's radius then loses the edges of the outline (large balls, spacefill)."""
    rot = motions[:, :3, :3]
    if view != "front":
        rot = view_matrix(view) @ rot
    trans = motions[:, :3, 3] if view == "front" else motions[:, :3, 3] @ view_matrix(view).T
    pts = np.matmul(front[None], rot.transpose(0, 2, 1)) + trans[:, None, :]
    x, y, k = cam.pixels(pts)
    score = seen(classes, x, y, atom_cls).sum(axis=-1).astype(np.float64)
    if radii_A is not None:
        h, w = classes.shape
        r = radii_A * k * 0.8
        for ox, oy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
            xi = clamp(np.floor(x + ox * r).astype(np.int64), w - 1)
            yi = clamp(np.floor(y + oy * r).astype(np.int64), h - 1)
            score += 0.25 * (classes.at(yi, xi) != DARK_CLASS).sum(axis=-1)
    return score


def zoom_scores(before: Pixels, after: Pixels, magnifications: np.ndarray, stride: int | None = None) -> np.ndarray:
    """For each magnification m: the fraction of sampled pixels of ``after`` that agree (the
    same colour class) with ``before`` at the point m times nearer the image centre."""
    size = after.shape[0]
    stride = stride or max(1, size // 128)  # 128 x 128 samples
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


def shift_scores(before: Pixels, after: Pixels, shifts_px: np.ndarray, stride: int | None = None) -> np.ndarray:
    """For each shift (dx, dy) in pixels (x right, y down): the fraction of sampled pixels of ``after``
    whose source ``p - shift`` lies in ``before`` and has the same colour class (lit pixels only, either side)."""
    size = after.shape[0]
    stride = stride or max(1, size // 128)  # 128 x 128 samples
    g = np.arange(stride // 2, size, stride) + 0.5
    X, Y = np.meshgrid(g, g)
    target = after.strided(stride)
    out = []
    for dx, dy in shifts_px:
        xs, ys = np.floor(X - dx).astype(np.int64), np.floor(Y - dy).astype(np.int64)
        inside = (xs >= 0) & (xs < size) & (ys >= 0) & (ys < size)
        src = before.at(np.clip(ys, 0, size - 1), np.clip(xs, 0, size - 1))
        lit = inside & ((target != DARK_CLASS) | (src != DARK_CLASS))
        out.append(float(((src == target) & lit).sum() / max(int(lit.sum()), 1)))
    return np.array(out)


def differing_fraction(a: Pixels, b: Pixels, stride: int | None = None) -> float:
    """Fraction of sampled pixels where two images disagree (0: the same picture)."""
    if a.shape != b.shape:
        return 1.0
    stride = stride or max(1, a.shape[0] // 256)  # 256 x 256 samples
    return float((a.strided(stride) != b.strided(stride)).mean())
