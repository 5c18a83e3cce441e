"""Outbound webhooks: events reach the project's endpoints and the URL a request names,
signed as Standard Webhooks (checked with the scheme's reference library), delivered at
least once with retries from a queue that survives a restart and is shared by servers;
the address policy holds at request time and at each delivery."""

from __future__ import annotations

import http.server
import io
import json
import os
import sqlite3
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import av
import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("jsonschema")
pytest.importorskip("standardwebhooks")

import jsonschema
from sqlalchemy import insert, inspect, select, text, update
from standardwebhooks import Webhook

from templatekit.assets.policy import AllowList
from templatekit_server import accounts, webhooks
from templatekit_server.bodies import RenderDoneData
from templatekit_server.db import MIGRATIONS, Database, webhook_attempts, webhook_deliveries
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer
from tests.server.conftest import LiveServer, free_port, text_template, video_template

RETRIES = "0.3,0.6,0.9"  # four attempts in all
TIMEOUT = 1.5


class Receiver(http.server.ThreadingHTTPServer):
    """A webhook endpoint on loopback: keeps what it is posted, and answers with the
    statuses of ``answers`` in turn (200 once they run out); a negative status makes it
    wait that many seconds and then answer 200 (too late: the sender has given up)."""

    daemon_threads = True

    def __init__(self, answers: list[int] | None = None, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), _Receive)
        self.answers = list(answers or [])
        self.received: list[tuple[dict[str, str], bytes]] = []
        self.arrived = threading.Condition()
        threading.Thread(target=self.serve_forever, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/hook?source=templatekit"

    def wait_for(self, count: int, seconds: float = 60.0) -> list[tuple[dict[str, str], bytes]]:
        with self.arrived:
            self.arrived.wait_for(lambda: len(self.received) >= count, seconds)
            assert len(self.received) >= count, f"{len(self.received)} of {count} deliveries arrived"
            return list(self.received)

    def close(self) -> None:
        self.shutdown()
        self.server_close()

    def __exit__(self, *_exc: object) -> None:
        self.close()


class _Receive(http.server.BaseHTTPRequestHandler):
    server: Receiver

    def do_POST(self) -> None:  # noqa: N802 - the http.server interface
        body = self.rfile.read(int(self.headers["Content-Length"]))
        with self.server.arrived:
            status = self.server.answers.pop(0) if self.server.answers else 200
            self.server.received.append(({k.lower(): v for k, v in self.headers.items()}, body))
            self.server.arrived.notify_all()
        if status < 0:
            time.sleep(-status)
            status = 200
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_GET(self) -> None:  # noqa: N802 - an image that is not there, for a video that fails
        self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *_args: Any) -> None:
        pass


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    server = Receiver()
    yield server
    server.close()


