"""The fair queue in front of the render workers, by its rules: a workspace alone uses
every slot; under contention workspaces start requests in proportion to their weights;
a quiet workspace's next request starts before any further request of another's backlog;
a workspace holds no more than its share of the slots while others wait; previews start
only when no billed request waits and never take the last slot; a request that waits
past its limit is refused RATE_LIMITED with Retry-After; a request whose client goes
away leaves nothing held."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter

import pytest

from templatekit_server.errors import ApiError
from templatekit_server.fairness import FairQueue, Share

pytestmark = pytest.mark.slow

HOSTILE = Share("ws_hostile", 1, 60)
QUIET = Share("ws_quiet", 1, 60)


class Scheduled:
    """Requests put to a queue; each holds its slot until ``finish`` lets it go, and the
    order in which they started is kept."""

    def __init__(self, queue: FairQueue) -> None:
        self.queue = queue
        self.started: list[str] = []
        self._done: dict[int, asyncio.Event] = {}
        self._tasks: list[asyncio.Task[None]] = []

    async def submit(self, share: Share, label: str | None = None) -> asyncio.Task[None]:
        done = asyncio.Event()

        async def request() -> None:
            async with self.queue.slot(share):
                self.started.append(label or share.workspace)
                self._done[len(self.started) - 1] = done
                await done.wait()

        task = asyncio.create_task(request())
        self._tasks.append(task)
        await asyncio.sleep(0)  # let it queue
        return task

    async def finish(self, index: int) -> None:
        """Let the request that started ``index``-th go, and the queue move on."""
        self._done[index].set()
        for _ in range(5):
            await asyncio.sleep(0)

    async def finish_all_running(self) -> None:
        for index in list(self._done):
            if not self._done[index].is_set():
                await self.finish(index)

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)


def run(test):  # noqa: ANN001, ANN201 - a coroutine function to a plain test
    def plain() -> None:
        asyncio.run(test())

    plain.__name__ = test.__name__
    plain.__doc__ = test.__doc__
    return plain


@run
async def test_a_workspace_alone_uses_every_slot():
    queue = FairQueue(3)
    work = Scheduled(queue)
    for _ in range(5):
        await work.submit(HOSTILE)
    assert work.started == ["ws_hostile"] * 3 and queue.waiting() == 2
    await work.close()


@run
async def test_a_quiet_workspace_starts_before_the_rest_of_a_backlog():
    queue = FairQueue(2)
    work = Scheduled(queue)
    for _ in range(40):
        await work.submit(HOSTILE)
    await work.submit(QUIET)
    assert work.started == ["ws_hostile", "ws_hostile"]
    await work.finish(0)  # one render ends: the quiet request is next, not the 3rd of the backlog
    assert work.started[2] == "ws_quiet"
    await work.finish(2)  # nothing of the quiet one waits: the backlog goes on
    assert work.started[3] == "ws_hostile"
    await work.submit(QUIET)  # its next one goes first again, however long the backlog still is
    await work.finish(1)
    assert work.started[4] == "ws_quiet"
    await work.close()


@run
async def test_no_workspace_holds_more_than_its_share_while_another_waits():
    """Three workspaces with backlogs on four slots: whenever a request starts while
    another workspace waits, the one it starts for held less than its share."""
    queue = FairQueue(4)
    work = Scheduled(queue)
    shares = [Share(f"ws_{n}", 1, 60) for n in range(3)]
    for _ in range(30):
        for share in shares:
            await work.submit(share)
    for index in range(60):
        await work.finish(index)
        assert max(queue.busy.values()) - min(queue.busy.values()) <= 1, queue.busy
    await work.close()


@run
async def test_a_request_that_ran_alone_earns_no_penalty_against_a_later_backlog():
    queue = FairQueue(1)
    work = Scheduled(queue)
    free, scale = Share("ws_free", 1, 60), Share("ws_scale", 8, 60)
    await work.submit(free)
    await work.finish(0)  # it ran alone, and ended
    for _ in range(20):
        await work.submit(scale)
    await work.submit(free)
    await work.finish(1)
    assert work.started[2] == "ws_free"  # not after eight more of the scale plan's
    await work.close()


@run
async def test_workspaces_start_in_proportion_to_their_plans_weights():
    queue = FairQueue(1)
    work = Scheduled(queue)
    scale, free = Share("ws_scale", 8, 60), Share("ws_free", 1, 60)
    for _ in range(50):
        await work.submit(scale)
        await work.submit(free)
    for index in range(45):
        await work.finish(index)
    counts = Counter(work.started[1:46])
    assert counts["ws_scale"] == pytest.approx(40, abs=1) and counts["ws_free"] == pytest.approx(5, abs=1)
    await work.close()


@run
async def test_previews_wait_for_billed_requests_and_never_take_the_last_slot():
    queue = FairQueue(2)
    work = Scheduled(queue)
    preview = Share("ws_hostile", 1, 60, preview=True)
    for n in range(8):
        await work.submit(preview, f"preview {n}")
    assert work.started == ["preview 0"]  # one slot stays for billed renders
    await work.submit(QUIET, "billed")
    assert work.started[-1] == "billed"  # at once, on the slot previews may not take
    await work.submit(HOSTILE, "billed 2")
    await work.submit(QUIET, "billed 3")
    await work.finish(0)  # the preview ends: billed requests that wait go first
    assert work.started[2:] == ["billed 2"]
    await work.finish(1)
    assert work.started[3:] == ["billed 3"]
    await work.finish(2)
    await work.finish(3)
    assert work.started[4:] == ["preview 1"]  # nothing billed waits: previews again
    await work.close()


@run
async def test_a_ready_request_waits_at_the_workers_and_previews_still_leave_a_worker_free():
    """With one request ready beside two workers, three billed requests hold slots, but
    previews, ready ones included, still hold no more than one worker's."""
    queue = FairQueue(2, ready=1)
    work = Scheduled(queue)
    for n in range(4):
        await work.submit(QUIET, f"billed {n}")
    assert work.started == ["billed 0", "billed 1", "billed 2"]
    await work.finish_all_running()
    assert work.started[3:] == ["billed 3"]
    await work.finish_all_running()
    preview = Share("ws_hostile", 1, 60, preview=True)
    for n in range(3):
        await work.submit(preview, f"preview {n}")
    assert work.started[4:] == ["preview 0"]
    await work.close()


@run
async def test_a_request_that_waits_past_its_plans_limit_is_rate_limited():
    queue = FairQueue(1)
    work = Scheduled(queue)
    await work.submit(HOSTILE)
    with pytest.raises(ApiError) as refused:
        async with queue.slot(Share("ws_quiet", 1, 0.05)):
            pass
    assert refused.value.code == "RATE_LIMITED" and int(refused.value.headers["Retry-After"]) >= 1
    assert "waited 0.05 s for a free worker" in refused.value.message
    assert queue.waiting() == 0 and queue.held == 1
    await work.close()


@run
async def test_a_request_given_up_while_it_waits_holds_nothing():
    queue = FairQueue(1)
    work = Scheduled(queue)
    await work.submit(HOSTILE)
    gone = await work.submit(QUIET)
    gone.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await gone
    await work.submit(QUIET, "next")
    await work.finish(0)
    assert work.started == ["ws_hostile", "next"] and queue.held == 1
    await work.close()
    assert queue.held == 0
