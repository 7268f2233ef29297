"""A complex ready to be drawn: its camera frame, cached renders, PNG bytes and H-bonds.

One :class:`Scene` serves every task generated for a complex, so that the canonical views of the
unmoved complex (used by most tasks) are drawn and encoded once.

Labels are decided here, once for everything drawn and answered: :attr:`Scene.complex` carries
unique ligand atom labels (:func:`misi_render.labels.with_unique_ligand_labels`) as its atom
names, so images, answers (T4, T8, T9) and prompts name every ligand atom alike, and every render
shows residue chains when the whole pocket spans more than one chain (:attr:`Scene.residue_chain`),
even when it draws a slice of it.  Every item's camera frame comes from :meth:`Scene.frame_for`;
the run's :class:`misi_render.RenderOptions` turn it into pixels.  H-bonds are found on the complex as loaded (:attr:`Scene.source`),
whose atom names the detector's residue templates read; atom indices are the same in both.
"""

from __future__ import annotations

from dataclasses import replace
from functools import cached_property
from typing import Any, Literal, Sequence

import numpy as np

from misi_geom import SE3, CameraFrame, Complex, fit_frame, view_rotation
from misi_render import RenderedView, RenderOptions, moved_front_frame, render_views
from misi_render.labels import pocket_has_chains, with_unique_ligand_labels
from misi_geom.residues import atom_residue_label

__all__ = ["Scene"]


