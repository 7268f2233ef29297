"""A small OpenAI chat-completions client with retries, built on ``httpx``.

It speaks the plain HTTP protocol of ``POST {base_url}/chat/completions`` that OpenAI, vLLM, SGLang
and other compatible servers share. Retries with exponential back-off (and the server's
``Retry-After``) cover rate limits (429), server errors (5xx, 408, 409), timeouts and dropped
connections; a refused key or unknown model (401, 403, 404) is fatal; any other 4xx fails the item
and is marked ``permanent`` (asking again cannot help: a context-length or image-count limit, a body
too large), so a run records it and goes on.

Every request has a total deadline (``timeout_s`` from sending it, checked as the reply's bytes
arrive, so a server trickling one byte a second is cut off) and a cap on the reply body
(:data:`MAX_REPLY_BYTES`; replies are kilobytes); either counts as a failed attempt and is retried.
The API key never appears in a message: every text derived from a request or a reply (error
details, exceptions, the reply itself) has the key and ``Bearer <key>`` masked (:meth:`ChatClient.mask`).
"""

from __future__ import annotations

import json
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
#: Bytes: a longer reply body (decompressed) is abandoned as a failed attempt.
MAX_REPLY_BYTES = 8 << 20
#: What replaces the API key in messages.
MASK = "***"


class _BadReply(Exception):
    """An attempt's reply broke the deadline or the size cap (the message says which)."""


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
        Total seconds per request, from sending it to the reply's last byte (also the connect, read and
        write timeouts of the connection).
    params : mapping
        Extra request fields (``temperature``, ``max_tokens``, ...).
    on_retry : callable, optional
        Called with a short reason each time a request is retried (for progress counters).
    max_reply_bytes : int
        Cap on a reply body (:data:`MAX_REPLY_BYTES`).
    """

    base_url: str
    model: str
    api_key: str | None = None
    timeout_s: float = 300.0
    params: Mapping[str, Any] = field(default_factory=dict)
    policy: RetryPolicy = field(default_factory=RetryPolicy)
    on_retry: Callable[[str], None] | None = None
    sleep: Callable[[float], None] = time.sleep
    max_reply_bytes: int = MAX_REPLY_BYTES

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
                status, headers, content = self._post(body, t0 + self.timeout_s)
            except httpx.TimeoutException:
                last = f"timeout after {self.timeout_s:g} s"
            except _BadReply as exc:
                last = str(exc)
            except httpx.TransportError as exc:  # refused, reset or dropped connection
                last = self.mask(f"connection error ({type(exc).__name__}: {exc})")
            else:
                latency = time.perf_counter() - t0
                if status == 200:
                    try:
                        return self._reply(_json(content), latency, attempt + 1)
                    except (ValueError, KeyError, IndexError, TypeError, AttributeError) as exc:
                        last = self.mask(f"malformed response ({type(exc).__name__}: {exc})")
                elif status in FATAL_STATUSES:
                    raise FatalRequestError(f"{self.mask(self.url)}: HTTP {status} {self._detail(content)}")
                elif status in RETRY_STATUSES or status >= 500:
                    last = f"HTTP {status} {self._detail(content)}"
                    retry_after = headers.get("retry-after")
                else:
                    raise ItemRequestError(f"HTTP {status} {self._detail(content)}", status=status, permanent=True)
            if attempt == self.policy.retries:
                break
            if self.on_retry is not None:
                self.on_retry(last)
            self.sleep(self.policy.delay_s(attempt, retry_after, self._rng))
        raise ItemRequestError(f"gave up after {self.policy.retries + 1} attempts: {last}")

    def _post(self, body: dict[str, Any], deadline: float) -> tuple[int, httpx.Headers, bytes]:
        """POST ``body``; the reply's status, headers and body, read within ``deadline``
        (``time.perf_counter()``) and :attr:`max_reply_bytes`, else :class:`_BadReply`."""
        cap = self.max_reply_bytes
        with self._http.stream("POST", self.url, json=body) as resp:
            declared = resp.headers.get("content-length", "")
            if declared.isdigit() and int(declared) > cap:
                raise _BadReply(f"reply of {int(declared)} bytes is larger than the {cap}-byte cap")
            chunks, size = [], 0
            for chunk in resp.iter_bytes():
                size += len(chunk)
                if size > cap:
                    raise _BadReply(f"reply larger than the {cap}-byte cap")
                if time.perf_counter() > deadline:
                    raise _BadReply(f"no complete reply within {self.timeout_s:g} s")
                chunks.append(chunk)
            return resp.status_code, resp.headers, b"".join(chunks)

    def mask(self, text: str) -> str:
        """``text`` with the API key (and so ``Bearer <key>``) replaced by ``***``.

        >>> ChatClient("http://127.0.0.1:9/v1", "m", api_key="sk-secret-42").mask("bad key Bearer sk-secret-42")
        'bad key Bearer ***'
        """
        if not self.api_key or text is None:
            return text
        return text.replace(self.api_key, MASK)

    def _detail(self, content: bytes) -> str:
        return _detail(content, self.mask)

    def _reply(self, data: dict[str, Any], latency: float, attempts: int) -> ChatReply:
        message = data["choices"][0]["message"]
        text = message.get("content")
        if isinstance(text, list):  # some servers return content parts
            text = "".join(p.get("text", "") for p in text if isinstance(p, dict))
        if text is not None and not isinstance(text, str):
            raise TypeError("message content is not text")
        model = self.mask(str(data.get("model") or self.model))
        return ChatReply(text=self.mask(text), model=model, usage=data.get("usage"),
                         latency_s=latency, attempts=attempts)


def _json(content: bytes) -> Any:
    """The JSON of a reply body; ``ValueError`` saying what the bytes are when they are not JSON."""
    try:
        return json.loads(content.decode("utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"not UTF-8 text ({len(content)} bytes starting {content[:16]!r})") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"not JSON ({exc.msg}; {len(content)} bytes starting {content[:16]!r})") from None
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def _detail(content: bytes, mask: Callable[[str], str]) -> str:
    """A short, one-line reason from an error response's body, masked before it is shortened."""
    try:
        data = json.loads(content.decode("utf-8"))
        err = data.get("error", data) if isinstance(data, dict) else data
        msg = err.get("message", err) if isinstance(err, dict) else err
        text = str(msg)
    except (ValueError, RecursionError):
        text = content.decode("utf-8", errors="replace")
    text = " ".join(mask(text).split())
    return f"({text[:200]})" if text else ""
