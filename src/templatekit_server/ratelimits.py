"""Rate limits per API key: a moving window of one minute, kept in memory (one server
process) or in Redis by the ``limits`` library (``redis://…``: several processes or
hosts share the counts).

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
from collections import deque
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
WINDOW_SECONDS = 60.0


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


class MemoryWindows:
    """Moving windows of one minute in this process: the times of each key's requests in
    the last minute, oldest first, per limit (as ``limits`` keeps them: a key whose
    limit changes starts a new window). (The ``limits`` library's in-memory storage for
    asyncio sweeps every key in a thread after each request: a task and a trip to a
    thread per request, a seventh of the server process's own time.)"""

    def __init__(self, clock: Callable[[], float]) -> None:
        self.clock = clock
        self.hits: dict[tuple[str, int], deque[float]] = {}
        self._swept = clock()

    def hit(self, key: str, limit: int) -> tuple[bool, Window]:
        """Count a request of ``key`` unless it has had ``limit`` in the last minute;
        whether it was counted, and the window after it."""
        now = self.clock()
        if now - self._swept >= WINDOW_SECONDS:
            self._sweep(now)
        times = self.hits.get((key, limit))
        if times is None:
            times = self.hits[key, limit] = deque()
        while times and times[0] < now - WINDOW_SECONDS:
            times.popleft()
        allowed = len(times) < limit
        if allowed:
            times.append(now)
        return allowed, Window(limit, max(0, limit - len(times)), (times[0] if times else now) + WINDOW_SECONDS)

    def _sweep(self, now: float) -> None:
        """Forget the keys with no request in the last minute, once a minute."""
        self._swept = now
        for key in [key for key, times in self.hits.items() if not times or times[-1] < now - WINDOW_SECONDS]:
            del self.hits[key]


class RateLimiter:
    """``clock`` tells the time for Retry-After and the in-memory windows (Redis times
    its windows by its own clock)."""

    def __init__(self, url: str = "memory://", clock: Callable[[], float] = time.time) -> None:
        self.clock = clock
        self._outage_logged = -OUTAGE_LOG_SECONDS
        self._memory: MemoryWindows | None = None
        self._limiter: MovingWindowRateLimiter | None = None
        if url.startswith("memory://"):
            self._memory = MemoryWindows(clock)
            return
        options: dict[str, float | str | bool] = {}
        if url.startswith(("redis://", "rediss://")):
            options = {
                "implementation": "redispy",
                "socket_timeout": REDIS_TIMEOUT,
                "socket_connect_timeout": REDIS_TIMEOUT,
            }
        self._limiter = MovingWindowRateLimiter(storage_from_string(f"async+{url}", **options))

    async def hit(self, key_id: str, per_minute: int, operation: str, what: str = "requests") -> Window | None:
        """Count one request of the key; the window after it (None when the storage
        cannot be reached), or the operation's error (with Retry-After and the window's
        headers) when the key is over its limit of ``what`` (requests, or previews)."""
        if self._memory is not None:
            allowed, window = self._memory.hit(key_id, per_minute)
        else:
            counted = await self._counted(key_id, per_minute)
            if counted is None:
                return None
            allowed, window = counted
        if allowed:
            return window
        wait = max(1, math.ceil(window.reset - self.clock()))
        code = "TOO_MANY_REQUESTS" if operation in TOO_MANY_REQUESTS_OPERATIONS else "RATE_LIMITED"
        raise ApiError(
            code,
            f"the rate limit of {per_minute} {what} a minute for this key is reached; retry in {wait} s",
            {"Retry-After": str(wait), **window.headers()},
        )

    async def _counted(self, key_id: str, per_minute: int) -> tuple[bool, Window] | None:
        """``MemoryWindows.hit`` in the shared storage; None when it cannot be reached."""
        assert self._limiter is not None
        item = RateLimitItemPerMinute(per_minute)
        try:
            allowed = await self._limiter.hit(item, key_id)
            stats = await self._limiter.get_window_stats(item, key_id)
        except Exception as exc:  # each storage has its own errors; every one means "not counted"
            self._outage(exc)
            return None
        return allowed, Window(per_minute, stats.remaining, stats.reset_time)

    def _outage(self, exc: Exception) -> None:
        now = time.monotonic()
        if now - self._outage_logged >= OUTAGE_LOG_SECONDS:
            self._outage_logged = now
            log.warning(
                "rate limits are not counted: their storage cannot be reached (%s: %s)", type(exc).__name__, exc
            )
