"""A small OpenAI chat-completions client with retries, built on ``httpx``.

It speaks the plain HTTP protocol of ``POST {base_url}/chat/completions`` that OpenAI, vLLM, SGLang
and other compatible servers share. Retries with exponential back-off (and the server's
``Retry-After``) cover rate limits (429), server errors (5xx, 408, 409), timeouts and dropped
connections; a refused key or unknown model (401, 403, 404) is fatal; any other 4xx fails the item
and is marked ``permanent`` (asking again cannot help: a context-length or image-count limit, a body
too large), so a run records it and goes on.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["ChatClient", "ChatReply", "FatalRequestError", "ItemRequestError", "RetryPolicy"]

#: HTTP statuses worth retrying: timeout, conflict, rate limit and server errors.
RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
#: HTTP statuses that no item can succeed after: bad key, forbidden, unknown model or route.
FATAL_STATUSES = frozenset({401, 403, 404})


class ItemRequestError(RuntimeError):
    """One item could not be answered (retries exhausted or a non-retryable 4xx).

    ``status`` is the HTTP status of the last reply (None for timeouts and dropped connections);
    ``permanent`` is True when the server rejected this request itself (a 4xx other than the
    retried and fatal ones: 400, 413, 422, ...), so asking again unchanged gives the same answer.
    """

    def __init__(self, message: str, *, status: int | None = None, permanent: bool = False) -> None:
        super().__init__(message)
        self.status = status
        self.permanent = permanent


class FatalRequestError(RuntimeError):
    """The server refuses every request (bad key, unknown model or URL): stop the run."""


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry one request.

    The k-th retry (k = 0, 1, ...) waits ``min(max_delay_s, base_delay_s * 2**k)`` scaled by a
    random factor in [0.5, 1], or the server's ``Retry-After`` when it gives one (capped at
    ``max_delay_s``).
    """

    retries: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 60.0

    def delay_s(self, attempt: int, retry_after: str | None = None, rng: random.Random | None = None) -> float:
        """Seconds to wait before retry number ``attempt`` (0-based)."""
        if retry_after:
            try:
                return min(self.max_delay_s, max(0.0, float(retry_after)))
            except ValueError:
                pass  # an HTTP date: fall back to the exponential schedule
        base = min(self.max_delay_s, self.base_delay_s * 2 ** attempt)
        return base * (0.5 + 0.5 * (rng or random).random())


@dataclass(frozen=True)
class ChatReply:
    """A successful chat completion."""

    text: str | None
    model: str
    usage: dict[str, Any] | None
    latency_s: float
    attempts: int


@dataclass
class ChatClient:
    """Send chat-completion requests to one OpenAI-compatible server (thread-safe).

    Parameters
    ----------
    base_url : str
        The API root, e.g. ``http://localhost:8000/v1`` (``/chat/completions`` is appended unless
        the URL already ends with it).
    model : str
        Model name sent with every request.
    api_key : str or None
        Sent as ``Authorization: Bearer``; None sends no header (a local vLLM needs none).
    timeout_s : float
        Per-request timeout (connect, read and write).
    params : mapping
        Extra request fields (``temperature``, ``max_tokens``, ...).
    on_retry : callable, optional
        Called with a short reason each time a request is retried (for progress counters).
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 300.0
    params: Mapping[str, Any] = field(default_factory=dict)
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    on_retry: Callable[[str], None] | None = None
    sleep: Callable[[float], None] = time.sleep

    def __post_init__(self) -> None:
        url = self.base_url.rstrip("/")
        self.url = url if url.endswith("/chat/completions") else url + "/chat/completions"
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}
        self._http = httpx.Client(timeout=httpx.Timeout(self.timeout_s), headers=headers,
                                  limits=httpx.Limits(max_connections=None, max_keepalive_connections=64))
        self._rng = random.Random()

    def close(self) -> None:
        """Close the connection pool."""
        self._http.close()

    def complete(self, messages: list[dict[str, Any]]) -> ChatReply:
        """Send one request, retrying as the policy says; return the reply.

        Raises
        ------
        ItemRequestError
            When retries are exhausted or the server rejects this request (400, 413, 422, ...).
        FatalRequestError
            On 401, 403 or 404: no request to this server can succeed.
        """
        body = {"model": self.model, "messages": messages, **self.params}
        last = "no attempt"
        for attempt in range(self.policy.retries + 1):
            retry_after = None
            t0 = time.perf_counter()
            try:
                resp = self._http.post(self.url, json=body)
            except httpx.TimeoutException:
                last = f"timeout after {self.timeout_s:g} s"
            except httpx.TransportError as exc:  # refused, reset or dropped connection
                last = f"connection error ({type(exc).__name__}: {exc})"
            else:
                latency = time.perf_counter() - t0
                if resp.status_code == 200:
                    try:
                        return self._reply(resp.json(), latency, attempt + 1)
                    except (ValueError, KeyError, IndexError, TypeError) as exc:
                        last = f"malformed response ({type(exc).__name__}: {exc})"
                elif resp.status_code in FATAL_STATUSES:
                    raise FatalRequestError(f"{self.url}: HTTP {resp.status_code} {_detail(resp)}")
                elif resp.status_code in RETRY_STATUSES or resp.status_code >= 500:
                    last = f"HTTP {resp.status_code} {_detail(resp)}"
                    retry_after = resp.headers.get("retry-after")
                else:
                    raise ItemRequestError(f"HTTP {resp.status_code} {_detail(resp)}", status=resp.status_code,
                                           permanent=True)
            if attempt == self.policy.retries:
                break
            if self.on_retry is not None:
                self.on_retry(last)
            self.sleep(self.policy.delay_s(attempt, retry_after, self._rng))
        raise ItemRequestError(f"gave up after {self.policy.retries + 1} attempts: {last}")

    def _reply(self, data: dict[str, Any], latency: float, attempts: int) -> ChatReply:
        message = data["choices"][0]["message"]
        text = message.get("content")
        if isinstance(text, list):  # some servers return content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        if text is not None and not isinstance(text, str):
            raise TypeError("message content is not text")
        return ChatReply(text=text, model=str(data.get("model") or self.model), usage=data.get("usage"),
                         latency_s=latency, attempts=attempts)


def _detail(resp: httpx.Response) -> str:
    """A short, one-line reason from an error response."""
    try:
        data = resp.json()
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
        text = str(msg)
    except ValueError:
        text = resp.text
    text = " ".join(text.split())
    return f"({text[:200]})" if text else ""
