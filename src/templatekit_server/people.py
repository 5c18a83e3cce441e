"""The people of a workspace: users who sign in to the dashboard with an email and a
password (argon2id), their roles in workspaces, their sessions, and the throttle on
failed sign-ins. Sessions are rows, so that signing out, a new password or removal from
a workspace ends them at once on every host."""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from functools import cache
from typing import Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError
from attrs import frozen
from sqlalchemy import ColumnElement, Connection, delete, func, select, update

from templatekit.service import shown_value
from templatekit_server import audit
from templatekit_server.accounts import AccountError, new_id, sha256_hex
from templatekit_server.db import (
    Database,
    api_keys,
    invitations,
    memberships,
    now,
    projects,
    sessions,
    sign_in_failures,
    users,
    workspaces,
)

#: What each role may do, from most to least: owner (everything, members), admin
#: (projects, keys, webhooks, hooks, templates), designer (templates, assets, the editor),
#: viewer (read only).
ROLES = ("owner", "admin", "designer", "viewer")
#: How long a session lasts without signing in again.
SESSION_SECONDS = 7 * 24 * 3600
#: Failed sign-ins allowed per email and per address in ``THROTTLE_SECONDS``.
THROTTLE_FAILURES = 10
THROTTLE_SECONDS = 15 * 60
MIN_PASSWORD = 10

_hasher = PasswordHasher()  # argon2id with RFC 9106's low-memory parameters


#: Who ends an editor's keys when their session ends at a sign-out (a role lowered, a
#: removal or a new password name who did that).
SESSION_END = "the dashboard"


@cache
def _nobody() -> str:
    """Checked against when no user has the email, so that an unknown email takes as long
    as a wrong password. Made at the first sign-in, not at import: a hash costs a fifth
    of a second, which every command and server start would pay."""
    return _hasher.hash(secrets.token_urlsafe(16))


@frozen
class Session:
    user_id: str
    email: str
    csrf: str
    id: str  # the hash of its token, as keys made for it name it


#: The longest an email may be: RFC 5321's longest local part (64) and domain (255) with
#: the "@". Accounts made under this bound keep signing in, so it is not lowered.
MAX_EMAIL = 320


def checked_length(email: str) -> str:
    """The email trimmed, refused by its length before anything else is done with it (it
    is not shown back: a form may send any size)."""
    trimmed = email.strip()
    if len(trimmed) > MAX_EMAIL:
        raise AccountError(f"email: at most {MAX_EMAIL} characters (got {len(trimmed):,})")
    return trimmed


def normal_email(email: str) -> str:
    """The email as stored: trimmed and lower-cased; refused when it cannot be one."""
    cleaned = checked_length(email).lower()
    local, _, domain = cleaned.partition("@")
    if not local or "." not in domain or any(c.isspace() for c in cleaned):
        raise AccountError(f"email {email!r}: must be an address such as ana@example.com")
    return cleaned


def _checked_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise AccountError(f"password: must be at least {MIN_PASSWORD} characters (got {len(password)})")
    return password


def checked_role(role: str) -> str:
    if role not in ROLES:
        raise AccountError(f"role {shown_value(role)}: must be one of {', '.join(ROLES)}")
    return role


def create_user(db: Database, email: str, password: str) -> str:
    address = normal_email(email)
    hashed = password_hash(password)
    with db.write() as connection:
        return add_user_in(connection, address, hashed)


def password_hash(password: str) -> str:
    """The hash kept for a new password (the slow part of making a user: done before the
    transaction that adds them)."""
    return _hasher.hash(_checked_password(password))


def add_user_in(connection: Connection, address: str, hashed: str) -> str:
    """A new user of a normal email, in the caller's transaction: the new id."""
    if connection.execute(select(users.c.id).where(users.c.email == address)).first() is not None:
        raise AccountError(f"email {address!r}: a user has it already")
    user_id = new_id("usr")
    connection.execute(users.insert().values(id=user_id, email=address, password_hash=hashed, created_at=now()))
    return user_id


def user_id_of(db: Database, email: str) -> str | None:
    with db.read() as connection:
        return connection.execute(select(users.c.id).where(users.c.email == normal_email(email))).scalar()


