"""Hardening: hostile input is a 4xx that names the field, never a 5xx or a dropped
connection; logs cannot be forged; details of the server stay out of answers; outages
of Redis, PostgreSQL and S3 answer with the error envelope and recover; render workers
give back the memory a large render took."""

from __future__ import annotations

import contextlib
import http.client
import itertools
import json
import os
import re
import socket
import stat
import subprocess
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest

pytestmark = pytest.mark.slow

pytest.importorskip("hypothesis")

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from templatekit_server import accounts
from templatekit_server.errors import DATABASE_UNAVAILABLE
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.rendering import resident_bytes
from tests.conftest import data_uri, decode
from tests.conftest import one_bit_png as png
from tests.server import services
from tests.server.conftest import Account, LiveServer, text_template

SMALL_PHOTO = data_uri(png((40, 40)))


def hostile_template() -> dict[str, Any]:
    body = text_template("hostile")
    body["layers"].append(
        {"type": "image", "name": "photo", "x": 120, "y": 0, "width": 100, "height": 80, "src": SMALL_PHOTO}
    )
    return body


class Connection:
    """One keep-alive HTTP connection: every answer must come on it, and leave it open."""

    def __init__(self, port: int) -> None:
        self.http = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        self.socket: Any = None

    def post(self, path: str, body: bytes, headers: dict[str, str]) -> tuple[int, Any]:
        self.http.request("POST", path, body=body, headers={"Content-Type": "application/json", **headers})
        answer = self.http.getresponse()
        data = answer.read()
        if self.socket is None:
            self.socket = self.http.sock
        assert self.http.sock is self.socket and not answer.will_close, "the server closed the connection"
        if (answer.getheader("content-type") or "").startswith("application/json"):
            return answer.status, json.loads(data)
        return answer.status, data


@pytest.fixture(scope="module")
def hostile(live: LiveServer) -> tuple[Account, Connection]:
    """An account with a high rate limit (the fuzzing sends many requests), the template,
    and one connection to the live server."""
    workspace = accounts.create_workspace(live.db, "hostile", "pro", DEFAULT_PLANS)
    project = accounts.create_project(live.db, workspace, "hostile")
    key_id, key = accounts.create_key(live.db, live.sealer, project, rate_limit=100_000)
    account = Account(workspace, project, key_id, key)
    live.add_template(account, hostile_template())
    return account, Connection(live.port)


def create_image(connection: Connection, account: Account, body: bytes) -> tuple[int, Any]:
    return connection.post("/v1/templates/createImage", body, account.bearer)


def nested(depth: int) -> Any:
    value: Any = "deep"
    for _ in range(depth):
        value = [value]
    return value


SVG_NESTED = data_uri(
    (
        '<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10">' + "<g>" * 50_000 + "</g>" * 50_000 + "</svg>"
    ).encode(),
    "image/svg+xml",
)


def svg_embedding(image: bytes) -> str:
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="50" height="50">'
        f'<image width="50" height="50" xlink:href="{data_uri(image)}"/></svg>'
    )
    return data_uri(svg.encode(), "image/svg+xml")


def body(**fields: Any) -> bytes:
    return json.dumps({"templateId": "hostile", **fields}).encode()


HOSTILE_CASES = [
    (body(modifications=[{"name": "photo", "src": SVG_NESTED}]), "FETCH_IMAGE_ERROR", "more than 256 deep"),
    (
        body(modifications='[{"name": "title", "text": ' + "[" * 3000 + '"deep"' + "]" * 3000 + "}]"),
        "BAD_REQUEST",
        "modifications: nested more than 64 levels deep",
    ),
    (
        b'{"templateId": "hostile", "modifications": [{"name": "title", "size": ' + b"9" * 5000 + b"}]}",
        "BAD_REQUEST",
        "request body: holds a number too long to read",
    ),
    (
        b'{"templateId": "hostile", "modifications": [{"name": "title", "size": 1e400}]}',
        "BAD_REQUEST",
        "size",
    ),
    (body(modifications=[{"name": "title", "size": 1e6}]), "BAD_REQUEST", "size: must be between 0.1 and 10000"),
    (body(modifications=[{"name": "box", "width": 1e9}]), "BAD_REQUEST", "width: must be at most 100000"),
    (body(modifications=[{"name": "box", "rotation": 1e308}]), None, ""),  # a number like another: drawn
    (
        body(modifications=[{"name": "photo", "src": svg_embedding(png((9000, 9000)))}]),
        "FETCH_IMAGE_ERROR",
        "the SVG embeds a 9000x9000 px image, more than the 50 MP limit",
    ),
    (body(modifications=[{"name": "title", "text": "x" * 30_000}]), "BAD_REQUEST", "title"),
]


