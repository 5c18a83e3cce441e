"""The worker pool on its own: tasks and answers over each worker's socket, a task past
its time limit killed, a dead worker replaced, retirement by count and by result, and
exceptions carried back with the worker's traceback."""

from __future__ import annotations

import asyncio
import importlib
import multiprocessing
import os
import pickle
import select
import signal
import socket
import time
from collections.abc import Awaitable, Callable
from multiprocessing.connection import Connection
from typing import Any

import pytest

from templatekit_server.workers import WorkerDied, WorkerPool, WorkerTimedOut, framed, serve, unframed


def nothing() -> None:
    """The workers' initializer."""


def pid_of(_: Any) -> int:
    return os.getpid()


def echo(value: Any) -> Any:
    return value


def sleep_then_pid(seconds: float) -> int:
    time.sleep(seconds)
    return os.getpid()


def die(code: int) -> None:
    os._exit(code)


def fail(message: str) -> None:
    raise ValueError(message)


def with_pool(test: Callable[[WorkerPool], Awaitable[None]], size: int = 2, **options: Any) -> None:
    async def run() -> None:
        pool = WorkerPool(size, initializer=nothing, initargs=(), **options)
        pool.start()
        try:
            await test(pool)
        finally:
            pool.close()

    asyncio.run(run())


def test_framing_matches_what_a_connection_reads() -> None:
    buffer = bytearray()
    for payload in (b"", b"a", b"x" * 70_000):
        buffer += b"".join(framed(payload))
    messages = []
    while (message := unframed(buffer)) is not None:
        payload, used = message
        del buffer[:used]
        messages.append(payload)
    assert messages == [b"", b"a", b"x" * 70_000] and not buffer
    assert unframed(bytearray(b"".join(framed(b"abc"))[:-1])) is None  # not all there yet


def test_tasks_run_in_the_workers_and_large_answers_come_back_whole() -> None:
    async def test(pool: WorkerPool) -> None:
        pids = await asyncio.gather(*(pool.run(pid_of, None, 30) for _ in range(8)))
        assert os.getpid() not in pids and 1 <= len(set(pids)) <= 2
        large = os.urandom(3_000_000)
        assert await pool.run(echo, large, 30) == large

    with_pool(test)


def test_a_task_past_its_time_limit_is_stopped_and_a_new_worker_takes_over() -> None:
    async def test(pool: WorkerPool) -> None:
        stopped = await pool.run(pid_of, None, 30)  # the one worker, which the slow task gets
        started = time.monotonic()
        with pytest.raises(WorkerTimedOut) as stopped_at:
            await pool.run(sleep_then_pid, 30, 0.5)
        assert stopped_at.value.started
        assert time.monotonic() - started < 5
        after = set(await asyncio.gather(*(pool.run(pid_of, None, 30) for _ in range(6))))
        assert len(after) == 1 and stopped not in after

    with_pool(test, size=1)


def test_a_worker_that_dies_fails_only_its_task_with_its_exit_code() -> None:
    async def test(pool: WorkerPool) -> None:
        with pytest.raises(WorkerDied) as died:
            await pool.run(die, 7, 30)
        assert died.value.exitcode == 7
        assert await pool.run(echo, 42, 30) == 42

    with_pool(test, size=1)


