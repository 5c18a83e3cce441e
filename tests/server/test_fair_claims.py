"""Video jobs and webhook deliveries are claimed from the database fairly between
workspaces, by the same rules on every server that shares it: the next video of the
workspace whose turn is first (a workspace's turns one ``1 / weight`` apart); the next
delivery of the workspace with the fewest in flight, at most two in flight to one target,
the last free sender kept for a workspace with none in flight; an endpoint that keeps
failing is paused."""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import pytest
from sqlalchemy import select

from templatekit.assets.policy import AllowList
from templatekit_server import accounts, delivery, jobs, webhooks
from templatekit_server.db import Database, now, videos, webhook_deliveries, webhook_endpoints
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer
from tests.server import services

pytestmark = pytest.mark.slow

WEIGHTS = {name: plan.weight for name, plan in DEFAULT_PLANS.items()}
_ids = itertools.count()
_queued_last = 0.0


def weight_of(plan: str) -> float:
    return WEIGHTS.get(plan, 1)


@pytest.fixture
def db(tmp_path) -> Database:
    return Database(f"sqlite:///{tmp_path / 'fair.db'}")


def workspace(db: Database, plan: str = "pro") -> tuple[str, str]:
    ws = accounts.create_workspace(db, "ws", plan, DEFAULT_PLANS)
    return ws, accounts.create_project(db, ws, "project")


def queue_video(db: Database, ws: str, project: str, status: str = "queued") -> str:
    video_id = f"vid_{next(_ids)}"
    global _queued_last
    moment = _queued_last = max(now(), _queued_last + 1e-6)  # in the order queued, never ahead of the clock
    with db.write() as connection:
        connection.execute(
            videos.insert().values(
                id=video_id,
                workspace_id=ws,
                project_id=project,
                template_id="clip",
                template_version=1,
                status=status,
                frame=0,
                total_frames=0,
                generations=1,
                usage_day="d",
                usage_month="m",
                request_id="req",
                attempts=0,
                created_at=moment,
            )
        )
    return video_id


def test_the_next_video_is_the_quiet_workspaces_not_the_next_of_a_backlog(db):
    hostile, quiet = workspace(db), workspace(db)
    queue_video(db, *hostile, status="rendering")
    backlog = [queue_video(db, *hostile) for _ in range(20)]
    waiting = queue_video(db, *quiet)
    assert jobs.claim(db, "runner", weight_of).id == waiting
    assert jobs.claim(db, "runner", weight_of).id == backlog[0]  # then the backlog, in order


def test_videos_are_claimed_in_proportion_to_the_plans_weights(db):
    scale, free = workspace(db, "scale"), workspace(db, "free")
    for _ in range(20):
        queue_video(db, *scale)
        queue_video(db, *free)
    claimed = [jobs.claim(db, "runner", weight_of).workspace_id for _ in range(9)]  # none finishes
    assert claimed.count(scale[0]) == 8 and claimed.count(free[0]) == 1


def test_with_one_worker_a_workspace_that_waited_goes_next_and_is_told_so(db):
    hostile, quiet = workspace(db), workspace(db)
    backlog = [queue_video(db, *hostile) for _ in range(6)]
    assert jobs.claim(db, "runner", weight_of).id == backlog[0]
    _finish(db, backlog[0])  # one worker: nothing else renders
    waiting = queue_video(db, *quiet)
    assert jobs.ahead(db, jobs.find(db, waiting), weight_of) == 0
    assert jobs.ahead(db, jobs.find(db, backlog[3]), weight_of) == 3  # its own 1 and 2, and the quiet one
    taken = []
    for _ in range(6):
        taken.append(jobs.claim(db, "runner", weight_of).id)
        _finish(db, taken[-1])
    assert taken == [waiting, *backlog[1:]]


def test_a_video_that_rendered_alone_earns_no_penalty_against_a_later_backlog(db):
    free, scale = workspace(db, "free"), workspace(db, "scale")
    alone = queue_video(db, *free)
    assert jobs.claim(db, "runner", weight_of).id == alone
    _finish(db, alone)  # long before anything else comes
    backlog = [queue_video(db, *scale) for _ in range(10)]
    assert jobs.claim(db, "runner", weight_of).id == backlog[0]  # one worker: it renders
    waiting = queue_video(db, *free)
    assert jobs.ahead(db, jobs.find(db, waiting), weight_of) == 0
    _finish(db, backlog[0])
    assert jobs.claim(db, "runner", weight_of).id == waiting  # not after eight more of the scale plan's


def _finish(db: Database, video_id: str) -> None:
    with db.write() as connection:
        connection.execute(videos.update().where(videos.c.id == video_id).values(status="done", finished_at=now()))


