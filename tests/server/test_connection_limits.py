"""The connection's edge, on real sockets: uvicorn with the server's protocol class, and
an app that answers at once, so that what is checked is the edge alone (heads that do not
end, bodies that stop, too many connections, a pipelined request before a malformed one)."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator

import pytest
import uvicorn

from templatekit_server import malformed
from tests.server.conftest import LiveServer, free_port

pytestmark = pytest.mark.slow


async def _app(scope, receive, send):
    if scope["type"] != "http":
        return
    while (await receive()).get("more_body"):
        pass
    headers = [(b"content-type", b"text/plain"), (b"content-length", b"2")]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": b"ok"})


@pytest.fixture
def edge() -> Iterator[int]:
    """A port where uvicorn serves ``_app`` through the guarded protocol, with short limits."""
    port = free_port()
    limits = malformed.EdgeLimits(head_seconds=1.0, body_idle_seconds=1.0, max_connections=5)
    protocol = malformed.enveloped_protocol("https://docs.example/errors", limits)
    config = uvicorn.Config(_app, port=port, http=protocol, ws="none", log_level="error", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    yield port
    server.should_exit = True
    thread.join(10)


def received(connection: socket.socket, timeout: float = 10) -> bytes:
    """Everything the server writes until it closes the connection."""
    connection.settimeout(timeout)
    data = b""
    while chunk := connection.recv(65536):
        data += chunk
    return data


def error_of(answer: bytes) -> tuple[str, dict[str, str], dict]:
    head, _, body = answer.partition(b"\r\n\r\n")
    status, *lines = head.decode("latin-1").split("\r\n")
    headers = {name.lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
    return status, headers, json.loads(body)["error"]


def test_a_head_that_does_not_end_in_time_is_refused_and_the_connection_closed(edge):
    with socket.create_connection(("127.0.0.1", edge)) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: a")  # and nothing more
        started = time.monotonic()
        status, headers, error = error_of(received(connection))
    assert status == "HTTP/1.1 400 Bad Request" and 0.9 < time.monotonic() - started < 5
    assert error["message"] == "the request's line and headers did not come within 1 s"
    assert headers["x-request-id"] == error["requestId"]
    with socket.create_connection(("127.0.0.1", edge)) as idle:  # a connection that sends nothing
        assert error_of(received(idle))[2]["code"] == "BAD_REQUEST"


def test_a_head_over_the_limit_is_refused_before_it_ends(edge):
    with socket.create_connection(("127.0.0.1", edge)) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: ")
        with pytest.raises(OSError):  # refused and closed while the header still comes
            for _ in range(200):
                connection.sendall(b"a" * 10_000)
                time.sleep(0.001)
        status, _, error = error_of(received(connection))
    assert status == "HTTP/1.1 400 Bad Request"
    assert (
        error["message"] == f"the request's line and headers are over {malformed.EdgeLimits().max_head_bytes:,} bytes"
    )


def test_a_body_that_stops_ends_the_connection_and_one_that_goes_on_is_read(edge):
    with socket.create_connection(("127.0.0.1", edge)) as connection:
        connection.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nonly ten b")
        started = time.monotonic()
        assert received(connection) == b"" and 0.9 < time.monotonic() - started < 5
    with socket.create_connection(("127.0.0.1", edge)) as connection:
        connection.sendall(b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\nConnection: close\r\n\r\n")
        for byte in b"slow":  # 2.4 s in all, but never a pause of 1 s
            time.sleep(0.6)
            connection.sendall(bytes([byte]))
        assert received(connection).endswith(b"\r\n\r\nok")


def test_connections_past_the_limit_are_refused_and_the_held_ones_still_answered(edge):
    held = [socket.create_connection(("127.0.0.1", edge)) for _ in range(5)]
    try:
        time.sleep(0.2)
        with socket.create_connection(("127.0.0.1", edge)) as extra:
            status, headers, error = error_of(received(extra))
        assert status == "HTTP/1.1 500 Internal Server Error" and error["code"] == "RATE_LIMITED"
        assert headers["retry-after"] == "1"
        held[0].sendall(b"GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        assert received(held[0]).endswith(b"\r\n\r\nok")
    finally:
        for connection in held:
            connection.close()


def test_a_request_before_a_malformed_one_is_answered_first(edge):
    with socket.create_connection(("127.0.0.1", edge)) as connection:
        connection.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\nGARBAGE\r\n\r\n")
        answer = received(connection)
    first, _, rest = answer.partition(b"\r\n\r\nok")
    assert first.startswith(b"HTTP/1.1 200 OK") and rest.startswith(b"HTTP/1.1 400 Bad Request")
    assert error_of(rest)[2]["message"].startswith("malformed HTTP request: ")


def test_the_limits_are_the_servers_settings(tmp_path):
    """``templatekit serve`` takes them from its settings, and refuses one that is not more than 0."""
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_HEAD_SECONDS": "1"}).start()
    try:
        with socket.create_connection(("127.0.0.1", server.port)) as idle:
            assert error_of(received(idle))[2]["message"] == "the request's line and headers did not come within 1 s"
    finally:
        server.stop()
    command = [sys.executable, "-m", "templatekit.cli", "serve", "--data-dir", str(tmp_path / "other")]
    environment = {**os.environ, "TEMPLATEKIT_MAX_CONNECTIONS": "0"}
    refused = subprocess.run([*command, "--port", str(free_port())], capture_output=True, text=True, env=environment)
    assert refused.returncode == 1 and "error: TEMPLATEKIT_MAX_CONNECTIONS=0: must be more than 0" in refused.stderr
