"""Render workers: a worker that dies or a render that runs too long fails only its own
request, is not billed, and the pool goes on with a fresh worker."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from templatekit_server import accounts, catalog
from tests.conftest import decode
from tests.server.conftest import DEFAULT_PLANS, LiveServer, image_template, text_template

pytestmark = pytest.mark.slow

TIMEOUT = 3


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = LiveServer(tmp_path_factory.mktemp("workers") / "data", {"TEMPLATEKIT_RENDER_TIMEOUT": str(TIMEOUT)})
    server.data_dir.mkdir(parents=True)
    yield server.start()
    server.stop()


def children(pid: int) -> list[int]:
    found = []
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            parent = int(status.read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        if parent == pid:
            found.append(int(status.parent.name))
    return found


def render_workers(server_pid: int) -> list[int]:
    """The render workers: forked by the forkserver, a child of the server."""
    forkservers = [pid for pid in children(server_pid) if b"forkserver" in Path(f"/proc/{pid}/cmdline").read_bytes()]
    return [pid for forkserver in forkservers for pid in children(forkserver)]


def render_in_background(client, server, account, template_id):
    answers = []
    thread = threading.Thread(
        target=lambda: answers.append(
            client.post(f"{server.api}/templates/createImage", json={"templateId": template_id}, headers=account.bearer)
        )
    )
    thread.start()
    return thread, answers


def test_a_killed_worker_fails_its_render_and_the_pool_recovers(client, server, web):
    account = server.account()
    web.routes["/slow.png"] = (200, (Path(__file__).parents[2] / "docs/images/social-card.png").read_bytes(), 2.0)
    server.add_template(account, image_template(web.url("/slow.png"), "slow"))
    server.add_template(account, text_template())
    assert client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
    thread, answers = render_in_background(client, server, account, "slow")
    time.sleep(1.0)  # a worker is waiting for the slow image
    killed = render_workers(server.process.pid)
    assert len(killed) == 2
    for pid in killed:
        os.kill(pid, signal.SIGKILL)
    thread.join(30)
    failed = answers[0]
    assert (failed.status_code, failed.json()["error"]["code"]) == (500, "INTERNAL_SERVER_ERROR")
    assert "worker stopped" in failed.json()["error"]["message"]
    again = client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
    assert again.status_code == 200 and decode(again.content).size == (240, 120)
    assert server.used(account) == 2  # the first render and the last; not the failed one


def test_a_render_over_the_time_limit_is_stopped_and_not_billed(client, server, web):
    account = server.account()
    web.routes["/slower.png"] = (200, b"never mind", TIMEOUT + 3)
    server.add_template(account, image_template(web.url("/slower.png"), "slower"))
    server.add_template(account, text_template())
    started = time.monotonic()
    answer = client.post(f"{server.api}/templates/createImage", json={"templateId": "slower"}, headers=account.bearer)
    assert (answer.status_code, answer.json()["error"]["code"]) == (500, "INTERNAL_SERVER_ERROR")
    assert f"longer than {TIMEOUT} s" in answer.json()["error"]["message"]
    assert time.monotonic() - started < TIMEOUT + 2
    assert client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
    assert server.used(account) == 1


def test_a_new_server_warms_its_workers_with_the_stored_templates_before_any_request(tmp_path, web):
    """The render workers start with the server, not at its first request, and each renders
    the stored templates once: their pictures are downloaded before anyone asks."""
    server = LiveServer(tmp_path / "data", {})
    server.data_dir.mkdir(parents=True)
    workspace = accounts.create_workspace(server.db, "warm", "pro", DEFAULT_PLANS)
    web.routes["/warm.png"] = (200, (Path(__file__).parents[2] / "docs/images/social-card.png").read_bytes(), 0.0)
    catalog.save(server.db, workspace, image_template(web.url("/warm.png"), "warm"))
    server.start()
    try:
        deadline = time.monotonic() + 30
        while web.requested.count("/warm.png") < 2 or len(render_workers(server.process.pid)) < 2:
            assert time.monotonic() < deadline, (web.requested, server.log())
            time.sleep(0.1)
        assert "createImage" not in server.log()  # nothing was asked of it but whether it lives
    finally:
        server.stop()