@pytest.mark.parametrize(("raw", "code", "named"), HOSTILE_CASES)
def test_hostile_input_is_a_bad_request_on_a_connection_that_stays_open(hostile, raw, code, named):
    account, connection = hostile
    started = time.monotonic()
    status, answer = create_image(connection, account, raw)
    assert time.monotonic() - started < 20
    if code is None:
        assert status == 200
    else:
        assert (status, answer["error"]["code"]) == (400, code), answer
        assert named in answer["error"]["message"], answer
    status, _ = create_image(connection, account, body())
    assert status == 200


def test_a_render_over_the_memory_budget_is_refused_naming_the_layer(live, hostile):
    account, connection = hostile
    photo = data_uri(png((7000, 7000)))  # each under the pixel limit; 30 of them take 5.9 GB decoded
    layers = [
        {"type": "image", "name": f"photo{n}", "x": 0, "y": 0, "width": 200, "height": 200, "src": photo}
        for n in range(30)
    ]
    live.add_template(account, {"id": "heavy", "name": "Heavy", "width": 200, "height": 200, "layers": layers})
    before = live.used(account)
    status, answer = connection.post("/v1/templates/createImage", b'{"templateId": "heavy"}', account.bearer)
    assert (status, answer["error"]["code"]) == (400, "BAD_REQUEST")
    message = answer["error"]["message"]
    prefix = "layer 'photo5': decoding the images up to this layer (this one 7,000x7,000 px) needs 1.2 GB"
    assert message.startswith(prefix) and "memory budget (1.1 GB" in message, message
    assert live.used(account) == before


# ------------------------------------------------------------------ every field, hostile values

HUGE = "__HUGE_INTEGER__"
HOSTILE_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([HUGE, 1e308, -1e308, 5e-324, 2**63, -(2**63), 0, -1, "", " ", "\x00", "\r\n", "%0d%0a"]),
    st.text(max_size=50),
    st.sampled_from(["x" * 25_000, "#" * 9, "data:,", "http://127.0.0.1/", "javascript:alert(1)", "../../etc"]),
    st.integers(1, 80).map(nested),
    st.lists(st.integers(), max_size=5),
    st.dictionaries(st.text(max_size=5), st.integers(), max_size=3),
)
LAYER_FIELDS = {
    "title": ["text", "size", "color", "font", "weight", "align", "autoFit", "lineHeight", "letterSpacing"],
    "box": ["fill", "stroke", "strokeWidth", "radius", "shape"],
    "photo": ["src", "fit", "focus", "radius", "border"],
}
COMMON_FIELDS = ["x", "y", "width", "height", "rotation", "opacity", "visible", "animations"]
SLOTS = [("body", name) for name in ("templateId", "format", "modifications", "s3Config", "thumbnail", "debug")] + [
    (layer, name) for layer, names in LAYER_FIELDS.items() for name in (*names, *COMMON_FIELDS)
]


