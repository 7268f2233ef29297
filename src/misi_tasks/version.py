"""The installed misi version, for cards and exported files (``"dev"`` when run from a source tree)."""

from __future__ import annotations

__all__ = ["package_version"]


def package_version() -> str:
    """Version of the installed ``misi`` distribution, or ``"dev"``."""
    try:
        from importlib.metadata import version

        return version("misi")
    except Exception:  # pragma: no cover - running from a source tree
        return "dev"
