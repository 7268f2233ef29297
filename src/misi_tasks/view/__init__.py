"""misi-view: a static HTML gallery of a misi dataset (index, task pages, item pages, thumbnails).

Scorer side: reads the Parquet dataset with pyarrow and grades predictions with
:mod:`misi_tasks.eval.score`; it never imports numba, the renderer or the geometry.
"""

from __future__ import annotations

from misi_tasks.view.site import MARKER, SiteSummary, build_site

__all__ = ["MARKER", "SiteSummary", "build_site"]
