"""``misi-run`` against hostile OpenAI-compatible servers on loopback:
a reply trickled a byte at a time or a body that never ends is cut off by the request's total deadline
or the body cap, and retried or failed like any other error; an API key the server echoes back never
reaches a message or a file; a garbage reply is described as what it is."""

from __future__ import annotations

import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from misi_tasks.run.cli import main as run_main
from misi_tasks.run.client import MAX_REPLY_BYTES

KEY = "sk-live-0123456789abcdef"


class Hostile:
    """A server that does ``mode`` to every request and counts the body bytes it managed to send."""

    def __init__(self, mode: str) -> None:
        self.mode, self.sent, self.requests = mode, 0, 0
        self.stopped = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:
                pass

            def do_POST(self) -> None:  # noqa: N802
                self.rfile.read(int(self.headers["Content-Length"]))
                server.requests += 1
                auth = self.headers.get("Authorization", "")
                try:
                    getattr(server, "_" + server.mode)(self, auth)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up: what the test wants
                self.close_connection = True

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()

    def _head(self, h, status: int, length: int | None, ctype: str = "application/json") -> None:
        h.send_response(status)
        h.send_header("Content-Type", ctype)
        if length is None:
            h.send_header("Transfer-Encoding", "chunked")
        else:
            h.send_header("Content-Length", str(length))
        h.end_headers()

    def _trickle(self, h, auth) -> None:  # one byte every 0.1 s of a 300-byte body (30 s if read to the end)
        self._head(h, 200, 300)
        for _ in range(300):
            if self.stopped.is_set():
                return
            h.wfile.write(b" ")
            h.wfile.flush()
            self.sent += 1
            time.sleep(0.1)

    def _endless(self, h, auth) -> None:  # chunked 64 KiB pieces; stops at 8x the cap so a bad client ends
        self._head(h, 200, None)
        piece = b"[" * (64 << 10)
        while self.sent < 8 * MAX_REPLY_BYTES and not self.stopped.is_set():
            h.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            self.sent += len(piece)
        h.wfile.write(b"0\r\n\r\n")

    def _huge(self, h, auth) -> None:  # declares 1 GB, sends 1 MB
        self._head(h, 200, 1 << 30)
        for _ in range(16):
            h.wfile.write(b"{" * (64 << 10))
            self.sent += 64 << 10

    def _echo(self, h, auth, status: int = 401) -> None:
        body = json.dumps({"error": {"message": f"key {auth[len('Bearer '):]} refused ({auth}); "
                                                f"{'x' * 190}{auth}"}}).encode()
        self._head(h, status, len(body))
        h.wfile.write(body)

    def _echo500(self, h, auth) -> None:
        self._echo(h, auth, 500)

    def _echoreply(self, h, auth) -> None:
        body = json.dumps({"model": f"m-{auth}", "choices": [{"message": {"content": f"A, said {auth}"}}]}).encode()
        self._head(h, 200, len(body))
        h.wfile.write(body)

    def _garbage(self, h, auth) -> None:
        body = b"\xff\xfe\x00\xd8garbage\x00"
        self._head(h, 200, len(body), "text/plain")
        h.wfile.write(body)

    def close(self) -> None:
        self.stopped.set()
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def hostile():
    servers = []

    def start(mode: str) -> Hostile:
        servers.append(Hostile(mode))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


def _run(server: Hostile, dataset: Path, out: Path, *extra: str) -> int:
    return run_main([str(dataset), "--base-url", server.url, "--model", "m", "--out", str(out), "--quiet",
                     "--task", "translation", "--limit", "1", "--backoff", "0", *extra])


def test_a_trickling_server_is_cut_off_by_the_total_deadline(hostile, harness_dataset: Path, tmp_path: Path, capsys):
    server = hostile("trickle")
    assert _run(server, harness_dataset, tmp_path / "p.jsonl", "--timeout", "1", "--retries", "1") == 1
    err = capsys.readouterr().err
    assert "no complete reply within 1 s" in err and "gave up after 2 attempts" in err and "Traceback" not in err
    assert server.requests == 2 and server.sent < 2 * 30  # about 10 bytes per attempt, never the whole 300


def test_an_endless_body_is_cut_off_by_the_size_cap(hostile, harness_dataset: Path, tmp_path: Path, capsys):
    server = hostile("endless")
    assert _run(server, harness_dataset, tmp_path / "p.jsonl", "--retries", "0") == 1
    err = capsys.readouterr().err
    assert f"reply larger than the {MAX_REPLY_BYTES}-byte cap" in err and "Traceback" not in err
    assert server.sent < 2 * MAX_REPLY_BYTES


def test_a_declared_huge_body_is_refused_before_it_is_read(hostile, harness_dataset: Path, tmp_path: Path, capsys):
    server = hostile("huge")
    assert _run(server, harness_dataset, tmp_path / "p.jsonl", "--retries", "0") == 1
    assert f"reply of {1 << 30} bytes is larger than the {MAX_REPLY_BYTES}-byte cap" in capsys.readouterr().err


@pytest.mark.parametrize("mode, status", [("echo", 2), ("echo500", 1), ("echoreply", 0)])
def test_an_echoed_api_key_is_masked_everywhere(hostile, harness_dataset: Path, tmp_path: Path, capsys,
                                                monkeypatch, mode, status):
    monkeypatch.setenv("MISI_TEST_KEY", KEY)
    server = hostile(mode)
    preds = tmp_path / "p.jsonl"
    assert _run(server, harness_dataset, preds, "--api-key-env", "MISI_TEST_KEY", "--retries", "0") == status
    captured = capsys.readouterr()
    text = captured.out + captured.err + (preds.read_text() if preds.exists() else "")
    assert server.requests == 1
    assert KEY not in text and KEY[:12] not in text  # not whole, not cut at the 200-character limit either
    assert "Bearer ***" in text


def test_a_garbage_reply_is_described_not_decoded_as_utf16(hostile, harness_dataset: Path, tmp_path: Path, capsys):
    server = hostile("garbage")
    assert _run(server, harness_dataset, tmp_path / "p.jsonl", "--retries", "0") == 1
    err = capsys.readouterr().err
    assert "malformed response" in err and "not UTF-8 text (12 bytes starting" in err
    assert "UTF-16" not in err and "utf-16" not in err
