"""Two server processes sharing PostgreSQL, Redis and one storage folder, as
docs/deploy.md sets them up; one is killed (SIGKILL) in the middle of a render. What it
held must not outlive it: its request's Idempotency-Key is free again on the other host,
and the render that never answered is not billed ("failed renders are free")."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.conftest import decode
from tests.server.conftest import Files, LiveServer, hosts_sharing_a_database, image_template

pytestmark = pytest.mark.slow

RENDER_TIMEOUT = 5  # a keyed repeat waits this and 5 s for the first before CONFLICT
SOCIAL_CARD = (Path(__file__).parents[2] / "docs/images/social-card.png").read_bytes()


@pytest.fixture(scope="module")
def hosts(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[LiveServer]]:
    timeout = str(RENDER_TIMEOUT)
    with hosts_sharing_a_database(tmp_path_factory.mktemp("hosts"), TEMPLATEKIT_RENDER_TIMEOUT=timeout) as servers:
        yield servers


def killed_mid_render(host: LiveServer, account, web: Files, headers: dict[str, str]) -> None:
    """A createImage of the ``slow`` template sent to ``host``, which is killed while its
    worker waits for the image."""
    web.routes["/cluster-slow.png"] = (200, SOCIAL_CARD, RENDER_TIMEOUT - 1)
    answers: list[object] = []

    def send() -> None:
        try:
            answers.append(
                httpx.post(
                    f"{host.api}/templates/createImage", json={"templateId": "slow"}, headers=headers, timeout=60
                )
            )
        except httpx.TransportError as exc:
            answers.append(exc)

    thread = threading.Thread(target=send)
    thread.start()
    time.sleep(1.5)  # reserved, and rendering
    host.stop(kill=True)
    thread.join(30)
    assert isinstance(answers[0], httpx.TransportError), answers  # the client never got an image
    web.routes["/cluster-slow.png"] = (200, SOCIAL_CARD, 0.0)


def test_a_key_held_by_a_host_killed_mid_render_is_free_again_on_another_host(hosts, web):
    first, second = hosts
    account = first.account()
    first.add_template(account, image_template(web.url("/cluster-slow.png"), "slow"))
    keyed = {**account.bearer, "Idempotency-Key": "order-42"}
    killed_mid_render(first, account, web, keyed)
    try:
        deadline = time.monotonic() + 45
        while True:  # a client retrying as the docs tell it to: the first request failed
            again = httpx.post(
                f"{second.api}/templates/createImage", json={"templateId": "slow"}, headers=keyed, timeout=60
            )
            if again.status_code != 409 or time.monotonic() > deadline:
                break
        assert again.status_code == 200, again.text  # not "still running" for 24 hours
        assert decode(again.content).size[0] > 0
    finally:
        first.start()


def test_a_render_on_a_host_killed_mid_render_is_not_billed(hosts, web):
    first, second = hosts
    account = first.account()
    first.add_template(account, image_template(web.url("/cluster-slow.png"), "slow"))
    killed_mid_render(first, account, web, account.bearer)
    try:
        deadline = time.monotonic() + 40  # left alone for 15 s, found within 5 s more
        while second.used(account) != 0 and time.monotonic() < deadline:
            time.sleep(1)
        assert second.used(account) == 0  # no image was answered: given back by the other host
        answer = httpx.post(f"{second.api}/templates/createImage", json={"templateId": "slow"}, headers=account.bearer)
        assert answer.status_code == 200
        assert second.used(account) == 1
    finally:
        first.start()
