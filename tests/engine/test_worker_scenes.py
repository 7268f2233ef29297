"""A worker keeps the scenes it drew, compacted, and a scene that comes back gives the same items.

``Worker.scene_loader`` holds a few scenes whole and, after they leave, more of them compacted
(``Scene.compact``: the encoded base views as PNG bytes, ``RenderedView.compact``).  A T5 partner
drawn for one complex and needed again later then draws nothing twice; what it gives must not
depend on how it was kept.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from misi_geom.samples import SAMPLE_IDS, sample_root
from misi_render import RenderOptions, render_views
from misi_render.render import RenderedView
from misi_tasks.engine import worker as worker_mod
from misi_tasks.engine.worker import Worker
from misi_tasks.inputs.discover import discover_inputs
from misi_tasks.tasks import GenContext, get_task

OPTIONS = RenderOptions(size=256)
TASKS = ("translation", "translation-rotation", "residue-ligand")


def test_a_compact_view_keeps_its_pixels_and_numbers():
    c = __import__("tests.render.scenes", fromlist=["load_sample"]).load_sample(SAMPLE_IDS[0])
    (rv,) = render_views(c, ("left",), options=OPTIONS)
    png = rv.png_bytes()
    cv = rv.compact()
    assert isinstance(cv.__dict__["_image"], bytes) and len(cv.__dict__["_image"]) < rv.image.nbytes
    assert cv.png_bytes() == png  # the bytes it holds, not a new encode
    for f in dataclasses.fields(RenderedView):
        if f.name not in ("image", "labels", "screen"):
            a, b = getattr(rv, f.name), getattr(cv, f.name)
            assert (np.array_equal(a, b) if isinstance(a, np.ndarray) else a == b), f.name
    assert cv.labels == rv.labels
    assert np.array_equal(cv.screen.x_px, rv.screen.x_px) and np.array_equal(cv.screen.y_px, rv.screen.y_px)
    assert cv.image.dtype == np.uint8 and np.array_equal(cv.image, rv.image)  # decoded: the same pixels


def test_the_image_is_still_a_required_field():
    with pytest.raises(TypeError):
        RenderedView("front")  # type: ignore[call-arg]


def _sources():
    plan = discover_inputs(sample_root())
    return {cid: plan.sources[cid] for cid in plan.ordered_ids()}


def _rows(worker: Worker, sources, order):
    """Items (id, texts, PNG bytes, metadata) of each complex of ``order`` in turn, every other complex its T5 partner."""
    load = worker.scene_loader(sources, OPTIONS)
    out = []
    for cid in order:
        scene = load(cid)
        ctx = GenContext(seed=3, split="test", options=OPTIONS, partner_ids=tuple(i for i in sources if i != cid),
                         partner=load)
        for task in TASKS:
            out += [(item.id, item.question, item.answer, list(item.images), list(item.option_images),
                     repr(item.metadata)) for item in get_task(task)().generate(scene, ctx)]
    return out


def test_a_scene_kept_compacted_gives_the_same_items_and_draws_less(monkeypatch):
    sources = _sources()
    order = list(sources)[:4] * 2  # every complex twice: the second time its scene has left the whole ones
    calls = {"n": 0}
    real = worker_mod.Scene.render

    def counting(self, *args, **kwargs):
        calls["n"] += 1
        return real(self, *args, **kwargs)

    monkeypatch.setattr(worker_mod.Scene, "render", counting)
    fresh = _rows(Worker(keep=1, keep_compact=0), sources, order)
    drawn_fresh, calls["n"] = calls["n"], 0
    kept_worker = Worker(keep=1, keep_compact=8)
    kept = _rows(kept_worker, sources, order)
    drawn_kept = calls["n"]
    assert kept == fresh
    assert drawn_kept < drawn_fresh
    assert kept_worker.compact_scenes  # the scenes that left were kept, compacted
    for scene in kept_worker.compact_scenes.values():
        assert all(isinstance(rv.__dict__["_image"], bytes) for rv in scene._views.values())


def test_compact_scenes_are_bounded():
    sources = _sources()
    worker = Worker(keep=1, keep_compact=2)
    load = worker.scene_loader(sources, OPTIONS)
    for cid in sources:
        load(cid)
    assert len(worker.scenes) == 1 and len(worker.compact_scenes) == min(2, len(sources) - 1)
