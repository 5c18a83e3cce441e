"""Worker processes that the event loop talks to itself, one socket each.

A task goes to an idle worker over that worker's own socket, and the answer comes back
through an asyncio transport on the same socket: dispatching costs no thread, lock or
acknowledgement. (A pool with a shared queue and manager threads spent about a
millisecond of the server's process per request handing tasks and answers between
threads, a tenth of a render.)

Each worker takes one task at a time. One that runs past its time limit is killed, one
that dies fails only the task it had, and either way a fresh worker takes its place.
A worker retires after ``max_tasks`` tasks, or after a result its owner says it should
not go on from (``retire_if``: it holds too much memory, say). The pool keeps ``size``
workers running, started from a fork server so that each starts with what that server
preloaded.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import multiprocessing
import pickle
import signal
import socket
import struct
import traceback
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection
from multiprocessing.context import ForkServerContext, ForkServerProcess
from typing import Any

log = logging.getLogger("templatekit.server")

#: ``multiprocessing.connection.Connection``'s framing, which the worker side reads and
#: writes with ``recv_bytes`` and ``send_bytes``: a signed 4-byte length, or -1 and an
#: 8-byte length for a message of 2 GiB or more.
_SHORT = struct.Struct("!i")
_LONG = struct.Struct("!Q")
_SHORT_LIMIT = 0x7FFFFFFF
#: A worker that dies before its first task (its start failed) is replaced after this
#: long, so that a failing start does not become a loop of forks.
RESTART_DELAY = 1.0
JOIN_SECONDS = 5.0


class WorkerTimedOut(Exception):
    """The task ran past its time limit, and its worker was killed."""


class WorkerDied(Exception):
    """The worker stopped before it answered."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(f"the worker stopped (exit code {exitcode})")
        self.exitcode = exitcode


# ------------------------------------------------------------------ in the worker


