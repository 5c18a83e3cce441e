"""Quotas and rate limits: exact under concurrent load over real HTTP, shared by two server
processes (one SQLite file, one Redis), and correct at window edges (injected clocks)."""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from templatekit_server import accounts, usage
from templatekit_server.db import Database
from templatekit_server.errors import ApiError
from templatekit_server.plans import DEFAULT_PLANS, ConfigError, Plan, load_plans
from templatekit_server.ratelimits import RateLimiter
from tests.server import services
from tests.server.conftest import Account, LiveServer, burst, codes, text_template

pytestmark = pytest.mark.slow

CONCURRENT = 50


def leave(server: LiveServer, account: Account, left: int) -> None:
    """Use the workspace's daily generations up to ``left`` from its limit."""
    plan = DEFAULT_PLANS[accounts.workspace(server.db, account.workspace)["plan"]]
    usage.reserve(server.db, account.workspace, plan, plan.daily - left, "createImage")


def test_fifty_requests_with_ten_generations_left_render_exactly_ten(live):
    account = live.account("pro")
    live.add_template(account, text_template())
    leave(live, account, 10)
    answers = burst(
        [("POST", f"{live.api}/templates/createImage", {"templateId": "card"})] * CONCURRENT, account.bearer
    )
    assert codes(answers) == {"OK": 10, "USAGE_EXCEEDED": 40}
    assert all(a.status_code == 500 and "Retry-After" in a.headers for a in answers if a.status_code != 200)
    assert live.used(account) == DEFAULT_PLANS["pro"].daily


def test_fifty_requests_against_a_limit_of_ten_a_minute_pass_exactly_ten(live):
    account = live.account("pro")
    live.add_template(account, text_template())
    accounts.set_rate_limit(live.db, account.key_id, 10)
    answers = burst([("GET", f"{live.api}/templates/card", None)] * CONCURRENT, account.bearer)
    assert codes(answers) == {"OK": 10, "RATE_LIMITED": 40}
    refused = next(answer for answer in answers if answer.status_code != 200)
    assert refused.status_code == 500
    assert 1 <= int(refused.headers["Retry-After"]) <= 60
    assert refused.headers["X-RateLimit-Limit"] == "10" and refused.headers["X-RateLimit-Remaining"] == "0"
    remaining = sorted(int(answer.headers["X-RateLimit-Remaining"]) for answer in answers if answer.status_code == 200)
    assert remaining == list(range(10))


def test_pdf_and_stored_images_answer_too_many_requests(live, client):
    account = live.account("pro")
    live.add_template(account, text_template())
    accounts.set_rate_limit(live.db, account.key_id, 2)
    answers = [
        client.post(f"{live.api}/templates/{operation}", json={"templateId": "card"}, headers=account.bearer)
        for operation in ("createPdf", "createStoredImage", "createPdf", "createStoredImage", "createImage")
    ]
    assert [answer.status_code for answer in answers] == [200, 200, 400, 400, 500]
    assert [answer.json()["error"]["code"] for answer in answers[2:]] == [
        "TOO_MANY_REQUESTS",
        "TOO_MANY_REQUESTS",
        "RATE_LIMITED",
    ]
    assert live.used(account) == 2  # refused requests render and bill nothing


def test_every_keyed_answer_carries_its_window(live, client):
    account = live.account("automate")
    live.add_template(account, text_template())
    first = client.get(f"{live.api}/templates", headers=account.bearer)
    second = client.get(f"{live.api}/info", headers=account.bearer)
    assert first.headers["X-RateLimit-Limit"] == "120"
    assert int(first.headers["X-RateLimit-Remaining"]) == 119 and int(second.headers["X-RateLimit-Remaining"]) == 118
    assert int(first.headers["X-RateLimit-Reset"]) >= time.time()


# ------------------------------------------------------------------ two processes


@pytest.fixture
def redis_url(tmp_path) -> Iterator[str]:
    with services.redis(tmp_path) as service:
        yield service.url


@pytest.fixture
def pair(tmp_path, redis_url) -> Iterator[tuple[LiveServer, LiveServer]]:
    """Two server processes on one data directory (one SQLite file) and one Redis."""
    env = {"TEMPLATEKIT_RATE_LIMIT_URL": redis_url, "TEMPLATEKIT_WORKERS": "1"}
    data = tmp_path / "data"
    data.mkdir()
    first = LiveServer(data, env).start()
    second = LiveServer(data, env).start()
    yield first, second
    first.stop()
    second.stop()


def spread(servers: tuple[LiveServer, ...], path: str, body: dict | None, method: str = "POST"):
    return [(method, f"{servers[n % len(servers)].api}{path}", body) for n in range(CONCURRENT)]


def test_limits_hold_across_two_server_processes(pair):
    first, _ = pair
    account = first.account("pro")
    first.add_template(account, text_template())
    leave(first, account, 10)
    answers = burst(spread(pair, "/templates/createImage", {"templateId": "card"}), account.bearer)
    assert codes(answers) == {"OK": 10, "USAGE_EXCEEDED": 40}
    assert first.used(account) == DEFAULT_PLANS["pro"].daily

    limited = first.account("pro")
    first.add_template(limited, text_template())
    accounts.set_rate_limit(first.db, limited.key_id, 10)
    answers = burst(spread(pair, "/templates/card", None, "GET"), limited.bearer)
    assert codes(answers) == {"OK": 10, "RATE_LIMITED": 40}
    served_by = Counter(str(answer.url).split("/v1")[0] for answer in answers if answer.status_code == 200)
    assert len(served_by) == 2  # both processes answered some of the ten


