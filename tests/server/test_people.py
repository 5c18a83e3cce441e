"""The people of a workspace on a real SQLite file: passwords hashed with argon2id,
the same answer for an unknown email and a wrong password, the throttle on failed
sign-ins, sessions that end at once, roles, and what leaving a workspace ends."""

from __future__ import annotations

import re
import sqlite3
import time

import pytest
from sqlalchemy import select

from templatekit_server import accounts, audit, invitations, people, usage
from templatekit_server.accounts import AccountError
from templatekit_server.db import MIGRATIONS, Database, _people, users
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer, server_secret

PASSWORD = "correct horse battery"


@pytest.fixture
def db(tmp_path):
    database = Database(f"sqlite:///{tmp_path / 'server.db'}")
    yield database
    database.close()


@pytest.fixture
def workspace(db) -> str:
    return accounts.create_workspace(db, "Acme", "pro", DEFAULT_PLANS)


def test_a_password_is_kept_as_an_argon2id_hash_and_checked(db):
    user = people.create_user(db, "  Ana@Example.com ", PASSWORD)
    with db.read() as connection:
        stored = connection.execute(select(users.c.email, users.c.password_hash)).one()
    assert stored.email == "ana@example.com"
    assert stored.password_hash.startswith("$argon2id$") and PASSWORD not in stored.password_hash
    assert people.check_password(db, "ANA@example.com", PASSWORD, ["email:ana@example.com"]) == user
    assert people.check_password(db, "ana@example.com", "wrong password!", ["email:ana@example.com"]) is None
    assert people.check_password(db, "nobody@example.com", PASSWORD, ["email:nobody@example.com"]) is None


@pytest.mark.parametrize(
    ("email", "password", "message"),
    [
        ("not an email", PASSWORD, "email 'not an email': must be an address"),
        ("ana@example.com", "short", "password: must be at least 10 characters (got 5)"),
    ],
)
def test_a_bad_email_or_password_is_refused_by_name(db, email, password, message):
    with pytest.raises(AccountError, match=re.escape(message)):
        people.create_user(db, email, password)


def test_an_email_belongs_to_one_user(db):
    people.create_user(db, "ana@example.com", PASSWORD)
    with pytest.raises(AccountError, match="a user has it already"):
        people.create_user(db, "Ana@example.com", PASSWORD)


def test_ten_failures_throttle_the_email_and_the_address_and_success_is_not_counted(db):
    people.create_user(db, "ana@example.com", PASSWORD)
    subjects = ["email:ana@example.com", "address:10.0.0.1"]
    for _ in range(people.THROTTLE_FAILURES - 1):
        people.check_password(db, "ana@example.com", "wrong password!", subjects)
    assert not people.throttled(db, subjects)
    assert people.check_password(db, "ana@example.com", PASSWORD, subjects)  # a success counts nothing
    assert not people.throttled(db, subjects)
    people.check_password(db, "ana@example.com", "wrong password!", subjects)
    assert people.throttled(db, subjects)
    assert people.throttled(db, ["address:10.0.0.1"])  # the address alone, for any other email
    assert not people.throttled(db, ["email:bo@example.com", "address:10.0.0.2"])  # others may go on


def test_a_session_ends_at_sign_out_or_a_new_password(db, workspace):
    user = people.create_user(db, "ana@example.com", PASSWORD)
    people.add_member(db, workspace, user, "admin")
    token = people.start_session(db, user)
    found = people.session(db, token)
    assert found is not None and found.email == "ana@example.com" and len(found.csrf) >= 24
    assert people.session(db, token + "x") is None
    people.end_session(db, token)
    assert people.session(db, token) is None

    token = people.start_session(db, user)
    people.set_password(db, "ana@example.com", "a new passphrase")
    assert people.session(db, token) is None
    assert people.check_password(db, "ana@example.com", "a new passphrase", ["email:ana@example.com"]) == user