class Scene:
    """A complex with its fitted camera frame and a cache of renders.

    :attr:`frame` is centred on the centroid of the complex's heavy atoms and holds the complex in
    every view and rotation about that centre (see :func:`misi_geom.fit_frame`).  ``options`` are
    the run's render options (size, projection, style); the scene draws with them, its residue
    labels carrying chains as :attr:`residue_chain` says.
    """

    def __init__(self, complex_: Complex, options: RenderOptions = RenderOptions(),
                 provenance: dict | None = None) -> None:
        #: The complex as loaded (H-bond detection reads its file atom names).
        self.source = complex_
        #: The complex drawn and answered from: ligand atoms carry their unique labels as names.
        self.complex = with_unique_ligand_labels(complex_)
        #: Residue labels (images and prompts) carry the chain: the pocket spans several chains.
        self.residue_chain = pocket_has_chains(complex_)
        #: Some ligand atom labels were numbered (the prompt states the rule).
        self.numbered_ligand = bool(np.any(self.complex.atom_name != complex_.atom_name))
        #: The run's render options (dataset metadata ``render``).
        self.run_options = options
        #: What this scene's renders are drawn with: the run's options, chains as the whole pocket says.
        self.options = replace(options, residue_chain=self.residue_chain)
        #: provenance of explicit-file inputs (:mod:`misi_geom.inputs`), copied into every item's metadata
        self.provenance = provenance
        #: The scene's camera frame: about the heavy-atom centroid, holding the whole complex.
        self.frame: CameraFrame = fit_frame(complex_.coord[~complex_.is_hydrogen])
        self._views: dict[tuple[str, float], RenderedView] = {}
        self._png: dict[tuple[str, float], bytes] = {}

    @property
    def pdb_id(self) -> str:
        return self.complex.pdb_id

    def render(
        self,
        views: Sequence[str],
        *,
        complex_: Complex | None = None,
        frame: CameraFrame | None = None,
        motion: SE3 | None = None,
        motion_mask: np.ndarray | None = None,
        **about: Any,
    ) -> list[RenderedView]:
        """Draw ``views`` of ``complex_`` (default: the whole complex) in ``frame`` (default
        :attr:`frame`; see :meth:`frame_for`) with :attr:`options`.  ``about``: ``atom_label_residue``,
        ``key_atoms`` (:func:`misi_render.render_views`)."""
        return render_views(
            self.complex if complex_ is None else complex_,
            views=tuple(views),
            frame=self.frame if frame is None else frame,
            options=self.options,
            motion=motion,
            motion_mask=motion_mask,
            **about,
        )

    def residue_label(self, i: int) -> str:
        """The label of atom ``i``'s residue as the images show it (``"ASP 29"`` or ``"ASP 29 A"``)."""
        return atom_residue_label(self.complex, i, self.residue_chain)

    def label_fields(self) -> dict:
        """Prompt fields describing this scene's labels (see :func:`misi_tasks.tasks.prompts.conventions`)."""
        return {"chains": self.residue_chain, "numbered": self.numbered_ligand}

    def frame_for(
        self,
        atoms: Complex | None = None,
        *,
        motion: SE3 | None = None,
        motion_mask: np.ndarray | None = None,
        centre: Literal["scene", "atoms"] = "scene",
        margin_A: float = 0.0,
    ) -> CameraFrame:
        """The camera frame of an item's images: every task gets its frame here.

        The frame holds the heavy atoms of ``atoms`` (default: the whole complex), after ``motion``
        of the ``motion_mask`` atoms, in every view and rotation about its centre.

        Parameters
        ----------
        atoms : misi_geom.Complex, optional
            What the images show (model coordinates): a slice of :attr:`complex`.  Default: the
            whole complex; with no motion, margin or atoms this is :attr:`frame`.
        motion, motion_mask : optional
            A rigid motion of the masked atoms (default all) in the front camera frame, as
            :meth:`render` takes them (T7: the displaced ligand).
        centre : {"scene", "atoms"}
            ``"scene"`` keeps the scene's centre, so that motions in the front camera frame mean the
            same in every image of the scene (T7); ``"atoms"`` centres on the heavy-atom centroid of
            the (moved) atoms (T4: one residue and the ligand).
        margin_A : float
            Widen the radius by this much (Å): the atoms moved by up to that much along x or y
            still lie wholly inside the frame (T1, T5).
        """
        if centre not in ("scene", "atoms"):
            raise ValueError(f"centre must be 'scene' or 'atoms', got {centre!r}")
        if atoms is None and motion is None:
            return self.frame.widened(margin_A)
        a = self.complex if atoms is None else atoms
        heavy = ~a.is_hydrogen
        if motion is None and centre == "atoms":
            return fit_frame(a.coord[heavy]).widened(margin_A)
        front = a.coord[heavy] - self.frame.center  # front camera frame, as render_views computes it
        if motion is not None:
            moved = np.ones(len(front), dtype=bool) if motion_mask is None else np.asarray(motion_mask)[heavy]
            front[moved] = motion.apply(front[moved])
        if centre == "atoms":
            return fit_frame(front + self.frame.center).widened(margin_A)
        radius = fit_frame(front, center=np.zeros(3)).radius
        return CameraFrame(center=self.frame.center, radius=radius).widened(margin_A)

    def camera_dict(self, frame: CameraFrame | None = None) -> dict:
        """Item metadata for an image's camera: ``frame`` (default :attr:`frame`) with the run's pixels."""
        return self.options.camera_dict(self.frame if frame is None else frame)

    def base_views(self, views: Sequence[str], margin_A: float = 0.0) -> list[RenderedView]:
        """Canonical views of the unmoved complex in ``frame_for(margin_A=margin_A)``, drawn once per scene."""
        missing = [v for v in views if (v, margin_A) not in self._views]
        if missing:
            for rv in self.render(missing, frame=self.frame_for(margin_A=margin_A)):
                self._views[(rv.name, margin_A)] = rv
        return [self._views[(v, margin_A)] for v in views]

    def png(self, rv: RenderedView) -> bytes:
        """PNG bytes of a render; the base views are encoded once and shared."""
        key = next((k for k, v in self._views.items() if v is rv), None)
        if key is None:
            return rv.png_bytes()
        if key not in self._png:
            self._png[key] = rv.png_bytes()
        return self._png[key]

    def pngs(self, rvs: Sequence[RenderedView]) -> list[bytes]:
        return [self.png(rv) for rv in rvs]

    def compact(self) -> None:
        """Keep the base views already encoded as compact copies (their pixels as the PNG bytes
        :meth:`png` gives, :meth:`misi_render.RenderedView.compact`) and drop the others: a scene
        kept for later (a T5 partner, a complex drawn again) then holds ~0.3 instead of ~3 MB a
        1024 px view, and draws nothing it drew before.  What the scene gives does not change."""
        self._views = {k: rv.compact(self._png[k]) for k, rv in self._views.items() if k in self._png}

    @cached_property
    def ligand_classes(self) -> np.ndarray:
        """Graph-symmetry class of every ligand heavy atom (-1: no sibling), :func:`misi_geom.symmetry.ligand_symmetry_classes`."""
        from misi_geom.symmetry import ligand_symmetry_classes

        return ligand_symmetry_classes(self.complex)

    @property
    def pocket_chain(self) -> str | None:
        """The one chain id of a single-chain pocket (``"?"`` when blank), None when it spans several."""
        if self.residue_chain:
            return None
        c = self.complex
        pocket = np.flatnonzero(~c.is_ligand & ~c.is_hydrogen)
        return (str(c.chain_id[pocket[0]]) or "?") if len(pocket) else None

    @cached_property
    def hbonds(self) -> list:
        """Pocket–ligand hydrogen bonds (:func:`misi_geom.find_hbonds`, default relaxed criteria)."""
        from misi_geom import find_hbonds

        return list(find_hbonds(self.source))

    def camera_frame(self, view: str = "front", motion: SE3 | None = None) -> np.ndarray:
        """Camera-frame coordinates (Å) of every atom of the complex in ``view``, after ``motion``.

        As in :func:`misi_render.render_views`, ``motion`` is in the front camera frame and is
        applied before the view's rotation (for the front view the two frames coincide).
        """
        return moved_front_frame(self.complex.coord, self.frame, motion) @ view_rotation(view).T
