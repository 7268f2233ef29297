"""The one exception type for bad input files."""

from __future__ import annotations

from pathlib import Path

__all__ = ["MisiInputError"]


class MisiInputError(ValueError):
    """Bad input: the message is one line naming the file and the problem.

    >>> str(MisiInputError("1abc_pocket.pdb", "file is empty"))
    '1abc_pocket.pdb: file is empty'
    """

    def __init__(self, path: str | Path, problem: str) -> None:
        self.path = str(path)
        self.problem = " ".join(str(problem).split())  # always one line
        super().__init__(f"{self.path}: {self.problem}")
