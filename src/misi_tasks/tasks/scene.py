"""A complex ready to be drawn: its camera, cached renders, PNG bytes and H-bonds.

One :class:`Scene` serves every task generated for a complex, so that the canonical views of the
unmoved complex (used by most tasks) are drawn and encoded once.

Labels are decided here, once for everything drawn and answered: :attr:`Scene.complex` carries
unique ligand atom labels (:func:`misi_render.labels.with_unique_ligand_labels`) as its atom
names, so images, answers (T4, T8, T9) and prompts name every ligand atom alike, and every render
shows residue chains when the whole pocket spans more than one chain (:attr:`Scene.residue_chain`),
even when it draws a slice of it.  H-bonds are found on the complex as loaded (:attr:`Scene.source`),
whose atom names the detector's residue templates read; atom indices are the same in both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cached_property
from typing import Any, Sequence

import numpy as np

from misi_geom import SE3, Camera, Complex, fit_camera, view_rotation
from misi_render import RenderedView, encode_png, moved_front_frame, render_views
from misi_render.labels import pocket_has_chains, with_unique_ligand_labels
from misi_tasks.spec.answers import residue_label

__all__ = ["RenderSettings", "Scene"]


@dataclass(frozen=True)
class RenderSettings:
    """How every image of a run is drawn."""

    size: int = 1024
    projection: str = "orthographic"
    style: str = "ball-and-stick"

    def to_dict(self) -> dict:
        return {"size": self.size, "projection": self.projection, "style": self.style}


class Scene:
    """A complex with its fitted camera and a cache of renders.

    The camera is centred on the centroid of the complex's heavy atoms and holds the complex in
    every view and rotation about that centre (see :func:`misi_geom.fit_camera`).
    """

    def __init__(self, complex_: Complex, settings: RenderSettings = RenderSettings(),
                 provenance: dict | None = None) -> None:
        #: The complex as loaded (H-bond detection reads its file atom names).
        self.source = complex_
        #: The complex drawn and answered from: ligand atoms carry their unique labels as names.
        self.complex = with_unique_ligand_labels(complex_)
        #: Residue labels (images and prompts) carry the chain: the pocket spans several chains.
        self.residue_chain = pocket_has_chains(complex_)
        #: Some ligand atom labels were numbered (the prompt states the rule).
        self.numbered_ligand = bool(np.any(self.complex.atom_name != complex_.atom_name))
        self.settings = settings
        #: provenance of explicit-file inputs (:mod:`misi_geom.inputs`), copied into every item's metadata
        self.provenance = provenance
        heavy = complex_.coord[~complex_.is_hydrogen]
        self.camera: Camera = fit_camera(heavy, settings.size, projection=settings.projection)
        self._views: dict[tuple[str, float], RenderedView] = {}
        self._png: dict[tuple[str, float], bytes] = {}
        self._cameras: dict[float, Camera] = {}

    @property
    def pdb_id(self) -> str:
        return self.complex.pdb_id

    def render(
        self,
        views: Sequence[str],
        *,
        complex_: Complex | None = None,
        camera: Camera | None = None,
        motion: SE3 | None = None,
        motion_mask: np.ndarray | None = None,
        **label_options: Any,
    ) -> list[RenderedView]:
        """Draw ``views`` of ``complex_`` (default: the whole complex) with this run's settings."""
        label_options.setdefault("residue_chain", self.residue_chain)
        return render_views(
            self.complex if complex_ is None else complex_,
            views=tuple(views),
            camera=self.camera if camera is None else camera,
            motion=motion,
            motion_mask=motion_mask,
            style=self.settings.style,
            **label_options,
        )

    def residue_label(self, i: int) -> str:
        """The label of atom ``i``'s residue as the images show it (``"ASP 29"`` or ``"ASP 29 A"``)."""
        c = self.complex
        return residue_label(str(c.res_name[i]), f"{c.res_id[i]}{c.ins_code[i]}",
                             str(c.chain_id[i]) if self.residue_chain else None)

    def label_fields(self) -> dict:
        """Prompt fields describing this scene's labels (see :func:`misi_tasks.tasks.prompts.conventions`)."""
        return {"chains": self.residue_chain, "numbered": self.numbered_ligand}

    def camera_with_margin(self, margin_A: float = 0.0) -> Camera:
        """The scene camera, its radius widened by ``margin_A`` Å so that the complex moved by up to
        that much along x or y still lies wholly inside the frame (T1, T5)."""
        if margin_A <= 0:
            return self.camera
        if margin_A not in self._cameras:
            self._cameras[margin_A] = replace(self.camera, radius=self.camera.radius + float(margin_A))
        return self._cameras[margin_A]

    def base_views(self, views: Sequence[str], margin_A: float = 0.0) -> list[RenderedView]:
        """Canonical views of the unmoved complex with :meth:`camera_with_margin`, drawn once per scene."""
        missing = [v for v in views if (v, margin_A) not in self._views]
        if missing:
            for rv in self.render(missing, camera=self.camera_with_margin(margin_A)):
                self._views[(rv.name, margin_A)] = rv
        return [self._views[(v, margin_A)] for v in views]

    def png(self, rv: RenderedView) -> bytes:
        """PNG bytes of a render; the base views are encoded once and shared."""
        key = next((k for k, v in self._views.items() if v is rv), None)
        if key is None:
            return encode_png(rv.image)
        if key not in self._png:
            self._png[key] = encode_png(rv.image)
        return self._png[key]

    def pngs(self, rvs: Sequence[RenderedView]) -> list[bytes]:
        return [self.png(rv) for rv in rvs]

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
        return moved_front_frame(self.complex.coord, self.camera, motion) @ view_rotation(view).T
