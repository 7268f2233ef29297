"""The one way every console script starts, reports errors, chooses its exit status and says its
version.  Each ``main`` reads as: parse (:func:`new_parser`), then one call of :func:`run` with the
function that builds the configuration and calls the library.

Exit statuses, the same for every tool:

==========  ==========================================================================
``0``       done
``1``       finished, but some work failed (rows that do not load, items left unanswered)
``2``       bad arguments or input: one line ``<tool>: error: <what and where>``
``130``     interrupted (Ctrl-C): one line saying how to resume
==========  ==========================================================================

Pure standard library (every layer may use it).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable

from misi_tasks.version import package_version

__all__ = ["EXIT_FAILED", "EXIT_INTERRUPTED", "EXIT_OK", "EXIT_USAGE", "CliError", "new_parser", "run"]

EXIT_OK = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130


class CliError(Exception):
    """An error to report as one line; ``status`` is the exit status (2, bad input, by default)."""

    def __init__(self, message: str, status: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.status = status


def new_parser(prog: str, description: str, *, epilog: str | None = None,
               raw: bool = False) -> argparse.ArgumentParser:
    """The argument parser of a console script, with ``--version`` (``<prog> <version>``).

    ``raw`` keeps the epilog's line breaks (examples).
    """
    p = argparse.ArgumentParser(prog=prog, description=description, epilog=epilog,
                                formatter_class=argparse.RawDescriptionHelpFormatter if raw else argparse.HelpFormatter)
    p.add_argument("--version", action="version", version=f"%(prog)s {package_version()}")
    return p


def run(prog: str, body: Callable[[], int], *, errors: tuple[type[BaseException], ...] = (),
        interrupted: str = "interrupted") -> int:
    """Call ``body`` and return its exit status; report :class:`CliError` and ``errors`` as one line
    (status 2) and Ctrl-C as ``<prog>: <interrupted>`` (status 130), never as a traceback."""
    try:
        return body()
    except CliError as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return exc.status
    except KeyboardInterrupt:
        print(f"\n{prog}: {interrupted}", file=sys.stderr)
        return EXIT_INTERRUPTED
    except errors as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