def queue_delivery(db: Database, project: str, url: str, endpoint: str | None = None) -> str:
    """A delivery due now (each one later than the one before)."""
    delivery_id = f"msg_{next(_ids)}"
    moment = now() - 1
    with db.write() as connection:
        connection.execute(
            webhook_deliveries.insert().values(
                id=delivery_id,
                project_id=project,
                endpoint_id=endpoint,
                url=url,
                type="render.done",
                body="{}",
                status="pending",
                attempts=0,
                next_at=moment + next(_ids) * 1e-3,
                created_at=moment,
            )
        )
    return delivery_id


def claimed(db: Database, limit: int, keep_last: bool = False) -> list[delivery.Delivery]:
    return delivery.claim(db, "sender", limit, 30, keep_last, weight_of)


def test_servers_claiming_at_once_on_postgresql_take_turns(monkeypatch):
    """Two servers on one PostgreSQL claim together, the first held up between working
    out whose turn it is and taking the video: each claim sees the one before it, so the
    two videos started are one of each workspace's (both were the first's before)."""
    with services.postgres() as pg:
        first_server, second_server = Database(pg.url), Database(pg.url)
        a, b = workspace(first_server), workspace(first_server)
        for ws in (a, b, a, b, a, b):
            queue_video(first_server, *ws)
        held = threading.Event()
        real_line = jobs._line

        def slow_line(connection: Any, weight: Any) -> Any:
            line = real_line(connection, weight)
            if threading.current_thread().name == "first":
                held.set()
                time.sleep(1.0)  # the second server claims meanwhile
            return line

        monkeypatch.setattr(jobs, "_line", slow_line)
        first = threading.Thread(target=jobs.claim, args=(first_server, "first", weight_of), name="first")
        first.start()
        held.wait(10)
        jobs.claim(second_server, "second", weight_of)
        first.join()
        with first_server.read() as connection:
            started = connection.execute(select(videos.c.workspace_id).where(videos.c.status == "rendering")).all()
        assert sorted(row.workspace_id for row in started) == sorted([a[0], b[0]])


def test_one_target_holds_two_senders_at_most(db):
    _, project = workspace(db)
    for _ in range(10):
        queue_delivery(db, project, "https://slow.example/hook")
    assert len(claimed(db, 8)) == 2
    assert claimed(db, 8) == []  # both still in flight


def test_a_quiet_workspaces_delivery_goes_before_a_backlog_to_many_targets(db):
    _, hostile = workspace(db)
    _, quiet = workspace(db)
    for n in range(40):
        queue_delivery(db, hostile, f"https://slow.example/hook/{n}")
    mine = queue_delivery(db, quiet, "https://quiet.example/hook")
    taken = [d.id for d in claimed(db, 3)]
    assert taken[1] == mine  # due first, the backlog's first goes first; then the quiet one's
    assert claimed(db, 1)[0].project_id == hostile


def test_the_last_free_sender_is_kept_for_a_workspace_with_none_in_flight(db):
    _, hostile = workspace(db)
    _, quiet = workspace(db)
    for n in range(40):
        queue_delivery(db, hostile, f"https://slow.example/hook/{n}")
    assert len(claimed(db, 4, keep_last=True)) == 3  # a backlog alone gets all but the last
    mine = queue_delivery(db, quiet, "https://quiet.example/hook")
    assert [d.id for d in claimed(db, 1, keep_last=True)] == [mine]  # which the quiet one gets


def test_an_endpoint_that_fails_twenty_times_in_a_row_is_paused(db):
    _, project = workspace(db)
    endpoint = webhooks.add_endpoint(db, Sealer(b"k" * 32), _allow_all(), project, "https://127.0.0.1/down", None)
    for attempt in range(delivery.PAUSE_AFTER):
        queue_delivery(db, project, "https://127.0.0.1/down", endpoint["id"])
        (taken,) = claimed(db, 1)
        delivery.record(db, taken, "sender", 503 if attempt % 2 else None, "down", 0.1, (3600,))
        paused = webhooks.endpoints(db, project)[0]["pausedAt"]
        assert (paused is not None) == (attempt == delivery.PAUSE_AFTER - 1)
    queue_delivery(db, project, "https://127.0.0.1/down", endpoint["id"])
    assert claimed(db, 8) == []  # its deliveries wait
    webhooks.resume_endpoint(db, endpoint["id"])
    assert len(claimed(db, 8)) == 1
    with db.read() as connection:
        assert connection.execute(webhook_endpoints.select()).first().failures == 0


def test_an_answer_clears_an_endpoints_failures(db):
    _, project = workspace(db)
    endpoint = webhooks.add_endpoint(db, Sealer(b"k" * 32), _allow_all(), project, "https://127.0.0.1/flaky", None)
    for status in (500, 500, 204, 500):
        queue_delivery(db, project, "https://127.0.0.1/flaky", endpoint["id"])
        (taken,) = claimed(db, 1)
        delivery.record(db, taken, "sender", status, None, 0.1, (3600,))
    assert webhooks.endpoints(db, project)[0]["failuresInARow"] == 1


def _allow_all() -> AllowList:
    return AllowList.parse(["127.0.0.1"])