def serve(own_end: socket.socket, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    """A worker's life: ``initializer(*initargs)``, then tasks until the socket closes.
    A task is a pickled ``(function, argument)``; its answer, ``(True, result)`` or
    ``(False, exception)``."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it stops its workers
    connection = Connection(own_end.detach())
    initializer(*initargs)
    while True:
        try:
            task = connection.recv_bytes()
        except (EOFError, OSError):
            return
        function, argument = pickle.loads(task)
        try:
            answer: tuple[bool, Any] = (True, function(argument))
        except Exception as exc:
            exc.add_note(f"in the render worker:\n{traceback.format_exc()}")
            answer = (False, exc)
        connection.send_bytes(_pickled_answer(answer))


def _pickled_answer(answer: tuple[bool, Any]) -> bytes:
    try:
        return pickle.dumps(answer, pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # an answer or exception that does not pickle: its description does
        return pickle.dumps((False, RuntimeError(f"the answer could not be sent back: {exc!r}")))


# ------------------------------------------------------------------ in the owner


def framed(payload: bytes) -> list[bytes]:
    """``payload`` with the length header ``Connection.recv_bytes`` reads."""
    if len(payload) > _SHORT_LIMIT:
        return [_SHORT.pack(-1) + _LONG.pack(len(payload)), payload]
    return [_SHORT.pack(len(payload)), payload]


def unframed(buffer: bytearray) -> tuple[bytes, int] | None:
    """The first whole message in ``buffer`` and the bytes it took, or None while it is
    not all there."""
    if len(buffer) < _SHORT.size:
        return None
    (size,) = _SHORT.unpack_from(buffer)
    start = _SHORT.size
    if size == -1:
        if len(buffer) < start + _LONG.size:
            return None
        (size,) = _LONG.unpack_from(buffer, start)
        start += _LONG.size
    end = start + size
    if len(buffer) < end:
        return None
    return bytes(buffer[start:end]), end


class _Answers(asyncio.Protocol):
    """Reads a worker's answers off its socket."""

    def __init__(self, worker: Worker) -> None:
        self.worker = worker
        self.buffer = bytearray()

    def data_received(self, data: bytes) -> None:
        self.buffer += data
        while (message := unframed(self.buffer)) is not None:
            payload, used = message
            del self.buffer[:used]
            self.worker.answered(payload)

    def connection_lost(self, exc: Exception | None) -> None:
        self.worker.lost()


class Worker:
    """One worker process and its socket, seen from the owner."""

    def __init__(self, pool: WorkerPool, process: ForkServerProcess) -> None:
        self.pool = pool
        self.process = process
        self.transport: asyncio.Transport | None = None
        self.answer: asyncio.Future[tuple[bool, Any]] | None = None
        self.tasks = 0  # tasks given to it
        self.retiring = False
        self.gone = False

    async def connect(self, end: socket.socket) -> None:
        """Talk to the worker over ``end``, the owner's end of its socket pair."""
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_unix_connection(lambda: _Answers(self), sock=end)
        self.transport = transport

    async def do(self, function: Callable[[Any], Any], argument: Any, timeout: float) -> Any:
        """``function(argument)`` in this worker: its result, or the exception it raised."""
        assert self.transport is not None
        task = pickle.dumps((function, argument), pickle.HIGHEST_PROTOCOL)
        self.answer = asyncio.get_running_loop().create_future()
        self.tasks += 1
        self.transport.writelines(framed(task))
        try:
            ok, value = await asyncio.wait_for(self.answer, timeout)
        except TimeoutError:
            self.kill()
            raise WorkerTimedOut from None
        except WorkerDied:
            raise WorkerDied(await self.exitcode()) from None
        except asyncio.CancelledError:
            self.kill()  # nobody waits for the answer any more: stop the work
            raise
        finally:
            self.answer = None
        if not ok:
            raise value
        return value

    def answered(self, payload: bytes) -> None:
        if self.answer is not None and not self.answer.done():
            self.answer.set_result(pickle.loads(payload))

    def lost(self) -> None:
        """The socket closed: the worker exited, was killed or was retired."""
        self.gone = True
        if self.answer is not None and not self.answer.done():
            self.answer.set_exception(WorkerDied(None))
        self.pool.left(self)

    def kill(self) -> None:
        self.gone = True
        with contextlib.suppress(OSError, ValueError, AttributeError):  # AttributeError: never started
            self.process.kill()
        self.close()

    def close(self) -> None:
        """Close the socket: a waiting worker reads its end and exits."""
        if self.transport is not None:
            self.transport.close()

    async def exitcode(self) -> int | None:
        """The exit code, once the process has gone (a thread waits for it)."""
        return await asyncio.to_thread(self.joined)

    def joined(self) -> int | None:
        with contextlib.suppress(ValueError, AssertionError):  # never started
            self.process.join(JOIN_SECONDS)
        return self.process.exitcode


class WorkerPool:
    """``size`` worker processes for ``run``, started from the fork server of
    ``context`` (whose preloaded modules they start with)."""

    def __init__(
        self,
        size: int,
        *,
        initializer: Callable[..., None],
        initargs: tuple[Any, ...],
        max_tasks: int = 0,
        name: str = "templatekit-worker",
        context: ForkServerContext | None = None,
    ) -> None:
        self.size = size
        self.initializer = initializer
        self.initargs = initargs
        self.max_tasks = max_tasks  # 0: no limit
        self.name = name
        self.context = context or multiprocessing.get_context("forkserver")
        self.workers: set[Worker] = set()  # running or starting
        self.idle: deque[Worker] = deque()
        self.waiting: deque[asyncio.Future[Worker]] = deque()
        self.starting: set[asyncio.Task[None]] = set()
        self.closed = False

    def start(self) -> None:
        """Start the workers that are missing (from the running event loop)."""
        if self.closed:
            return
        for _ in range(self.size - len(self.workers) - len(self.starting)):
            self._start_one(delay=0.0)

    async def run(
        self,
        function: Callable[[Any], Any],
        argument: Any,
        timeout: float,
        retire_if: Callable[[Any], bool] | None = None,
    ) -> Any:
        """``function(argument)`` in an idle worker (waiting for one, within ``timeout``);
        WorkerTimedOut when it runs past ``timeout``, WorkerDied when its worker dies.
        A worker whose result meets ``retire_if`` takes no more tasks."""
        worker = await self._idle_worker(timeout)
        try:
            result = await worker.do(function, argument, timeout)
            worker.retiring = retire_if is not None and retire_if(result)
            return result
        finally:
            self._done(worker)

    def close(self) -> None:
        """Stop every worker now."""
        self.closed = True
        for task in self.starting:
            task.cancel()
        for worker in list(self.workers):
            worker.kill()
            worker.joined()
        for waiter in self.waiting:
            if not waiter.done():
                waiter.set_exception(WorkerDied(None))

    # -------------------------------------------------------------- bookkeeping

    async def _idle_worker(self, timeout: float) -> Worker:
        while self.idle:
            worker = self.idle.pop()  # the one that worked last: its caches are warm
            if not worker.gone:
                return worker
        self.start()
        waiter: asyncio.Future[Worker] = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            return await asyncio.wait_for(waiter, timeout)
        except TimeoutError:
            raise WorkerTimedOut from None
        finally:
            with contextlib.suppress(ValueError):
                self.waiting.remove(waiter)

    def _done(self, worker: Worker) -> None:
        """After a task: the worker serves the next one, or retires."""
        if worker.gone:
            return
        if worker.retiring or (self.max_tasks and worker.tasks >= self.max_tasks):
            worker.close()
            return
        self._hand_over(worker)

    def _hand_over(self, worker: Worker) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(worker)
                return
        self.idle.append(worker)

    def left(self, worker: Worker) -> None:
        """``worker``'s socket closed: a new worker takes its place."""
        if worker not in self.workers:
            return
        self.workers.discard(worker)
        with contextlib.suppress(ValueError):
            self.idle.remove(worker)
        asyncio.get_running_loop().run_in_executor(None, worker.joined)  # reap it
        if not self.closed:
            self._start_one(delay=0.0 if worker.tasks else RESTART_DELAY)

    def _start_one(self, delay: float) -> None:
        task = asyncio.get_running_loop().create_task(self._started(delay))
        self.starting.add(task)
        task.add_done_callback(self.starting.discard)

    async def _started(self, delay: float) -> None:
        await asyncio.sleep(delay)
        own_end, worker_end = socket.socketpair()
        process = self.context.Process(
            target=serve, args=(worker_end, self.initializer, self.initargs), name=self.name, daemon=True
        )
        worker = Worker(self, process)
        try:
            # the first start also starts the fork server, which imports what it preloads
            await asyncio.to_thread(process.start)
            await worker.connect(own_end)
        except Exception:
            log.exception("a worker process could not be started; trying again")
            own_end.close()
            worker.kill()
            if not self.closed:
                self._start_one(delay=RESTART_DELAY)
            return
        finally:
            worker_end.close()
        if self.closed:
            worker.kill()
            return
        self.workers.add(worker)
        self._hand_over(worker)
