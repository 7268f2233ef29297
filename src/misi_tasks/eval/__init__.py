"""``misi-eval``: parse a model's replies, score them against a dataset, baselines and reports.

Imports only :mod:`misi_tasks.definitions` (and standard helpers), never generation, rendering or geometry.
"""

from __future__ import annotations

from misi_tasks.eval.parse import parse_answer
from misi_tasks.eval.report import summarize
from misi_tasks.eval.score import score_item

__all__ = ["parse_answer", "score_item", "summarize"]
