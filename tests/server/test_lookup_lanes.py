"""A host name a request names (``webhookUrl``, ``s3Config.endpoint``) is resolved in
threads of the workspace's own, so that a workspace whose names take seconds to resolve
(its own DNS server that never answers) cannot take every thread that other
workspaces' requests share."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest

from tests.server.conftest import LiveServer, text_template
from tests.server.test_tenant_stalls import SLOW_RESOLVER, SLOW_SECONDS, _config

pytestmark = pytest.mark.slow

#: more than the 40 threads Starlette shares between requests
ATTACKS = 45


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    (tmp_path / "resolver").mkdir()
    (tmp_path / "resolver" / "sitecustomize.py").write_text(SLOW_RESOLVER)
    path = os.pathsep.join(filter(None, [str(tmp_path / "resolver"), os.environ.get("PYTHONPATH")]))
    live = LiveServer(tmp_path / "data", {"PYTHONPATH": path})
    live.data_dir.mkdir(parents=True)
    live.start()
    yield live
    live.stop(kill=True)


def _victims_listing_took(server: LiveServer, attacker_plan: str, body: dict) -> float:
    attacker, victim = server.account(attacker_plan), server.account("pro")
    server.add_template(attacker, text_template("card"))
    server.add_template(victim, text_template("card"))
    client = httpx.Client(timeout=60, limits=httpx.Limits(max_connections=ATTACKS + 5))
    pool = ThreadPoolExecutor(ATTACKS)
    try:
        url = f"{server.api}/templates/createStoredImage"
        attacks = [pool.submit(client.post, url, json=body, headers=attacker.bearer) for _ in range(ATTACKS)]
        time.sleep(1)  # every one of them is resolving now
        started = time.monotonic()
        listed = httpx.get(f"{server.api}/templates", headers=victim.bearer, timeout=60)
        took = time.monotonic() - started
        first = attacks[0].result()  # the attacker's own wait is the attacker's
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
        client.close()
    assert listed.status_code == 200, listed.text
    assert first.status_code == 400 and "slow-dns.test" in first.json()["error"]["message"], first.text
    return took


def test_webhook_urls_slow_to_resolve_do_not_take_the_threads_other_workspaces_share(server):
    body = {"templateId": "card", "thumbnail": True, "webhookUrl": "https://hooks.slow-dns.test/x"}
    took = _victims_listing_took(server, "free", body)
    assert took < 1.5, took  # it waited for the attacker's lookups: SLOW_SECONDS less the second slept
    assert SLOW_SECONDS > 2


def test_s3_endpoints_slow_to_resolve_do_not_take_the_threads_other_workspaces_share(server):
    body = {"templateId": "card", "thumbnail": True, "s3Config": _config("https://s3.slow-dns.test")}
    took = _victims_listing_took(server, "pro", body)
    assert took < 1.5, took
