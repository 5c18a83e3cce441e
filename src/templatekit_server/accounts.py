"""Workspaces, projects and API keys.

A workspace has a plan and templates; a project belongs to a workspace and has keys,
videos and files. Keys are 256 random bits shown once; the database keeps their SHA-256
(and MD5, for legacy signed URLs) for look-up, and the key itself only encrypted.
"""

from __future__ import annotations

import hashlib
import logging
import secrets
import unicodedata
from collections.abc import Iterable
from typing import Any, NamedTuple

from attrs import frozen
from sqlalchemy import Connection, Table, bindparam, or_, select, update
from sqlalchemy.exc import SQLAlchemyError

from templatekit.service import shown_value
from templatekit_server import audit
from templatekit_server.db import Database, api_keys, now, projects, workspaces
from templatekit_server.sealing import Sealer

log = logging.getLogger("templatekit.server")
KEY_PREFIX = "tk_live_"
#: What a key may do: ``render`` (every render, detail and read operation) and
#: ``templates:write`` (create, update, revert, delete and preview templates).
SCOPES = ("render", "templates:write")
#: How much of a key lists show: "tk_live_" and four characters of its secret.
PREFIX_LENGTH = 12
#: A key's last use is noted at most once in this many seconds (a write per request
#: would cost every request a write transaction).
LAST_USE_STEP = 60.0
#: Keys made before scopes could render and upload templates; they still can.
LEGACY_SCOPES = frozenset(SCOPES)
#: The operations that need ``templates:write``; every other needs ``render``.
WRITE_OPERATIONS = frozenset(
    {
        "createTemplate",
        "updateTemplate",
        "revertTemplate",
        "deleteTemplate",
        "previewTemplate",
        "uploadAsset",
        "deleteAsset",
    }
)


class AccountError(ValueError):
    """An admin operation named something that does not exist, or a bad value."""


@frozen
class Caller:
    """Whom a request's key belongs to."""

    key_id: str
    project_id: str
    workspace_id: str
    plan: str
    rate_limit: int | None
    scopes: frozenset[str]

    @property
    def actor(self) -> str:
        """The caller as the audit log names it."""
        return f"key {self.key_id}"

    def may(self, operation: str) -> str | None:
        """The scope ``operation`` needs when this key lacks it, else None."""
        needed = "templates:write" if operation in WRITE_OPERATIONS else "render"
        return None if needed in self.scopes else needed


def new_id(prefix: str) -> str:
    return f"{prefix}_{secrets.token_hex(8)}"