# Repeatable in CI like the schemathesis run; TEMPLATEKIT_FUZZ_SEED=random explores afresh.
@settings(
    max_examples=120,
    deadline=None,
    derandomize=os.environ.get("TEMPLATEKIT_FUZZ_SEED") != "random",
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(slot=st.sampled_from(SLOTS), value=HOSTILE_VALUES)
def test_no_field_given_any_value_gets_a_5xx_or_drops_the_connection(hostile, slot, value):
    account, connection = hostile
    where, name = slot
    request: dict[str, Any] = {"templateId": "hostile"}
    if where == "body":
        request[name] = value
    else:
        request["modifications"] = [{"name": where, name: value}]
    raw = json.dumps(request).replace(json.dumps(HUGE), "9" * 5000).encode()
    status, answer = create_image(connection, account, raw)
    assert status < 500, (slot, str(value)[:80], answer)
    if status >= 400:
        assert answer["error"]["message"], answer


# ------------------------------------------------------------------ logs and error bodies


def test_a_path_with_cr_lf_writes_one_log_line(live):
    answer = httpx.get(f"{live.api}/nothing%0d%0a2026-01-01 INFO templatekit.access: GET /v1/forged 200")
    assert answer.status_code == 404
    time.sleep(0.3)
    log = live.log()
    assert not re.search(r"^2026-01-01 INFO templatekit.access: GET /v1/forged", log, re.M)
    lines = [line for line in log.splitlines() if re.search(r" INFO templatekit.access: GET /v1/nothing", line)]
    assert len(lines) == 1 and "\\r\\n2026-01-01" in lines[0], lines


def test_credentials_in_an_s3_endpoint_are_refused_and_never_echoed(live, hostile):
    account, connection = hostile
    config = {"bucket": "b-1", "accessKeyId": "a", "secretAccessKey": "s", "endpoint": "http://user:hunter2@s3.test/"}
    status, answer = create_image(connection, account, body(s3Config=config))
    assert (status, answer["error"]["code"]) == (400, "BAD_REQUEST")
    assert answer["error"]["message"].startswith("s3Config.endpoint: http://s3.test/ holds a user name or password")
    time.sleep(0.3)
    assert "hunter2" not in json.dumps(answer) and "hunter2" not in live.log()


def test_405_names_every_method_of_the_path(live):
    answer = httpx.delete(f"{live.api}/templates")
    assert answer.status_code == 405
    assert set(answer.headers["allow"].replace(" ", "").split(",")) == {"GET", "HEAD", "POST"}


def test_a_fetch_allow_entry_with_a_port_stops_the_server_saying_why(tmp_path):
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_FETCH_ALLOW": "localhost:8080"})
    with pytest.raises(RuntimeError, match="the server exited with 1") as caught:
        server.start()
    assert "'localhost:8080' is not a host name, IP address or CIDR network" in str(caught.value)


def test_the_database_file_is_readable_by_the_server_user_only(live):
    mode = stat.S_IMODE((live.data_dir / "templatekit.db").stat().st_mode)
    assert mode == 0o600, oct(mode)


# ------------------------------------------------------------------ outages under load


@contextlib.contextmanager
def load(url: str, headers: dict[str, str], threads: int = 4) -> Iterator[list[Any]]:
    """Requests of the card, each with its own title (no answer comes from a cache), sent
    without pause from ``threads`` threads, each on its own keep-alive connection, while
    the block runs: the answers (status, error code or None, message, headers), or the
    exception a request ended with."""
    answers: list[Any] = []
    stop = threading.Event()
    numbers = itertools.count()

    def send() -> None:
        with httpx.Client(timeout=60) as client:
            while not stop.is_set():
                request = {"templateId": "card", "modifications": {"title": f"Load {next(numbers)}"}}
                try:
                    answer = client.post(url, json=request, headers=headers)
                except httpx.HTTPError as exc:
                    answers.append(exc)
                    continue
                error = answer.json()["error"] if answer.status_code != 200 else {}
                answers.append((answer.status_code, error.get("code"), error.get("message"), answer.headers))

    workers = [threading.Thread(target=send) for _ in range(threads)]
    for worker in workers:
        worker.start()
    try:
        yield answers
    finally:
        stop.set()
        for worker in workers:
            worker.join(timeout=120)


def outage(service: services.Service, seconds: float = 3.0, until: Callable[[], bool] | None = None) -> None:
    """``service`` stopped for ``seconds`` (or, given ``until``, for as long as it takes to
    be true, at most 30 s: on a busy machine, few requests may reach the server in 3 s)."""
    time.sleep(1.0)
    service.stop()
    time.sleep(seconds)
    deadline = time.monotonic() + 30
    while until is not None and not until() and time.monotonic() < deadline:
        time.sleep(0.1)
    service.start()
    time.sleep(2.0)


@contextlib.contextmanager
def serving(tmp_path: Any, env: dict[str, str]) -> Iterator[tuple[LiveServer, Account]]:
    """A server of its own with one render worker, an account and the card template. The
    account's plan allows far more requests a minute than the load sends, so that only
    an outage can change an answer."""
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_WORKERS": "1", **env})
    server.data_dir.mkdir()
    server.start()
    try:
        account = server.account("scale")
        server.add_template(account, text_template())
        yield server, account
    finally:
        server.stop()


def statuses(answers: list[Any]) -> Counter[Any]:
    return Counter(a if isinstance(a, Exception) else (a[0], a[1]) for a in answers)


def test_a_redis_outage_lets_requests_through_uncounted_and_counting_resumes(tmp_path):
    with (
        services.redis(tmp_path) as redis,
        serving(tmp_path, {"TEMPLATEKIT_RATE_LIMIT_URL": redis.url}) as (
            server,
            account,
        ),
    ):
        with load(f"{server.api}/templates/createImage", account.bearer) as answers:
            outage(redis)
        assert set(statuses(answers)) == {(200, None)}, statuses(answers)  # fail-open, nothing dropped
        assert not all("x-ratelimit-remaining" in a[3] for a in answers)  # some went uncounted
        assert "x-ratelimit-remaining" in answers[-1][3]  # and counting came back
        log = server.log()
        assert "Traceback" not in log
        assert 1 <= log.count("rate limits are not counted") <= 2, log.count("rate limits are not counted")


def test_a_postgres_outage_answers_the_envelope_without_details_and_recovers(tmp_path):
    with (
        services.postgres() as database,
        serving(tmp_path, {"TEMPLATEKIT_DATABASE_URL": database.url}) as (
            server,
            account,
        ),
    ):
        with load(f"{server.api}/templates/createImage", account.bearer) as answers:
            outage(database, until=lambda: any(not isinstance(a, Exception) and a[0] == 500 for a in answers))
        seen = statuses(answers)
        assert set(seen) <= {(200, None), (500, "INTERNAL_SERVER_ERROR")}, seen
        assert seen[(500, "INTERNAL_SERVER_ERROR")] > 0 and answers[-1][0] == 200, seen
        failed = {a[2] for a in answers if a[0] == 500}
        assert failed == {DATABASE_UNAVAILABLE}, failed
        port = database.url.rsplit(":", 1)[1].split("/")[0]
        assert not any(port in a[2] or "127.0.0.1" in a[2] for a in answers if a[0] == 500)
        assert server.log().count("Traceback") <= 2  # at most one per kind and place a minute


def test_an_s3_outage_of_the_file_storage_answers_the_envelope_and_recovers(tmp_path):
    import boto3

    with services.moto_s3(tmp_path) as s3:
        credentials = {"aws_access_key_id": "k", "aws_secret_access_key": "s", "region_name": "us-east-1"}

        def bucket() -> None:
            boto3.client("s3", endpoint_url=s3.url, **credentials).create_bucket(Bucket="files")

        bucket()
        env = {
            "TEMPLATEKIT_STORAGE_URL": "s3://files/renders",
            "TEMPLATEKIT_STORAGE_TIMEOUT": "2",  # shorter than the outage: retries cannot outlast it
            "AWS_ENDPOINT_URL": s3.url,
            "AWS_ACCESS_KEY_ID": "k",
            "AWS_SECRET_ACCESS_KEY": "s",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        with serving(tmp_path, env) as (server, account):
            url = f"{server.api}/templates/createStoredImage"
            with load(url, account.bearer, threads=2) as answers:
                time.sleep(1.0)
                s3.stop()
                time.sleep(5.0)
                s3.start()
                bucket()  # moto keeps buckets in memory: the restarted service is empty
                time.sleep(2.0)
            seen = statuses(answers)
            assert set(seen) <= {(200, None), (500, "INTERNAL_SERVER_ERROR")}, seen
            assert seen[(500, "INTERNAL_SERVER_ERROR")] > 0 and answers[-1][0] == 200, seen
            for answer in answers:
                if answer[0] == 500:
                    assert answer[2].startswith("the file storage "), answer[2]
                    assert "files" not in answer[2] and s3.url not in answer[2], answer[2]
            assert server.used(account) == seen[(200, None)]  # nothing billed that was not stored


# ------------------------------------------------------------------ workers give memory back


def _children(pid: int) -> list[int]:
    done = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True, check=False)
    return [int(child) for child in done.stdout.split()]


def render_workers(server: LiveServer) -> list[int]:
    """The render workers: the processes the server's forkserver started."""
    assert server.process is not None
    return [worker for child in _children(server.process.pid) for worker in _children(child)]


def worker_memory(server: LiveServer) -> dict[int, int]:
    """The resident bytes of the server's child processes (the forkserver among them) and
    of the render workers."""
    assert server.process is not None
    return {pid: resident_bytes(pid) for pid in (*_children(server.process.pid), *render_workers(server))}


def wait_for(condition: Callable[[], bool], seconds: float = 20.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.2)
    return condition()


def test_a_worker_over_its_memory_cap_is_replaced_without_failing_a_request(tmp_path):
    cap = 300_000_000  # above an idle worker; below one holding the decoded photos it caches
    with serving(tmp_path, {"TEMPLATEKIT_WORKER_MAX_RSS": str(cap)}) as (server, account):
        photos = [data_uri(png((6000 + n, 6000))) for n in range(4)]  # 144 MB each decoded; four fit 1 GiB
        layers = [
            {"type": "image", "name": f"p{n}", "x": 50 * n, "y": 0, "width": 50, "height": 50, "src": photo}
            for n, photo in enumerate(photos)
        ]
        server.add_template(account, {"id": "big", "name": "Big", "width": 200, "height": 50, "layers": layers})
        with httpx.Client(timeout=120) as client:
            url = f"{server.api}/templates/createImage"
            assert client.post(url, json={"templateId": "card"}, headers=account.bearer).status_code == 200
            baseline = max(worker_memory(server).values())
            big = client.post(url, json={"templateId": "big"}, headers=account.bearer)
            assert big.status_code == 200 and decode(big.content).size == (200, 50)
            assert wait_for(lambda: max(worker_memory(server).values()) < baseline + 150_000_000), (
                baseline,
                worker_memory(server),
            )
            assert client.post(url, json={"templateId": "card"}, headers=account.bearer).status_code == 200
        assert "replacing it" in server.log()
        assert "Traceback" not in server.log()


def test_workers_are_replaced_after_their_number_of_renders(tmp_path):
    with serving(tmp_path, {"TEMPLATEKIT_WORKER_MAX_RENDERS": "3"}) as (server, account):
        seen: set[int] = set()
        with httpx.Client(timeout=60) as client:
            for n in range(10):
                answer = client.post(
                    f"{server.api}/templates/createImage",
                    json={"templateId": "card", "modifications": {"title": f"render {n}"}},
                    headers=account.bearer,
                )
                assert answer.status_code == 200
                seen |= set(render_workers(server))
        assert len(seen) >= 4  # ten renders, a new worker after every three


def test_every_answer_says_its_type_is_not_to_be_sniffed(live):
    """A browser never takes a rendered file or an error for another type than it says."""
    account = live.account()
    live.add_template(account, text_template("sniff"))
    answers = [
        httpx.post(f"{live.api}/templates/createImage", json={"templateId": "sniff"}, headers=account.bearer),
        httpx.post(f"{live.api}/templates/createImage", json={"templateId": "none"}, headers=account.bearer),
        httpx.get(f"{live.api}/liveness"),
    ]
    assert [answer.headers.get("X-Content-Type-Options") for answer in answers] == ["nosniff"] * 3


def test_a_client_gone_before_its_body_is_whole_is_no_error(live):
    """A client that closes its connection halfway through its body is logged as gone
    (499), not as an unexpected error with a stack trace."""
    account = live.account()
    before = live.log().count("Traceback")
    request = (
        f"POST /v1/templates/createImage HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {account.key}\r\n"
        "Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n"
    ).encode() + b'{"templateId": "card", "modifications": {"title": "'
    with socket.create_connection(("127.0.0.1", live.port)) as connection:
        connection.sendall(request)
        time.sleep(0.3)
    deadline = time.monotonic() + 5
    while " 499 " not in live.log() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert " 499 " in live.log() and live.log().count("Traceback") == before