def set_password(db: Database, email: str, password: str) -> None:
    """A new password; the user's sessions end."""
    hashed = _hasher.hash(_checked_password(password))
    with db.write() as connection:
        user_id = connection.execute(select(users.c.id).where(users.c.email == normal_email(email))).scalar()
        if user_id is None:
            raise AccountError(f"email {email!r}: no user has it")
        connection.execute(update(users).where(users.c.id == user_id).values(password_hash=hashed))
        _end_sessions(connection, sessions.c.user_id == user_id, audit.ADMIN_COMMAND, "the password changed")


def add_member(db: Database, workspace_id: str, user_id: str, role: str, actor: str = audit.ADMIN_COMMAND) -> None:
    """``user_id`` in the workspace with ``role`` (a new role if a member already)."""
    with db.write() as connection:
        add_member_in(db, connection, workspace_id, user_id, role, actor)


def add_member_in(db: Database, connection: Connection, workspace_id: str, user_id: str, role: str, actor: str) -> None:
    """``add_member`` in a transaction of the caller's (accepting an invitation)."""
    checked_role(role)
    if connection.execute(select(workspaces.c.id).where(workspaces.c.id == workspace_id)).first() is None:
        raise AccountError(f"workspace {workspace_id!r} does not exist")
    before = _role_in(connection, user_id, workspace_id)
    if before is not None and before != role:
        _keep_an_owner(connection, workspace_id, user_id)
    db.upsert(
        connection,
        memberships,
        {"workspace_id": workspace_id, "user_id": user_id},
        {"role": role, "created_at": now()},
    )
    email = connection.execute(select(users.c.email).where(users.c.id == user_id)).scalar() or user_id
    if before is None:
        audit.record(connection, workspace_id, actor, "member added", email, f"role {role}")
    elif before != role:
        if ROLES.index(role) > ROLES.index(before):  # less than before: what the old role was given ends
            ended = f"a role of {role} ends what {before} was given"
            _revoke_editor_keys(connection, workspace_id, user_id, actor, ended)
            if role != "owner":  # only owners invite: the links they made stop working
                _cancel_invitations_of(connection, workspace_id, email, actor, ended)
        audit.record(connection, workspace_id, actor, "role changed", email, f"{before} to {role}")


def join_in(db: Database, connection: Connection, workspace_id: str, user_id: str, role: str, actor: str) -> None:
    """A person joins by an invitation, in the caller's transaction. Someone who is a
    member already is told so and keeps their role: an invitation adds people (an owner
    changes roles on the members page), and its link stays for the one it was made for."""
    current = _role_in(connection, user_id, workspace_id)
    if current is not None:
        name = connection.execute(select(workspaces.c.name).where(workspaces.c.id == workspace_id)).scalar()
        raise AccountError(member_already(str(name), current))
    add_member_in(db, connection, workspace_id, user_id, role, actor)


def member_already(workspace_name: str, role: str) -> str:
    """What a member who opens an invitation is told, on its page and if they join anyway.
    The name is isolated (U+2068, U+2069): a right-to-left name cannot turn the sentence."""
    return (
        f"you are already a member of \u2068{workspace_name}\u2069 as {role}: "
        "the invitation is left for the person it was made for"
    )


