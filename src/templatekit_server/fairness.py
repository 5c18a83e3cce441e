"""Fair sharing of the render workers between workspaces.

Every workspace's renders go to the same few worker processes. ``FairQueue`` admits them
to the workers' slots by start-time fair queueing (Goyal, Vin and Cheng, 1996), weighted
by plan: a request is given a *start tag*, the later of the queue's virtual time and the
*finish tag* of its workspace's previous request, and a finish tag one ``1 / weight``
after its start. A free slot goes to the waiting request with the smallest start tag,
and the virtual time becomes that tag. So:

- a workspace alone uses every free slot (no throughput is held back);
- under contention, workspaces start requests in proportion to their weights;
- a workspace's next request, arriving behind another's backlog, is tagged at the
  virtual time, before that backlog's later requests: it waits for one slot to free,
  and then, when it is the one admitted ahead (``ready``), for the next worker to free:
  one or two renders, however long the backlog;
- when a class of requests has none waiting or running, its virtual time moves on to the
  latest finish tag (the rule for an idle server): a workspace whose last request ran
  alone comes back level with the others, not a whole ``1 / weight`` behind a heavier
  plan's later backlog.

Previews (free, for the editor) are a class of their own: one starts only when no other
request waits, and previews hold at most all slots but one, so that billed renders
always have a worker that a preview cannot take. A request that waits past its plan's
``max_queue_seconds`` is refused with RATE_LIMITED and a Retry-After.

The queue is per server process: on a cluster each host shares its own workers fairly.
"""

from __future__ import annotations

import asyncio
import contextlib
import heapq
import itertools
import math
import time
from collections import Counter
from collections.abc import AsyncIterator

from attrs import define, frozen

from templatekit_server.errors import ApiError

#: How much the estimate of a render's length follows each new one (for Retry-After).
_SMOOTHING = 0.2


@frozen
class Share:
    """Who a request is for, and what it may claim of the workers."""

    workspace: str
    weight: float
    max_wait: float  # seconds it may wait for a slot
    preview: bool = False


@define(eq=False)
class _Waiter:
    share: Share
    start: float  # its start tag
    order: int  # arrival, to break ties first come, first served
    admitted: asyncio.Future[None]

    def __lt__(self, other: _Waiter) -> bool:
        return (self.start, self.order) < (other.start, other.order)


class FairQueue:
    """Admits requests to ``workers`` slots, fairly between workspaces (see the module),
    and ``ready`` more: those wait at the workers, so that a worker that answers starts
    the next render at once, without a turn of the event loop in between. Previews hold
    at most ``workers - 1`` slots, ready ones included."""

    def __init__(self, workers: int, ready: int = 0) -> None:
        self.workers = max(1, workers)
        self.slots = self.workers + ready
        self.preview_slots = max(1, workers - 1)
        self.busy: Counter[str] = Counter()  # slots held, by workspace
        self.busy_previews = 0
        self._virtual = {False: 0.0, True: 0.0}  # by class: previews or not
        self._finish: dict[tuple[bool, str], float] = {}
        self._latest_finish = {False: 0.0, True: 0.0}  # by class
        self._waiting: dict[bool, list[_Waiter]] = {False: [], True: []}
        self._arrivals = itertools.count()
        self._render_seconds = 1.0

    @property
    def held(self) -> int:
        return sum(self.busy.values())

    def waiting(self, preview: bool = False) -> int:
        return sum(1 for waiter in self._waiting[preview] if not waiter.admitted.done())

    @contextlib.asynccontextmanager
    async def slot(self, share: Share) -> AsyncIterator[None]:
        """Hold a slot for the request while in the block; RATE_LIMITED when none is
        free within the share's ``max_wait``."""
        await self._admitted(share)
        started = time.monotonic()
        try:
            yield
        finally:
            elapsed = time.monotonic() - started
            self._render_seconds += _SMOOTHING * (elapsed - self._render_seconds)
            self._leave(share)

    async def _admitted(self, share: Share) -> None:
        waiter = _Waiter(share, self._tag(share), next(self._arrivals), asyncio.get_running_loop().create_future())
        heapq.heappush(self._waiting[share.preview], waiter)
        self._dispatch()
        if waiter.admitted.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(waiter.admitted), share.max_wait)
        except TimeoutError:
            if waiter.admitted.done():
                return  # admitted as the wait ran out
            waiter.admitted.cancel()
            raise self._too_long(share) from None
        except asyncio.CancelledError:  # the client went away
            if waiter.admitted.done() and not waiter.admitted.cancelled():
                self._leave(share)
            else:
                waiter.admitted.cancel()
            raise

    def _tag(self, share: Share) -> float:
        """The request's start tag, and its workspace's finish tag moved on."""
        preview = share.preview
        running = self.busy_previews if preview else self.held - self.busy_previews
        if not running and not self.waiting(preview):
            self._virtual[preview] = max(self._virtual[preview], self._latest_finish[preview])
        key = (preview, share.workspace)
        start = max(self._virtual[preview], self._finish.get(key, 0.0))
        self._finish[key] = start + 1.0 / share.weight
        self._latest_finish[preview] = max(self._latest_finish[preview], self._finish[key])
        return start

    def _dispatch(self) -> None:
        """Give free slots to the waiting requests with the smallest start tags."""
        while self.held < self.slots:
            waiter = self._next(False)
            if waiter is None and self.busy_previews < self.preview_slots:
                waiter = self._next(True)
            if waiter is None:
                return
            self._virtual[waiter.share.preview] = waiter.start
            self.busy[waiter.share.workspace] += 1
            self.busy_previews += waiter.share.preview
            waiter.admitted.set_result(None)
        self._forget_idle()

    def _next(self, preview: bool) -> _Waiter | None:
        """The waiting request of the class with the smallest start tag (those that gave
        up are dropped on the way)."""
        heap = self._waiting[preview]
        while heap:
            waiter = heapq.heappop(heap)
            if not waiter.admitted.done():
                return waiter
        return None

    def _leave(self, share: Share) -> None:
        self.busy[share.workspace] -= 1
        if not self.busy[share.workspace]:
            del self.busy[share.workspace]
        self.busy_previews -= share.preview
        self._dispatch()

    def _forget_idle(self) -> None:
        """Finish tags at or behind the virtual time say nothing more: drop them."""
        if len(self._finish) > 64 * self.workers:
            for key, finish in list(self._finish.items()):
                if finish <= self._virtual[key[0]]:
                    del self._finish[key]

    def _too_long(self, share: Share) -> ApiError:
        ahead = self.waiting(False) + (self.waiting(True) if share.preview else 0)
        retry = max(1, math.ceil(self._render_seconds * (ahead + 1) / self.workers))
        what = "preview" if share.preview else "render"
        return ApiError(
            "RATE_LIMITED",
            f"the {what} waited {share.max_wait:g} s for a free worker (the workers are busy with "
            f"{ahead} other request{'s' if ahead != 1 else ''} waiting); retry in {retry} s",
            {"Retry-After": str(retry)},
        )
