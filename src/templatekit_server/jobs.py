"""Video jobs: a queue kept in the database, and the runner that renders it.

A job is ``queued``, then ``rendering`` (claimed by one runner, which keeps a heartbeat),
then ``done`` or ``failed``. Its generations are counted when it is created, in the same
transaction, and given back if it fails, so that each video is billed once whatever
happens in between. A job whose runner stops being heard of (the server was killed) goes
back to the queue and is rendered again, by this server after a restart or by another
one sharing the database; after MAX_ATTEMPTS such losses it fails.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from attrs import frozen
from sqlalchemy import Connection, and_, func, or_, select, update
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from templatekit import Template
from templatekit_server import events, usage
from templatekit_server.accounts import Caller, new_id
from templatekit_server.db import VIDEO_CLAIM_LOCK, Database, now, videos, workspaces
from templatekit_server.errors import ApiError, envelope
from templatekit_server.plans import Plan
from templatekit_server.rendering import RenderPool, VideoJob, render_movie
from templatekit_server.webhooks import Announcer

log = logging.getLogger("templatekit.server")

MAX_ATTEMPTS = 3
POLL_SECONDS = 1.0
#: A database outage is logged by the video runner at most this often.
DATABASE_OUTAGE_LOG_SECONDS = 30.0


def generations(template: Template) -> int:
    """``ceil(duration)``, twice that above 30 fps."""
    assert template.video is not None
    seconds = math.ceil(template.video.duration - 1e-9)
    return seconds * (2 if template.video.fps > 30 else 1)


def create(
    db: Database,
    caller: Caller,
    plan: Plan,
    template_id: str,
    version: int,
    template: Template,
    modifications: Any,
    request_id: str,
    api_base: str,
    webhook_url: str | None = None,
    output: str = "mp4",
) -> str:
    """Queue a video (written as ``output``) and count its generations (USAGE_EXCEEDED queues nothing).
    ``api_base`` begins the URL its webhooks give; ``webhook_url`` is the request's own
    webhook target."""
    video_id = new_id("vid")
    count = generations(template)
    with db.write() as connection:
        reservation = usage.reserve_in(
            db, connection, caller.workspace_id, plan, count, "renderVideo", project_id=caller.project_id
        )
        connection.execute(
            videos.insert().values(
                id=video_id,
                workspace_id=caller.workspace_id,
                project_id=caller.project_id,
                template_id=template_id,
                template_version=version,
                modifications=modifications,
                status="queued",
                frame=0,
                total_frames=0,
                generations=count,
                usage_day=reservation.day,
                usage_month=reservation.month,
                request_id=request_id,
                attempts=0,
                created_at=now(),
                duration=template.video.duration if template.video else None,
                api_base=api_base,
                webhook_url=webhook_url,
                output=output,
            )
        )
        events.add(connection, video_id, "created", {"id": video_id})
    return video_id


def find(db: Database, video_id: str) -> Any:
    with db.read() as connection:
        return connection.execute(select(videos).where(videos.c.id == video_id)).first()


def ahead(db: Database, video: Any, weight_of: Callable[[str], float]) -> int:
    """How many queued videos start before this one, in the fair order of ``claim``, as
    the queue stands: its own workspace's queued before it, and those of other
    workspaces whose turns come first. (A workspace that queues later can still go
    first, when it has had less than its share.) Videos that are rendering are not
    counted, nor other workspaces' videos that will wait for this one: the count says
    how long this video waits, not how busy the others are."""
    with db.read() as connection:
        line = {place.workspace: place for place in _line(connection, weight_of)}
        mine = line.get(video.workspace_id)
        if mine is None:
            return 0
        earlier = or_(
            videos.c.created_at < video.created_at,
            and_(videos.c.created_at == video.created_at, videos.c.id < video.id),
        )
        own = connection.execute(
            select(func.count())
            .select_from(videos)
            .where(videos.c.status == "queued", videos.c.workspace_id == video.workspace_id, earlier)
        ).scalar()
    own = int(own or 0)
    turn = mine.start + own / mine.weight
    return own + sum(place.before(turn, mine) for place in line.values() if place is not mine)


@frozen
class _Place:
    """A workspace with queued videos, in the fair order: the turn its next video takes,
    ``start``, and what breaks a tie between turns alike."""

    workspace: str
    weight: float
    start: float
    rendering: int
    oldest: float  # when its oldest queued video was queued
    queued: int

    @property
    def tie(self) -> tuple[float, float, str]:
        return self.rendering / self.weight, self.oldest, self.workspace

    @property
    def key(self) -> tuple[float, float, float, str]:
        return (self.start, *self.tie)

    def before(self, turn: float, other: _Place) -> int:
        """How many of this workspace's queued videos take turns before ``turn`` of
        ``other``'s (its turns go ``start``, ``start + 1 / weight``, and so on)."""
        steps = (turn - self.start) * self.weight
        whole = round(steps)
        if whole >= 0 and math.isclose(steps, whole, rel_tol=1e-9, abs_tol=1e-6):
            count = whole + (self.tie < other.tie)  # one turn alike: the tie decides
        else:
            count = max(0, math.ceil(steps))
        return min(count, self.queued)