def sha256_hex(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def require_project(connection: Connection, project_id: str) -> str:
    """The project's workspace; AccountError unless the project exists (inside the
    transaction that adds to it)."""
    workspace_id = connection.execute(select(projects.c.workspace_id).where(projects.c.id == project_id)).scalar()
    if workspace_id is None:
        raise AccountError(f"project {project_id!r} does not exist")
    return str(workspace_id)


def change_live(db: Database, table: Table, row_id: str, kind: str, change: Audited, **values: Any) -> None:
    """Update the row of ``table`` (a row of a project) with ``row_id`` unless it is
    deleted (``deleted_at``), the ``change`` in its workspace's audit log; AccountError
    naming the ``kind`` of row when there is none."""
    with db.write() as connection:
        done = connection.execute(
            update(table).where(table.c.id == row_id, table.c.deleted_at.is_(None)).values(**values)
        )
        if done.rowcount:
            project_id = connection.execute(select(table.c.project_id).where(table.c.id == row_id)).scalar()
            workspace_id = require_project(connection, str(project_id))
            audit.record(connection, workspace_id, change.actor, change.action, row_id, f"project {project_id}")
    if not done.rowcount:
        raise AccountError(f"{kind} {row_id!r} does not exist")


@frozen
class Audited:
    """A change as the audit log records it: who made it, and what it was."""

    action: str
    actor: str = audit.ADMIN_COMMAND


def md5_hex(text: str) -> str:
    return hashlib.md5(text.encode("utf-8"), usedforsecurity=False).hexdigest()


#: The longest name of a workspace or project, in characters.
MAX_NAME = 200


def checked_name(name: str) -> str:
    """A workspace's or project's name as kept: trimmed, 1 to ``MAX_NAME`` characters, no
    control characters (a NUL or a line feed would be kept and shown otherwise), and text
    (bytes that are not UTF-8, given on a command line, arrive as lone surrogates, which
    the database cannot keep)."""
    trimmed = name.strip()
    if not 1 <= len(trimmed) <= MAX_NAME:
        raise AccountError(f"name: must be 1 to {MAX_NAME} characters (got {len(trimmed):,})")
    for char in trimmed:
        kind = unicodedata.category(char)
        if kind == "Cc":
            raise AccountError(f"name: must not hold control characters (got U+{ord(char):04X})")
        if kind == "Cs":
            raise AccountError(f"name: must be UTF-8 text (got U+{ord(char):04X}, a byte that is not)")
    return trimmed


def create_workspace(db: Database, name: str, plan: str, plans: Iterable[str]) -> str:
    _check_plan(plan, plans)
    name = checked_name(name)
    workspace_id = new_id("ws")
    with db.write() as connection:
        connection.execute(workspaces.insert().values(id=workspace_id, name=name, plan=plan, created_at=now()))
    return workspace_id


def _check_plan(plan: str, plans: Iterable[str]) -> None:
    names = list(plans)
    if plan not in names:
        raise AccountError(f"plan {plan!r}: must be one of {', '.join(names)}")


def set_plan(db: Database, workspace_id: str, plan: str, plans: Iterable[str]) -> None:
    _check_plan(plan, plans)
    with db.write() as connection:
        done = connection.execute(update(workspaces).where(workspaces.c.id == workspace_id).values(plan=plan))
        if not done.rowcount:
            raise AccountError(f"workspace {workspace_id!r} does not exist")


def create_project(
    db: Database, workspace_id: str, name: str, avatar: str | None = None, actor: str = audit.ADMIN_COMMAND
) -> str:
    name = checked_name(name)
    project_id = new_id("prj")
    with db.write() as connection:
        if connection.execute(select(workspaces.c.id).where(workspaces.c.id == workspace_id)).first() is None:
            raise AccountError(f"workspace {workspace_id!r} does not exist")
        connection.execute(
            projects.insert().values(
                id=project_id, workspace_id=workspace_id, name=name, avatar=avatar, created_at=now()
            )
        )
        audit.record(connection, workspace_id, actor, "project created", project_id, name)
    return project_id


def create_key(
    db: Database,
    sealer: Sealer,
    project_id: str,
    rate_limit: int | None = None,
    scopes: Iterable[str] = ("render",),
    *,
    expires_at: float | None = None,
    session_id: str | None = None,
    note: str | None = None,
    actor: str = audit.ADMIN_COMMAND,
) -> tuple[str, str]:
    """A new key of the project: (key id, key). The key is not kept in clear.
    ``rate_limit`` (requests a minute) replaces the plan's for this key; ``scopes`` say
    what it may do (``SCOPES``); a key made for a dashboard session ends at
    ``expires_at`` or with the session ``session_id``, whichever comes first."""
    granted = _checked_scopes(scopes)
    key = KEY_PREFIX + secrets.token_urlsafe(32)
    key_id = new_id("key")
    with db.write() as connection:
        workspace_id = require_project(connection, project_id)
        connection.execute(
            api_keys.insert().values(
                id=key_id,
                project_id=project_id,
                sha256=sha256_hex(key),
                md5=md5_hex(key),
                sealed=sealer.seal(key),
                prefix=key[:PREFIX_LENGTH],
                created_at=now(),
                rate_limit=_checked_rate(rate_limit),
                scopes=" ".join(granted),
                expires_at=expires_at,
                session_id=session_id,
                note=note,
            )
        )
        detail = f"project {project_id}, scopes {' '.join(granted)}" + (f", {note}" if note else "")
        audit.record(connection, workspace_id, actor, "key created", f"{key_id} ({key[:PREFIX_LENGTH]}…)", detail)
    return key_id, key


def set_rate_limit(db: Database, key_id: str, rate_limit: int | None) -> None:
    """The key's own rate limit (requests a minute), or None for its plan's."""
    with db.write() as connection:
        done = connection.execute(
            update(api_keys).where(api_keys.c.id == key_id).values(rate_limit=_checked_rate(rate_limit))
        )
        if not done.rowcount:
            raise AccountError(f"key {key_id!r} does not exist")


def _checked_scopes(scopes: Iterable[str]) -> list[str]:
    asked = set(scopes)
    unknown = sorted(asked - set(SCOPES))
    if not asked:
        raise AccountError(f"scopes: choose at least one of {', '.join(SCOPES)}")
    if unknown:
        raise AccountError(f"scope {shown_value(unknown[0])}: must be one of {', '.join(SCOPES)}")
    return [scope for scope in SCOPES if scope in asked]


def _checked_rate(rate_limit: int | None) -> int | None:
    if rate_limit is not None and rate_limit < 1:
        raise AccountError(f"rate limit {rate_limit}: must be at least 1 request a minute")
    return rate_limit


def revoke_key(db: Database, key_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    with db.write() as connection:
        done = connection.execute(
            update(api_keys).where(api_keys.c.id == key_id, api_keys.c.revoked_at.is_(None)).values(revoked_at=now())
        )
        if not done.rowcount:
            raise AccountError(f"key {key_id!r} does not exist or is revoked already")
        found = connection.execute(
            select(projects.c.workspace_id, api_keys.c.project_id, api_keys.c.prefix)
            .join(projects, projects.c.id == api_keys.c.project_id)
            .where(api_keys.c.id == key_id)
        ).one()
        subject = f"{key_id} ({found.prefix}…)" if found.prefix else key_id
        audit.record(connection, found.workspace_id, actor, "key revoked", subject, f"project {found.project_id}")


_CALLER = (
    select(
        api_keys.c.id,
        api_keys.c.project_id,
        projects.c.workspace_id,
        workspaces.c.plan,
        api_keys.c.rate_limit,
        api_keys.c.scopes,
        api_keys.c.sealed,
        api_keys.c.last_used_at,
    )
    .join(projects, projects.c.id == api_keys.c.project_id)
    .join(workspaces, workspaces.c.id == projects.c.workspace_id)
    .where(
        api_keys.c.revoked_at.is_(None),
        or_(api_keys.c.expires_at.is_(None), api_keys.c.expires_at > bindparam("now")),
    )
)


_CALLER_OF_KEY = _CALLER.where(api_keys.c.sha256 == bindparam("sha256"))
_KEY_IN_FORCE = _CALLER.with_only_columns(api_keys.c.id).where(api_keys.c.id == bindparam("id"))


def caller_for_key(db: Database, key: str) -> Caller | None:
    """The caller a key belongs to; None for an unknown or revoked key. Looked up in the
    database on every request, so that a key revoked anywhere stops at once."""
    at = now()
    with db.statements() as connection:
        row = db.first(connection, _CALLER_OF_KEY, {"sha256": sha256_hex(key), "now": at})
    if row is None:
        return None
    found = _CallerRow(*row)
    if found.last_used_at is None or at - found.last_used_at >= LAST_USE_STEP:
        _note_use(db, found.id, at)
    return _caller(found)


def key_in_force(db: Database, key_id: str) -> bool:
    """Whether the key is neither revoked nor expired: asked again by what goes on after
    its request was let in (an event stream), so that the key's end ends it too."""
    with db.statements() as connection:
        return db.first(connection, _KEY_IN_FORCE, {"id": key_id, "now": now()}) is not None


def _note_use(db: Database, key_id: str, at: float) -> None:
    """The key's last use, noted if the database takes it: a request is not refused for
    want of this note (a full disk, say)."""
    try:
        with db.write() as connection:
            connection.execute(update(api_keys).where(api_keys.c.id == key_id).values(last_used_at=at))
    except SQLAlchemyError as exc:
        log.warning("the last use of key %s was not noted: %s", key_id, type(exc).__name__)


def caller_for_hash(db: Database, sealer: Sealer, *, sha256: str | None, md5: str | None) -> tuple[Caller, str] | None:
    """The caller and the key itself (to check a signature with) for a key's hash."""
    query = _CALLER.where(api_keys.c.sha256 == sha256) if sha256 else _CALLER.where(api_keys.c.md5 == md5)
    with db.read() as connection:
        row = connection.execute(query, {"now": now()}).first()
    if row is None:
        return None
    key = sealer.unseal(row.sealed)
    return None if key is None else (_caller(row), key)


class _CallerRow(NamedTuple):
    """A row of ``_CALLER``, by name."""

    id: str
    project_id: str
    workspace_id: str
    plan: str
    rate_limit: int | None
    scopes: str | None
    sealed: str
    last_used_at: float | None


def _scopes_of(stored: str | None) -> frozenset[str]:
    return LEGACY_SCOPES if stored is None else frozenset(stored.split())


def _caller(row: Any) -> Caller:
    return Caller(row.id, row.project_id, row.workspace_id, row.plan, row.rate_limit, _scopes_of(row.scopes))


def caller_for_project(db: Database, project_id: str, caller_id: str) -> Caller | None:
    """A caller that acts for a project without a key (a hook): ``caller_id`` stands for
    the key in rate limits and idempotency records; it may render only."""
    with db.read() as connection:
        row = connection.execute(
            select(projects.c.workspace_id, workspaces.c.plan)
            .join(workspaces, workspaces.c.id == projects.c.workspace_id)
            .where(projects.c.id == project_id)
        ).first()
    if row is None:
        return None
    return Caller(caller_id, project_id, row.workspace_id, row.plan, None, frozenset({"render"}))


def project(db: Database, project_id: str) -> dict[str, Any] | None:
    with db.read() as connection:
        row = connection.execute(select(projects).where(projects.c.id == project_id)).first()
    return None if row is None else dict(row._mapping)


def workspace(db: Database, workspace_id: str) -> dict[str, Any] | None:
    with db.read() as connection:
        row = connection.execute(select(workspaces).where(workspaces.c.id == workspace_id)).first()
    return None if row is None else dict(row._mapping)


def workspaces_list(db: Database) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(select(workspaces).order_by(workspaces.c.created_at, workspaces.c.id))
        return [dict(row._mapping) for row in rows]


def projects_of(db: Database, workspace_id: str) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(
            select(projects.c.id, projects.c.name, projects.c.created_at)
            .where(projects.c.workspace_id == workspace_id)
            .order_by(projects.c.created_at, projects.c.id)
        )
        return [dict(row._mapping) for row in rows]


def keys_of(db: Database, sealer: Sealer, project_id: str) -> list[dict[str, Any]]:
    """The project's keys, newest first: id, prefix, scopes, created_at, revoked_at (never
    the key itself; the prefix of a key made before prefixes were kept is read once
    from its sealed copy)."""
    with db.read() as connection:
        rows = connection.execute(
            select(api_keys).where(api_keys.c.project_id == project_id).order_by(api_keys.c.created_at.desc())
        ).all()
    return [
        {
            "id": row.id,
            "prefix": row.prefix or (sealer.unseal(row.sealed) or "")[:PREFIX_LENGTH],
            "scopes": [scope for scope in SCOPES if scope in _scopes_of(row.scopes)],
            "created_at": row.created_at,
            "revoked_at": row.revoked_at,
            "expires_at": row.expires_at,
            "last_used_at": row.last_used_at,
            "rate_limit": row.rate_limit,
            "note": row.note,
        }
        for row in rows
    ]
