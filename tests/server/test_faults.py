"""Faults and hostile requests: a full disk, bodies and fields meant to break the server,
paths meant to escape it. Each answers a clear error, bills nothing, and leaves the server
working."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import threading
import time
from pathlib import Path

import pytest

from tests.conftest import decode
from tests.server.conftest import LiveServer, text_template

pytestmark = pytest.mark.slow

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "templates"


@pytest.fixture
def account(live):
    account = live.account()
    live.add_template(account, text_template())
    return account


def error_of(answer):
    return answer.status_code, answer.json()["error"]["code"]


def test_hostile_bodies_are_bad_requests(client, live, account):
    url = f"{live.api}/templates/createImage"
    for raw, named in [
        (b'{"templateId": "card", "modifications": {"box": {"width": NaN}}}', "NaN"),
        (b'{"templateId": "card", "modifications": {"box": {"width": -Infinity}}}', "Infinity"),
        (json.dumps({"templateId": "card", "modifications": {"box": {"width": -5}}}).encode(), "width"),
        (json.dumps({"templateId": "card", "modifications": {"title": "x" * 30_000}}).encode(), "text"),
        (json.dumps({"templateId": "x" * 30_000}).encode(), "templateId"),
        (json.dumps({"templateId": ["card"]}).encode(), "templateId"),
        (json.dumps({"templateId": "card", "modifications": 42}).encode(), "modifications"),
        (json.dumps({"templateId": "card", "modifications": [{"text": "no name"}]}).encode(), "name"),
        (json.dumps({"templateId": "card", "format": {"png": True}}).encode(), "format"),
        (json.dumps({"templateId": "card", "s3Config": [1]}).encode(), "s3Config"),
    ]:
        answer = client.post(url, content=raw, headers=account.bearer)
        assert error_of(answer) == (400, "BAD_REQUEST"), raw[:80]
        assert named in answer.json()["error"]["message"], (raw[:80], answer.json())
    assert live.used(account) == 0


def test_ids_and_paths_cannot_escape(client, live, account):
    for template_id in ["../card", "card/../../etc", "..", "card%00", "card\n"]:
        answer = client.post(
            f"{live.api}/templates/createImage", json={"templateId": template_id}, headers=account.bearer
        )
        assert error_of(answer) == (400, "BAD_REQUEST"), template_id
    secret = (live.data_dir / "secret.key").read_bytes()
    for path in ["../secret.key", "..%2Fsecret.key", "%2e%2e/secret.key", "images/../../secret.key", "/etc/passwd"]:
        answer = client.get(f"{live.api}/files/{path}", params={"sig": "0" * 64})
        assert answer.status_code in (400, 404), path
        assert secret not in answer.content and b"root:" not in answer.content
    for video_id in ["../../etc/passwd", "vid_x' OR '1'='1"]:
        answer = client.get(f"{live.api}/videos/{video_id}", headers=account.bearer)
        assert error_of(answer) == (404, "NOT_FOUND"), video_id


def test_headers_cannot_be_injected(client, live, account):
    config = {
        "bucket": "renders",
        "accessKeyId": "a",
        "secretAccessKey": "b",
        "publicUrl": "https://cdn.example.com/\r\nSet-Cookie: stolen=1",
    }
    answer = client.post(
        f"{live.api}/templates/createImage", json={"templateId": "card", "s3Config": config}, headers=account.bearer
    )
    assert error_of(answer) == (400, "BAD_REQUEST") and "publicUrl" in answer.json()["error"]["message"]
    injected = client.get(f"{live.api}/liveness", headers={"X-Request-Id": "abc\tSet-Cookie: x=1"})
    assert injected.headers["X-Request-Id"].startswith("req_") and "set-cookie" not in injected.headers
    warned = client.post(
        f"{live.api}/templates/createImage",
        json={"templateId": "card", "modifications": [{"name": "no\r\nSet-Cookie: x=1", "text": "x"}]},
        headers=account.bearer,
    )
    assert warned.status_code == 200 and "set-cookie" not in warned.headers
    warning = warned.headers["X-Templatekit-Warnings"]
    assert "Set-Cookie" in warning and "\r" not in warning and "\n" not in warning


# ------------------------------------------------------------------ a full disk


@pytest.fixture
def small_disk(tmp_path) -> Path:
    """A 16 MB tmpfs for the data directory (needs root, as .ci/run has)."""
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)], capture_output=True)
    if done.returncode:
        pytest.skip(f"cannot mount a tmpfs here: {done.stderr.decode().strip()}")
    yield mount
    subprocess.run(["umount", "-l", str(mount)], check=False)


def test_a_full_disk_fails_requests_cleanly_and_nothing_is_lost(client, small_disk):
    server = LiveServer(small_disk / "data", {"TEMPLATEKIT_WORKERS": "1"})
    server.data_dir.mkdir()
    server.start()
    try:
        account = server.account()
        server.add_template(account, json.loads((EXAMPLES / "quote-card.json").read_text()))  # ~100 KB PNGs
        filler = small_disk / "filler"
        free = subprocess.run(["df", "--output=avail", "-B1", str(small_disk)], capture_output=True, text=True)
        filler.write_bytes(b"\0" * max(0, int(free.stdout.split()[-1]) - 700_000))
        answers = [
            client.post(
                f"{server.api}/templates/createStoredImage",
                json={"templateId": "tpl_quote_card", "modifications": {"quote": f"Quote {n}"}},
                headers=account.bearer,
            )
            for n in range(12)
        ]
        stored = [answer for answer in answers if answer.status_code == 200]
        failed = [answer for answer in answers if answer.status_code != 200]
        assert stored and failed, [answer.status_code for answer in answers]
        for answer in failed:
            assert error_of(answer) == (500, "INTERNAL_SERVER_ERROR")
            message = answer.json()["error"]["message"]
            assert "No space left" in message or "full" in message, message
        for answer in stored:  # every file answered is whole
            assert decode(client.get(answer.json()["url"]).content).size == (1080, 1080)
        assert not list(server.data_dir.rglob("*.partial"))
        filler.unlink()
        # a failed render's generation is given back when the database takes writes again:
        # at once, or (its disk full too) before the next render reserves its own
        again = client.post(
            f"{server.api}/templates/createStoredImage", json={"templateId": "tpl_quote_card"}, headers=account.bearer
        )
        assert again.status_code == 200
        assert server.used(account) == len(stored) + 1
        assert "Traceback" not in server.log()
    finally:
        server.stop()


# ------------------------------------------------------------------ a caller's S3 that never answers


@pytest.fixture
def silent_endpoint():
    """Accepts connections and never answers: an S3 service hung mid-request."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(16)
    accepted: list[socket.socket] = []

    def accept() -> None:
        with contextlib.suppress(OSError):
            while True:
                accepted.append(listener.accept()[0])

    threading.Thread(target=accept, daemon=True).start()
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    listener.close()
    for connection in accepted:
        connection.close()


def test_a_hung_s3_service_fails_the_upload_at_its_time_limit_and_bills_nothing(client, tmp_path, silent_endpoint):
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_S3_TIMEOUT": "1", "TEMPLATEKIT_WORKERS": "1"})
    server.data_dir.mkdir()
    server.start()
    try:
        account = server.account("pro")
        server.add_template(account, text_template())
        config = {"bucket": "renders", "endpoint": silent_endpoint, "accessKeyId": "a", "secretAccessKey": "b"}
        started = time.monotonic()
        answer = client.post(
            f"{server.api}/templates/createStoredImage",
            json={"templateId": "card", "s3Config": config},
            headers=account.bearer,
        )
        assert error_of(answer) == (500, "INTERNAL_SERVER_ERROR")
        assert "no answer within 7 s" in answer.json()["error"]["message"]  # 2 attempts of 1 s, and connecting
        assert time.monotonic() - started < 12  # not a hang
        assert server.used(account) == 0
        assert client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
    finally:
        server.stop()
