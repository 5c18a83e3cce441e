"""The audit log of a workspace: who did what, and when. Each entry is written in the
transaction of the change it records (a key made, a template saved, a member removed),
so that no change goes unrecorded and no entry names a change that did not happen."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select

from templatekit_server.db import Database, audit_log, iso_time, now

#: Who acts from the server's shell.
ADMIN_COMMAND = "admin command"


def record(connection: Connection, workspace_id: str, actor: str, action: str, subject: str, detail: str = "") -> None:
    connection.execute(
        audit_log.insert().values(
            workspace_id=workspace_id,
            at=now(),
            actor=actor[:400],
            action=action,
            subject=subject[:400],
            detail=detail or None,
        )
    )


def entries(db: Database, workspace_id: str, limit: int = 200) -> list[dict[str, Any]]:
    """The newest ``limit`` entries, newest first."""
    with db.read() as connection:
        rows = connection.execute(
            select(audit_log)
            .where(audit_log.c.workspace_id == workspace_id)
            .order_by(audit_log.c.seq.desc())
            .limit(limit)
        ).all()
    return [
        {
            "at": iso_time(row.at),
            "actor": row.actor,
            "action": row.action,
            "subject": row.subject,
            "detail": row.detail or "",
        }
        for row in rows
    ]