@pytest.fixture(scope="module")
def notifier(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A server whose retries come quickly."""
    server = LiveServer(
        tmp_path_factory.mktemp("webhooks") / "data",
        {"TEMPLATEKIT_WEBHOOK_RETRIES": RETRIES, "TEMPLATEKIT_WEBHOOK_TIMEOUT": str(TIMEOUT)},
    )
    server.data_dir.mkdir(parents=True)
    server.start()
    yield server
    server.stop()


def admin(live: LiveServer, *args: str, ok: bool = True) -> Any:
    command = [sys.executable, "-m", "templatekit.cli", "admin", "--data-dir", str(live.data_dir), *args]
    env = {**os.environ, "TEMPLATEKIT_FETCH_ALLOW": "127.0.0.1"}
    done = subprocess.run(command, capture_output=True, text=True, timeout=60, env=env)
    if not ok:
        assert done.returncode == 1, done.stdout
        return done.stderr
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def verified(secret: str, delivery: tuple[dict[str, str], bytes]) -> dict[str, Any]:
    """The message, once the reference library has checked its signature and timestamp."""
    headers, body = delivery
    message: dict[str, Any] = Webhook(secret).verify(body, headers)
    return message


def deliveries(live: LiveServer, project: str) -> list[dict[str, Any]]:
    found: list[dict[str, Any]] = admin(live, "webhook", "deliveries", "--project", project)
    return found


def settled(live: LiveServer, project: str, count: int, seconds: float = 30.0) -> list[dict[str, Any]]:
    """The project's deliveries once ``count`` of them are delivered or failed."""
    deadline = time.monotonic() + seconds
    while True:
        found = webhooks.deliveries(live.db, project)
        if sum(d["status"] in ("delivered", "failed") for d in found) >= count or time.monotonic() > deadline:
            return found
        time.sleep(0.2)


def test_a_finished_video_is_announced_to_the_project_and_to_the_request_url(client, notifier):
    account = notifier.account()
    notifier.add_template(account, video_template("clip", seconds=1.0))
    with Receiver() as endpoint, Receiver() as requested:
        added = admin(notifier, "webhook", "add", "--project", account.project, "--url", endpoint.url)
        assert added["events"] == ["video.done", "video.failed", "render.done"]
        assert added["secret"].startswith("whsec_")
        answer = client.post(
            f"{notifier.api}/templates/renderVideo",
            json={"templateId": "clip", "modifications": {"title": "Done"}, "webhookUrl": requested.url},
            headers=account.bearer,
        )
        assert answer.status_code == 200, answer.text
        video_id = answer.json()["id"]
        project_message = verified(added["secret"], endpoint.wait_for(1)[0])
        request_secret = admin(notifier, "webhook", "secret", "--project", account.project)["secret"]
        request_message = verified(request_secret, requested.wait_for(1)[0])
    for message in (project_message, request_message):
        assert message["type"] == "video.done" and message["timestamp"].endswith("Z")
        data = message["data"]
        assert (data["id"], data["templateId"], data["duration"]) == (video_id, "clip", 1.0)
    assert project_message["data"]["url"] == answer.json()["url"]
    mp4 = client.get(project_message["data"]["url"])
    assert mp4.status_code == 200
    with av.open(io.BytesIO(mp4.content)) as container:
        assert container.streams.video[0].frames == 10
    # each target is its own message, with its own id; neither is signed with the other's secret
    assert endpoint.received[0][0]["webhook-id"] != requested.received[0][0]["webhook-id"]
    with pytest.raises(Exception, match="signature"):
        verified(added["secret"], requested.received[0])


def test_a_failed_video_is_announced_with_its_error(client, notifier, receiver):
    account = notifier.account()
    template = video_template("broken", seconds=1.0)
    missing = receiver.url.replace("/hook?source=templatekit", "/missing.png")
    photo = {"type": "image", "name": "photo", "x": 0, "y": 0, "width": 40, "height": 40, "src": missing}
    template["layers"].append(photo)
    notifier.add_template(account, template)
    body = {"templateId": "broken", "webhookUrl": receiver.url}
    answer = client.post(f"{notifier.api}/templates/renderVideo", json=body, headers=account.bearer)
    assert answer.status_code >= 400
    secret = admin(notifier, "webhook", "secret", "--project", account.project)["secret"]
    message = verified(secret, receiver.wait_for(1)[0])
    assert message["type"] == "video.failed"
    assert message["data"]["error"]["code"] == answer.json()["error"]["code"]
    assert "missing.png" in message["data"]["error"]["message"]


def test_stored_renders_are_announced_to_endpoints_that_want_them(client, notifier):
    account = notifier.account()
    notifier.add_template(account, text_template("card"))
    with Receiver() as renders, Receiver() as videos:
        admin(notifier, "webhook", "add", "--project", account.project, "--url", renders.url, "--events", "render.done")
        admin(notifier, "webhook", "add", "--project", account.project, "--url", videos.url, "--events", "video.done")
        body = {"templateId": "card", "modifications": {"title": "Stored"}, "format": "jpeg"}
        stored = client.post(f"{notifier.api}/templates/createStoredImage", json=body, headers=account.bearer)
        assert stored.status_code == 200, stored.text
        client.post(f"{notifier.api}/templates/createImage", json=body, headers=account.bearer)  # not stored: no event
        renders.wait_for(1)
        time.sleep(1.5)
        assert len(renders.received) == 1 and videos.received == []
    message = json.loads(renders.received[0][1])
    assert message["type"] == "render.done"
    assert message["data"] == {"url": stored.json()["url"], "templateId": "card", "format": "jpeg"}
    document = client.get(f"{notifier.api}/openapi.json").json()
    assert set(document["webhooks"]) == set(webhooks.EVENTS)
    schema = document["webhooks"]["render.done"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    schema = {**schema, "components": document["components"]}  # the $ref resolves inside it
    jsonschema.Draft202012Validator(schema).validate(message)  # the message is what the document says
    listed = admin(notifier, "webhook", "list", "--project", account.project)
    assert [e["events"] for e in listed] == [["render.done"], ["video.done"]] and "secret" not in listed[0]


def test_a_failing_endpoint_is_retried_with_the_same_message_until_it_answers(client, notifier):
    account = notifier.account()
    notifier.add_template(account, text_template("card"))
    with Receiver([500, -(TIMEOUT + 1), 503]) as flaky:  # an error, a timeout, an error, then 200
        added = admin(notifier, "webhook", "add", "--project", account.project, "--url", flaky.url)
        body = {"templateId": "card"}
        assert client.post(f"{notifier.api}/templates/createStoredImage", json=body, headers=account.bearer).is_success
        received = flaky.wait_for(4)
    ids = {headers["webhook-id"] for headers, _ in received}
    assert len(ids) == 1 and len({body for _, body in received}) == 1  # one message, posted four times
    stamps = [int(headers["webhook-timestamp"]) for headers, _ in received]
    assert stamps == sorted(stamps)
    for delivery in received:  # each attempt is signed afresh, for its own timestamp
        verified(added["secret"], delivery)
    [logged] = settled(notifier, account.project, 1)
    assert logged["status"] == "delivered" and logged["id"] in ids
    assert [a["statusCode"] for a in logged["attempts"]] == [500, None, 503, 200]
    assert "timed out" in logged["attempts"][1]["error"]
    waits = [b["at"] > a["at"] for a, b in zip(logged["attempts"], logged["attempts"][1:], strict=False)]
    assert all(waits)
    assert deliveries(notifier, account.project)[0]["attempts"] == logged["attempts"]  # the admin CLI's log


def test_an_endpoint_that_never_answers_well_is_given_up_after_the_last_retry(client, notifier):
    account = notifier.account()
    notifier.add_template(account, text_template("card"))
    with Receiver([410] * 10) as gone:
        admin(notifier, "webhook", "add", "--project", account.project, "--url", gone.url)
        client.post(f"{notifier.api}/templates/createStoredImage", json={"templateId": "card"}, headers=account.bearer)
        [logged] = settled(notifier, account.project, 1)
        time.sleep(1.5)
        assert len(gone.received) == 4
    assert logged["status"] == "failed"
    assert [a["statusCode"] for a in logged["attempts"]] == [410] * 4


def test_the_address_policy_holds_for_requests_endpoints_and_each_delivery(client, notifier):
    account = notifier.account()
    notifier.add_template(account, text_template("card"))
    for url, words in [
        ("http://169.254.169.254/latest/meta-data", "link-local"),
        ("http://10.1.2.3/hook", "private"),
        ("file:///etc/passwd", "scheme"),
        ("https://example.com/a b", "spaces or control characters (percent-encode them)"),
        ("https://example.com/\r\nX-Injected: 1", "spaces or control characters (percent-encode them)"),
        (42, "must be a URL string"),
    ]:
        body = {"templateId": "card", "webhookUrl": url}
        answer = client.post(f"{notifier.api}/templates/createStoredImage", json=body, headers=account.bearer)
        assert answer.status_code == 400, answer.text
        assert answer.json()["error"]["code"] == "BAD_REQUEST"
        assert (
            answer.json()["error"]["message"].startswith("webhookUrl: ") and words in answer.json()["error"]["message"]
        )
    refused = admin(notifier, "webhook", "add", "--project", account.project, "--url", "http://10.1.2.3/", ok=False)
    assert "url: " in refused and "private" in refused
    answer = client.post(
        f"{notifier.api}/templates/createImage",
        json={"templateId": "card", "webhookUrl": "https://example.com/hook"},
        headers=account.bearer,
    )
    assert answer.status_code == 400 and "createStoredImage and renderVideo" in answer.json()["error"]["message"]
    # an endpoint made when its address was allowed is still refused at delivery time
    webhooks.add_endpoint(
        notifier.db, notifier.sealer, AllowList.parse(["10.0.0.0/8"]), account.project, "http://10.1.2.3/", None
    )
    client.post(f"{notifier.api}/templates/createStoredImage", json={"templateId": "card"}, headers=account.bearer)
    [logged] = settled(notifier, account.project, 1, seconds=30)
    assert logged["status"] == "failed"
    assert {a["statusCode"] for a in logged["attempts"]} == {None}
    assert all("private" in a["error"] for a in logged["attempts"])


def test_deliveries_wait_out_a_restart_and_are_sent_once_by_servers_sharing_the_queue(tmp_path, client):
    data = tmp_path / "data"
    data.mkdir()
    env = {"TEMPLATEKIT_WEBHOOK_RETRIES": "1,1,1,1,1,1,1,1,1,1", "TEMPLATEKIT_WEBHOOK_TIMEOUT": "2"}
    first = LiveServer(data, env).start()
    account = first.account()
    first.add_template(account, text_template("card"))
    port = free_port()
    target = f"http://127.0.0.1:{port}/hook"
    admin(first, "webhook", "add", "--project", account.project, "--url", target)
    for n in range(3):  # the endpoint is down: these are queued and retried
        body = {"templateId": "card", "modifications": {"title": f"#{n}"}}
        assert client.post(f"{first.api}/templates/createStoredImage", json=body, headers=account.bearer).is_success
    time.sleep(1.0)
    first.stop(kill=True)
    pending = webhooks.deliveries(first.db, account.project)
    assert len(pending) == 3 and {d["status"] for d in pending} <= {"pending", "sending"}
    with Receiver(port=port) as endpoint:
        second = LiveServer(data, env).start()
        third = LiveServer(data, env).start()
        try:
            with first.db.write() as connection:  # more events, while two servers share the queue
                for n in range(20):
                    data_ = RenderDoneData(url=f"https://example.com/{n}.png", template_id="card", format="png")
                    webhooks.queue(first.db, connection, first.sealer, account.project, data_)
            received = endpoint.wait_for(23)
            logged = settled(second, account.project, 23)
        finally:
            second.stop()
            third.stop()
    ids = [headers["webhook-id"] for headers, _ in received]
    assert sorted(ids) == sorted(d["id"] for d in logged)  # every message arrived, none twice
    assert {d["status"] for d in logged} == {"delivered"}
    restarted = [d for d in logged if d["id"] in {p["id"] for p in pending}]
    assert all(d["attempts"][0]["statusCode"] is None and d["attempts"][-1]["statusCode"] == 200 for d in restarted)


def test_a_hook_announces_its_stored_renders_to_its_webhook_url(client, live, receiver):
    account = live.account()
    live.add_template(account, text_template("hooked"))
    made = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked", "--webhook-url", receiver.url
    )
    assert made["webhookUrl"] == receiver.url
    answer = client.post(made["url"].replace("http://127.0.0.1:8000", live.root), json={"title": "From a form"})
    assert answer.status_code == 200, answer.text
    secret = admin(live, "webhook", "secret", "--project", account.project)["secret"]
    message = verified(secret, receiver.wait_for(1)[0])
    assert message["data"] == {"url": answer.json()["url"], "templateId": "hooked", "format": "png"}
    refused = admin(
        live, "hook", "create", "--project", account.project, "--template", "hooked",
        "--webhook-url", "http://192.168.0.10/", ok=False,
    )  # fmt: skip
    assert "webhook URL: " in refused and "private" in refused


def test_a_database_from_before_webhooks_is_brought_up_to_date(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    Database(url).close()
    with sqlite3.connect(tmp_path / "old.db") as old:  # as the previous version left it
        for table in ("webhook_endpoints", "webhook_deliveries", "webhook_attempts"):
            old.execute(f"DROP TABLE {table}")
        for table, column in [("projects", "webhook_secret"), ("videos", "api_base"), ("hooks", "webhook_url")]:
            old.execute(f"ALTER TABLE {table} DROP COLUMN {column}")
        old.execute("ALTER TABLE videos DROP COLUMN duration")
        old.execute("ALTER TABLE videos DROP COLUMN webhook_url")
        old.execute("UPDATE schema_version SET version = 3")
    db = Database(url)
    try:
        names = set(inspect(db.engine).get_table_names())
        assert {"webhook_endpoints", "webhook_deliveries", "webhook_attempts"} <= names
        videos = {column["name"] for column in inspect(db.engine).get_columns("videos")}
        assert {"duration", "api_base", "webhook_url"} <= videos
        with db.read() as connection:
            assert connection.execute(text("SELECT version FROM schema_version")).scalar() == len(MIGRATIONS)
    finally:
        db.close()


def test_ended_deliveries_are_forgotten_after_thirty_days(tmp_path):
    db = Database(f"sqlite:///{tmp_path / 'kept.db'}")
    try:
        project = accounts.create_project(db, accounts.create_workspace(db, "w", "pro", DEFAULT_PLANS), "p")
        with db.write() as connection:
            done = RenderDoneData(url="https://example.com/a.png", template_id="card", format="png")
            ids = webhooks.queue(db, connection, Sealer("s" * 32), project, done, "https://example.com/a")
            ids += webhooks.queue(db, connection, Sealer("s" * 32), project, done, "https://example.com/b")
        old, recent = ids
        with db.write() as connection:
            for delivery_id, age in [(old, 31), (recent, 29)]:
                ended = time.time() - age * 86_400
                connection.execute(
                    update(webhook_deliveries)
                    .where(webhook_deliveries.c.id == delivery_id)
                    .values(status="delivered", finished_at=ended)
                )
                connection.execute(
                    insert(webhook_attempts).values(delivery_id=delivery_id, attempt=1, at=ended, seconds=0.1)
                )
        webhooks.forget_old(db)
        assert [d["id"] for d in webhooks.deliveries(db, project)] == [recent]
        with db.read() as connection:
            assert connection.execute(select(webhook_attempts.c.delivery_id)).scalars().all() == [recent]
    finally:
        db.close()
