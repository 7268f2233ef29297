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
    stats = RunStats(todo=todo)
    limit = max_consecutive_failures or max(8, 2 * concurrency)
    stop = threading.Event()
    work: queue.Queue = queue.Queue(maxsize=2 * concurrency)
    results: queue.Queue = queue.Queue()
    retry_lock = threading.Lock()

    def count_retry(_: str) -> None:
        with retry_lock:
            stats.retries += 1

    client.on_retry = count_retry

    def feed() -> None:
        try:
            for row in rows:
                if stop.is_set():
                    return
                prompt = build_prompt(row, max_image_px=max_image_px, system=system)
                while not stop.is_set():
                    try:
                        work.put((prompt.id, chat_messages(prompt)), timeout=0.2)
                        break
                    except queue.Full:
                        continue
        except Exception as exc:  # a broken shard: report it through the results queue
            results.put(("feeder", None, exc))
        finally:
            for _ in range(concurrency):
                while not stop.is_set():
                    try:
                        work.put(_DONE, timeout=0.2)
                        break
                    except queue.Full:
                        continue

    def work_loop() -> None:
        while not stop.is_set():
            try:
                job = work.get(timeout=0.2)
            except queue.Empty:
                continue
            if job is _DONE:
                results.put(_DONE)
                return
            item_id, messages = job
            try:
                results.put((item_id, client.complete(messages), None))
            except (ItemRequestError, FatalRequestError) as exc:
                results.put((item_id, None, exc))
            except Exception as exc:  # noqa: BLE001 - never lose a worker silently
                results.put((item_id, None, ItemRequestError(client.mask(f"{type(exc).__name__}: {exc}"))))

    threads = [threading.Thread(target=feed, daemon=True, name="misi-run-feed")]
    threads += [threading.Thread(target=work_loop, daemon=True, name=f"misi-run-{k}") for k in range(concurrency)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    finished, streak = 0, 0
    try:
        while finished < concurrency:
            try:
                msg = results.get(timeout=0.2)
            except queue.Empty:
                if progress:
                    progress(stats)
                continue
            if msg is _DONE:
                finished += 1
                continue
            item_id, reply, exc = msg
            if item_id == "feeder":
                raise exc
            if isinstance(exc, FatalRequestError):
                stats.fatal = str(exc)
                break
            if isinstance(exc, ItemRequestError) and exc.permanent:
                stats.failed[item_id] = stats.rejected[item_id] = str(exc)
                store.record_failure(item_id, str(exc), exc.status)
            elif exc is not None:
                stats.failed[item_id] = str(exc)
                streak += 1
                if streak >= limit:
                    stats.aborted = f"{streak} items in a row failed (last: {exc})"
                    break
            else:
                streak = 0
                store.append({"id": item_id, "reply": reply.text, "model": client.model,
                              "latency_s": round(reply.latency_s, 3), "usage": reply.usage})
                stats.answered += 1
                stats.latencies.append(reply.latency_s)
                usage = reply.usage or {}
                stats.prompt_tokens += int(usage.get("prompt_tokens") or 0)
                stats.completion_tokens += int(usage.get("completion_tokens") or 0)
            if progress:
                progress(stats)
    finally:
        stop.set()
        stats.elapsed_s = time.perf_counter() - t0
    return stats
