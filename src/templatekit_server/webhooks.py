"""Outbound webhooks: the endpoints a project has, the events they hear of, and the
queue of deliveries (an outbox in the database).

An event is queued in the transaction that makes it true (a video marked done is
never without its ``video.done`` delivery), one delivery per endpoint that wants it
plus one to the URL the request named, if any. ``delivery.WebhookSender`` posts them.
Messages follow Standard Webhooks: the body is ``{type, timestamp, data}``, signed with
``v1,<base64 HMAC-SHA256 of "id.timestamp.body">``; secrets are ``whsec_<base64>``, the
HMAC key being the decoded bytes, as the scheme's libraries expect.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import anyio.to_thread
from attrs import frozen
from sqlalchemy import Connection, bindparam, delete, select, update

from templatekit.service import AllowList, Problem, converter
from templatekit_server import audit
from templatekit_server.accounts import AccountError, Audited, change_live, new_id, require_project
from templatekit_server.bodies import (
    WEBHOOK_EVENTS,
    ErrorDetail,
    RenderDoneData,
    Url,
    VideoDoneData,
    VideoFailedData,
    WebhookData,
)
from templatekit_server.db import (
    Database,
    iso_time,
    now,
    projects,
    webhook_attempts,
    webhook_deliveries,
    webhook_endpoints,
)
from templatekit_server.errors import bad_request
from templatekit_server.files import Files
from templatekit_server.sealing import Sealer

EVENTS = tuple(WEBHOOK_EVENTS)
#: Delivered and failed deliveries are kept this long for the log, then forgotten.
KEPT_SECONDS = 30 * 86_400
SECRET_PREFIX = "whsec_"
MAX_URL_CHARS = 2048


def new_secret() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(24)).decode("ascii")


def signature(secret: str, message_id: str, timestamp: int, body: bytes) -> str:
    """The ``webhook-signature`` header of a message."""
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{message_id}.{timestamp}.".encode() + body
    return "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode("ascii")


def url_problem(url: Any, allow: AllowList) -> str | None:
    """What is wrong with a webhook target, if anything: it must be an http(s) URL whose
    host resolves to addresses the policy allows (checked again at each delivery: DNS
    may change)."""
    if not isinstance(url, str):
        return f"must be a URL string (got {type(url).__name__})"
    if len(url) > MAX_URL_CHARS:
        return f"at most {MAX_URL_CHARS:,} characters (got {len(url):,})"
    from templatekit.service import check_endpoint

    try:
        check_endpoint(url, allow)
    except Problem as problem:
        return str(problem)
    return None


def checked_url(url: Any, allow: AllowList) -> str:
    """A request's ``webhookUrl``; BAD_REQUEST naming the problem."""
    problem = url_problem(url, allow)
    if problem is not None:
        raise bad_request(f"webhookUrl: {problem}")
    return str(url)


async def requested_url(body: Mapping[str, Any], allow: AllowList, lane: anyio.CapacityLimiter) -> str | None:
    """The request's ``webhookUrl``, checked off the event loop (it resolves the host), in
    the workspace's ``lane`` of threads: a host slow to resolve holds that workspace's."""
    value = body.get("webhookUrl")
    if value is None or value == "":
        return None
    return await anyio.to_thread.run_sync(checked_url, value, allow, limiter=lane)


def checked_events(names: Iterable[str] | None) -> list[str]:
    chosen = list(EVENTS) if names is None else [name.strip() for name in names if name.strip()]
    unknown = [name for name in chosen if name not in EVENTS]
    if unknown or not chosen:
        raise AccountError(f"events {', '.join(unknown) or '(none)'}: choose from {', '.join(EVENTS)}")
    return [name for name in EVENTS if name in chosen]


# ------------------------------------------------------------------ endpoints


def add_endpoint(
    db: Database,
    sealer: Sealer,
    allow: AllowList,
    project_id: str,
    url: str,
    events: Iterable[str] | None,
    actor: str = audit.ADMIN_COMMAND,
) -> dict[str, Any]:
    """A new endpoint of the project: its summary with the secret (shown this once)."""
    problem = url_problem(url, allow)
    if problem is not None:
        raise AccountError(f"url: {problem}")
    chosen = checked_events(events)
    endpoint_id, secret = new_id("whe"), new_secret()
    with db.write() as connection:
        workspace_id = require_project(connection, project_id)
        audit.record(connection, workspace_id, actor, "webhook endpoint added", endpoint_id, url)
        connection.execute(
            webhook_endpoints.insert().values(
                id=endpoint_id,
                project_id=project_id,
                url=url,
                events=" ".join(chosen),
                sealed_secret=sealer.seal(secret),
                created_at=now(),
            )
        )
    return {"id": endpoint_id, "project": project_id, "url": url, "events": chosen, "secret": secret}