def _line(connection: Connection, weight_of: Callable[[str], float]) -> list[_Place]:
    """The workspaces with queued videos and the turns their next videos take.

    Start-time fair queueing (as for images: see ``fairness``), with the turns kept in
    the database so that every server sharing it claims in the same order: a video
    starts at a turn, the later of the turn of the last video started by anyone and
    its workspace's last turn plus ``1 / weight`` (its plan's weight); the next video
    to start is the one with the earliest turn. So a workspace with a backlog takes one
    turn for each of another's, for their weights, and a workspace that had nothing
    queued goes next, even with a single video worker; and a workspace is never more
    than one turn behind, however much it had before.

    When the videos waiting were all queued after the last one started had ended, and
    none renders, the queue was empty between: the turn to start from is then the end of
    that video's turn (its turn plus ``1 / weight``), start-time fair queueing's rule for
    an idle server. Else a workspace whose one video rendered alone, its turn the last, would come
    back behind a whole turn of a heavier plan's later backlog (eight videos of a scale
    workspace for a free one), for a video that ended long before."""
    waiting = connection.execute(
        select(videos.c.workspace_id, func.min(videos.c.created_at), func.count(), workspaces.c.plan)
        .join(workspaces, workspaces.c.id == videos.c.workspace_id, isouter=True)
        .where(videos.c.status == "queued")
        .group_by(videos.c.workspace_id, workspaces.c.plan)
    ).all()
    if not waiting:
        return []
    counts = connection.execute(
        select(videos.c.workspace_id, func.count())
        .where(videos.c.status == "rendering")
        .group_by(videos.c.workspace_id)
    ).all()
    rendering: dict[str, int] = {workspace: count for workspace, count in counts}
    last_started = connection.execute(
        select(videos.c.turn, videos.c.finished_at, workspaces.c.plan)
        .join(workspaces, workspaces.c.id == videos.c.workspace_id, isouter=True)
        .where(videos.c.turn.is_not(None))
        .order_by(videos.c.turn.desc())
        .limit(1)
    ).first()
    virtual = 0.0
    if last_started is not None:
        turn, ended, plan = last_started
        virtual = float(turn)
        if not rendering and ended is not None and min(row[1] for row in waiting) > ended:
            virtual += 1.0 / weight_of(plan or "")
    names = [row[0] for row in waiting]
    last: dict[str, float] = dict(
        connection.execute(
            select(videos.c.workspace_id, func.max(videos.c.turn))
            .where(videos.c.workspace_id.in_(names), videos.c.turn.is_not(None))
            .group_by(videos.c.workspace_id)
        ).all()
    )
    places = []
    for workspace, oldest, queued, plan in waiting:
        weight = weight_of(plan or "")
        start = max(virtual, last[workspace] + 1.0 / weight) if workspace in last else virtual
        places.append(_Place(workspace, weight, start, rendering.get(workspace, 0), oldest, queued))
    return places


def file_key(video_id: str, output: str) -> str:
    return f"videos/{video_id}-{secrets.token_hex(8)}.{output}"


