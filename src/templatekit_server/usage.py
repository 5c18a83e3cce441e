"""Generations counted against a workspace's daily and monthly limits.

A render reserves its generations before it starts, in one write transaction that
checks both limits, so that N concurrent requests at the limit never bill more than
the limit; a render that fails releases its reservation. Days and months are UTC.
"""

from __future__ import annotations

import calendar
import logging
import secrets
import threading
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from attrs import evolve, frozen
from sqlalchemy import Connection, bindparam, delete, insert, select, update
from sqlalchemy.exc import SQLAlchemyError

from templatekit_server import storage
from templatekit_server.alive import ABANDONED_SECONDS
from templatekit_server.db import (
    Database,
    Transaction,
    now,
    renders_in_flight,
    usage,
    usage_by_operation,
    usage_by_project,
)
from templatekit_server.errors import ApiError
from templatekit_server.plans import Plan

Clock = Callable[[], float]
log = logging.getLogger("templatekit.usage")


@frozen
class Reservation:
    workspace_id: str
    day: str
    month: str
    operation: str
    generations: int
    project_id: str = ""  # the project whose key asked (none: counted for the workspace only)
    #: its row in ``renders_in_flight`` (a still's), which whoever gives it back deletes
    #: first, so that it is given back once; "" for none
    in_flight: str = ""


def periods(at: float) -> tuple[str, str]:
    """The UTC day and month of a moment: ("2026-11-23", "2026-11")."""
    moment = datetime.fromtimestamp(at, UTC)
    return moment.strftime("%Y-%m-%d"), moment.strftime("%Y-%m")


def reserve(
    db: Database,
    workspace_id: str,
    plan: Plan,
    generations: int,
    operation: str,
    clock: Clock = now,
    project_id: str = "",
) -> Reservation:
    """Count ``generations`` now, or USAGE_EXCEEDED (with Retry-After) when either
    limit would be passed; nothing is counted then."""
    with db.write() as connection:
        return reserve_in(db, connection, workspace_id, plan, generations, operation, clock, project_id)


def reserve_in(
    db: Database,
    connection: Transaction,
    workspace_id: str,
    plan: Plan,
    generations: int,
    operation: str,
    clock: Clock = now,
    project_id: str = "",
) -> Reservation:
    """``reserve`` within a write transaction of the caller's (which a failure rolls back)."""
    at = clock()
    day, month = periods(at)
    reservation = Reservation(workspace_id, day, month, operation, generations, project_id)
    if generations <= 0:
        return reservation
    for period, limit in ((day, plan.daily), (month, plan.monthly)):
        if not db.add_to_count(connection, usage, {"workspace_id": workspace_id, "period": period}, generations, limit):
            raise _exceeded(plan, period, limit, at, generations)
    for period in (day, month):
        keys = {"workspace_id": workspace_id, "period": period, "operation": operation}
        db.add_to_count(connection, usage_by_operation, keys, generations, None)
    if project_id:
        keys = {"workspace_id": workspace_id, "project_id": project_id, "day": day}
        db.add_to_count(connection, usage_by_project, keys, generations, None)
    return reservation


#: ``in_flight_in``'s statement, built once: building it cost more than running it.
_RECORD_IN_FLIGHT = insert(renders_in_flight).values(
    {column.name: bindparam(column.name, type_=column.type) for column in renders_in_flight.columns}
)


def in_flight_in(db: Database, connection: Transaction, reservation: Reservation) -> Reservation:
    """``reservation`` recorded as a still being rendered (within the transaction that
    made it), to be kept alive while it renders (``touch``) and marked ``rendered``."""
    if reservation.generations <= 0:
        return reservation
    row = secrets.token_hex(16)
    values = {
        "id": row,
        "workspace_id": reservation.workspace_id,
        "day": reservation.day,
        "month": reservation.month,
        "operation": reservation.operation,
        "generations": reservation.generations,
        "project_id": reservation.project_id,
        "rendered": False,
        "touched_at": now(),
    }
    db.run(connection, _RECORD_IN_FLIGHT, values)
    return evolve(reservation, in_flight=row)


