"""One workspace's slow network cannot stall another's requests: an ``s3Config`` endpoint
whose host name takes seconds to resolve, or a bucket that takes a connection and never
answers, costs the workspace that named it, not the server's event loop or the threads
every request shares."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import LiveServer, text_template

pytestmark = pytest.mark.slow

#: a resolver that takes SLOW_SECONDS for names under .slow-dns.test, then finds nothing:
#: as an attacker's own DNS server that never answers would
SLOW_SECONDS = 4
SLOW_RESOLVER = f"""
import socket, time
_resolve = socket.getaddrinfo
def _slow(host, *args, **kwargs):
    if isinstance(host, str) and host.endswith(".slow-dns.test"):
        time.sleep({SLOW_SECONDS})
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    return _resolve(host, *args, **kwargs)
socket.getaddrinfo = _slow
"""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    (tmp_path / "resolver").mkdir()
    (tmp_path / "resolver" / "sitecustomize.py").write_text(SLOW_RESOLVER)
    live = LiveServer(tmp_path / "data", {"PYTHONPATH": str(tmp_path / "resolver"), "TEMPLATEKIT_S3_TIMEOUT": "20"})
    live.data_dir.mkdir(parents=True)
    live.start()
    yield live
    live.stop(kill=True)


@pytest.fixture
def silent_bucket() -> Iterator[int]:
    """A port that takes connections and never says a word."""
    listener = socket.create_server(("127.0.0.1", 0), backlog=200)
    held: list[socket.socket] = []
    stop = threading.Event()

    def take() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    taker = threading.Thread(target=take, daemon=True)
    taker.start()
    yield listener.getsockname()[1]
    stop.set()
    taker.join()
    for connection in held:
        connection.close()
    listener.close()


def _config(endpoint: str) -> dict[str, str]:
    return {
        "bucket": "renders",
        "accessKeyId": "x",
        "secretAccessKey": "y",
        "region": "us-east-1",
        "endpoint": endpoint,
    }


def _liveness_took(server: LiveServer) -> float:
    started = time.monotonic()
    assert httpx.get(f"{server.api}/liveness", timeout=30).status_code == 200
    return time.monotonic() - started


def test_an_endpoint_slow_to_resolve_holds_up_only_its_own_request(server):
    other = server.account("pro")
    server.add_template(other, text_template("card"))
    body = {"templateId": "card", "thumbnail": True, "s3Config": _config("https://s3.slow-dns.test")}
    with ThreadPoolExecutor(3) as pool:
        slow = [
            pool.submit(httpx.post, f"{server.api}/templates/createImage", json=body, headers=other.bearer, timeout=60)
            for _ in range(2)
        ]
        time.sleep(0.5)  # both are resolving now
        waits = [_liveness_took(server) for _ in range(3)]
        answers = [future.result() for future in slow]
    assert max(waits) < 1.5, waits  # it was the whole lookup: 4 s and more
    for answer in answers:
        assert (answer.status_code, answer.json()["error"]["code"]) == (400, "BAD_REQUEST")
        assert "s3Config.endpoint" in answer.json()["error"]["message"]


def test_uploads_to_a_bucket_that_never_answers_do_not_take_every_thread(server, silent_bucket):
    attacker, victim = server.account("pro"), server.account("pro")
    server.add_template(attacker, text_template("card"))
    server.add_template(victim, text_template("card"))
    body = {"templateId": "card", "thumbnail": True, "s3Config": _config(f"http://127.0.0.1:{silent_bucket}")}
    client = httpx.Client(timeout=httpx.Timeout(5, read=90), limits=httpx.Limits(max_connections=60))
    pool = ThreadPoolExecutor(50)
    try:
        for _ in range(50):  # more than the 40 threads Starlette shares between requests
            pool.submit(client.post, f"{server.api}/templates/createImage", json=body, headers=attacker.bearer)
        time.sleep(3)  # rendered, and hanging on the silent bucket
        started = time.monotonic()
        stored = httpx.post(
            f"{server.api}/templates/createStoredImage",
            json={"templateId": "card"},
            headers=victim.bearer,
            timeout=60,
        )
        took = time.monotonic() - started
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        client.close()
    assert stored.status_code == 200, stored.text
    assert took < 5, took  # it waited for the attacker's uploads to time out: 20 s and more