# ------------------------------------------------------------------ a plan file


def test_plans_come_from_a_toml_file(tmp_path, client):
    config = tmp_path / "plans.toml"
    config.write_text(
        "[plans.free]\ndaily = 2\n\n[plans.tiny]\nmonthly = 5\ndaily = 5\nrate_per_minute = 3\ns3_config = false\n"
    )
    server = LiveServer(tmp_path / "data", {"TEMPLATEKIT_CONFIG": str(config), "TEMPLATEKIT_WORKERS": "1"})
    server.data_dir.mkdir()
    server.start()
    try:
        account = server.account("free")
        server.add_template(account, text_template())
        answers = [
            client.post(f"{server.api}/templates/createImage", json={"templateId": "card"}, headers=account.bearer)
            for _ in range(3)
        ]
        assert [answer.status_code for answer in answers] == [200, 200, 500]
        assert "daily limit of 2" in answers[2].json()["error"]["message"]
        tiny = server.account("free")
        accounts.set_plan(server.db, tiny.workspace, "tiny", load_plans(config))
        statuses = [client.get(f"{server.api}/info", headers=tiny.bearer).status_code for _ in range(4)]
        assert statuses == [200, 200, 200, 500]
    finally:
        server.stop()


def test_a_bad_plan_file_names_the_problem(tmp_path):
    cases = {
        "[plans.free]\ndaily = -1\n": "[plans.free].daily: must be a whole number of at least 0",
        "[plans.free]\nrate_per_minute = 0\n": "rate_per_minute: must be a whole number of at least 1",
        "[plans.free]\ns3_config = 'yes'\n": "s3_config: must be true or false",
        "[plans.gold]\ndaily = 5\n": "a new plan needs monthly, rate_per_minute, s3_config",
        "[plans.free]\ncolour = 1\n": "unknown field 'colour'",
        "[limits]\n": "unknown setting 'limits'",
        "plans = [": "not valid TOML",
    }
    for text, message in cases.items():
        path = tmp_path / "plans.toml"
        path.write_text(text)
        with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
            load_plans(path)
    assert load_plans(None) == DEFAULT_PLANS


# ------------------------------------------------------------------ windows, with injected clocks


def at(text: str) -> float:
    return datetime.fromisoformat(text).replace(tzinfo=UTC).timestamp()


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'usage.db'}")
    yield database
    database.close()


def test_days_and_months_turn_over_at_midnight_utc(db):
    plan = Plan("small", monthly=3, daily=2, rate_per_minute=60, s3_config=False)

    def take(moment: str) -> None:
        usage.reserve(db, "ws", plan, 1, "createImage", clock=lambda: at(moment))

    take("2026-01-30T23:59:58")
    take("2026-01-30T23:59:59")
    with pytest.raises(ApiError) as refused:
        take("2026-01-30T23:59:59.9")
    assert refused.value.code == "USAGE_EXCEEDED" and refused.value.headers["Retry-After"] == "1"
    take("2026-01-31T00:00:00")  # a new day: the month's third
    with pytest.raises(ApiError, match="monthly limit of 3"):
        take("2026-01-31T12:00:00")  # the day allows a second, the month no fourth
    take("2026-02-01T00:00:00")  # a new month
    report = usage.report(db, "ws", plan, clock=lambda: at("2026-02-01T00:00:01"))
    assert (report["day"], report["month"]) == (1, 1)


def test_a_released_reservation_gives_the_generations_back(db):
    plan = Plan("small", monthly=10, daily=3, rate_per_minute=60, s3_config=False)
    clock = lambda: at("2026-03-10T10:00:00")  # noqa: E731
    kept = usage.reserve(db, "ws", plan, 3, "renderVideo", clock=clock)
    usage.release(db, kept)
    usage.reserve(db, "ws", plan, 3, "createImage", clock=clock)
    report = usage.report(db, "ws", plan, clock=clock)
    assert report["day"] == 3
    assert report["byOperation"]["day"] == {"createImage": 3}


class FakeTime:
    def __init__(self, now: float) -> None:
        self.now = now

    def time(self) -> float:
        return self.now


def test_the_rate_window_moves_with_the_clock():
    clock = FakeTime(1_000_000.0)
    limiter = RateLimiter("memory://", clock=clock.time)

    async def hits() -> None:
        for second in range(5):  # 5 requests, one a second
            clock.now = 1_000_000.0 + second
            await limiter.hit("key", 5, "createImage")
        clock.now = 1_000_030.0
        with pytest.raises(ApiError) as refused:
            await limiter.hit("key", 5, "createImage")
        assert refused.value.code == "RATE_LIMITED" and refused.value.headers["Retry-After"] == "30"
        clock.now = 1_000_060.5  # the first request has left the window: one more fits
        window = await limiter.hit("key", 5, "createPdf")
        assert window.remaining == 0
        with pytest.raises(ApiError) as refused:
            await limiter.hit("key", 5, "createPdf")
        assert refused.value.code == "TOO_MANY_REQUESTS"

    asyncio.run(hits())
