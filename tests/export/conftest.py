"""Fixtures for the exporter tests: the harness dataset of ``tests/run/conftest.py``."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("misi_harness_fixtures", Path(__file__).parents[1] / "run" / "conftest.py")
harness = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(harness)


@pytest.fixture(scope="session")
def export_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three test and two train items per task (see ``tests/run/conftest.py``)."""
    return harness.build_harness_dataset(tmp_path_factory.mktemp("export"))
