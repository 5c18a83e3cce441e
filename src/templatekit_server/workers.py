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
import select
import signal
import socket
import struct
import threading
import traceback
from collections import deque
from collections.abc import Callable
from multiprocessing.connection import Connection, wait
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
#: The fork server reports a worker's exit once, on a pipe that whoever polls the process
#: first reads; the others then find it empty and report 255. Both a join and a process
#: start poll (the start polls every child, in multiprocessing's clean-up), so they take
#: turns reading.
_EXIT_REPORTS = threading.Lock()


class WorkerTimedOut(Exception):
    """The task ran past its time limit, and its worker was killed; or, with ``started``
    False, no worker was free for it within that time."""

    def __init__(self, started: bool = True) -> None:
        super().__init__("the task ran past its time limit" if started else "no worker was free in time")
        self.started = started


class WorkerDied(Exception):
    """The worker stopped before it answered."""

    def __init__(self, exitcode: int | None) -> None:
        super().__init__(f"the worker stopped (exit code {exitcode})")
        self.exitcode = exitcode


# ------------------------------------------------------------------ in the worker


def serve(own_end: socket.socket, initializer: Callable[..., None], initargs: tuple[Any, ...]) -> None:
    """A worker's life: ``initializer(*initargs)`` (which may take a while: it warms the
    worker's caches), an empty message to say it is ready, then tasks until the socket
    closes. A task is a pickled ``(function, argument)``; its answer, ``(True, result)``
    or ``(False, exception)``. The owner closing its end (it is stopping) ends the worker
    quietly, whether it was waiting, warming up or answering."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the server's: it stops its workers
    connection = Connection(own_end.detach())
    initializer(*initargs)
    try:
        connection.send_bytes(b"")  # ready: the owner sends tasks from now on
        while True:
            task = connection.recv_bytes()
            try:
                function, argument = pickle.loads(task)
                answer: tuple[bool, Any] = (True, function(argument))
            except Exception as exc:
                exc.add_note(f"in the render worker:\n{traceback.format_exc()}")
                answer = (False, exc)
            connection.send_bytes(_pickled_answer(answer))
    except (EOFError, OSError):
        return


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


def _unpickled(payload: bytes) -> tuple[bool, Any]:
    try:
        outcome: tuple[bool, Any] = pickle.loads(payload)
    except Exception as exc:  # an exception class this process cannot make, say
        return False, RuntimeError(f"the worker's answer could not be read: {exc!r}")
    return outcome


class _Job:
    """A task on its way: waiting for a worker, then running in one."""

    def __init__(self, task: bytes, timeout: float, retire_if: Callable[[Any], bool] | None) -> None:
        self.task = task
        self.timeout = timeout
        self.retire_if = retire_if
        self.answer: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.worker: Worker | None = None  # the worker running it
        self.timer: asyncio.TimerHandle | None = None

    def settle(self, outcome: tuple[bool, Any] | BaseException) -> None:
        """Its result, or the exception its worker raised or it met."""
        if self.timer is not None:
            self.timer.cancel()
        if self.answer.done():
            return
        if isinstance(outcome, BaseException):
            self.answer.set_exception(outcome)
        elif outcome[0]:
            self.answer.set_result(outcome[1])
        else:
            self.answer.set_exception(outcome[1])


class Worker:
    """One worker process and its socket, seen from the owner."""

    def __init__(self, pool: WorkerPool, process: ForkServerProcess) -> None:
        self.pool = pool
        self.process = process
        self.transport: asyncio.Transport | None = None
        self.job: _Job | None = None  # the one it runs
        self.ready = False  # it has said so, once its initializer ran
        self.tasks = 0  # tasks given to it
        self.gone = False

    async def connect(self, end: socket.socket) -> None:
        """Talk to the worker over ``end``, the owner's end of its socket pair."""
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_unix_connection(lambda: _Answers(self), sock=end)
        self.transport = transport

    def start(self, job: _Job) -> None:
        """Send ``job`` to this idle worker; its time limit runs from now."""
        assert self.transport is not None
        self.job, job.worker = job, self
        self.tasks += 1
        self.transport.writelines(framed(job.task))
        job.timer = asyncio.get_running_loop().call_later(job.timeout, self.expire, job)

    def expire(self, job: _Job) -> None:
        if self.job is job:
            self.job = None
            self.kill()
            job.settle(WorkerTimedOut())

    def answered(self, payload: bytes) -> None:
        """The answer to its job: the worker takes the next job at once (before the
        answer is read by anyone), then the job is settled. The first message says the
        worker is ready for jobs."""
        if not self.ready:
            self.ready = True
            self.pool.free(self)
            return
        job, self.job = self.job, None
        if job is None:
            return
        outcome = _unpickled(payload)
        retire = outcome[0] and job.retire_if is not None and job.retire_if(outcome[1])
        if retire or (self.pool.max_tasks and self.tasks >= self.pool.max_tasks):
            self.close()
        else:
            self.pool.free(self)
        job.settle(outcome)

    def lost(self) -> None:
        """The socket closed: the worker exited, was killed or was retired."""
        self.gone = True
        job, self.job = self.job, None
        if job is not None:
            job.settle(WorkerDied(None))
        self.pool.left(self)

    def alive(self) -> bool:
        """Whether its process still runs: one killed while it waited is dead before its
        socket's closing is read, and a job sent to it would fail for nothing. The
        kernel closes a dead process's end of the socket at once, while the process
        object learns of the death only once the fork server has reaped it, so the
        socket is asked first."""
        if self._socket_closed():
            return False
        with contextlib.suppress(ValueError, AssertionError):  # never started, or not ours
            return self.process.is_alive()
        return False

    def _socket_closed(self) -> bool:
        """Whether the worker's end of the socket has closed (the owner's end hangs up),
        asked without waiting and without reading anything."""
        end = self.transport.get_extra_info("socket") if self.transport is not None else None
        if end is None:
            return False
        fileno = end.fileno()
        if fileno < 0:  # the owner closed its end: the worker is leaving
            return True
        hang_up = select.poll()
        hang_up.register(fileno, select.POLLHUP)
        return any(events & (select.POLLHUP | select.POLLERR | select.POLLNVAL) for _, events in hang_up.poll(0))

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
        """Wait for the process to end; its exit code, read in turn (``_EXIT_REPORTS``)."""
        with contextlib.suppress(ValueError):  # never started
            wait([self.process.sentinel], JOIN_SECONDS)  # without reading the report
        with _EXIT_REPORTS:
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
        self.idle: list[Worker] = []  # the last to have worked last
        self.waiting: deque[_Job] = deque()
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
        """``function(argument)`` in a worker (waiting for one for up to ``timeout``);
        WorkerTimedOut when it runs past ``timeout``, WorkerDied when its worker dies.
        A worker whose result meets ``retire_if`` takes no more tasks."""
        job = _Job(pickle.dumps((function, argument), pickle.HIGHEST_PROTOCOL), timeout, retire_if)
        self._place(job)
        try:
            return await job.answer
        except WorkerDied:
            if job.worker is None:  # the pool closed while it waited
                raise
            raise WorkerDied(await job.worker.exitcode()) from None
        except asyncio.CancelledError:  # nobody waits for the answer any more: stop the work
            with contextlib.suppress(ValueError):
                self.waiting.remove(job)
            if job.worker is not None and job.worker.job is job:
                job.worker.kill()
            raise

    def close(self) -> None:
        """Stop every worker now."""
        self.closed = True
        for task in self.starting:
            task.cancel()
        for worker in list(self.workers):
            worker.kill()
            worker.joined()
        while self.waiting:
            self.waiting.popleft().settle(WorkerDied(None))

    # -------------------------------------------------------------- bookkeeping

    def _place(self, job: _Job) -> None:
        """Start ``job`` in an idle worker, or queue it for the next one to be free."""
        while self.idle:
            worker = self.idle.pop()
            if not worker.gone and worker.alive():
                worker.start(job)
                return
            worker.close()  # its socket's closing reaches ``lost``, which replaces it
        self.start()
        self.waiting.append(job)
        job.timer = asyncio.get_running_loop().call_later(job.timeout, self._waited_too_long, job)

    def _waited_too_long(self, job: _Job) -> None:
        with contextlib.suppress(ValueError):
            self.waiting.remove(job)
            job.settle(WorkerTimedOut(started=False))

    def free(self, worker: Worker) -> None:
        """``worker`` has answered: it starts the next job waiting, or waits for one."""
        while self.waiting:
            job = self.waiting.popleft()
            if not job.answer.done():
                if job.timer is not None:
                    job.timer.cancel()
                worker.start(job)
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
            await asyncio.to_thread(_start, process, worker_end)
            await worker.connect(own_end)
        except asyncio.CancelledError:  # the pool closed meanwhile: the worker finds its socket closed
            own_end.close()
            worker.kill()
            raise
        except Exception:
            log.exception("a worker process could not be started; trying again")
            own_end.close()
            worker.kill()
            if not self.closed:
                self._start_one(delay=RESTART_DELAY)
            return
        if self.closed:
            worker.kill()
            return
        self.workers.add(worker)  # it takes jobs once it says it is ready


def _start(process: ForkServerProcess, worker_end: socket.socket) -> None:
    """Start ``process``, which is given ``worker_end``, then close this process's copy
    of that end: here, in the thread, since the start goes on even when the pool closes
    meanwhile, and an end closed before the start had handed it over would reach the
    worker as some other file."""
    try:
        with _EXIT_REPORTS:
            process.start()
    finally:
        worker_end.close()
