"""The HTTP connection's edge, below the app: answers to requests too malformed for the
app to see, and limits on what a client may hold open before its request is whole.

Refusals are the ``/v1`` error envelope in JSON, as every other refusal, instead of the
plain text uvicorn writes itself. A request's head (its line and headers) must be whole
within ``EdgeLimits.head_seconds`` and ``max_head_bytes``, and its body must keep coming
(a part at least every ``body_idle_seconds``); the server holds at most
``max_connections`` at once.
Without them one client could hold every file descriptor with connections that never
finish a request, or make the parser copy a header of hundreds of megabytes.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
from typing import Any

from attrs import frozen

from templatekit_server.errors import STATUS, envelope

log = logging.getLogger("templatekit.server")


@frozen
class EdgeLimits:
    """What a client may hold before its request is whole (the server's settings)."""

    head_seconds: float = 20.0  # for a request's line and headers, from the connection or their first byte
    max_head_bytes: int = 64 * 1024  # far more than any client of the interface sends
    body_idle_seconds: float = 30.0  # the longest pause between two parts of a body
    max_connections: int = 1000


_REASONS = {400: b"Bad Request", 500: b"Internal Server Error"}


def enveloped_protocol(docs_url: str, limits: EdgeLimits) -> type[asyncio.Protocol]:
    """The HTTP protocol class uvicorn would choose (httptools when installed, else h11)
    answering malformed requests with a ``BAD_REQUEST`` envelope, and, on httptools,
    with the limits above."""
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol
    except ImportError:  # httptools is not installed: uvicorn's own choice is h11 too (it caps heads itself)
        from uvicorn.protocols.http.h11_impl import H11Protocol

        return _enveloped(H11Protocol, docs_url)
    return _guarded(_enveloped(HttpToolsProtocol, docs_url), limits)


def _enveloped(base: Any, docs_url: str) -> Any:
    class Enveloped(base):
        _pending: str | None = None

        def send_400_response(self, msg: str) -> None:
            """Called by uvicorn for a request it could not parse; the connection ends,
            once the answer to a request before it (pipelined) is written."""
            if self.cycle is not None and not self.cycle.response_complete:
                self._pending = msg
                return
            self.refuse("BAD_REQUEST", f"malformed HTTP request: {msg}")

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if self._pending is not None:
                self.refuse("BAD_REQUEST", f"malformed HTTP request: {self._pending}")

        def refuse(self, code: str, message: str, headers: tuple[bytes, ...] = ()) -> None:
            """Answer the envelope of ``code`` and end the connection."""
            request_id = f"req_{secrets.token_hex(12)}"
            log.warning("%s (request %s): %s", code, request_id, message)
            body = json.dumps(envelope(code, message, request_id, docs_url)).encode()
            status = STATUS[code]
            head = [b"HTTP/1.1 %d %s\r\n" % (status, _REASONS[status])]
            head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
            head += [b"%s\r\n" % header for header in headers]
            head += [b"content-type: application/json\r\n", b"content-length: %d\r\n" % len(body)]
            head += [b"x-request-id: " + request_id.encode() + b"\r\n"]
            if not self.transport.is_closing():
                self.transport.write(b"".join([*head, b"connection: close\r\n\r\n", body]))
                self.transport.close()

        def _unsupported_upgrade_warning(self) -> None:
            """The interface has no WebSocket: an upgrade is answered as a plain request."""

    return Enveloped


def _guarded(base: Any, limits: EdgeLimits) -> type[asyncio.Protocol]:
    class Guarded(base):
        _head_timer: asyncio.TimerHandle | None = None
        _body_timer: asyncio.TimerHandle | None = None
        _head_bytes = 0

        def connection_made(self, transport: asyncio.Transport) -> None:
            super().connection_made(transport)
            if len(self.connections) > limits.max_connections:
                self.refuse("RATE_LIMITED", "the server holds as many connections as it takes", (b"retry-after: 1",))
                return
            self._start_head()

        def on_message_begin(self) -> None:
            super().on_message_begin()
            self._head_bytes = 0
            if self._head_timer is None:
                self._start_head()

        def on_headers_complete(self) -> None:
            self._stop(self._head_timer)
            self._head_timer = None
            super().on_headers_complete()
            self._body_timer = self.loop.call_later(limits.body_idle_seconds, self._body_stalled)

        def on_message_complete(self) -> None:
            self._stop(self._body_timer)
            self._body_timer = None
            super().on_message_complete()

        def data_received(self, data: bytes) -> None:
            reading_head = self._head_timer is not None
            super().data_received(data)
            if self._body_timer is not None:  # the body goes on: its pause starts again
                self._body_timer.cancel()
                self._body_timer = self.loop.call_later(limits.body_idle_seconds, self._body_stalled)
            if reading_head and self._head_timer is not None:
                self._head_bytes += len(data)
                if self._head_bytes > limits.max_head_bytes:
                    self.refuse(
                        "BAD_REQUEST", f"the request's line and headers are over {limits.max_head_bytes:,} bytes"
                    )

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop(self._head_timer)
            self._stop(self._body_timer)
            super().connection_lost(exc)

        def _start_head(self) -> None:
            self._head_timer = self.loop.call_later(limits.head_seconds, self._head_late)

        def _head_late(self) -> None:
            self._head_timer = None
            if self.cycle is None or self.cycle.response_complete:
                self.refuse(
                    "BAD_REQUEST", f"the request's line and headers did not come within {limits.head_seconds:g} s"
                )

        def _body_stalled(self) -> None:
            """The app may be reading the body: the connection ends, which it sees as
            the client gone."""
            self._body_timer = None
            log.warning("a request's body paused over %g s: connection closed", limits.body_idle_seconds)
            self.transport.close()

        @staticmethod
        def _stop(timer: asyncio.TimerHandle | None) -> None:
            if timer is not None:
                timer.cancel()

    return Guarded
