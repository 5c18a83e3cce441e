"""The rate limits' moving windows in memory: the same counts as the ``limits`` library's
own moving window, and keys forgotten once idle."""

from __future__ import annotations

import asyncio
from unittest import mock

import pytest

pytest.importorskip("hypothesis")

import limits.aio.storage
import limits.aio.storage.memory
from hypothesis import given, settings
from hypothesis import strategies as st
from limits import RateLimitItemPerMinute
from limits.aio.strategies import MovingWindowRateLimiter

from templatekit_server.ratelimits import MemoryWindows, Window
from tests.server.test_limits import FakeTime

#: Seconds between requests: some within a window, some past it.
PAUSES = [0.0, 0.3, 7.1, 29.3, 59.9, 61.7]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b"]), st.integers(1, 4), st.sampled_from(PAUSES)),
        max_size=40,
    )
)
def test_the_memory_windows_count_as_the_limits_library_does(requests):
    """Requests of two keys at limits and pauses of all kinds: the in-memory windows
    admit the same requests, with the same remaining count and reset time, as the
    ``limits`` library's moving window in its own in-memory storage. (No run of these
    pauses makes exactly a minute: at that instant the library refuses a request and
    yet counts its place as remaining.)"""
    clock = FakeTime(1_000_000.0)
    ours = MemoryWindows(clock.time)

    async def compare() -> None:
        theirs = MovingWindowRateLimiter(limits.aio.storage.MemoryStorage())
        for key, limit, pause in requests:
            clock.now += pause
            item = RateLimitItemPerMinute(limit)
            allowed = await theirs.hit(item, key)
            stats = await theirs.get_window_stats(item, key)
            assert ours.hit(key, limit) == (allowed, Window(limit, stats.remaining, stats.reset_time))

    with mock.patch.object(limits.aio.storage.memory, "time", clock):
        asyncio.run(compare())


def test_keys_idle_for_a_minute_are_forgotten():
    clock = FakeTime(1_000_000.0)
    windows = MemoryWindows(clock.time)
    for n in range(1000):
        windows.hit(f"key {n}", 10)
    clock.now += 30
    windows.hit("busy", 10)
    clock.now += 45  # a minute and more after the thousand, 45 s after "busy"
    windows.hit("busy", 10)
    assert set(windows.hits) == {("busy", 10)} and len(windows.hits["busy", 10]) == 2
