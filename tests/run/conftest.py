"""Fixtures for the harness tests: a loopback OpenAI-compatible server and a small realistic dataset.

The dataset has every task, multiple-choice questions carrying their option listing exactly as the
generator writes it (image options and text options), 64x48 PNG images and valid answers. The server
answers chat-completion requests with the truth of the question it is sent (or a reply the test
chooses) and can be told to fail: 429 with Retry-After, 500, slow replies, dropped connections,
401 and 400, and to reject like vLLM does: more images than ``max_images`` (its
``--limit-mm-per-prompt``), a prompt over its context (``"ctx"``) or a body too large (``"413"``),
with vLLM's own error bodies and messages.
"""

from __future__ import annotations

import io
import json
import socket
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from PIL import Image

from misi_tasks.dataset import dataset_card_configs_yaml, list_splits, shard_paths, write_shard
from misi_tasks.definitions.items import LETTERS
from misi_tasks.definitions.registry import MC_TASKS, TASK_NAMES

_FREE_ANSWERS = {
    "translation": ["move x 3", "move y -2"],
    "rotation": ["roll y -30", "roll z 45"],
    "zooming": ["move z 47", "move z 52"],
    "residue-ligand": ["Yes: ARG NH2, O1B; ARG NE, O2G", "No"],
    "docking": ["roll x 75, move x -14", "roll z -30, move x 21"],
    "pocket-ligand": ["ASN 460 ND2 A, O2; GLU 537 OE1 A, O2", "GLY 184A N ?, O1"],
    "interaction-list": ["ARG 45 NE-NH1-NH2 A, O1-O2", "No"],
}


def png(w: int, h: int, seed: int) -> bytes:
    """A w x h PNG whose colour depends on ``seed``."""
    buf = io.BytesIO()
    Image.new("RGB", (w, h), (seed * 37 % 256, seed * 11 % 256, seed * 5 % 256)).save(buf, format="PNG")
    return buf.getvalue()


def harness_row(task: str, split: str, k: int) -> dict:
    """The k-th item of a task: generator-like question, roles, options and answer."""
    item_id = f"{task}/{split}/c{k % 3:03d}/{k:03d}"
    roles, options, meta = ["front", "left", "top", "front after"], [], {}
    answer = ""
    if task in MC_TASKS:
        letter = LETTERS[k % 4]
        answer = letter
        if task not in ("translation-rotation", "rotation-rotation"):  # text options (T8, X1, X3)
            options = [f"move x {i - 2}, move y {k % 3}" for i in range(4)]
        else:  # T5 and T6 show their options as images
            options = ["", "", "", ""]
            roles = roles + [f"option {L}" for L in LETTERS]
        listing = "\n".join(f"{LETTERS[i]}. {o}" if o else f"{LETTERS[i]}. the image labelled option {LETTERS[i]}"
                            for i, o in enumerate(options))
        question = (f"Item {item_id}. " + "; ".join(f"image {i + 1}: {r}" for i, r in enumerate(roles))
                    + f". Which option is right? {listing} Answer in the form one letter, and reply with the answer only.")
    else:
        answer = _FREE_ANSWERS[task][k % 2]
        question = f"Item {item_id}. " + "; ".join(f"image {i + 1}: {r}" for i, r in enumerate(roles)) + ". What is it?"
    if task == "residue-ligand":
        meta = {"label": "negative" if answer == "No" else "positive"}
    if task == "interaction-list":  # the metadata the answer comes from
        recs = [] if answer == "No" else [{"type": "salt_bridge", "residue": "ARG 45 A",
                                             "pocket_atoms": ["NE", "NH1", "NH2"], "ligand_atoms": ["O1", "O2"]}]
        meta = {"interaction_type": "salt_bridge" if recs else "metal", "interactions": recs}
    images = [png(64, 48, 10 * k + i) for i in range(len(roles))]
    return dict(id=item_id, task=task, split=split, complex_id=f"c{k % 3:03d}", question=question, images=images,
                image_roles=roles, options=options, answer=answer, metadata=json.dumps(meta))


def build_harness_dataset(out: Path, n_test: int = 3, n_train: int = 2) -> Path:
    """Write the harness dataset (every task; test and train) and a minimal card; return ``out``."""
    for task in TASK_NAMES:
        for split, n in (("test", n_test), ("train", n_train)):
            if n:
                write_shard([harness_row(task, split, k) for k in range(n)], shard_paths(out, task, split, 1)[0])
    (out / "README.md").write_text(dataset_card_configs_yaml(list_splits(out), front_matter=True) + "\n# test\n")
    return out


