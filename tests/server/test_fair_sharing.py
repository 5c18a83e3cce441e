"""One workspace cannot hold what every workspace shares, over real HTTP against a real
server with two render workers: a quiet workspace's request is answered before the rest
of a hostile workspace's backlog, and before its heavy previews; a request that waits
too long for a worker is refused RATE_LIMITED and not billed; a target that never
answers holds two webhook senders at most, while another workspace's delivery goes out
at once; an endpoint that keeps failing is paused. Shown by the order of answers and by
what the receivers see, not by how long things take (the rules themselves are tested in
test_fairness.py and test_fair_claims.py)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import httpx
import pytest

from tests.server.conftest import Account, LiveServer, text_template
from tests.server.test_webhooks import Receiver, admin

pytestmark = pytest.mark.slow

WEBHOOK_TIMEOUT = 3


def heavy(template_id: str = "heavy", layers: int = 4, size: int = 1400) -> dict[str, Any]:
    """A template that keeps a worker busy for about a second: wide blurs and shadows
    (renders that differ, see ``unlike``, so that no cache answers them)."""
    shadow = {"x": 5, "y": 5, "blur": 40, "spread": 10, "color": "#00000080"}
    return {
        "id": template_id,
        "name": "Heavy",
        "width": size,
        "height": size,
        "layers": [
            {"type": "shape", "name": f"s{n}", "x": 0, "y": 0, "width": size, "height": size}
            | {"fill": "#336699", "blur": 40, "shadows": [shadow] * 3}
            for n in range(layers)
        ],
    }


def unlike(n: int) -> dict[str, Any]:
    """Modifications that make the n-th render of ``heavy`` unlike any other."""
    return {"s0": {"fill": f"#33{n:02x}99"}}


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("fair")
    config = folder / "plans.toml"
    config.write_text("[plans.free]\nmax_queue_seconds = 1\n\n[plans.automate]\npreviews_per_minute = 3\n")
    server = LiveServer(
        folder / "data",
        {
            "TEMPLATEKIT_CONFIG": str(config),
            "TEMPLATEKIT_WEBHOOK_TIMEOUT": str(WEBHOOK_TIMEOUT),
            "TEMPLATEKIT_WEBHOOK_RETRIES": "0.1",
            "TEMPLATEKIT_WORKERS": "2",
        },
    )
    server.data_dir.mkdir(parents=True)
    server.start()
    yield server
    server.stop()


class Answers:
    """Requests sent from threads; the order in which their answers came back."""

    def __init__(self) -> None:
        self.order: list[str] = []
        self.answers: dict[str, httpx.Response] = {}
        self._lock = threading.Lock()
        self._pool = ThreadPoolExecutor(64)
        self._sent: list[Any] = []

    def post(self, label: str, url: str, account: Account, body: dict[str, Any]) -> None:
        def send() -> None:
            answer = httpx.post(url, json=body, headers=account.bearer, timeout=120)
            with self._lock:
                self.order.append(label)
                self.answers[label] = answer

        self._sent.append(self._pool.submit(send))

    def wait(self) -> None:
        for sent in self._sent:
            sent.result()
        self._pool.shutdown()

    def before(self, label: str, prefix: str) -> int:
        """How many answers whose label starts with ``prefix`` came before ``label``'s."""
        return sum(1 for other in self.order[: self.order.index(label)] if other.startswith(prefix))


def test_a_quiet_request_is_answered_before_the_rest_of_a_backlog(shared):
    hostile, quiet = shared.account("pro"), shared.account("pro")
    shared.add_template(hostile, heavy())
    shared.add_template(quiet, text_template())
    answers = Answers()
    for n in range(8):
        body = {"templateId": "heavy", "modifications": unlike(n)}
        answers.post(f"hostile {n}", f"{shared.api}/templates/createImage", hostile, body)
    time.sleep(0.5)  # the backlog is queued: two render, six wait
    answers.post("quiet", f"{shared.api}/templates/createImage", quiet, {"templateId": "card"})
    answers.wait()
    assert all(answer.status_code == 200 for answer in answers.answers.values())
    # the two renders running when it came, and at most one that started just before it;
    # first come, first served, it would have waited for all eight
    assert answers.before("quiet", "hostile") <= 3, answers.order


def test_heavy_previews_leave_a_worker_for_billed_renders(shared):
    hostile, quiet = shared.account("pro"), shared.account("pro")
    shared.add_template(quiet, text_template())
    answers = Answers()
    for n in range(6):
        body = {"template": heavy(), "modifications": unlike(100 + n)}
        answers.post(f"preview {n}", f"{shared.api}/templates/preview", hostile, body)
    time.sleep(0.5)
    answers.post("quiet", f"{shared.api}/templates/createImage", quiet, {"templateId": "card"})
    answers.wait()
    assert all(answer.status_code == 200 for answer in answers.answers.values())
    assert answers.before("quiet", "preview") == 0, answers.order