class InFlight:
    """The stills this server is rendering, kept alive together: ``keep_alive`` (every
    ``TOUCH_SECONDS``) touches their rows and marks those rendered since, in one write,
    so that a render costs no write of its own. A server killed stops touching them; one
    killed before it marked a render done leaves it to be given back (free)."""

    def __init__(self) -> None:
        self._rendering: set[str] = set()
        self._rendered: set[str] = set()
        self._lock = threading.Lock()

    def started(self, reservation: Reservation | None) -> None:
        if reservation is not None and reservation.in_flight:
            with self._lock:
                self._rendering.add(reservation.in_flight)

    def ended(self, reservation: Reservation | None, done: bool) -> None:
        """The render of ``reservation`` ended: ``done``, or failed (its release deletes
        the row)."""
        if reservation is not None and reservation.in_flight:
            with self._lock:
                self._rendering.discard(reservation.in_flight)
                if done:
                    self._rendered.add(reservation.in_flight)

    def keep_alive(self, db: Database) -> None:
        with self._lock:
            rendering, rendered, self._rendered = list(self._rendering), list(self._rendered), set()
        if not (rendering or rendered):
            return
        try:
            with db.write() as connection:
                rows = renders_in_flight.c.id
                if rendering:
                    connection.execute(update(renders_in_flight).where(rows.in_(rendering)).values(touched_at=now()))
                if rendered:
                    marked = {"rendered": True, "touched_at": now()}
                    connection.execute(update(renders_in_flight).where(rows.in_(rendered)).values(**marked))
        except BaseException:  # marked on the next round
            with self._lock:
                self._rendered.update(rendered)
            raise


#: How long the row of a rendered still is kept (its request has answered by then).
RENDERED_KEPT_SECONDS = 3600.0


def give_back_abandoned(db: Database) -> int:
    """Give back the generations of stills whose server stopped keeping them alive
    (killed mid-render: nothing was answered), each once, whichever server finds it;
    forget the rows of stills rendered long ago. How many were given back."""
    moment = now()
    left = renders_in_flight.c.touched_at < moment - ABANDONED_SECONDS
    abandoned = renders_in_flight.c.rendered.is_(False) & left
    with db.read() as connection:
        rows = connection.execute(select(renders_in_flight).where(abandoned)).all()
    given = 0
    for row in rows:
        reservation = Reservation(
            row.workspace_id, row.day, row.month, row.operation, row.generations, row.project_id, row.id
        )
        with db.write() as connection:
            given += release_in(connection, reservation, abandoned)
    with db.write() as connection:
        old = renders_in_flight.c.rendered.is_(True) & (renders_in_flight.c.touched_at < moment - RENDERED_KEPT_SECONDS)
        connection.execute(delete(renders_in_flight).where(old))
    return given


def release(db: Database, reservation: Reservation) -> None:
    """Give back what a failed render reserved."""
    with db.write() as connection:
        release_in(connection, reservation)


class Releases:
    """The releases of failed renders that the database could not take (its disk full,
    an outage): kept, and written as soon as it takes writes again (before the next
    reservation, and by housekeeping), so that a failed render is not billed for good.
    Only a server stopped before then keeps such a render billed."""

    def __init__(self) -> None:
        self._waiting: list[Reservation] = []
        self._lock = threading.Lock()

    def release(self, db: Database, reservation: Reservation) -> None:
        """Give back what a failed render reserved, now or once the database can."""
        try:
            release(db, reservation)
        except SQLAlchemyError as exc:
            log.warning("a failed render's generation is given back later: the database refused (%s)", exc)
            with self._lock:
                self._waiting.append(reservation)

    def settle(self, db: Database) -> None:
        """Write the releases kept; those the database refuses again stay kept."""
        with self._lock:  # taken out, so that two threads settling never write one twice
            waiting, self._waiting = self._waiting, []
        if not waiting:
            return
        try:
            with db.write() as connection:
                for reservation in waiting:
                    release_in(connection, reservation)
        except BaseException as exc:  # kept for the next try
            with self._lock:
                self._waiting[:0] = waiting
            if not isinstance(exc, SQLAlchemyError):  # DatabaseBusy, say: the caller's to handle
                raise