@pytest.fixture(scope="session")
def harness_dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three test and two train items per task."""
    return build_harness_dataset(tmp_path_factory.mktemp("harness"))


def truth_by_question(dataset: Path) -> dict[str, str]:
    from misi_tasks.dataset import read_items

    return {it["question"]: it["answer"] for it in read_items(dataset, images=False)}


class _QuietServer(ThreadingHTTPServer):
    """A threading server that does not print a traceback when a client resets its connection.

    A run stopped by a fatal reply (a 401) closes its other keep-alive connections; the stdlib server
    would print that reset to stderr, which the tests capture and check for tracebacks.
    """

    def handle_error(self, request, client_address) -> None:
        if isinstance(sys.exc_info()[1], (ConnectionResetError, BrokenPipeError)):
            return
        super().handle_error(request, client_address)


class FakeOpenAI:
    """A chat-completions server on 127.0.0.1 (an ephemeral port) run in a thread.

    ``behaviour(question, attempt)`` returns what to do with a request: ``"answer"``, ``"429"``,
    ``"500"``, ``"slow"`` (sleep ``slow_s`` first), ``"drop"`` (close the connection without a reply),
    ``"401"``, ``"400"``, ``"ctx"`` (vLLM's context-length 400) or ``"413"``. ``reply(question)`` is
    the answer text (default: the truth). ``max_images`` rejects a request with more images as vLLM
    does when they exceed its ``--limit-mm-per-prompt`` (checked before ``behaviour``).
    """

    def __init__(self, truth: dict[str, str]) -> None:
        self.truth = truth
        self.behaviour: Callable[[str, int], str] = lambda q, a: "answer"
        self.reply: Callable[[str], str] = lambda q: self.truth[q]
        self.slow_s = 1.0
        self.max_images: int | None = None
        self.attempts: Counter = Counter()
        self.requests: list[dict] = []
        self.headers: list[dict] = []
        self.lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802
                try:
                    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                except ValueError:  # the client gave up mid-request (e.g. a run stopped by a 401): drop it
                    self.close_connection = True
                    return
                content = body["messages"][-1]["content"]
                question = next(p["text"] for p in content if p["type"] == "text")
                with server.lock:
                    server.attempts[question] += 1
                    attempt = server.attempts[question]
                    server.requests.append(body)
                    server.headers.append(dict(self.headers))
                action = server.behaviour(question, attempt)
                n_images = sum(p["type"] == "image_url" for p in content)
                if server.max_images is not None and n_images > server.max_images:
                    self._vllm_error(400, f"At most {server.max_images} image(s) may be provided in one request.")
                    return
                if action == "ctx":
                    self._vllm_error(400, "This model's maximum context length is 8192 tokens. However, you requested "
                                          "9873 tokens (9361 in the messages, 512 in the completion). Please reduce "
                                          "the length of the messages or completion.")
                    return
                if action == "413":
                    self._send(413, {"detail": "Request Entity Too Large"})
                    return
                if action == "drop":
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                if action == "slow":
                    time.sleep(server.slow_s)
                    action = "answer"
                if action == "answer":
                    text = server.reply(question)
                    self._send(200, {"id": "x", "object": "chat.completion", "model": body["model"] + "-served",
                                     "choices": [{"index": 0, "finish_reason": "stop",
                                                  "message": {"role": "assistant", "content": text}}],
                                     "usage": {"prompt_tokens": 100, "completion_tokens": 5, "total_tokens": 105}})
                else:
                    extra = {"Retry-After": "0"} if action == "429" else {}
                    self._send(int(action), {"error": {"message": f"simulated {action}"}}, extra)

            def _vllm_error(self, status: int, message: str) -> None:  # vLLM's ErrorResponse body
                self._send(status, {"object": "error", "message": message, "type": "BadRequestError",
                                    "param": None, "code": status})

            def _send(self, status: int, obj: dict, headers: dict | None = None) -> None:
                data = json.dumps(obj).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    for k, v in (headers or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client timed out and left

        self.httpd = _QuietServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def fake_server(harness_dataset: Path):
    server = FakeOpenAI(truth_by_question(harness_dataset))
    yield server
    server.close()
