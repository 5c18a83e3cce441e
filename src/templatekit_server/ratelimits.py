"""Rate limits per API key: a moving window of one minute, kept by the ``limits`` library
in memory (one server process) or in Redis (``redis://…``: several processes or hosts
share the counts).

Over the limit, createPdf and createStoredImage answer TOO_MANY_REQUESTS (400) and every
other operation RATE_LIMITED (500), as the interface's table says; both with
``Retry-After``. Every answer to a keyed request carries ``X-RateLimit-Limit``,
``X-RateLimit-Remaining`` and ``X-RateLimit-Reset`` (unix seconds).

When Redis cannot be reached (down, or no answer within a second), requests are let
through uncounted, without the headers, and a warning is logged at most every 30 s:
rate limits guard against bursts, while quotas and billing live in the database and
hold whatever Redis does; failing closed would turn a Redis outage into a full outage.
Counting resumes as soon as Redis answers again.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import Callable

from attrs import frozen
from limits import RateLimitItemPerMinute
from limits.aio.strategies import MovingWindowRateLimiter
from limits.storage import storage_from_string

from templatekit_server.errors import ApiError

log = logging.getLogger("templatekit.server")
#: Seconds to connect to Redis and for each answer: a hung Redis costs a request this much.
REDIS_TIMEOUT = 1.0
#: A Redis outage is logged at most this often.
OUTAGE_LOG_SECONDS = 30.0

#: Operations whose rate-limit error is TOO_MANY_REQUESTS (400); RATE_LIMITED (500) elsewhere.
TOO_MANY_REQUESTS_OPERATIONS = frozenset({"createPdf", "createStoredImage"})


@frozen
class Window:
    """Where a key stands in its current window."""

    limit: int
    remaining: int
    reset: float  # unix seconds when the oldest request of the window leaves it

    def headers(self) -> dict[str, str]:
        return {
            "X-RateLimit-Limit": str(self.limit),
            "X-RateLimit-Remaining": str(self.remaining),
            "X-RateLimit-Reset": str(math.ceil(self.reset)),
        }


class RateLimiter:
    """``clock`` tells the time for Retry-After (the windows themselves are timed by
    the storage: the in-memory one by ``time.time``, Redis by its own clock)."""

    def __init__(self, url: str = "memory://", clock: Callable[[], float] = time.time) -> None:
        options: dict[str, float | str | bool] = {}
        if url.startswith(("redis://", "rediss://")):
            options = {
                "implementation": "redispy",
                "socket_timeout": REDIS_TIMEOUT,
                "socket_connect_timeout": REDIS_TIMEOUT,
            }
        self.storage = storage_from_string(f"async+{url}", **options)
        self._limiter = MovingWindowRateLimiter(self.storage)
        self.clock = clock
        self._outage_logged = -OUTAGE_LOG_SECONDS

    async def hit(self, key_id: str, per_minute: int, operation: str, what: str = "requests") -> Window | None:
        """Count one request of the key; the window after it (None when the storage
        cannot be reached), or the operation's error (with Retry-After and the window's
        headers) when the key is over its limit of ``what`` (requests, or previews)."""
        item = RateLimitItemPerMinute(per_minute)
        try:
            allowed = await self._limiter.hit(item, key_id)
            stats = await self._limiter.get_window_stats(item, key_id)
        except Exception as exc:  # each storage has its own errors; every one means "not counted"
            self._outage(exc)
            return None
        window = Window(per_minute, stats.remaining, stats.reset_time)
        if allowed:
            return window
        wait = max(1, math.ceil(stats.reset_time - self.clock()))
        code = "TOO_MANY_REQUESTS" if operation in TOO_MANY_REQUESTS_OPERATIONS else "RATE_LIMITED"
        raise ApiError(
            code,
            f"the rate limit of {per_minute} {what} a minute for this key is reached; retry in {wait} s",
            {"Retry-After": str(wait), **window.headers()},
        )

    def _outage(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._outage_logged >= OUTAGE_LOG_SECONDS:
            self._outage_logged = now
            log.warning(
                "rate limits are not counted: their storage cannot be reached (%s: %s)", type(exc).__name__, exc
            )
