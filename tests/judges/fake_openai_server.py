"""A local OpenAI chat-completions server for tests: 127.0.0.1, random free port, one thread.

Usage::

    with FakeOpenAIServer(responder=lambda req: '{"verdict": "hallucinated"}') as srv:
        cfg = EndpointConfig(base_url=srv.url, model="fake")          # srv.url = http://127.0.0.1:PORT/v1
        srv.script("item-3", FakeReply.rate_limit(retry_after=0.01), FakeReply.server_error())
        ...
        srv.calls                  # POSTs received on /v1/chat/completions
        srv.requests               # their JSON bodies, in arrival order
        srv.status_counts          # {200: n, 429: m, ...} of replies sent

``responder(request_json) -> str | FakeReply`` answers every request that has no scripted reply; a
str becomes the assistant message content. ``script(match, *replies)`` queues replies for requests
whose concatenated message text contains ``match`` (first matching script wins, consumed in order;
then the responder answers). Fault builders on ``FakeReply``: ``rate_limit(retry_after)`` (429 +
Retry-After), ``quota()`` (429 insufficient_quota), ``status(code)``, ``server_error()`` (500),
``slow(delay_s, content)`` (for client timeouts), ``truncated(content)`` (a 200 whose JSON body is cut
off), ``text(content)`` (e.g. malformed verdict JSON as the message). Usage tokens are reported as
the character counts // 4 of prompt and reply. ``srv.auth_headers`` records Authorization headers seen.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class FakeReply:
    status: int = 200
    content: str | None = "{}"
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes | None = None  # raw body override (truncated JSON, error payloads)
    delay_s: float = 0.0

    @classmethod
    def text(cls, content: str) -> FakeReply:
        return cls(content=content)

    @classmethod
    def rate_limit(cls, retry_after: float | str | None = 0.01) -> FakeReply:
        headers = {} if retry_after is None else {"Retry-After": str(retry_after)}
        body = json.dumps({"error": {"message": "Rate limit reached", "type": "requests",
                                     "code": "rate_limit_exceeded"}}).encode()
        return cls(status=429, content=None, headers=headers, body=body)

    @classmethod
    def quota(cls) -> FakeReply:
        body = json.dumps({"error": {"message": "You exceeded your current quota", "type": "insufficient_quota",
                                     "code": "insufficient_quota"}}).encode()
        return cls(status=429, content=None, body=body)

    @classmethod
    def status_code(cls, code: int) -> FakeReply:
        return cls(status=code, content=None, body=json.dumps({"error": {"message": f"HTTP {code}"}}).encode())

    @classmethod
    def server_error(cls) -> FakeReply:
        return cls.status_code(500)

    @classmethod
    def slow(cls, delay_s: float, content: str = "{}") -> FakeReply:
        return cls(content=content, delay_s=delay_s)

    @classmethod
    def truncated(cls, content: str = "{}") -> FakeReply:
        return cls(content=content, body=b"TRUNCATE")  # marker: the handler cuts the real body


Responder = Callable[[dict[str, Any]], "str | FakeReply"]


def _message_text(req: dict[str, Any]) -> str:
    parts = []
    for m in req.get("messages", []):
        c = m.get("content")
        if isinstance(c, str):
            parts.append(c)
        elif isinstance(c, list):
            parts.extend(p.get("text", "") for p in c if isinstance(p, dict))
    return "\n".join(parts)


class FakeOpenAIServer:
    def __init__(self, responder: Responder | None = None) -> None:
        self.responder: Responder = responder or (lambda req: '{"verdict": "not_hallucinated"}')
        self.calls = 0
        self.requests: list[dict[str, Any]] = []
        self.status_counts: dict[int, int] = {}
        self.auth_headers: list[str] = []
        self._scripts: list[tuple[str, list[FakeReply]]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # -- scripting --------------------------------------------------------------------------
    def script(self, match: str, *replies: FakeReply) -> None:
        with self._lock:
            self._scripts.append((match, list(replies)))

    def _next_reply(self, req: dict[str, Any]) -> FakeReply:
        text = _message_text(req)
        with self._lock:
            for match, queue in self._scripts:
                if queue and match in text:
                    return queue.pop(0)
        out = self.responder(req)
        return FakeReply.text(out) if isinstance(out, str) else out

    # -- lifecycle --------------------------------------------------------------------------
    @property
    def url(self) -> str:
        assert self._httpd is not None, "server not started"
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def start(self) -> FakeOpenAIServer:
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server API)
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self._send(404, b'{"error": {"message": "not found"}}', {})
                    return
                req = json.loads(raw)
                with server._lock:
                    server.calls += 1
                    server.requests.append(req)
                    server.auth_headers.append(self.headers.get("Authorization") or "")
                reply = server._next_reply(req)
                if reply.delay_s and server._stop.wait(reply.delay_s):
                    return
                if reply.status == 200 and (reply.body is None or reply.body == b"TRUNCATE"):
                    prompt_chars = len(_message_text(req))
                    content = reply.content or ""
                    body = json.dumps({
                        "id": f"chatcmpl-{server.calls}", "object": "chat.completion",
                        "model": req.get("model", ""),
                        "choices": [{"index": 0, "finish_reason": "stop",
                                     "message": {"role": "assistant", "content": content}}],
                        "usage": {"prompt_tokens": prompt_chars // 4, "completion_tokens": len(content) // 4,
                                  "total_tokens": prompt_chars // 4 + len(content) // 4},
                    }).encode()
                    if reply.body == b"TRUNCATE":
                        body = body[: len(body) // 2]
                else:
                    body = reply.body or b"{}"
                self._send(reply.status, body, reply.headers)

            def _send(self, status: int, body: bytes, headers: dict[str, str]) -> None:
                with server._lock:
                    server.status_counts[status] = server.status_counts.get(status, 0) + 1
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    for k, v in headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(body)
                except (BrokenPipeError, ConnectionResetError):
                    pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="fake-openai", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> FakeOpenAIServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