def claim(db: Database, worker: str, weight_of: Callable[[str], float]) -> Any:
    """Take a queued job for ``worker``, fairly between workspaces: the oldest of the
    workspace whose turn is first (see ``_line``; ``weight_of`` gives a plan's weight
    by its name), so that one workspace's backlog keeps another's video waiting for one
    render at most, even with one video worker; of turns alike, the workspace that
    renders the fewest for its weight now, then the one whose oldest queued video is
    oldest. None when the queue is empty. Every server sharing the database claims by
    the same turns, so the shares hold on a cluster: one claim at a time, as a video's
    turn follows from those started before it."""
    with db.write() as connection:
        db.one_at_a_time(connection, VIDEO_CLAIM_LOCK)
        line = _line(connection, weight_of)
        if not line:
            return None
        first = min(line, key=lambda place: place.key)
        oldest = (
            select(videos)
            .where(videos.c.status == "queued", videos.c.workspace_id == first.workspace)
            .order_by(videos.c.created_at, videos.c.id)
            .limit(1)
        )
        row = connection.execute(db.next_free(oldest)).first()
        if row is None:
            return None
        claimed = connection.execute(
            update(videos)
            .where(videos.c.id == row.id, videos.c.status == "queued")
            .values(status="rendering", worker=worker, heartbeat_at=now(), attempts=row.attempts + 1, turn=first.start)
        ).rowcount
        return row if claimed else None


def heartbeat(db: Database, video_id: str, worker: str) -> None:
    with db.write() as connection:
        connection.execute(
            update(videos).where(videos.c.id == video_id, videos.c.worker == worker).values(heartbeat_at=now())
        )


def finish(db: Database, announcer: Announcer, video_id: str, worker: str, key: str) -> None:
    """Mark the job done, with its ``done`` event and its webhooks, in one transaction."""
    with db.write() as connection:
        condition = (videos.c.id == video_id, videos.c.worker == worker, videos.c.status == "rendering")
        row = connection.execute(select(videos).where(*condition)).first()
        if row is None:
            return
        connection.execute(update(videos).where(*condition).values(status="done", file_key=key, finished_at=now()))
        events.add(connection, video_id, "done", {})
        announcer.video_done(db, connection, row, key)


def fail(db: Database, announcer: Announcer, video_id: str, worker: str | None, error: dict[str, Any]) -> None:
    """Mark the job failed, give its generations back, record the ``error`` event and
    queue its webhooks, in one transaction."""
    with db.write() as connection:
        condition = [videos.c.id == video_id, videos.c.status.in_(("queued", "rendering"))]
        if worker is not None:
            condition.append(videos.c.worker == worker)
        row = connection.execute(select(videos).where(*condition)).first()
        if row is None:
            return
        connection.execute(
            update(videos).where(videos.c.id == video_id).values(status="failed", error=error, finished_at=now())
        )
        _release(connection, row)
        events.add(connection, video_id, "error", {"error": error})
        announcer.video_failed(db, connection, row, error)


def _release(connection: Connection, row: Any) -> None:
    reservation = usage.Reservation(
        row.workspace_id, row.usage_day, row.usage_month, "renderVideo", row.generations, row.project_id
    )
    usage.release_in(connection, reservation)


def requeue_stale(db: Database, announcer: Announcer, stale_seconds: float, docs_url: str) -> None:
    """Jobs whose runner has not been heard of for ``stale_seconds`` go back to the
    queue; jobs lost MAX_ATTEMPTS times fail."""
    with db.read() as connection:
        lost = connection.execute(
            select(videos.c.id, videos.c.attempts, videos.c.request_id).where(
                videos.c.status == "rendering", videos.c.heartbeat_at < now() - stale_seconds
            )
        ).all()
    for video_id, attempts, request_id in lost:
        if attempts >= MAX_ATTEMPTS:
            message = f"the render was interrupted {attempts} times"
            fail(
                db, announcer, video_id, None, envelope("INTERNAL_SERVER_ERROR", message, request_id, docs_url)["error"]
            )
            continue
        with db.write() as connection:
            connection.execute(
                update(videos)
                .where(videos.c.id == video_id, videos.c.status == "rendering", videos.c.attempts == attempts)
                .values(status="queued", worker=None, frame=0)
            )
        log.warning("video %s: its render was interrupted; queued again (attempt %d)", video_id, attempts + 1)


