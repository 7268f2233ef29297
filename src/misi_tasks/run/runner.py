"""Ask a model every selected item, concurrently, and append each answer as it arrives.

Threads: one feeder reads items (with images) and builds their requests; ``concurrency`` workers
send them; the main thread writes answers, keeps the progress bar and stays responsive to Ctrl-C.
Every thread but the main one is a daemon, so an interrupt never waits for a slow request; the
answers written so far are whole lines and a rerun resumes from them.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from misi_tasks.export.prompt import build_prompt, chat_messages
from misi_tasks.run.client import ChatClient, FatalRequestError, ItemRequestError
from misi_tasks.run.store import PredictionStore

__all__ = ["RunStats", "run_items"]


@dataclass
class RunStats:
    """What one ``misi-run`` did.

    ``failed`` holds every item that got no answer with the reason; ``rejected`` the subset the
    server rejected for good (a permanent 4xx, recorded in the store and not retried by a rerun).
    """

    todo: int = 0
    answered: int = 0
    failed: dict[str, str] = field(default_factory=dict)
    rejected: dict[str, str] = field(default_factory=dict)
    retries: int = 0
    latencies: list[float] = field(default_factory=list)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    elapsed_s: float = 0.0
    fatal: str | None = None
    aborted: str | None = None


_DONE = object()


def run_items(
    rows: Iterable[dict[str, Any]],
    todo: int,
    client: ChatClient,
    store: PredictionStore,
    *,
    concurrency: int = 8,
    max_image_px: int | None = None,
    system: str | None = None,
    progress: Callable[[RunStats], None] | None = None,
    max_consecutive_failures: int | None = None,
) -> RunStats:
    """Answer ``rows`` (full dataset rows, ``todo`` of them) and append each answer to ``store``.

    An item the server rejects for good (HTTP 400 and the like: a context-length or image-count
    limit) is recorded with the server's reason (:meth:`PredictionStore.record_failure`) and the run
    goes on. It stops early only when the server looks unusable: a fatal error (bad key, unknown
    model) or ``max_consecutive_failures`` items in a row whose retries ran out (5xx, timeouts,
    dropped connections; default: ``max(8, 2 * concurrency)``).
    ``KeyboardInterrupt`` propagates after the answers received so far are written.
    """
    run = _Run(client, store, RunStats(todo=todo), concurrency, max_consecutive_failures or max(8, 2 * concurrency))
    threads = [threading.Thread(target=run.feed, args=(rows, max_image_px, system), daemon=True, name="misi-run-feed")]
    threads += [threading.Thread(target=run.work_loop, daemon=True, name=f"misi-run-{k}") for k in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    try:
        run.collect(progress)
    finally:
        run.stop.set()
        run.stats.elapsed_s = time.perf_counter() - t0
    return run.stats


class _Run:
    """The queues and counters one :func:`run_items` call shares between its threads.

    ``work`` carries (item id, messages) from the feeder to the workers, then one ``_DONE`` per
    worker; ``results`` carries (item id, reply, exception) and each worker's ``_DONE`` back to the
    main thread, the only one that writes to the store or the stats (retries aside, counted under a
    lock).  ``stop`` ends every thread.
    """

    def __init__(self, client: ChatClient, store: PredictionStore, stats: RunStats, concurrency: int,
                 limit: int) -> None:
        self.client, self.store, self.stats = client, store, stats
        self.concurrency, self.limit = concurrency, limit
        self.stop = threading.Event()
        self.work: queue.Queue = queue.Queue(maxsize=2 * concurrency)
        self.results: queue.Queue = queue.Queue()
        self._retry_lock = threading.Lock()
        client.on_retry = self._count_retry

    def _count_retry(self, _: str) -> None:
        with self._retry_lock:
            self.stats.retries += 1

    def _put_work(self, job: Any) -> bool:
        """Queue ``job`` for the workers unless the run stops first; whether it was queued."""
        while not self.stop.is_set():
            try:
                self.work.put(job, timeout=0.2)
                return True
            except queue.Full:
                continue
        return False

    def feed(self, rows: Iterable[dict[str, Any]], max_image_px: int | None, system: str | None) -> None:
        """Feeder thread: build each row's request, then tell every worker that there is no more."""
        try:
            for row in rows:
                if self.stop.is_set():
                    return
                prompt = build_prompt(row, max_image_px=max_image_px, system=system)
                self._put_work((prompt.id, chat_messages(prompt)))
        except Exception as exc:  # a broken shard: report it through the results queue
            self.results.put(("feeder", None, exc))
        finally:
            for _ in range(self.concurrency):
                self._put_work(_DONE)

    def work_loop(self) -> None:
        """Worker thread: send requests until the feeder's ``_DONE`` or the run stops."""
        client = self.client
        while not self.stop.is_set():
            try:
                job = self.work.get(timeout=0.2)
            except queue.Empty:
                continue
            if job is _DONE:
                self.results.put(_DONE)
                return
            item_id, messages = job
            try:
                self.results.put((item_id, client.complete(messages), None))
            except (ItemRequestError, FatalRequestError) as exc:
                self.results.put((item_id, None, exc))
            except Exception as exc:  # noqa: BLE001 - never lose a worker silently
                self.results.put((item_id, None, ItemRequestError(client.mask(f"{type(exc).__name__}: {exc}"))))

    def collect(self, progress: Callable[[RunStats], None] | None) -> None:
        """Main thread: record results until every worker is done or the run must stop."""
        finished, streak = 0, 0
        while finished < self.concurrency:
            try:
                msg = self.results.get(timeout=0.2)
            except queue.Empty:
                if progress:
                    progress(self.stats)
                continue
            if msg is _DONE:
                finished += 1
                continue
            streak = self._record(*msg, streak)
            if streak < 0:
                return
            if progress:
                progress(self.stats)

    def _record(self, item_id: str, reply: Any, exc: BaseException | None, streak: int) -> int:
        """Record one result; returns the new count of failures in a row, or -1 when the run stops."""
        stats = self.stats
        if item_id == "feeder":
            raise exc  # type: ignore[misc]
        if isinstance(exc, FatalRequestError):
            stats.fatal = str(exc)
            return -1
        if isinstance(exc, ItemRequestError) and exc.permanent:
            stats.failed[item_id] = stats.rejected[item_id] = str(exc)
            self.store.record_failure(item_id, str(exc), exc.status)
            return streak
        if exc is not None:
            stats.failed[item_id] = str(exc)
            if streak + 1 >= self.limit:
                stats.aborted = f"{streak + 1} items in a row failed (last: {exc})"
                return -1
            return streak + 1
        self.store.append({"id": item_id, "reply": reply.text, "model": self.client.model,
                           "latency_s": round(reply.latency_s, 3), "usage": reply.usage})
        stats.answered += 1
        stats.latencies.append(reply.latency_s)
        usage = reply.usage or {}
        stats.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        stats.completion_tokens += int(usage.get("completion_tokens") or 0)
        return 0
