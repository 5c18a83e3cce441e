"""``Idempotency-Key``: a request repeated with the same key within 24 hours gets the
first answer again, and is not rendered or billed again.

The first request claims the key (a row in state ``pending``); a repeat that arrives
while the first is still running waits for it. A failed first request gives the key up,
so that the client may retry. The same key with a different request is CONFLICT.

A pending claim is kept alive by its request while it runs (``alive``): a claim left
untouched belongs to a server that died (killed mid-render), and the next request with
the key claims it anew rather than waiting for an answer that will never come.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Awaitable
from typing import Any, TypeVar

from attrs import frozen
from sqlalchemy import delete, select, update
from starlette.concurrency import run_in_threadpool

from templatekit_server.alive import ABANDONED_SECONDS, kept_alive
from templatekit_server.db import Database, idempotency, now
from templatekit_server.errors import ApiError, bad_request

LIFETIME = 86_400
MAX_KEY_LENGTH = 255
POLL_SECONDS = 0.05
T = TypeVar("T")


@frozen
class Answer:
    """What the first request answered."""

    status: int
    media_type: str
    headers: dict[str, str]
    body: bytes
    video_id: str | None = None


def request_hash(operation: str, body: Any, query: dict[str, str]) -> str:
    """What makes two requests the same: the operation, the body without the key, and
    the query."""
    content = body if not isinstance(body, dict) else {k: v for k, v in body.items() if k != "apiKey"}
    text = json.dumps([operation, content, sorted(query.items())], sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class Claim:
    """A claimed key: ``finish`` stores the answer, ``give_up`` frees the key."""

    def __init__(self, db: Database, key_id: str, key: str) -> None:
        self.db, self.key_id, self.key = db, key_id, key

    def _row(self) -> Any:
        return (idempotency.c.key_id == self.key_id) & (idempotency.c.idempotency_key == self.key)

    def finish(self, answer: Answer) -> None:
        with self.db.write() as connection:
            connection.execute(
                update(idempotency)
                .where(self._row())
                .values(
                    state="done",
                    status=answer.status,
                    media_type=answer.media_type,
                    headers=answer.headers,
                    body=answer.body,
                    video_id=answer.video_id,
                )
            )

    def give_up(self) -> None:
        with self.db.write() as connection:
            connection.execute(delete(idempotency).where(self._row()))

    def touch(self) -> None:
        """Say that the request holding the claim still runs (see the module); the
        replay's 24 hours then count from the last touch, at most the request's length
        later than its start."""
        with self.db.write() as connection:
            connection.execute(
                update(idempotency).where(self._row(), idempotency.c.state == "pending").values(created_at=now())
            )

    async def held_while(self, work: Awaitable[T]) -> T:
        """``work``'s result, the claim kept alive meanwhile (see ``alive``), so that no
        server takes it for abandoned while it runs."""
        return await kept_alive(work, self.touch)


def checked_key(key: str, header: str = "Idempotency-Key") -> str:
    """``key``, given in the request's ``header``; BAD_REQUEST naming the header when it
    is no key."""
    if not key or len(key) > MAX_KEY_LENGTH or not key.isascii() or not key.isprintable():
        raise bad_request(f"{header}: 1 to {MAX_KEY_LENGTH} printable ASCII characters")
    return key


async def claim(db: Database, key_id: str, key: str, digest: str, timeout: float) -> Claim | Answer:
    """Claim ``key`` for this request, or the answer of the request that claimed it."""
    checked_key(key)
    waited = 0.0
    while True:
        found = await run_in_threadpool(_claim_or_read, db, key_id, key, digest)
        if found is None:
            return Claim(db, key_id, key)
        if found.request_hash != digest:
            raise ApiError("CONFLICT", f"Idempotency-Key {key!r} was used with a different request")
        if found.state == "done":
            return Answer(found.status, found.media_type, dict(found.headers or {}), found.body or b"", found.video_id)
        if waited > timeout:
            raise ApiError("CONFLICT", f"the request with Idempotency-Key {key!r} is still running")
        await asyncio.sleep(POLL_SECONDS)
        waited += POLL_SECONDS


async def turn(db: Database, key_id: str, key: str) -> Claim:
    """A claim of ``key`` (not a client's key: work the server names) once no request on
    any host holds it, for work done once when many ask for it at the same moment; hold
    it with ``held_while`` and end it with ``give_up``. A holder whose host stopped leaves
    its claim untouched, and it is taken over after ``ABANDONED_SECONDS``."""
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()
    while await run_in_threadpool(_claim_or_read, db, key_id, key, digest) is not None:
        await asyncio.sleep(POLL_SECONDS)
    return Claim(db, key_id, key)


def _claim_or_read(db: Database, key_id: str, key: str, digest: str) -> Any:
    """Insert a pending row (None), or the row that is there (expired rows, and pending
    ones that their server abandoned, are replaced). The insert is atomic against the same
    request on another host."""
    condition = (idempotency.c.key_id == key_id) & (idempotency.c.idempotency_key == key)
    moment = now()
    gone = (idempotency.c.created_at < moment - LIFETIME) | (
        (idempotency.c.state == "pending") & (idempotency.c.created_at < moment - ABANDONED_SECONDS)
    )
    with db.write() as connection:
        connection.execute(delete(idempotency).where(condition, gone))
        inserted = db.insert_unless_present(
            connection,
            idempotency,
            key_id=key_id,
            idempotency_key=key,
            request_hash=digest,
            state="pending",
            created_at=now(),
        )
        return None if inserted else connection.execute(select(idempotency).where(condition)).first()


def forget_expired(db: Database) -> None:
    with db.write() as connection:
        connection.execute(delete(idempotency).where(idempotency.c.created_at < now() - LIFETIME))
