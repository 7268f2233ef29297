"""The optional matplotlib dependency (extra ``misi[viz]``), used headless through the Agg canvas.

Figures are made with :class:`matplotlib.figure.Figure` and an Agg canvas, never ``pyplot``: no
global state, no display, and about 0.4 s less import time. PNGs are written without the
``Software`` tag (which names the matplotlib version) so equal figures give equal bytes.
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

from misi_tasks._atomic import atomic_write_bytes

__all__ = ["PALETTE", "VIZ_MISSING", "MatplotlibMissing", "figure_png", "have_matplotlib", "new_figure", "save_figure"]

#: The one-line message when matplotlib is needed but not installed.
VIZ_MISSING = "matplotlib is not installed; install the plotting extra: pip install 'misi[viz]'"

#: Colours of the figures (colour-blind safe, Okabe-Ito).
PALETTE: tuple[str, ...] = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000")


class MatplotlibMissing(RuntimeError):
    """matplotlib is needed for a figure but not installed (message: :data:`VIZ_MISSING`)."""


def have_matplotlib() -> bool:
    """Whether matplotlib can be imported."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def new_figure(width_in: float, height_in: float, dpi: int = 100, layout: str | None = None) -> Any:
    """A new Agg-backed :class:`~matplotlib.figure.Figure` (no layout engine unless asked: the
    constrained one costs about 0.3 s per figure, so callers place their axes themselves).

    Raises
    ------
    MatplotlibMissing
        When matplotlib is not installed.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        raise MatplotlibMissing(VIZ_MISSING) from None
    fig = Figure(figsize=(width_in, height_in), dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def figure_png(fig: Any) -> bytes:
    """The PNG bytes of a figure (no version tag, so equal figures give equal bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", metadata={"Software": None})
    return buf.getvalue()


def save_figure(fig: Any, path: Path) -> Path:
    """Write a figure as PNG atomically; return the path."""
    atomic_write_bytes(Path(path), figure_png(fig))
    return Path(path)