def requeue_mine(db: Database, worker: str) -> None:
    """On shutdown: this runner's unfinished jobs go back to the queue at once."""
    with db.write() as connection:
        connection.execute(
            update(videos)
            .where(videos.c.status == "rendering", videos.c.worker == worker)
            .values(status="queued", worker=None, frame=0, attempts=videos.c.attempts - 1)
        )


class VideoRunner:
    """Renders queued videos, ``concurrency`` at a time, in its own process pool."""

    def __init__(
        self,
        db: Database,
        pool: RenderPool,
        announcer: Announcer,
        concurrency: int,
        heartbeat: float,
        stale: float,
        docs_url: str,
        on_end: Callable[[], None],
        weight_of: Callable[[str], float],
    ) -> None:
        """``on_end`` is called when a job has ended (its webhooks are queued then);
        ``weight_of`` gives a plan's weight by its name."""
        self.db = db
        self.weight_of = weight_of
        self.pool = pool
        self.announcer = announcer
        self.on_end = on_end
        self.worker = new_id("runner")
        self.heartbeat_seconds = heartbeat
        self.stale_seconds = stale
        self.docs_url = docs_url
        self._slots = asyncio.Semaphore(concurrency)
        self._wake = asyncio.Event()
        self._running: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        self._wake.set()

    async def run(self) -> None:
        """Until cancelled: claim jobs while there are free slots, wait for work otherwise."""
        log.info("video runner %s started", self.worker)
        outage_logged = -DATABASE_OUTAGE_LOG_SECONDS
        try:
            while True:
                try:
                    await self._claim_next()
                except SQLAlchemyError as exc:  # the database is away: try again, quietly, until it is back
                    if time.monotonic() - outage_logged >= DATABASE_OUTAGE_LOG_SECONDS:
                        outage_logged = time.monotonic()
                        log.warning("video runner: the database cannot be reached (%s)", getattr(exc, "orig", exc))
                    await asyncio.sleep(POLL_SECONDS)
        finally:
            for task in list(self._running):
                task.cancel()
            await asyncio.gather(*self._running, return_exceptions=True)
            await run_in_threadpool(requeue_mine, self.db, self.worker)

    async def _claim_next(self) -> None:
        """Start the next queued job when a slot is free; wait for work when none is queued."""
        await run_in_threadpool(requeue_stale, self.db, self.announcer, self.stale_seconds, self.docs_url)
        await self._slots.acquire()
        try:
            job = await run_in_threadpool(claim, self.db, self.worker, self.weight_of)
        except BaseException:
            self._slots.release()
            raise
        if job is None:
            self._slots.release()
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)
            return
        task = asyncio.create_task(self._render(job))
        self._running.add(task)
        task.add_done_callback(self._running.discard)

    async def _render(self, job: Any) -> None:
        beating = asyncio.create_task(self._beat(job.id))
        try:
            output = job.output or "mp4"
            key = file_key(job.id, output)
            modifications = job.modifications
            work = VideoJob(job.id, job.workspace_id, job.template_id, job.template_version, modifications, key, output)
            await self.pool.run(render_movie, work)
        except ApiError as exc:
            log.warning("video %s failed: %s %s (request %s)", job.id, exc.code, exc.message, job.request_id)
            error = envelope(exc.code, exc.message, job.request_id, self.docs_url)["error"]
            await run_in_threadpool(fail, self.db, self.announcer, job.id, self.worker, error)
        except Exception as exc:  # a bug: the job fails, the runner goes on
            log.exception("video %s failed (request %s)", job.id, job.request_id)
            failure = envelope(
                "INTERNAL_SERVER_ERROR", f"the render failed ({type(exc).__name__})", job.request_id, self.docs_url
            )
            await run_in_threadpool(fail, self.db, self.announcer, job.id, self.worker, failure["error"])
        else:
            await run_in_threadpool(finish, self.db, self.announcer, job.id, self.worker, key)
        finally:
            beating.cancel()
            self._slots.release()
            self.wake()
            self.on_end()

    async def _beat(self, video_id: str) -> None:
        while True:
            await asyncio.sleep(self.heartbeat_seconds)
            await run_in_threadpool(heartbeat, self.db, video_id, self.worker)
