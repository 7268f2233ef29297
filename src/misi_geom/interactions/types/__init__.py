"""The interaction types, one declaration per module; every module here is imported (and so
registered) by :mod:`misi_geom.interactions`, in the order of :data:`ORDER`, then any others by name."""

from __future__ import annotations

import importlib
import pkgutil

__all__ = ["ORDER", "load_all"]

#: Types evaluated first (later types refine against them: hydrophobic and cation–π need π-stacking).
ORDER = ("hbond", "salt_bridge", "pi_stacking", "cation_pi", "halogen_bond", "metal", "hydrophobic")


def load_all() -> None:
    """Import every declaration module of this package (registration happens on import)."""
    names = sorted(m.name for m in pkgutil.iter_modules(__path__))
    for name in [n for n in ORDER if n in names] + [n for n in names if n not in ORDER]:
        importlib.import_module(f"{__name__}.{name}")