def test_a_killed_idle_worker_is_replaced() -> None:
    async def test(pool: WorkerPool) -> None:
        first = await pool.run(pid_of, None, 30)
        os.kill(first, signal.SIGKILL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            await asyncio.sleep(0.05)
            if pool.workers and all(worker.process.pid != first for worker in pool.workers):
                break
        assert await pool.run(pid_of, None, 30) != first

    with_pool(test, size=1)


def test_a_task_skips_an_idle_worker_that_died_before_the_fork_server_reaped_it() -> None:
    """A killed worker's socket closes as the kernel ends it, before the fork server
    reaps it and tells the pool; with the fork server stopped, that moment lasts, and a
    task placed in it must still go to the worker that lives."""

    async def test(pool: WorkerPool) -> None:
        deadline = time.monotonic() + 30
        while len(pool.idle) < 2:  # both started and waiting for tasks
            assert time.monotonic() < deadline
            await asyncio.sleep(0.05)
        pids = {worker.process.pid for worker in pool.idle}
        dying = pool.idle[-1]  # the one the next task is offered first
        fork_server = multiprocessing.forkserver._forkserver._forkserver_pid  # type: ignore[attr-defined]
        os.kill(fork_server, signal.SIGSTOP)
        try:
            os.kill(dying.process.pid, signal.SIGKILL)
            owner_end = dying.transport.get_extra_info("socket")  # type: ignore[union-attr]
            # its end closed; the event loop, blocked here, has not read that yet
            assert select.select([owner_end.fileno()], [], [], 10)[0]
            assert dying.process.is_alive()  # as far as its process object knows
            answer = await asyncio.wait_for(pool.run(pid_of, None, 30), 10)
            assert answer == (pids - {dying.process.pid}).pop()
        finally:
            os.kill(fork_server, signal.SIGCONT)

    with_pool(test, size=2)


def test_a_task_the_worker_cannot_unpickle_fails_alone() -> None:
    async def test(pool: WorkerPool) -> None:
        with pytest.raises(ModuleNotFoundError, match="templatekit_no_such_module"):
            await pool.run(Unpicklable(), None, 30)
        assert await pool.run(echo, "after", 30) == "after"

    with_pool(test, size=1)


class Unpicklable:
    """Pickles as an import that fails where it is unpickled."""

    def __reduce__(self) -> tuple[Any, ...]:
        return (importlib.import_module, ("templatekit_no_such_module",))

    def __call__(self, _: Any) -> None:
        raise AssertionError("never called here")


def test_an_exception_comes_back_with_the_workers_traceback() -> None:
    async def test(pool: WorkerPool) -> None:
        with pytest.raises(ValueError, match="no such layer") as raised:
            await pool.run(fail, "no such layer", 30)
        assert any("in the render worker" in note and "fail" in note for note in raised.value.__notes__)
        assert await pool.run(echo, 1, 30) == 1  # the worker lives on

    with_pool(test, size=1)


def test_workers_retire_after_their_number_of_tasks() -> None:
    async def test(pool: WorkerPool) -> None:
        pids = [await pool.run(pid_of, None, 30) for _ in range(7)]
        assert [len(set(pids[n : n + 3])) for n in (0, 3)] == [1, 1]
        assert len(set(pids)) == 3

    with_pool(test, size=1, max_tasks=3)


def test_a_worker_retires_after_a_result_that_says_so() -> None:
    async def test(pool: WorkerPool) -> None:
        first = await pool.run(pid_of, None, 30, retire_if=lambda pid: True)
        second = await pool.run(pid_of, None, 30)
        third = await pool.run(pid_of, None, 30)
        assert first != second == third

    with_pool(test, size=1)


def test_a_cancelled_task_stops_its_worker() -> None:
    async def test(pool: WorkerPool) -> None:
        task = asyncio.ensure_future(pool.run(sleep_then_pid, 30, 60))
        await asyncio.sleep(1.0)
        busy = next(iter(pool.workers))
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        # read as the pool reads it: the pool's reaper reads the same report meanwhile
        assert await busy.exitcode() == -signal.SIGKILL
        assert await pool.run(echo, "next", 30) == "next"

    with_pool(test, size=1)


def test_tasks_wait_for_a_free_worker_in_turn_and_no_longer_than_their_limit() -> None:
    async def test(pool: WorkerPool) -> None:
        busy = asyncio.ensure_future(pool.run(sleep_then_pid, 1.5, 30))
        await asyncio.sleep(0.2)
        queued = [asyncio.ensure_future(pool.run(echo, n, 30)) for n in range(3)]
        with pytest.raises(WorkerTimedOut) as waited:
            await pool.run(echo, "impatient", 0.3)  # waited for a worker past its limit
        assert not waited.value.started
        worker = await busy  # the waiting task that gave up stopped nothing
        assert await asyncio.gather(*queued) == [0, 1, 2]
        assert await pool.run(pid_of, None, 30) == worker

    with_pool(test, size=1)


@pytest.mark.parametrize("when", ["warming up", "answering"])
def test_a_worker_whose_owner_went_away_exits_quietly(when: str) -> None:
    """A stopping server closes its end of a worker's socket while the worker warms up or
    renders: the worker ends with exit code 0, not a broken-pipe traceback."""
    own_end, worker_end = socket.socketpair()
    process = multiprocessing.get_context("forkserver").Process(
        target=serve, args=(worker_end, time.sleep, (0.5 if when == "warming up" else 0,))
    )
    process.start()
    worker_end.close()
    owner = Connection(own_end.detach())
    if when == "answering":
        assert owner.recv_bytes() == b""  # ready
        owner.send_bytes(pickle.dumps((time.sleep, 0.5)))
    owner.close()
    process.join(10)
    assert process.exitcode == 0
