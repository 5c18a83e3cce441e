"""A workspace keeps at least one owner when two of its owners are demoted at the same
moment on PostgreSQL (hosts sharing a database): each change must see the other's, or
both see two owners, both go through, and the workspace has none."""

from __future__ import annotations

import threading

import pytest

from templatekit_server import accounts, people
from templatekit_server.accounts import AccountError
from templatekit_server.db import Database
from templatekit_server.plans import DEFAULT_PLANS
from tests.server import services

pytestmark = pytest.mark.slow


def test_two_owners_demoted_at_once_leave_one_owner():
    with services.postgres() as pg:
        db = Database(pg.url)
        workspace = accounts.create_workspace(db, "Acme", "pro", DEFAULT_PLANS)
        first = people.create_user(db, "ana@example.com", "a long enough password")
        second = people.create_user(db, "bo@example.com", "a long enough password")
        for user in (first, second):
            people.add_member(db, workspace, user, "owner")
        outcome: list[BaseException | None] = []

        def demote_second() -> None:
            try:
                people.add_member(db, workspace, second, "admin")
                outcome.append(None)
            except AccountError as exc:
                outcome.append(exc)

        with db.write() as connection:  # the first owner's demotion, not committed yet
            people.add_member_in(db, connection, workspace, first, "admin", "test")
            other = threading.Thread(target=demote_second)
            other.start()
            other.join(timeout=1.0)  # it waits for this one to end, or went through already
        other.join(timeout=30)
        roles = {member["id"]: member["role"] for member in people.members(db, workspace)}
        assert "owner" in roles.values(), roles
        assert len(outcome) == 1 and isinstance(outcome[0], AccountError), outcome