def remove_member(db: Database, workspace_id: str, user_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    """Out of the workspace, and the editor keys made for the person in its projects
    revoked. The person's sessions go on: they may belong to other workspaces, whose
    owners alone decide about them, and each page asks for the role anew. The last
    owner of a workspace stays."""
    with db.write() as connection:
        _keep_an_owner(connection, workspace_id, user_id)
        done = connection.execute(
            delete(memberships).where(memberships.c.workspace_id == workspace_id, memberships.c.user_id == user_id)
        )
        _revoke_editor_keys(connection, workspace_id, user_id, actor, "its member was removed")
        if done.rowcount:
            email = connection.execute(select(users.c.email).where(users.c.id == user_id)).scalar() or user_id
            _cancel_invitations_of(connection, workspace_id, email, actor, "the member who made it was removed")
            _cancel_invitations_for(connection, workspace_id, email, actor, "the member it was for was removed")
            audit.record(connection, workspace_id, actor, "member removed", email)


def _keep_an_owner(connection: Connection, workspace_id: str, user_id: str) -> None:
    """AccountError when ``user_id`` is the workspace's only owner (about to go or change).
    The owners' rows are locked until the transaction ends (PostgreSQL; SQLite writes one
    at a time): two owners demoted at once would each see the other and leave none."""
    owners = {
        row.user_id
        for row in connection.execute(
            select(memberships.c.user_id)
            .where(memberships.c.workspace_id == workspace_id, memberships.c.role == "owner")
            .with_for_update()
        )
    }
    if owners == {user_id}:
        raise AccountError("a workspace keeps at least one owner: make another member owner first")


def _cancel_invitations_of(connection: Connection, workspace_id: str, email: str, actor: str, why: str) -> None:
    """The pending invitations ``email`` made to the workspace stop working (they count
    as expired, as a cancelled one does): a person removed, or no longer an owner, cannot
    come back, or bring someone in, with a link made before."""
    _cancel_pending(connection, workspace_id, invitations.c.invited_by == email, actor, why)


def _cancel_invitations_for(connection: Connection, workspace_id: str, email: str, actor: str, why: str) -> None:
    """The pending invitations made for ``email`` to the workspace stop working: a link left
    for a member (who was told they are one already) would bring them back after their
    removal, with the role it names."""
    _cancel_pending(connection, workspace_id, invitations.c.email == email, actor, why)


def _cancel_pending(connection: Connection, workspace_id: str, which: Any, actor: str, why: str) -> None:
    """The workspace's pending invitations that match ``which`` expire now, each noted in
    the audit log."""
    pending = (
        connection.execute(
            select(invitations.c.id).where(
                invitations.c.workspace_id == workspace_id,
                which,
                invitations.c.accepted_at.is_(None),
                invitations.c.expires_at > now(),
            )
        )
        .scalars()
        .all()
    )
    if not pending:
        return
    connection.execute(update(invitations).where(invitations.c.id.in_(pending)).values(expires_at=now()))
    for invitation_id in pending:
        audit.record(connection, workspace_id, actor, "invitation cancelled", invitation_id, why)


def _revoke_editor_keys(connection: Connection, workspace_id: str, user_id: str, actor: str, why: str) -> None:
    """The keys made for the person's sessions to edit the workspace's projects end."""
    theirs = select(sessions.c.id).where(sessions.c.user_id == user_id)
    here = api_keys.c.session_id.in_(theirs) & (projects.c.workspace_id == workspace_id)
    _revoke_keys(connection, here, actor, why)


def _revoke_keys(connection: Connection, which: ColumnElement[bool], actor: str, why: str) -> None:
    """The live editor keys ``which`` selects are revoked, each noted in its workspace's
    audit log with who ended it and why, as their making was: a key never ends
    unrecorded."""
    ending = connection.execute(
        select(api_keys.c.id, api_keys.c.prefix, api_keys.c.project_id, projects.c.workspace_id)
        .join(projects, projects.c.id == api_keys.c.project_id)
        .where(which, api_keys.c.revoked_at.is_(None))
    ).all()
    if not ending:
        return
    connection.execute(update(api_keys).where(api_keys.c.id.in_([key.id for key in ending])).values(revoked_at=now()))
    for key in ending:
        subject = f"{key.id} ({key.prefix}…)" if key.prefix else key.id
        detail = f"project {key.project_id}: {why}"
        audit.record(connection, key.workspace_id, actor, "key revoked", subject, detail)


def _role_in(connection: Connection, user_id: str, workspace_id: str) -> str | None:
    return connection.execute(
        select(memberships.c.role).where(memberships.c.user_id == user_id, memberships.c.workspace_id == workspace_id)
    ).scalar()


def members(db: Database, workspace_id: str) -> list[dict[str, Any]]:
    query = (
        select(users.c.id, users.c.email, memberships.c.role, memberships.c.created_at)
        .join(memberships, memberships.c.user_id == users.c.id)
        .where(memberships.c.workspace_id == workspace_id)
        .order_by(users.c.email)
    )
    with db.read() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def workspaces_of(db: Database, user_id: str) -> list[dict[str, Any]]:
    """The workspaces the user belongs to, with the role in each, by name."""
    query = (
        select(workspaces.c.id, workspaces.c.name, workspaces.c.plan, memberships.c.role)
        .join(memberships, memberships.c.workspace_id == workspaces.c.id)
        .where(memberships.c.user_id == user_id)
        .order_by(workspaces.c.name, workspaces.c.id)
    )
    with db.read() as connection:
        return [dict(row._mapping) for row in connection.execute(query)]


def role_in(db: Database, user_id: str, workspace_id: str) -> str | None:
    with db.read() as connection:
        return _role_in(connection, user_id, workspace_id)


# ------------------------------------------------------------------ signing in


def throttled(db: Database, subjects: Iterable[str]) -> bool:
    """Whether any of ``subjects`` ("email:…", "address:…") failed too often lately."""
    since = now() - THROTTLE_SECONDS
    with db.read() as connection:
        for subject in subjects:
            count = connection.execute(
                select(func.count())
                .select_from(sign_in_failures)
                .where(sign_in_failures.c.subject == subject, sign_in_failures.c.at > since)
            ).scalar()
            if (count or 0) >= THROTTLE_FAILURES:
                return True
    return False


def check_password(db: Database, email: str, password: str, subjects: Iterable[str]) -> str | None:
    """The user's id when the password is theirs; else None, the failure counted for
    ``subjects``. An unknown email costs the same hash as a wrong password."""
    try:
        address = normal_email(email)
    except AccountError:
        address = ""
    with db.read() as connection:
        row = connection.execute(select(users.c.id, users.c.password_hash).where(users.c.email == address)).first()
    try:
        _hasher.verify(row.password_hash if row else _nobody(), password)
        if row is not None:
            return str(row.id)
    except (VerificationError, InvalidHashError):
        pass
    with db.write() as connection:
        _count_failure(connection, subjects)
        if row is not None:  # a person's account was tried: their workspaces' logs say so
            tried_from = ", ".join(s.removeprefix("address:") for s in subjects if s.startswith("address:"))
            for workspace_id in connection.execute(
                select(memberships.c.workspace_id).where(memberships.c.user_id == row.id)
            ).scalars():
                audit.record(connection, workspace_id, tried_from or "unknown", "sign-in failed", address)
    return None


def count_failure(db: Database, subjects: Iterable[str]) -> None:
    """A failed attempt for each of ``subjects``, toward ``throttled``."""
    with db.write() as connection:
        _count_failure(connection, subjects)


def _count_failure(connection: Connection, subjects: Iterable[str]) -> None:
    at = now()
    connection.execute(sign_in_failures.insert(), [{"subject": s, "at": at} for s in subjects])
    connection.execute(delete(sign_in_failures).where(sign_in_failures.c.at < at - THROTTLE_SECONDS))


def start_session(db: Database, user_id: str) -> str:
    """A new session of the user: the token for its cookie (only its hash is kept)."""
    token = secrets.token_urlsafe(32)
    at = now()
    with db.write() as connection:
        connection.execute(
            sessions.insert().values(
                id=sha256_hex(token),
                user_id=user_id,
                csrf=secrets.token_urlsafe(24),
                created_at=at,
                expires_at=at + SESSION_SECONDS,
            )
        )
    return token


def session(db: Database, token: str) -> Session | None:
    """The live session of a cookie's token, or None."""
    query = (
        select(sessions.c.user_id, users.c.email, sessions.c.csrf, sessions.c.id)
        .join(users, users.c.id == sessions.c.user_id)
        .where(sessions.c.id == sha256_hex(token), sessions.c.expires_at > now())
    )
    with db.read() as connection:
        row = connection.execute(query).first()
    return None if row is None else Session(row.user_id, row.email, row.csrf, row.id)


def end_session(db: Database, token: str) -> None:
    with db.write() as connection:
        _end_sessions(connection, sessions.c.id == sha256_hex(token), SESSION_END, "its session ended")


def _end_sessions(connection: Connection, which: ColumnElement[bool], actor: str, why: str) -> None:
    """The sessions ``which`` selects end, and the keys made for them are revoked."""
    ended = [row.id for row in connection.execute(select(sessions.c.id).where(which))]
    if not ended:
        return
    _revoke_keys(connection, api_keys.c.session_id.in_(ended), actor, why)
    connection.execute(delete(sessions).where(sessions.c.id.in_(ended)))