def test_leaving_one_workspace_or_a_lower_role_ends_only_that_workspaces_editor_keys(db, workspace, tmp_path):
    """A person in two workspaces: one owner's decision ends nothing in the other."""
    sealer = Sealer(server_secret(None, tmp_path))
    other = accounts.create_workspace(db, "Beta", "pro", DEFAULT_PLANS)
    user = people.create_user(db, "ana@example.com", PASSWORD)
    people.add_member(db, workspace, user, "designer")
    people.add_member(db, other, user, "designer")
    token = people.start_session(db, user)
    session_id = accounts.sha256_hex(token)

    def editor_key(workspace_id: str) -> str:
        project = accounts.create_project(db, workspace_id, "Site")
        expires = time.time() + 3600
        return accounts.create_key(db, sealer, project, expires_at=expires, session_id=session_id)[1]

    here, there = editor_key(workspace), editor_key(other)
    people.add_member(db, workspace, user, "admin")  # more than before: nothing ends
    assert accounts.caller_for_key(db, here) is not None
    people.add_member(db, workspace, user, "viewer")  # less than before: its editor keys end
    assert accounts.caller_for_key(db, here) is None
    assert accounts.caller_for_key(db, there) is not None

    here = editor_key(workspace)
    people.remove_member(db, workspace, user, "bo@example.com")
    assert accounts.caller_for_key(db, here) is None
    ended = [
        (entry["actor"], entry["detail"].split(": ", 1)[1])
        for entry in audit.entries(db, workspace)
        if entry["action"] == "key revoked"
    ]
    assert sorted(ended) == [  # each noted, naming who ended it and why
        ("admin command", "a role of viewer ends what admin was given"),
        ("bo@example.com", "its member was removed"),
    ]
    assert not [entry for entry in audit.entries(db, other) if entry["action"] == "key revoked"]
    assert people.workspaces_of(db, user) == [{"id": other, "name": "Beta", "plan": "pro", "role": "designer"}]
    assert people.session(db, token) is not None  # still signed in, to the other workspace
    assert accounts.caller_for_key(db, there) is not None


def test_roles_in_workspaces(db, workspace):
    user = people.create_user(db, "ana@example.com", PASSWORD)
    with pytest.raises(AccountError, match="role 'boss': must be one of owner, admin, designer, viewer"):
        people.add_member(db, workspace, user, "boss")
    people.add_member(db, workspace, user, "designer")
    people.add_member(db, workspace, user, "viewer")  # a new role, not a second membership
    assert people.role_in(db, user, workspace) == "viewer"
    assert [m["email"] for m in people.members(db, workspace)] == ["ana@example.com"]
    assert people.workspaces_of(db, user) == [{"id": workspace, "name": "Acme", "plan": "pro", "role": "viewer"}]


def test_a_database_from_before_people_is_brought_up_to_date_and_its_keys_list_their_start(tmp_path):
    url = f"sqlite:///{tmp_path / 'old.db'}"
    sealer = Sealer(server_secret(None, tmp_path))
    made = Database(url)
    workspace = accounts.create_workspace(made, "Old", "pro", DEFAULT_PLANS)
    project = accounts.create_project(made, workspace, "p")
    key_id, key = accounts.create_key(made, sealer, project)
    made.close()
    with sqlite3.connect(tmp_path / "old.db") as old:  # as the version before people left it
        for table in ("users", "memberships", "sessions", "sign_in_failures", "audit_log", "invitations"):
            old.execute(f"DROP TABLE {table}")
        old.execute("DROP TABLE usage_by_project")
        for column in ("prefix", "expires_at", "session_id", "note", "last_used_at"):
            if column == "session_id":
                old.execute("DROP INDEX IF EXISTS ix_api_keys_session_id")
            old.execute(f"ALTER TABLE api_keys DROP COLUMN {column}")
        old.execute(f"UPDATE schema_version SET version = {MIGRATIONS.index(_people)}")
    db = Database(url)
    try:
        (listed,) = accounts.keys_of(db, sealer, project)
        assert (listed["id"], listed["prefix"], listed["last_used_at"]) == (key_id, key[:12], None)
        user = people.create_user(db, "ana@example.com", PASSWORD)
        people.add_member(db, workspace, user, "owner")
        assert accounts.caller_for_key(db, key) is not None
        usage.reserve(db, workspace, DEFAULT_PLANS["pro"], 2, "createImage", project_id=project)
        assert usage.by_project_and_day(db, workspace, 1) == {project: {usage.periods(time.time())[0]: 2}}
        assert accounts.keys_of(db, sealer, project)[0]["last_used_at"] is not None
    finally:
        db.close()


def test_a_link_used_by_two_new_people_makes_one_account_and_no_account_that_belongs_nowhere(db, workspace):
    """Two people who fill in a link's form at once both hash their password first; the
    account is made in the transaction that uses the link, so the second makes none."""
    token = invitations.invite(db, workspace, "designer", "owner@example.com")
    first, second = (people.password_hash(PASSWORD) for _ in range(2))  # both done before either joins
    ana, joined = invitations.accept_new(db, token, "ana@example.com", first)
    assert joined == workspace and people.role_in(db, ana, workspace) == "designer"
    with pytest.raises(AccountError, match="was used already"):
        invitations.accept_new(db, token, "bo@example.com", second)
    assert people.user_id_of(db, "bo@example.com") is None
