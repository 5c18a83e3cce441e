"""Answers to requests too malformed for the app to see (a request line or header that is
not HTTP): the ``/v1`` error envelope in JSON, as every other refusal, instead of the
plain text uvicorn writes itself. Clients parse one kind of error answer."""

from __future__ import annotations

import asyncio
import json
import secrets
from typing import Any

from templatekit_server.errors import envelope


def enveloped_protocol(docs_url: str) -> type[asyncio.Protocol]:
    """The HTTP protocol class uvicorn would choose (httptools when installed, else h11)
    with its answer to a malformed request written as a ``BAD_REQUEST`` envelope."""
    base: Any
    try:
        from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol as base
    except ImportError:  # httptools is not installed: uvicorn's own choice is h11 too
        from uvicorn.protocols.http.h11_impl import H11Protocol as base

    class EnvelopedErrors(base):
        def send_400_response(self, msg: str) -> None:
            """Called by uvicorn for a request it could not parse; the connection ends."""
            answer = envelope("BAD_REQUEST", f"malformed HTTP request: {msg}", f"req_{secrets.token_hex(12)}", docs_url)
            body = json.dumps(answer).encode()
            head = [b"HTTP/1.1 400 Bad Request\r\n"]
            head += [name + b": " + value + b"\r\n" for name, value in self.server_state.default_headers]
            head += [b"content-type: application/json\r\n", b"content-length: %d\r\n" % len(body)]
            self.transport.write(b"".join([*head, b"connection: close\r\n\r\n", body]))
            self.transport.close()

    return EnvelopedErrors
