"""``misi-run``: query any OpenAI-compatible model on a misi dataset and write resumable predictions.

Modules: :mod:`.client` (HTTP client with retries), :mod:`.store` (append-only predictions file),
:mod:`.runner` (concurrency), :mod:`.cli`; item selection and the prompt come from :mod:`misi_tasks.export`.
It imports neither numba nor the renderer nor the geometry.
"""

from misi_tasks.run.client import ChatClient, ChatReply, FatalRequestError, ItemRequestError, RetryPolicy
from misi_tasks.run.runner import RunStats, run_items
from misi_tasks.run.store import PredictionStore, StoreError

__all__ = [
    "ChatClient",
    "ChatReply",
    "FatalRequestError",
    "ItemRequestError",
    "PredictionStore",
    "RetryPolicy",
    "RunStats",
    "StoreError",
    "run_items",
]
