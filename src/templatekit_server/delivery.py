"""The webhook sender: posts queued deliveries, at least once, from any server sharing
the database.

A due delivery is claimed by one sender (``sending``, held for the timeout and a margin);
each attempt is logged with its status code; a 2xx answer delivers it, anything else
(another status, a refused address, a timeout) schedules the next attempt after the
backoff, and after the last one the delivery is ``failed``. A sender that dies while
sending leaves the row to be taken again when its hold runs out.

The senders are shared by every workspace, fairly: deliveries are queued per target (an
endpoint, or a URL a request named), at most ``PER_TARGET`` of them in flight, so that a
target that is slow to answer holds two senders at most; of the due ones, the next goes
to the workspace with the fewest in flight for its plan's weight; and the last free
sender is kept for a workspace that has none in flight, so that another's backlog never
keeps its delivery waiting for a free sender. An endpoint that fails ``PAUSE_AFTER``
times in a row is paused: its deliveries wait until ``webhook resume``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import urlsplit

from attrs import frozen
from sqlalchemy import Connection, Select, bindparam, func, select, update
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from templatekit.service import AllowList, Problem
from templatekit_server import webhooks
from templatekit_server.accounts import new_id
from templatekit_server.db import (
    Database,
    now,
    projects,
    webhook_attempts,
    webhook_deliveries,
    webhook_endpoints,
    workspaces,
)
from templatekit_server.sealing import Sealer

log = logging.getLogger("templatekit.server")

POLL_SECONDS = 1.0
#: Deliveries in flight to one endpoint or URL at a time.
PER_TARGET = 2
#: An endpoint is paused after this many failed attempts in a row.
PAUSE_AFTER = 20
#: Due deliveries considered per workspace in one claim.
_HEADS = 16
#: Seconds between two claims at least, however often the sender is woken.
CLAIM_INTERVAL = 0.05
#: A claimed delivery is held for twice the timeout and this margin (the attempt and its
#: record), then another sender may take it.
HOLD_MARGIN_SECONDS = 10.0
MAX_ERROR_CHARS = 500


@frozen
class Delivery:
    """A claimed delivery; ``attempts`` counts the one about to be made."""

    id: str
    project_id: str
    endpoint_id: str | None
    url: str
    type: str
    body: str
    attempts: int


def claim(
    db: Database, worker: str, limit: int, hold: float, keep_last: bool, weight_of: Callable[[str], float]
) -> list[Delivery]:
    """Up to ``limit`` due deliveries, taken for ``worker`` until ``hold`` seconds from
    now, fairly between workspaces (see the module); with ``keep_last`` the last of the
    ``limit`` only for a workspace with none in flight. ``weight_of`` gives a plan's
    weight by its name. They are chosen in a read (a backlog of thousands to a full
    target costs no lock), and taken in a short write that checks each is still due."""
    with db.read() as connection:
        moment = now()
        targets, flying = _in_flight(connection, moment)
        full = [target for target, count in targets.items() if count >= PER_TARGET]
        candidates = list(_due(connection, moment, full))
    chosen: list[Any] = []
    while len(chosen) < limit:
        last = keep_last and len(chosen) == limit - 1
        row = _fairest(candidates, targets, flying, weight_of, last)
        if row is None:
            break
        candidates.remove(row)
        targets[_target(row)] += 1
        flying[row.workspace_id] += 1
        chosen.append(row)
    if not chosen:
        return []
    with db.write() as connection:
        moment = now()
        return [delivery for row in chosen if (delivery := _take(connection, row, worker, moment, hold)) is not None]


def _target(row: Any) -> str:
    """Where a delivery goes: its endpoint, else the URL the request named."""
    return str(row.endpoint_id or row.url)


def _in_flight(connection: Connection, moment: float) -> tuple[Counter[str], Counter[str]]:
    """Deliveries being sent now, by target and by workspace."""
    rows = connection.execute(
        select(webhook_deliveries.c.endpoint_id, webhook_deliveries.c.url, projects.c.workspace_id)
        .join(projects, projects.c.id == webhook_deliveries.c.project_id)
        .where(webhook_deliveries.c.status == "sending", webhook_deliveries.c.next_at > moment)
    ).all()
    return Counter(_target(row) for row in rows), Counter(row.workspace_id for row in rows)


def _due_statement() -> Select[Any]:
    """The first due deliveries of each workspace (of each target its first two),
    due at ``:moment``, to endpoints that are not paused and to targets not in ``:full``,
    with the workspace and its plan. Made once: the statement is the same every time."""
    target = func.coalesce(webhook_deliveries.c.endpoint_id, webhook_deliveries.c.url)
    # a URL several workspaces name is one target, but each workspace's first two to it
    # are candidates: one's backlog to a shared URL must not hide another's deliveries
    by_target = func.row_number().over(
        partition_by=(projects.c.workspace_id, target), order_by=(webhook_deliveries.c.next_at, webhook_deliveries.c.id)
    )
    due = (
        select(webhook_deliveries, projects.c.workspace_id, workspaces.c.plan, by_target.label("in_target"))
        .join(projects, projects.c.id == webhook_deliveries.c.project_id)
        .join(workspaces, workspaces.c.id == projects.c.workspace_id, isouter=True)
        .join(webhook_endpoints, webhook_endpoints.c.id == webhook_deliveries.c.endpoint_id, isouter=True)
        .where(
            webhook_deliveries.c.status.in_(("pending", "sending")),
            webhook_deliveries.c.next_at <= bindparam("moment"),
            webhook_endpoints.c.paused_at.is_(None),
            target.not_in(bindparam("full", expanding=True)),
        )
        .subquery()
    )
    by_workspace = func.row_number().over(
        partition_by=due.c.workspace_id, order_by=(due.c.in_target, due.c.next_at, due.c.id)
    )
    heads = select(due, by_workspace.label("in_workspace")).where(due.c.in_target <= PER_TARGET).subquery()
    return select(heads).where(heads.c.in_workspace <= _HEADS).order_by(heads.c.in_workspace, heads.c.next_at)


_DUE = _due_statement()


def _due(connection: Connection, moment: float, full: Sequence[str]) -> Sequence[Any]:
    return connection.execute(_DUE, {"moment": moment, "full": list(full)}).all()


def _fairest(
    candidates: Sequence[Any],
    targets: Counter[str],
    flying: Counter[str],
    weight_of: Callable[[str], float],
    last: bool,
) -> Any:
    """The candidate whose workspace has the fewest in flight for its weight, the
    earliest due of those, among those whose target has room."""
    open_ = [
        row for row in candidates if targets[_target(row)] < PER_TARGET and not (last and flying[row.workspace_id])
    ]
    if not open_:
        return None
    return min(open_, key=lambda row: (flying[row.workspace_id] / weight_of(row.plan or ""), row.next_at, row.id))


def _take(connection: Connection, row: Any, worker: str, moment: float, hold: float) -> Delivery | None:
    """Claim ``row`` for ``worker``; None when another sender took it first."""
    claimed = connection.execute(
        update(webhook_deliveries)
        .where(
            webhook_deliveries.c.id == row.id,
            webhook_deliveries.c.status == row.status,
            webhook_deliveries.c.attempts == row.attempts,
            webhook_deliveries.c.next_at <= moment,
        )
        .values(status="sending", worker=worker, attempts=row.attempts + 1, next_at=moment + hold)
    ).rowcount
    if not claimed:
        return None
    fields = {name: getattr(row, name) for name in ("id", "project_id", "endpoint_id", "url", "type")}
    return Delivery(**fields, body=row.body, attempts=row.attempts + 1)


def record(
    db: Database,
    delivery: Delivery,
    worker: str,
    status_code: int | None,
    error: str | None,
    seconds: float,
    backoff: Sequence[float],
) -> str:
    """Log the attempt and move the delivery on; its new status."""
    delivered = status_code is not None and 200 <= status_code < 300
    attempt = delivery.attempts
    moment = now()
    if delivered:
        values: dict[str, Any] = {"status": "delivered", "finished_at": moment}
    elif attempt > len(backoff):
        values = {"status": "failed", "finished_at": moment}
    else:
        values = {"status": "pending", "next_at": moment + backoff[attempt - 1]}
    with db.write() as connection:
        connection.execute(
            webhook_attempts.insert().values(
                delivery_id=delivery.id,
                attempt=attempt,
                at=moment,
                status_code=status_code,
                error=None if error is None else error[:MAX_ERROR_CHARS],
                seconds=seconds,
                sender=worker,
            )
        )
        connection.execute(
            update(webhook_deliveries)
            .where(
                webhook_deliveries.c.id == delivery.id,
                webhook_deliveries.c.worker == worker,
                webhook_deliveries.c.status == "sending",
                webhook_deliveries.c.attempts == attempt,
            )
            .values(worker=None, **values)
        )
        if delivery.endpoint_id is not None:
            _count_failures(connection, delivery.endpoint_id, delivered, moment)
    return str(values["status"])


def _count_failures(connection: Connection, endpoint_id: str, delivered: bool, moment: float) -> None:
    """An endpoint's failures in a row: none once it answers, and paused at PAUSE_AFTER."""
    endpoint = webhook_endpoints.c
    if delivered:
        connection.execute(update(webhook_endpoints).where(endpoint.id == endpoint_id).values(failures=0))
        return
    failures = func.coalesce(endpoint.failures, 0) + 1
    connection.execute(update(webhook_endpoints).where(endpoint.id == endpoint_id).values(failures=failures))
    paused = connection.execute(
        update(webhook_endpoints)
        .where(endpoint.id == endpoint_id, endpoint.failures >= PAUSE_AFTER, endpoint.paused_at.is_(None))
        .values(paused_at=moment)
    ).rowcount
    if paused:
        log.warning("webhook endpoint %s failed %d times in a row: paused until resumed", endpoint_id, PAUSE_AFTER)