def test_a_request_that_waits_too_long_for_a_worker_is_refused_and_not_billed(shared):
    busy = shared.account("free")  # its plan waits 1 s at most (plans.toml above)
    shared.add_template(busy, heavy())
    answers = Answers()
    for n in range(6):
        body = {"templateId": "heavy", "modifications": unlike(200 + n)}
        answers.post(f"render {n}", f"{shared.api}/templates/createImage", busy, body)
    answers.wait()
    refused = [answer for answer in answers.answers.values() if answer.status_code != 200]
    assert refused, "every render found a worker within a second"
    for answer in refused:
        error = answer.json()["error"]
        assert error["code"] == "RATE_LIMITED" and "waited 1 s for a free worker" in error["message"]
        assert int(answer.headers["Retry-After"]) >= 1
    assert shared.used(busy) == 6 - len(refused)


def test_previews_have_an_allowance_of_their_own_per_key(shared, client):
    designer = shared.account("automate")  # 3 previews a minute (plans.toml above)
    answers = [
        client.post(f"{shared.api}/templates/preview", json={"template": text_template()}, headers=designer.bearer)
        for _ in range(4)
    ]
    assert [answer.status_code for answer in answers[:3]] == [200, 200, 200]
    error = answers[3].json()["error"]
    assert error["code"] == "RATE_LIMITED" and "the rate limit of 3 previews a minute" in error["message"]
    assert int(answers[3].headers["Retry-After"]) >= 1
    other = shared.key_for(designer.project)  # the allowance is the key's
    body = {"template": text_template()}
    assert client.post(f"{shared.api}/templates/preview", json=body, headers=other.bearer).status_code == 200
    shared.add_template(designer, text_template())  # and billed renders do not draw on it
    rendered = client.post(f"{shared.api}/templates/createImage", json={"templateId": "card"}, headers=designer.bearer)
    assert rendered.status_code == 200


class Hanging(Receiver):
    """A receiver that answers nobody in time, and counts the connections it holds."""

    def __init__(self) -> None:
        super().__init__()
        self.open = 0
        self.most_open = 0
        self.answers = [-(WEBHOOK_TIMEOUT + 2)] * 1000  # each waits past the sender's timeout

    def held(self, change: int) -> None:
        with self.arrived:
            self.open += change
            self.most_open = max(self.most_open, self.open)


def test_a_target_that_never_answers_holds_two_senders_while_others_are_delivered(shared):
    hostile, quiet = shared.account("pro"), shared.account("pro")
    shared.add_template(hostile, text_template())
    shared.add_template(quiet, text_template())
    with Hanging() as hanging, Receiver() as answering:
        original = hanging.RequestHandlerClass.do_POST

        def counted(handler: Any) -> None:
            hanging.held(+1)
            try:
                original(handler)
            finally:
                hanging.held(-1)

        hanging.RequestHandlerClass = type("Counted", (hanging.RequestHandlerClass,), {"do_POST": counted})
        for _ in range(20):
            body = {"templateId": "card", "thumbnail": True, "webhookUrl": hanging.url}
            assert httpx.post(f"{shared.api}/templates/createStoredImage", json=body, headers=hostile.bearer).is_success
        hanging.wait_for(2, 10)
        asked = time.monotonic()
        body = {"templateId": "card", "webhookUrl": answering.url}
        assert httpx.post(f"{shared.api}/templates/createStoredImage", json=body, headers=quiet.bearer).is_success
        answering.wait_for(1, WEBHOOK_TIMEOUT)  # before a sender held by the hanging target could free
        assert time.monotonic() - asked < WEBHOOK_TIMEOUT
        assert hanging.most_open <= 2


def test_an_endpoint_that_keeps_failing_is_paused_until_resumed(shared):
    account = shared.account("pro")
    shared.add_template(account, text_template())
    with Receiver() as failing:
        failing.answers = [500] * 20
        endpoint = admin(shared, "webhook", "add", "--project", account.project, "--url", failing.url)
        for _ in range(10):  # ten deliveries, two attempts each (one retry after 0.1 s)
            body = {"templateId": "card", "thumbnail": True}
            assert httpx.post(f"{shared.api}/templates/createStoredImage", json=body, headers=account.bearer).is_success
        failing.wait_for(20, 30)
        deadline = time.monotonic() + 10
        while admin(shared, "webhook", "list", "--project", account.project)[0]["pausedAt"] is None:
            assert time.monotonic() < deadline, "the endpoint was not paused"
            time.sleep(0.2)
        body = {"templateId": "card", "thumbnail": True}
        assert httpx.post(f"{shared.api}/templates/createStoredImage", json=body, headers=account.bearer).is_success
        time.sleep(2)
        assert len(failing.received) == 20  # paused: the new delivery waits
        admin(shared, "webhook", "resume", endpoint["id"])
        failing.wait_for(21, 10)
