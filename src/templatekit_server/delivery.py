"""The webhook sender: posts queued deliveries, at least once, from any server sharing
the database.

A due delivery is claimed by one sender (``sending``, held for the timeout and a margin);
each attempt is logged with its status code; a 2xx answer delivers it, anything else
(another status, a refused address, a timeout) schedules the next attempt after the
backoff, and after the last one the delivery is ``failed``. A sender that dies while
sending leaves the row to be taken again when its hold runs out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from attrs import frozen
from sqlalchemy import select, update
from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

from templatekit.assets.common import Problem
from templatekit.assets.policy import AllowList
from templatekit_server import webhooks
from templatekit_server.accounts import new_id
from templatekit_server.db import Database, now, webhook_attempts, webhook_deliveries
from templatekit_server.sealing import Sealer

log = logging.getLogger("templatekit.server")

POLL_SECONDS = 1.0
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


def claim(db: Database, worker: str, limit: int, hold: float) -> list[Delivery]:
    """Up to ``limit`` due deliveries, taken for ``worker`` until ``hold`` seconds from now."""
    with db.write() as connection:
        moment = now()
        due = (
            select(webhook_deliveries)
            .where(webhook_deliveries.c.status.in_(("pending", "sending")), webhook_deliveries.c.next_at <= moment)
            .order_by(webhook_deliveries.c.next_at, webhook_deliveries.c.id)
            .limit(limit)
        )
        taken = []
        for row in connection.execute(db.next_free(due)).all():
            claimed = connection.execute(
                update(webhook_deliveries)
                .where(
                    webhook_deliveries.c.id == row.id,
                    webhook_deliveries.c.status == row.status,
                    webhook_deliveries.c.attempts == row.attempts,
                )
                .values(status="sending", worker=worker, attempts=row.attempts + 1, next_at=moment + hold)
            ).rowcount
            if claimed:
                fields = {name: getattr(row, name) for name in ("id", "project_id", "endpoint_id", "url", "type")}
                taken.append(Delivery(**fields, body=row.body, attempts=row.attempts + 1))
        return taken


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
    return str(values["status"])


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
    from templatekit.assets.network import post

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
    ) -> None:
        self.db = db
        self.sealer = sealer
        self.allow = allow
        self.timeout = timeout
        self.backoff = tuple(backoff)
        self.worker = new_id("sender")
        self._free = max(1, concurrency)
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
            hold = 2 * self.timeout + HOLD_MARGIN_SECONDS
            for delivery in await run_in_threadpool(claim, self.db, self.worker, self._free, hold):
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
