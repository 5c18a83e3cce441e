"""Rows that say a request is running (an idempotency key's pending claim; a still's
generation being rendered, which ``usage.InFlight`` keeps alive for all of a server's
renders at once), kept fresh while it runs. A server killed mid-request stops keeping
its rows fresh, and any server that finds one untouched for ``ABANDONED_SECONDS`` takes
it for abandoned: the key is free again, the generation given back."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from typing import TypeVar

from sqlalchemy.exc import SQLAlchemyError
from starlette.concurrency import run_in_threadpool

T = TypeVar("T")

#: How often a running request touches its rows.
TOUCH_SECONDS = 2.0
#: A row untouched this long was left by a server that stopped.
ABANDONED_SECONDS = 15.0


async def kept_alive(work: Awaitable[T], touch: Callable[[], None]) -> T:
    """``work``'s result, ``touch`` called (in a thread) every ``TOUCH_SECONDS`` meanwhile."""

    async def keep_touching() -> None:
        while True:
            await asyncio.sleep(TOUCH_SECONDS)
            with contextlib.suppress(SQLAlchemyError):  # the database away for a moment: the next touch
                await run_in_threadpool(touch)

    toucher = asyncio.create_task(keep_touching())
    try:
        return await work
    finally:
        toucher.cancel()