def send(
    db: Database, sealer: Sealer, allow: AllowList, delivery: Delivery, timeout: float
) -> tuple[int | None, str | None]:
    """One attempt: the answer's status code, or why there is none."""
    secret = webhooks.secret_for(db, sealer, delivery.project_id, delivery.endpoint_id)
    if secret is None:
        return None, "no signing secret (the server secret changed since the endpoint was made)"
    body = delivery.body.encode("utf-8")
    timestamp = int(time.time())
    headers = {
        "webhook-id": delivery.id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": webhooks.signature(secret, delivery.id, timestamp, body),
    }
    from templatekit.service import post

    try:
        status = post(delivery.url, body, headers, allow=allow, timeout=timeout)
    except Problem as problem:
        return None, str(problem)
    return status, None if 200 <= status < 300 else f"HTTP {status}"


class WebhookSender:
    """Sends due deliveries, ``concurrency`` at a time, until cancelled."""

    def __init__(
        self,
        db: Database,
        sealer: Sealer,
        allow: AllowList,
        timeout: float,
        backoff: Sequence[float],
        concurrency: int,
        weight_of: Callable[[str], float],
    ) -> None:
        """``weight_of`` gives a plan's weight by its name."""
        self.db = db
        self.weight_of = weight_of
        self.concurrency = max(1, concurrency)
        self.sealer = sealer
        self.allow = allow
        self.timeout = timeout
        self.backoff = tuple(backoff)
        self.worker = new_id("sender")
        self._free = max(1, concurrency)
        self._claimed_at = -CLAIM_INTERVAL
        self._wake = asyncio.Event()
        self._sending: set[asyncio.Task[None]] = set()

    def wake(self) -> None:
        """Look for due deliveries now (one was just queued)."""
        self._wake.set()

    async def run(self) -> None:
        try:
            while True:
                try:
                    await self._send_due()
                except SQLAlchemyError as exc:  # the database is away: the rows wait for it
                    log.warning("webhook sender: the database cannot be reached (%s)", getattr(exc, "orig", exc))
                    await asyncio.sleep(POLL_SECONDS * 5)
                except Exception:  # a bug: logged, and the sender goes on
                    log.exception("webhook sender: claiming deliveries failed")
                    await asyncio.sleep(POLL_SECONDS * 5)
        finally:
            for task in list(self._sending):
                task.cancel()
            await asyncio.gather(*self._sending, return_exceptions=True)

    async def _send_due(self) -> None:
        self._wake.clear()
        if self._free:
            # wakes come with each render announced: a burst of them is one claim
            await asyncio.sleep(max(0.0, self._claimed_at + CLAIM_INTERVAL - time.monotonic()))
            self._claimed_at = time.monotonic()
            hold = 2 * self.timeout + HOLD_MARGIN_SECONDS
            keep_last = self.concurrency > 1
            claimed = await run_in_threadpool(claim, self.db, self.worker, self._free, hold, keep_last, self.weight_of)
            for delivery in claimed:
                self._free -= 1
                task = asyncio.create_task(self._deliver(delivery))
                self._sending.add(task)
                task.add_done_callback(self._sending.discard)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), POLL_SECONDS)

    async def _deliver(self, delivery: Delivery) -> None:
        try:
            started = time.monotonic()
            status_code, error = await run_in_threadpool(send, self.db, self.sealer, self.allow, delivery, self.timeout)
            seconds = time.monotonic() - started
            outcome = await run_in_threadpool(
                record, self.db, delivery, self.worker, status_code, error, seconds, self.backoff
            )
            if outcome != "delivered":
                log.warning(  # the host only: a target's path or query may be its secret
                    "webhook %s %s to %s: attempt %d: %s; %s",
                    delivery.id,
                    delivery.type,
                    urlsplit(delivery.url).hostname,
                    delivery.attempts,
                    error,
                    "failed for good" if outcome == "failed" else "will retry",
                )
        except Exception:  # a bug or the database: the hold runs out and the delivery is tried again
            log.exception("webhook %s: the attempt could not be recorded", delivery.id)
        finally:
            self._free += 1
            self.wake()
