"""A request's short transactions on the event loop (``promptly``): run there while the
SQLite writer is free, sent to a thread, with the loop running on meanwhile, when
another process or another thread holds it, and nothing written twice or lost."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from templatekit_server import usage
from templatekit_server.db import Database, promptly, renders_in_flight
from templatekit_server.db import usage as usage_table
from templatekit_server.plans import DEFAULT_PLANS

PLAN = DEFAULT_PLANS["scale"]
HELD_SECONDS = 1.0


@pytest.fixture
def db(tmp_path: Path) -> Iterator[Database]:
    database = Database(f"sqlite:///{tmp_path / 'prompt.db'}")
    yield database
    database.close()


def counted(db: Database) -> int:
    with db.read() as connection:
        return sum(connection.execute(select(usage_table.c.count)).scalars())


#: The two kinds of write transaction a reservation runs in: SQLAlchemy's (``write``), and
#: the driver's own (``statements``), which a render's reservation uses.
TRANSACTIONS = ["write", "statements"]


@pytest.fixture(params=TRANSACTIONS)
def transaction(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def reserving(db: Database, threads: list[int], transaction: str = "write") -> Callable[[], usage.Reservation]:
    """A reservation of one generation, in a ``transaction`` of that kind, that notes the
    thread it ran in."""

    def work() -> usage.Reservation:
        threads.append(threading.get_ident())
        with db.write() if transaction == "write" else db.statements(write=True) as connection:
            return usage.reserve_in(db, connection, "ws_1", PLAN, 1, "createImage")

    return work


async def with_ticks(work: Any) -> tuple[Any, int, float]:
    """``work``'s result, how often the loop ticked every 10 ms meanwhile, and its time."""
    ticks = 0
    done = asyncio.Event()

    async def tick() -> None:
        nonlocal ticks
        while not done.is_set():
            await asyncio.sleep(0.01)
            ticks += 1

    ticker = asyncio.create_task(tick())
    started = time.monotonic()
    try:
        return await work, ticks, time.monotonic() - started
    finally:
        done.set()
        await ticker


def test_a_short_transaction_runs_on_the_event_loop_while_the_writer_is_free(db: Database, transaction: str) -> None:
    threads: list[int] = []
    asyncio.run(promptly(db, reserving(db, threads, transaction)))
    assert threads == [threading.get_ident()]
    assert counted(db) == 2  # the day and the month


def test_a_writer_held_by_another_process_sends_the_work_to_a_thread(
    db: Database, tmp_path: Path, transaction: str
) -> None:
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / "prompt.db"), str(HELD_SECONDS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    threads: list[int] = []
    _, ticks, seconds = asyncio.run(with_ticks(promptly(db, reserving(db, threads, transaction))))
    assert holder.wait(10) == 0
    assert seconds > HELD_SECONDS / 2  # it waited for the other process, in a thread
    assert threads[0] == threading.get_ident() and len(set(threads)) == 2
    assert ticks > 20  # and the loop ran on meanwhile
    assert counted(db) == 2  # once


def test_a_writer_held_by_another_thread_sends_the_work_to_a_thread(db: Database, transaction: str) -> None:
    held = threading.Event()

    def hold() -> None:
        with db.write():
            held.set()
            time.sleep(HELD_SECONDS)

    holder = threading.Thread(target=hold)
    holder.start()
    held.wait(5)
    threads: list[int] = []
    _, ticks, seconds = asyncio.run(with_ticks(promptly(db, reserving(db, threads, transaction))))
    holder.join()
    assert seconds > HELD_SECONDS / 2
    assert threads[0] == threading.get_ident() and threads[1] not in (threads[0], holder.ident)
    assert ticks > 20
    assert counted(db) == 2


def test_releases_kept_for_later_survive_a_busy_writer(db: Database, tmp_path: Path) -> None:
    """A failed render's release waits for the database; the next reservation, turned back
    from the loop by a busy writer, leaves it waiting for the thread that writes it."""
    reservation = usage.reserve(db, "ws_1", PLAN, 1, "createImage")
    releases = usage.Releases()
    releases._waiting.append(reservation)  # as the database's refusal leaves it
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(tmp_path / "prompt.db"), str(HELD_SECONDS)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
    asyncio.run(promptly(db, releases.settle, db))
    assert holder.wait(10) == 0
    assert counted(db) == 0 and not releases._waiting


_HOLD = """
import sqlite3, sys, time
connection = sqlite3.connect(sys.argv[1], isolation_level=None)
connection.execute("BEGIN IMMEDIATE")
print("held", flush=True)
time.sleep(float(sys.argv[2]))
connection.execute("COMMIT")
"""


def test_the_log_that_prompt_commits_leave_is_copied_by_a_checkpoint(db, tmp_path):
    """The loop's connections never checkpoint: what they commit stays in the log, the
    database file unchanged, until ``checkpoint`` copies it there; a database without
    them needs no checkpoints at all."""

    async def reserve_many() -> None:
        for _ in range(50):
            await promptly(db, reserving(db, []))

    asyncio.run(reserve_many())
    db.checkpoint()
    data_file = tmp_path / "prompt.db"
    before = data_file.read_bytes()
    asyncio.run(reserve_many())
    assert db.needs_checkpoints and data_file.read_bytes() == before
    db.checkpoint()
    assert data_file.read_bytes() != before
    with db.read() as connection:  # nothing left in the log to copy
        _, frames, copied = connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").one()
    assert frames == copied
    memory = Database("sqlite://")
    try:
        assert not memory.needs_checkpoints
    finally:
        memory.close()


def test_a_driver_transaction_that_fails_part_way_writes_nothing(db: Database) -> None:
    """``statements`` commits only when its block ends well: an error of the block's own,
    or a statement the database refuses (raised as SQLAlchemy raises it), rolls back what
    the block wrote before it."""
    with pytest.raises(RuntimeError), db.statements(write=True) as connection:
        usage.reserve_in(db, connection, "ws_1", PLAN, 1, "createImage")
        raise RuntimeError("the render's template is gone")
    assert counted(db) == 0
    with pytest.raises(IntegrityError), db.statements(write=True) as connection:
        reservation = usage.in_flight_in(db, connection, usage.reserve_in(db, connection, "ws_1", PLAN, 1, "x"))
        row = {"id": reservation.in_flight, "workspace_id": "ws_1", "day": "d", "month": "m", "operation": "x"}
        db.run(
            connection,
            usage._RECORD_IN_FLIGHT,
            {**row, "generations": 1, "project_id": "", "rendered": False, "touched_at": 0.0},
        )
    assert counted(db) == 0
    with db.read() as connection:
        assert connection.execute(select(renders_in_flight)).all() == []
    with db.statements(write=True) as connection:  # the connection went back to the pool fit for use
        usage.reserve_in(db, connection, "ws_1", PLAN, 1, "createImage")
    assert counted(db) == 2
