"""A local HTTP server on 127.0.0.1 that plays scripted replies to the real SDKs.

Each request the server receives is recorded (method, path, headers, decoded JSON body) and
answered with the next :class:`Reply` in its script: a recorded SSE body, a JSON error with
its status and headers, or a stream cut off after some bytes (the connection is closed
without the closing chunk, as a dropped connection would leave it). Nothing here imitates
an SDK: the SDKs speak real HTTP to a real socket.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from pifold_agent.providers.base import Provider, ProviderRequest, StreamDone, StreamEvent

RECORDINGS = Path(__file__).parent / "recordings"


@dataclass(frozen=True)
class Reply:
    """One scripted answer."""

    body: bytes
    """The response body, sent as it is."""
    status: int = 200
    content_type: str = "text/event-stream"
    headers: dict[str, str] = field(default_factory=dict)
    """Extra response headers (for example ``retry-after``)."""
    drop_after: int | None = None
    """Send only this many body bytes, then close the connection mid-stream."""
    hold_after: int | None = None
    """Send this many body bytes, then wait for :attr:`release` before sending the rest."""
    release: threading.Event = field(default_factory=threading.Event)
    """Set by the test to let a held reply finish."""


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str
    headers: dict[str, str]
    """Header names in lower case."""
    body: Any
    """The JSON-decoded request body."""
    raw: bytes
    """The body bytes exactly as sent."""


def recording(name: str) -> bytes:
    """The bytes of a recorded SSE body under ``recordings/``."""
    return (RECORDINGS / name).read_bytes()


def sse_reply(name: str, drop_after: int | None = None) -> Reply:
    """A 200 streaming reply made of a recorded SSE body."""
    return Reply(body=recording(name), drop_after=drop_after)


def json_reply(status: int, body: Any, headers: dict[str, str] | None = None) -> Reply:
    """An error (or any JSON) reply."""
    return Reply(
        body=json.dumps(body).encode(),
        status=status,
        content_type="application/json",
        headers=dict(headers or {}),
    )


Script = Reply | Callable[[RecordedRequest], Reply]
"""A fixed reply, or one made from the request (a server that plays a scripted model)."""


class LocalServer:
    """The server and what it saw; use :func:`serve` to run one."""

    def __init__(self, replies: Sequence[Script]) -> None:
        self.replies = list(replies)
        self.requests: list[RecordedRequest] = []
        self.pages: dict[str, Any] = {}
        """What a ``GET`` of each path answers (JSON); any other path is a 404. A server's
        own description of itself (llama.cpp's ``/props``, a model listing)."""
        self.gets: list[str] = []
        """The paths asked with ``GET``, in order."""
        self.lock = threading.Lock()
        self.http = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self.http.daemon_threads = True

    @property
    def base_url(self) -> str:
        host, port = self.http.server_address[:2]
        return f"http://{host!s}:{port}"

    def add(self, *replies: Script) -> None:
        """Queue more replies (a test that scripts turns as it goes)."""
        with self.lock:
            self.replies.extend(replies)

    def next_reply(self, request: RecordedRequest) -> Reply:
        with self.lock:
            self.requests.append(request)
            if not self.replies:
                return json_reply(500, {"error": {"message": "the test scripted no more replies"}})
            script = self.replies.pop(0)
        return script(request) if callable(script) else script


async def collect(provider: Provider, request: ProviderRequest) -> list[StreamEvent]:
    """Every event of one request, the final :class:`StreamDone` last."""
    return [event async for event in provider.stream(request)]


def done_of(events: list[StreamEvent]) -> StreamDone:
    """The final event, checked to be the only :class:`StreamDone` and the last."""
    finals = [event for event in events if isinstance(event, StreamDone)]
    assert len(finals) == 1 and events[-1] is finals[0]
    return finals[0]


@contextmanager
def serve(replies: Sequence[Script] = ()) -> Iterator[LocalServer]:
    """Run a :class:`LocalServer` in a thread for the duration of the block."""
    server = LocalServer(replies)
    # A short poll so shutdown returns at once rather than after the default half second.
    thread = threading.Thread(target=server.http.serve_forever, args=(0.02,), daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.http.shutdown()
        server.http.server_close()
        thread.join(timeout=5)


def _handler_for(server: LocalServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", "0"))
            raw = self.rfile.read(length)
            request = RecordedRequest(
                method="POST",
                path=self.path,
                headers={name.lower(): value for name, value in self.headers.items()},
                body=json.loads(raw) if raw else None,
                raw=raw,
            )
            reply = server.next_reply(request)
            self.send_response(reply.status)
            self.send_header("content-type", reply.content_type)
            for name, value in reply.headers.items():
                self.send_header(name, value)
            # Chunked, so a cut-off stream is an incomplete body the client can detect.
            self.send_header("transfer-encoding", "chunked")
            self.send_header("connection", "close")
            self.end_headers()
            body = reply.body if reply.drop_after is None else reply.body[: reply.drop_after]
            pieces = [body]
            if reply.hold_after is not None:
                pieces = [body[: reply.hold_after], body[reply.hold_after :]]
            for number, piece in enumerate(pieces):
                if number > 0:
                    reply.release.wait(timeout=10)
                if piece:
                    try:
                        self.wfile.write(f"{len(piece):x}\r\n".encode() + piece + b"\r\n")
                        self.wfile.flush()
                    except OSError:
                        # The client went away (a cancelled request): nothing left to send.
                        return
            try:
                if reply.drop_after is None:
                    self.wfile.write(b"0\r\n\r\n")
                self.wfile.flush()
            except OSError:
                return
            self.close_connection = True

        def do_GET(self) -> None:
            with server.lock:
                server.gets.append(self.path)
                page = server.pages.get(self.path)
            body = b"" if page is None else json.dumps(page).encode()
            self.send_response(404 if page is None else 200)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(body)))
            self.send_header("connection", "close")
            self.end_headers()
            self.wfile.write(body)
            self.close_connection = True

        def log_message(self, format: str, *args: Any) -> None:
            # The test output is no place for an access log.
            return

    return Handler
