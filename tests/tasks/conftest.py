"""Shared fixtures for the task tests: small images (256 px) keep the suite fast."""

from __future__ import annotations

import pytest

from misi_geom import load_complex
from misi_geom.samples import sample_dirs
from misi_render import RenderOptions
from misi_tasks.tasks.scene import Scene

SIZE = 256


@pytest.fixture(scope="session")
def scenes() -> dict[str, Scene]:
    """One scene per bundled sample complex, at 256 px."""
    return {d.name: Scene(load_complex(d), RenderOptions(size=SIZE)) for d in sample_dirs()}


@pytest.fixture(scope="session")
def scene(scenes) -> Scene:
    return scenes["2pyy"]