def release_in(connection: Connection, reservation: Reservation, condition: Any = None) -> int:
    """Give back what ``reservation`` counted; 1, or 0 when it was given back already (its
    row in flight gone, or no longer matching ``condition``)."""
    if reservation.generations <= 0:
        return 0
    if reservation.in_flight:
        row = renders_in_flight.c.id == reservation.in_flight
        found = connection.execute(delete(renders_in_flight).where(row if condition is None else row & condition))
        if found.rowcount == 0:
            return 0
    n = reservation.generations
    for period in (reservation.day, reservation.month):
        connection.execute(
            update(usage)
            .where(usage.c.workspace_id == reservation.workspace_id, usage.c.period == period)
            .values(count=usage.c.count - n)
        )
        connection.execute(
            update(usage_by_operation)
            .where(
                usage_by_operation.c.workspace_id == reservation.workspace_id,
                usage_by_operation.c.period == period,
                usage_by_operation.c.operation == reservation.operation,
            )
            .values(count=usage_by_operation.c.count - n)
        )
    if reservation.project_id:
        connection.execute(
            update(usage_by_project)
            .where(
                usage_by_project.c.workspace_id == reservation.workspace_id,
                usage_by_project.c.project_id == reservation.project_id,
                usage_by_project.c.day == reservation.day,
            )
            .values(count=usage_by_project.c.count - n)
        )
    return 1


def _exceeded(plan: Plan, period: str, limit: int, at: float, asked: int) -> ApiError:
    moment = datetime.fromtimestamp(at, UTC)
    if len(period) == 10:  # a day
        what, ends = "daily", datetime(moment.year, moment.month, moment.day, tzinfo=UTC).timestamp() + 86_400
    else:
        days = calendar.monthrange(moment.year, moment.month)[1]
        what, ends = "monthly", datetime(moment.year, moment.month, 1, tzinfo=UTC).timestamp() + days * 86_400
    return ApiError(
        "USAGE_EXCEEDED",
        f"the {what} limit of {limit} generations of the {plan.name} plan is reached"
        f" (this render needs {asked}); it resets at {datetime.fromtimestamp(ends, UTC):%Y-%m-%d %H:%M} UTC",
        {"Retry-After": str(max(1, int(ends - at)))},
    )


def report(db: Database, workspace_id: str, plan: Plan, clock: Clock = now) -> dict[str, Any]:
    """``{day, month, limits, byOperation, storage}`` for the current UTC day and month;
    ``storage`` is ``{used, quota}`` in bytes (see ``storage``)."""
    day, month = periods(clock())
    with db.read() as connection:
        totals = dict(
            connection.execute(
                select(usage.c.period, usage.c.count).where(
                    usage.c.workspace_id == workspace_id, usage.c.period.in_((day, month))
                )
            ).all()
        )
        operations = connection.execute(
            select(usage_by_operation.c.period, usage_by_operation.c.operation, usage_by_operation.c.count).where(
                usage_by_operation.c.workspace_id == workspace_id, usage_by_operation.c.period.in_((day, month))
            )
        ).all()
    by_operation: dict[str, dict[str, int]] = {"day": {}, "month": {}}
    for period, operation, count in operations:
        if count:
            by_operation["day" if period == day else "month"][operation] = count
    return {
        "workspace": workspace_id,
        "plan": plan.name,
        "dayStart": day,
        "monthStart": month,
        "day": totals.get(day, 0),
        "month": totals.get(month, 0),
        "limits": {"daily": plan.daily, "monthly": plan.monthly, "ratePerMinute": plan.rate_per_minute},
        "byOperation": by_operation,
        "storage": storage.report(db, workspace_id, plan),
    }


def by_project_and_day(db: Database, workspace_id: str, days: int, clock: Clock = now) -> dict[str, dict[str, int]]:
    """Generations of the last ``days`` UTC days (today included): project -> day -> count."""
    first, _ = periods(clock() - (days - 1) * 86_400)
    with db.read() as connection:
        rows = connection.execute(
            select(usage_by_project.c.project_id, usage_by_project.c.day, usage_by_project.c.count).where(
                usage_by_project.c.workspace_id == workspace_id, usage_by_project.c.day >= first
            )
        ).all()
    found: dict[str, dict[str, int]] = {}
    for project_id, day, count in rows:
        if count:
            found.setdefault(project_id, {})[day] = count
    return found
