"""The one exception type for bad input files."""

from __future__ import annotations

from pathlib import Path

__all__ = ["MisiInputError", "printable"]


class MisiInputError(ValueError):
    """Bad input: the message is one line naming the file and the problem.

    >>> str(MisiInputError("1abc_pocket.pdb", "file is empty"))
    '1abc_pocket.pdb: file is empty'
    """

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = printable(str(path))
        self.problem = printable(" ".join(str(problem).split()))  # always one line
        super().__init__(f"{self.path}: {self.problem}")


def printable(text: str) -> str:
    r"""``text`` with undecodable bytes of a file name (lone surrogates) shown as ``\udcff``, so that
    the message can always be printed and written as UTF-8.

    >>> printable("caf\udce9")
    'caf\\udce9'
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")