def endpoints(db: Database, project_id: str) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(
            select(webhook_endpoints)
            .where(webhook_endpoints.c.project_id == project_id, webhook_endpoints.c.deleted_at.is_(None))
            .order_by(webhook_endpoints.c.created_at)
        ).all()
    return [
        {
            "id": row.id,
            "url": row.url,
            "events": row.events.split(),
            "createdAt": iso_time(row.created_at),
            "failuresInARow": row.failures or 0,
            "pausedAt": None if row.paused_at is None else iso_time(row.paused_at),
        }
        for row in rows
    ]


def resume_endpoint(db: Database, endpoint_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    """Deliver to a paused endpoint again: its waiting deliveries go out at once."""
    resumed = Audited("webhook endpoint resumed", actor)
    change_live(db, webhook_endpoints, endpoint_id, "webhook endpoint", resumed, paused_at=None, failures=0)


def rotate_endpoint(db: Database, sealer: Sealer, endpoint_id: str, actor: str = audit.ADMIN_COMMAND) -> str:
    """A new secret for the endpoint; messages are signed with it from now on."""
    secret = new_secret()
    rotated = Audited("webhook secret changed", actor)
    change_live(db, webhook_endpoints, endpoint_id, "webhook endpoint", rotated, sealed_secret=sealer.seal(secret))
    return secret


def delete_endpoint(db: Database, endpoint_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    """No new deliveries; those queued still go out (their events happened)."""
    deleted = Audited("webhook endpoint deleted", actor)
    change_live(db, webhook_endpoints, endpoint_id, "webhook endpoint", deleted, deleted_at=now())


def request_secret(db: Database, sealer: Sealer, project_id: str, *, rotate: bool = False) -> str:
    """The secret that signs deliveries to URLs that requests name; made on first use."""
    with db.write() as connection:
        sealed = connection.execute(select(projects.c.webhook_secret).where(projects.c.id == project_id)).first()
        if sealed is None:
            raise AccountError(f"project {project_id!r} does not exist")
        secret = None if rotate or sealed[0] is None else sealer.unseal(sealed[0])
        if secret is None:
            secret = new_secret()
            connection.execute(
                update(projects).where(projects.c.id == project_id).values(webhook_secret=sealer.seal(secret))
            )
    return secret


def secret_for(db: Database, sealer: Sealer, project_id: str, endpoint_id: str | None) -> str | None:
    """The secret a delivery is signed with now: its endpoint's (rotated or not), or for
    a URL a request named (no endpoint), the project's."""
    with db.read() as connection:
        if endpoint_id is None:
            query = select(projects.c.webhook_secret).where(projects.c.id == project_id)
        else:
            query = select(webhook_endpoints.c.sealed_secret).where(webhook_endpoints.c.id == endpoint_id)
        sealed = connection.execute(query).scalar()
    return None if sealed is None else sealer.unseal(sealed)


# ------------------------------------------------------------------ events


def queue(
    db: Database,
    connection: Connection,
    sealer: Sealer,
    project_id: str,
    data: WebhookData,
    request_url: str | None = None,
) -> list[str]:
    """Queue the event of ``data`` for every endpoint of the project that wants it and
    for ``request_url``; the deliveries' ids. Part of the caller's transaction, which
    every stored render holds the database's one writer for: its statements are built
    once and run on the driver's cursor (``Database.first``)."""
    event, message_class = next(
        (name, kinds[1]) for name, kinds in WEBHOOK_EVENTS.items() if isinstance(data, kinds[0])
    )
    targets = _endpoints_for(db, connection, project_id, event)
    if request_url is not None:
        targets.append((None, request_url))
        _ensure_request_secret(db, connection, sealer, project_id)
    if not targets:
        return []
    created = now()
    message = message_class(type=event, timestamp=iso_time(created), data=data)  # type: ignore[arg-type]
    body = json.dumps(converter.unstructure(message), separators=(",", ":"))
    ids = [new_id("msg") for _ in targets]
    for message_id, (endpoint_id, url) in zip(ids, targets, strict=True):
        row = {"id": message_id, "project_id": project_id, "endpoint_id": endpoint_id, "url": url, "type": event}
        db.run(connection, _NEW_DELIVERY, {**row, "body": body, "status": "pending", "attempts": 0, "created": created})
    return ids


_NEW_DELIVERY = webhook_deliveries.insert().values(
    id=bindparam("id"),
    project_id=bindparam("project_id"),
    endpoint_id=bindparam("endpoint_id"),
    url=bindparam("url"),
    type=bindparam("type"),
    body=bindparam("body"),
    status=bindparam("status"),
    attempts=bindparam("attempts"),
    next_at=bindparam("created"),
    created_at=bindparam("created"),
)
_PROJECT_ENDPOINTS = select(webhook_endpoints.c.id, webhook_endpoints.c.url, webhook_endpoints.c.events).where(
    webhook_endpoints.c.project_id == bindparam("project_id"), webhook_endpoints.c.deleted_at.is_(None)
)
_REQUEST_SECRET = select(projects.c.webhook_secret).where(projects.c.id == bindparam("project_id"))
_SET_REQUEST_SECRET = (
    update(projects)
    .where(projects.c.id == bindparam("project_id"), projects.c.webhook_secret.is_(None))
    .values(webhook_secret=bindparam("secret"))
)


def _endpoints_for(db: Database, connection: Connection, project_id: str, event: str) -> list[tuple[str | None, str]]:
    """(id, url) of the project's endpoints that want ``event``."""
    assert event in EVENTS
    rows = db.rows(connection, _PROJECT_ENDPOINTS, {"project_id": project_id})
    return [(endpoint_id, url) for endpoint_id, url, events in rows if event in events.split()]


def _ensure_request_secret(db: Database, connection: Connection, sealer: Sealer, project_id: str) -> None:
    """The project's secret for request webhooks, made the first time one is queued."""
    found = db.first(connection, _REQUEST_SECRET, {"project_id": project_id})
    if found is not None and found[0] is None:
        db.run(connection, _SET_REQUEST_SECRET, {"project_id": project_id, "secret": sealer.seal(new_secret())})


@frozen
class Announcer:
    """Queues the events of videos and stored renders, with their files' URLs."""

    sealer: Sealer
    files: Files

    def video_done(self, db: Database, connection: Connection, video: Any, key: str) -> None:
        url = Url(self.files.url(video.api_base or "", key, expiring=False))
        data = VideoDoneData(id=video.id, url=url, template_id=video.template_id, duration=video.duration)
        queue(db, connection, self.sealer, video.project_id, data, video.webhook_url)

    def video_failed(self, db: Database, connection: Connection, video: Any, error: dict[str, Any]) -> None:
        data = VideoFailedData(id=video.id, error=converter.structure(error, ErrorDetail))
        queue(db, connection, self.sealer, video.project_id, data, video.webhook_url)

    def render_done(
        self, db: Database, project_id: str, url: str, template_id: str, output: str, request_url: str | None
    ) -> None:
        if request_url is None:  # most stored renders: a read, and no write unless an endpoint wants it
            with db.read() as connection:
                if not _endpoints_for(db, connection, project_id, "render.done"):
                    return
        data = RenderDoneData(url=Url(url), template_id=template_id, format=output)  # type: ignore[arg-type]
        with db.write() as connection:
            queue(db, connection, self.sealer, project_id, data, request_url)


# ------------------------------------------------------------------ the delivery log


def deliveries(db: Database, project_id: str, limit: int = 100) -> list[dict[str, Any]]:
    """The project's newest deliveries, each with its attempts and their status codes."""
    with db.read() as connection:
        rows = connection.execute(
            select(webhook_deliveries)
            .where(webhook_deliveries.c.project_id == project_id)
            .order_by(webhook_deliveries.c.created_at.desc(), webhook_deliveries.c.id)
            .limit(limit)
        ).all()
        attempts = _attempts(connection, [row.id for row in rows])
    return [
        {
            "id": row.id,
            "type": row.type,
            "url": row.url,
            "endpoint": row.endpoint_id,
            "status": row.status,
            "createdAt": iso_time(row.created_at),
            "attempts": attempts.get(row.id, []),
            **({"nextAttemptAt": iso_time(row.next_at)} if row.status == "pending" and row.attempts else {}),
        }
        for row in rows
    ]


def send_again(db: Database, project_id: str, delivery_id: str) -> None:
    """A delivered or failed delivery goes out once more, the same message (the same
    ``webhook-id``, so that a receiver that has it already can tell)."""
    with db.write() as connection:
        done = connection.execute(
            update(webhook_deliveries)
            .where(
                webhook_deliveries.c.id == delivery_id,
                webhook_deliveries.c.project_id == project_id,
                webhook_deliveries.c.status.in_(("delivered", "failed")),
            )
            .values(status="pending", next_at=now(), finished_at=None, worker=None)
        )
    if not done.rowcount:
        raise AccountError(f"delivery {delivery_id!r} is not one that ended (delivered or failed) in this project")


def _attempts(connection: Connection, delivery_ids: Sequence[str]) -> dict[str, list[dict[str, Any]]]:
    found: dict[str, list[dict[str, Any]]] = {}
    if not delivery_ids:
        return found
    rows = connection.execute(
        select(webhook_attempts)
        .where(webhook_attempts.c.delivery_id.in_(delivery_ids))
        .order_by(webhook_attempts.c.delivery_id, webhook_attempts.c.attempt)
    )
    for row in rows:
        found.setdefault(row.delivery_id, []).append(
            {
                "attempt": row.attempt,
                "at": iso_time(row.at),
                "statusCode": row.status_code,
                "error": row.error,
                "seconds": round(row.seconds, 3),
                "sender": row.sender,
            }
        )
    return found


def forget_old(db: Database) -> None:
    """Forget deliveries that ended more than KEPT_SECONDS ago, with their attempts."""
    with db.write() as connection:
        ended = select(webhook_deliveries.c.id).where(
            webhook_deliveries.c.status.in_(("delivered", "failed")),
            webhook_deliveries.c.finished_at < now() - KEPT_SECONDS,
        )
        connection.execute(delete(webhook_attempts).where(webhook_attempts.c.delivery_id.in_(ended)))
        connection.execute(delete(webhook_deliveries).where(webhook_deliveries.c.id.in_(ended)))
