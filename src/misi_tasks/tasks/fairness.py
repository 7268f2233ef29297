"""What an answer names must be readable from its images: the label check and the equivalent atoms.

**Label check** (T4, T8, T9).  Every residue and ligand atom an answer names (T4: also the
residue's atoms it names) must carry a *legible* label in at least one of the item's images: drawn,
wholly inside the frame, and overlapped by no other label (labels are drawn over the atoms, so
atoms never cover them).  Every atom the question is about must be *visible* (owning its centre
pixel, :attr:`misi_render.RenderedView.visible`, and no label over that pixel) in at least one image.  :func:`check_labels`
finds, for each, the first image that shows it; the generators re-lay out the labels (the named
atoms as key atoms: placed first, and no other label may cover them) or pick another item when
the check fails, and record its result in the item's metadata as ``label_check``:

``{"labels": {NAME: {"image": k, "text": TEXT, "kind": KIND, "box": [x0, y0, x1, y1]}},
"visible": {NAME: {"image": k, "px": [x, y]}}, "relaid_out": bool}`` with image indices from 0 in
the item's image order, label boxes (x1, y1 exclusive) and atom centres in pixels; NAME is a
residue's label, a ligand atom's label or (T4) the residue atom as the answer writes it
(``"ASP OD1"``); TEXT is the label drawn and KIND ``"residue"``, ``"ligand"`` or ``"atom"`` (a T4
residue's atom name).  ``relaid_out``: the first layout failed and the labels were laid out again.

**In frame** (every task): :func:`labels_outside_frame` lists the labels of a render that leave the
image; :meth:`misi_tasks.tasks.base.TaskGenerator.generate` refuses such an item.

**Equivalent atoms** (T4, T8, T9): :func:`equivalent_atoms` writes the metadata
``equivalent_atoms`` of :mod:`misi_tasks.definitions.equivalence`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Sequence

import numpy as np

from misi_geom import Complex
from misi_render import RenderedView
from misi_render.labels import LABEL_KINDS
from misi_tasks.definitions.equivalence import side_chain_siblings

__all__ = ["LabelNeed", "LabelCheck", "check_labels", "checked_render", "labels_outside_frame", "equivalent_atoms"]


@dataclass(frozen=True)
class LabelNeed:
    """One label an answer relies on: ``kind`` ``"ligand"`` / ``"atom"`` (the atom ``atom``'s own
    label) or ``"residue"`` (a label of atom ``atom``'s residue), recorded under ``name``."""

    name: str
    kind: str
    atom: int


@dataclass
class LabelCheck:
    """The result of :func:`check_labels`: the metadata record and what failed."""

    labels: dict = field(default_factory=dict)
    visible: dict = field(default_factory=dict)
    failures: list = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.failures

    def record(self, relaid_out: bool) -> dict:
        """The item metadata ``label_check``."""
        return {"labels": self.labels, "visible": self.visible, "relaid_out": relaid_out}


class _ViewLabels:
    """One view's drawn labels as arrays: what each names and whether it is legible (in frame,
    overlapped by no other label), computed once per view."""

    def __init__(self, view: RenderedView) -> None:
        self.view = view
        b, self.atom, self.kind = view.label_arrays()
        self.boxes = b
        ow = np.minimum(b[:, None, 2], b[None, :, 2]) - np.maximum(b[:, None, 0], b[None, :, 0])
        oh = np.minimum(b[:, None, 3], b[None, :, 3]) - np.maximum(b[:, None, 1], b[None, :, 1])
        overlap = (ow > 0) & (oh > 0)
        np.fill_diagonal(overlap, False)
        size = view.size
        inside = (b[:, 0] >= 0) & (b[:, 1] >= 0) & (b[:, 2] <= size) & (b[:, 3] <= size)
        self.legible = inside & ~overlap.any(axis=1)

    def find(self, c: Complex, need: LabelNeed):
        """The first legible label of ``need`` (a :class:`misi_render.labels.PlacedLabel`), or None."""
        if not len(self.atom):
            return None
        hit = self.legible & (self.kind == LABEL_KINDS.index(need.kind))
        if need.kind == "residue":
            hit &= c.res_index[self.atom] == c.res_index[need.atom]
        else:
            hit &= self.atom == need.atom
        k = np.flatnonzero(hit)
        return self.view.labels[int(k[0])] if len(k) else None

    def covers(self, x: float, y: float) -> bool:
        """Whether a label lies over pixel position (x, y)."""
        b = self.boxes
        return bool(((b[:, 0] <= x) & (x < b[:, 2]) & (b[:, 1] <= y) & (y < b[:, 3])).any())


def check_labels(views: Sequence[RenderedView], c: Complex, labels: Sequence[LabelNeed],
                 visible: dict[str, int]) -> LabelCheck:
    """Check an item's images (``views``, in item order, drawn from ``c``): each of ``labels`` legible
    and each atom of ``visible`` (name -> atom row) visible, in at least one image."""
    out = LabelCheck()
    drawn = [_ViewLabels(v) for v in views]
    for need in labels:
        for k, dl in enumerate(drawn):
            label = dl.find(c, need)
            if label is not None:
                out.labels[need.name] = {"image": k, "text": label.text, "kind": need.kind,
                                         "box": [float(v) for v in label.box]}
                break
        else:
            out.failures.append(f"no legible label for {need.name}")
    for name, atom in visible.items():
        for k, (view, dl) in enumerate(zip(views, drawn)):
            x, y = float(view.screen.x_px[atom]), float(view.screen.y_px[atom])
            if view.visible[atom] and not dl.covers(x, y):
                out.visible[name] = {"image": k, "px": [round(x, 2), round(y, 2)]}
                break
        else:
            out.failures.append(f"{name} is hidden in every image")
    return out


def checked_render(draw: Callable[[np.ndarray | None], list[RenderedView]], c: Complex, labels: Sequence[LabelNeed],
                   visible: dict[str, int], first_key: np.ndarray | None) -> tuple[list[RenderedView], LabelCheck, bool] | None:
    """Draw an item's images with ``draw(key_atoms)`` and check them; on failure draw them again
    with every named atom as a key atom (labelled first, never covered) and check again.

    Returns ``(views, check, relaid_out)``, or None when both layouts fail (pick another item).
    """
    views = draw(first_key)
    check = check_labels(views, c, labels, visible)
    if check.ok:
        return views, check, False
    key = np.zeros(len(c), dtype=bool) if first_key is None else first_key.copy()
    key[[n.atom for n in labels]] = True
    key[list(visible.values())] = True
    key &= ~c.is_hydrogen
    if first_key is not None and np.array_equal(key, first_key):
        return None  # the named atoms were key atoms already: another layout would be the same
    views = draw(key)
    check = check_labels(views, c, labels, visible)
    return (views, check, True) if check.ok else None


def labels_outside_frame(view: RenderedView) -> list[str]:
    """The labels of ``view`` whose box leaves the image (should be none)."""
    b, size = view.label_arrays()[0], view.size
    out = np.flatnonzero((b[:, 0] < 0) | (b[:, 1] < 0) | (b[:, 2] > size) | (b[:, 3] > size))
    return [view.labels[int(k)].text for k in out]


def equivalent_atoms(c: Complex, atoms: Sequence[int], ligand_classes: np.ndarray,
                     pocket_id: Callable[[int], str]) -> list[list[str]]:
    """The equivalence classes of ``atoms`` (rows of ``c``) that have a sibling, as item metadata.

    Pocket atoms: the side-chain table (siblings present in the same residue), written by
    ``pocket_id(row)``; ligand atoms: ``ligand_classes`` (:func:`misi_geom.symmetry.ligand_symmetry_classes`),
    written by their drawn label (the atom name in ``c``).  Classes are sorted lists, the list sorted.
    """
    out: set[tuple[str, ...]] = set()
    for a in atoms:
        a = int(a)
        if c.is_ligand[a]:
            if ligand_classes[a] >= 0:
                rows = np.flatnonzero(ligand_classes == ligand_classes[a])
                out.add(tuple(sorted(str(c.atom_name[r]) for r in rows)))
            continue
        names = side_chain_siblings(str(c.res_name[a]), str(c.atom_name[a]))
        if names:
            same = np.flatnonzero((c.res_index == c.res_index[a]) & ~c.is_hydrogen)
            rows = [int(r) for r in same if str(c.atom_name[r]) in names]
            if len(rows) > 1:
                out.add(tuple(sorted(pocket_id(r) for r in rows)))
    return [list(x) for x in sorted(out)]
