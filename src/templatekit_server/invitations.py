"""Invitations to a workspace: a link with a secret token (only its hash is kept) that
makes whoever opens it, signed in or signing up, a member with the role it names. A link
works once, for a week; an owner may cancel it before."""

from __future__ import annotations

import secrets
from typing import Any

from sqlalchemy import Connection, select, update

from templatekit_server import audit, people
from templatekit_server.accounts import AccountError, new_id, sha256_hex
from templatekit_server.db import Database, invitations, now, workspaces

INVITATION_SECONDS = 7 * 24 * 3600


def invite(db: Database, workspace_id: str, role: str, invited_by: str, email: str | None = None) -> str:
    """A new invitation: the token for its link."""
    people.checked_role(role)
    address = people.normal_email(email) if email else None
    token = secrets.token_urlsafe(24)
    at = now()
    with db.write() as connection:
        invitation_id = new_id("inv")
        connection.execute(
            invitations.insert().values(
                id=invitation_id,
                workspace_id=workspace_id,
                token_hash=sha256_hex(token),
                email=address,
                role=role,
                invited_by=invited_by,
                created_at=at,
                expires_at=at + INVITATION_SECONDS,
            )
        )
        audit.record(connection, workspace_id, invited_by, "member invited", address or "a link", f"role {role}")
    return token


def open_invitation(db: Database, token: str) -> dict[str, Any] | None:
    """The invitation of a link, with its workspace's name; None once used, cancelled or
    expired."""
    with db.read() as connection:
        row = connection.execute(
            select(invitations, workspaces.c.name.label("workspace_name"))
            .join(workspaces, workspaces.c.id == invitations.c.workspace_id)
            .where(
                invitations.c.token_hash == sha256_hex(token),
                invitations.c.accepted_at.is_(None),
                invitations.c.expires_at > now(),
            )
        ).first()
    return None if row is None else dict(row._mapping)


def accept(db: Database, token: str, user_id: str, email: str) -> str:
    """The user joins with the invitation's role (once: a second use finds nothing; a
    member already is refused and the link kept); returns the workspace."""
    with db.write() as connection:
        return _accepted(db, connection, token, user_id, email)


def accept_new(db: Database, token: str, email: str, hashed: str) -> tuple[str, str]:
    """A new account joins with the invitation's role: (its user id, the workspace). The
    account is made in the transaction that uses the link, so that a link used by two
    at once makes one account, never one that belongs nowhere."""
    with db.write() as connection:
        user_id = people.add_user_in(connection, email, hashed)
        return user_id, _accepted(db, connection, token, user_id, email)


def _accepted(db: Database, connection: Connection, token: str, user_id: str, email: str) -> str:
    done = connection.execute(
        update(invitations)
        .where(
            invitations.c.token_hash == sha256_hex(token),
            invitations.c.accepted_at.is_(None),
            invitations.c.expires_at > now(),
        )
        .values(accepted_at=now(), accepted_by=user_id)
        .returning(invitations.c.workspace_id, invitations.c.role, invitations.c.email)
    ).first()
    if done is None:
        raise AccountError("this invitation has expired, was cancelled or was used already")
    if done.email and done.email != email:
        raise AccountError(f"this invitation is for {done.email}: sign in as that person to use it")
    people.join_in(db, connection, done.workspace_id, user_id, done.role, f"{email} (invited)")
    return str(done.workspace_id)


def pending(db: Database, workspace_id: str) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(
            select(invitations)
            .where(
                invitations.c.workspace_id == workspace_id,
                invitations.c.accepted_at.is_(None),
                invitations.c.expires_at > now(),
            )
            .order_by(invitations.c.created_at.desc())
        ).all()
    return [dict(row._mapping) for row in rows]


def cancel(db: Database, workspace_id: str, invitation_id: str, actor: str) -> None:
    """The link stops working (it counts as expired)."""
    with db.write() as connection:
        done = connection.execute(
            update(invitations)
            .where(
                invitations.c.id == invitation_id,
                invitations.c.workspace_id == workspace_id,
                invitations.c.accepted_at.is_(None),
            )
            .values(expires_at=now())
        )
        if not done.rowcount:
            raise AccountError(f"invitation {invitation_id!r} is not pending")
        audit.record(connection, workspace_id, actor, "invitation cancelled", invitation_id)
