"""A scripted OpenAI-compatible `/v1/chat/completions` server on 127.0.0.1, for tests and benches.

Real sockets and real HTTP (keep-alive, Content-Length, torn bodies), so the client's retry
and timeout handling is exercised as it will meet a real endpoint, not through mocks.
Each request gets an action: the next scripted one if any (`script`), else the responder's
choice. Every request is recorded (headers and JSON body) for assertions.
"""

from __future__ import annotations

import contextlib
import json
import re
import socket
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Request:
    path: str
    headers: dict[str, str]
    body: Any  # parsed JSON, or None when the body was not JSON
    received: float  # time.monotonic()

    @property
    def user_text(self) -> str:
        return self.body["messages"][-1]["content"]

    @property
    def all_text(self) -> str:
        return "\n".join(m["content"] for m in self.body["messages"])


Action = Callable[["_Handler", Request], None]
Responder = Callable[[Request], Action]


def reply(text: str, *, delay: float = 0.0, usage: dict[str, int] | None = None) -> Action:
    """A normal completion; usage defaults to deterministic counts (characters in, out)."""
    def act(h: _Handler, req: Request) -> None:
        if delay and h.server.stopping.wait(delay):
            return
        counts = usage if usage is not None else _usage(req, text)
        body = {"id": "chatcmpl-loopback", "object": "chat.completion", "created": 0,
                "model": (req.body or {}).get("model", ""),
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop"}],
                "usage": counts}
        _send(h, 200, json.dumps(body, ensure_ascii=False).encode())
    return act


def _usage(req: Request, text: str) -> dict[str, int]:
    prompt = len(req.all_text) if req.body else 0
    return {"prompt_tokens": prompt, "completion_tokens": len(text), "total_tokens": prompt + len(text)}


def status(code: int, *, retry_after: str | float | None = None, body: str | None = None) -> Action:
    """An error status, optionally with Retry-After (seconds or an HTTP date)."""
    def act(h: _Handler, req: Request) -> None:
        headers = {"Retry-After": str(retry_after)} if retry_after is not None else {}
        payload = body if body is not None else json.dumps({"error": {"message": f"scripted {code}"}})
        _send(h, code, payload.encode(), headers)
    return act


def stall(seconds: float, then: Action | None = None) -> Action:
    """Answer only after `seconds` (longer than the client's timeout, typically)."""
    def act(h: _Handler, req: Request) -> None:
        if h.server.stopping.wait(seconds):
            return
        (then or reply("A"))(h, req)
    return act


def drop_mid_response() -> Action:
    """Promise a full body, send half of it, then close the connection."""
    def act(h: _Handler, req: Request) -> None:
        payload = json.dumps({"choices": [{"message": {"content": "A"}}]}).encode()
        h.send_response(200)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        h.end_headers()
        h.wfile.write(payload[: len(payload) // 2])
        h.wfile.flush()
        _hang_up(h)
    return act


def drop_before_response() -> Action:
    """Close the connection without sending a byte."""
    def act(h: _Handler, req: Request) -> None:
        _hang_up(h)
    return act


def malformed() -> Action:
    """HTTP 200 whose body is not a chat completion."""
    def act(h: _Handler, req: Request) -> None:
        _send(h, 200, b"<html>gateway hiccup</html>", {"Content-Type": "text/html"})
    return act


def _hang_up(h: _Handler) -> None:
    h.close_connection = True
    with contextlib.suppress(OSError):
        h.connection.shutdown(socket.SHUT_RDWR)


def _send(h: _Handler, code: int, payload: bytes, headers: dict[str, str] | None = None) -> None:
    try:
        h.send_response(code)
        h.send_header("Content-Type", "application/json")
        h.send_header("Content-Length", str(len(payload)))
        for name, value in (headers or {}).items():
            h.send_header(name, value)
        h.end_headers()
        h.wfile.write(payload)
        h.wfile.flush()
    except (BrokenPipeError, ConnectionResetError):
        h.close_connection = True  # the client gave up (timeout); nothing to do


_GOLD_LINE = re.compile(r"^([ABCD])\. gold ", re.MULTILINE)


def gold_responder(harmful_terms: frozenset[str] = frozenset()) -> Responder:
    """Right answers on the synthetic dataset: Task 2 picks the option that starts with
    "gold " (how tests/synthetic.py writes the gold), Task 3 says "harmful" for the given terms."""
    def respond(req: Request) -> Action:
        text = req.user_text
        found = _GOLD_LINE.search(text)
        if found:
            return reply(found.group(1))
        if "Options:" in text or "选项" in text:
            return reply("I am not sure")
        return reply("harmful" if any(term in text for term in harmful_terms) else "non-harmful")
    return respond


@dataclass
class _State:
    responder: Responder
    latency: float
    script: deque[Action] = field(default_factory=deque)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive, as real endpoints do
    disable_nagle_algorithm = True  # headers and body are two writes: avoid the 40 ms delayed-ACK stall
    server: "_Server"

    def do_POST(self) -> None:
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        request = Request(self.path, dict(self.headers.items()), body, time.monotonic())
        state = self.server.state
        with state.lock:
            state.requests.append(request)
            action = state.script.popleft() if state.script else None
        if not self.path.split("?", 1)[0].endswith("/chat/completions"):  # a query (?api-version=) is fine
            action = status(404)
        if state.latency and self.server.stopping.wait(state.latency):
            return
        (action or state.responder(request))(self, request)

    def log_message(self, format: str, *args: Any) -> None:
        pass


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    request_queue_size = 256  # many concurrent connects must not overflow the backlog

    def __init__(self, state: _State):
        super().__init__(("127.0.0.1", 0), _Handler)
        self.state = state
        self.stopping = threading.Event()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that hung up mid-answer is expected here


class LoopbackServer:
    """`with LoopbackServer(responder) as server:` ... `server.url` is the base URL (…/v1)."""

    def __init__(self, responder: Responder | None = None, *, latency: float = 0.0):
        self._state = _State(responder or gold_responder(), latency)
        self._server = _Server(self._state)
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}/v1"

    @property
    def requests(self) -> list[Request]:
        with self._state.lock:
            return list(self._state.requests)

    def script(self, *actions: Action) -> None:
        """Use these actions, in order, for the next requests (before the responder)."""
        with self._state.lock:
            self._state.script.extend(actions)

    def set_responder(self, responder: Responder) -> None:
        self._state.responder = responder

    def set_latency(self, seconds: float) -> None:
        self._state.latency = seconds

    def start(self) -> "LoopbackServer":
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "LoopbackServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def main() -> None:
    """`python -m tests.loopback_server [--latency S]`: serve right answers on the synthetic data
    until stdin closes; prints the base URL first (for benches and trying the CLI by hand)."""
    import argparse
    import sys
    parser = argparse.ArgumentParser(description=main.__doc__)
    parser.add_argument("--latency", type=float, default=0.0, help="seconds before every answer")
    args = parser.parse_args()
    with LoopbackServer(latency=args.latency) as server:
        print(server.url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    main()
