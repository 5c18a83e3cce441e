"""What a workspace stores, against its plan's storage quota (``Plan.storage_bytes``).

A workspace's storage is the bytes of every kept version of its templates (a deleted
template's versions count until ``catalog.forget_deleted`` forgets them, 30 days after)
and of its assets. A write that would pass the quota is refused with BAD_REQUEST naming
the quota, what is stored and the size of what was sent: the request as sent can never
succeed until something is deleted (unlike USAGE_EXCEEDED, which waiting ends).

The check runs in the write transaction that stores the bytes, after the workspace's row
is locked (PostgreSQL; SQLite's write transactions take the database's write lock when
they begin), so that concurrent writes are counted one after the other and cannot pass
the quota together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from sqlalchemy import Connection, func, select

from templatekit_server.db import Database, assets, template_versions, workspaces
from templatekit_server.errors import ApiError
from templatekit_server.plans import Plan


def used(connection: Connection, workspace_id: str) -> int:
    """The bytes the workspace stores: its templates' kept versions and its assets."""
    versions = connection.execute(
        select(func.coalesce(func.sum(template_versions.c.size), 0)).where(
            template_versions.c.workspace_id == workspace_id
        )
    ).scalar()
    files = connection.execute(
        select(func.coalesce(func.sum(assets.c.size), 0)).where(assets.c.workspace_id == workspace_id)
    ).scalar()
    return int(versions or 0) + int(files or 0)


def plan_of(db: Database, connection: Connection, workspace_id: str, plans: Mapping[str, Plan]) -> Plan:
    """The workspace's plan (an unknown one's is the free plan's); in a write transaction
    on PostgreSQL the workspace's row stays locked until it ends, so that the writes of
    one workspace check its quota one after the other."""
    query = select(workspaces.c.plan).where(workspaces.c.id == workspace_id)
    if db.postgres and connection.get_execution_options().get("templatekit_write", False):
        query = query.with_for_update()
    name = connection.execute(query).scalar()
    return plans.get(str(name), plans["free"])


def check(
    db: Database, connection: Connection, workspace_id: str, adding: int, plans: Mapping[str, Plan], what: str
) -> None:
    """BAD_REQUEST when storing ``adding`` more bytes would pass the workspace's quota;
    ``what`` names them in the message ("this template version")."""
    plan = plan_of(db, connection, workspace_id, plans)
    stored = used(connection, workspace_id)
    if stored + adding > plan.storage_bytes:
        raise ApiError("BAD_REQUEST", exceeded(plan, stored, adding, what))


def exceeded(plan: Plan, stored: int, adding: int, what: str) -> str:
    return (
        f"storage quota exceeded: the workspace stores {shown(stored)} of the {shown(plan.storage_bytes)} "
        f"its {plan.name} plan allows, and {what} is {shown(adding)}; delete assets or templates to make room "
        "(every kept version of a template counts, and a deleted template's versions count until they are "
        "forgotten 30 days after its deletion)"
    )


def report(db: Database, workspace_id: str, plan: Plan) -> dict[str, Any]:
    """``{used, quota}`` in bytes."""
    with db.read() as connection:
        return {"used": used(connection, workspace_id), "quota": plan.storage_bytes}


def shown(size: int) -> str:
    """A size as people read it, with its exact bytes: "4.4 MB (4,400,123 bytes)"."""
    for unit, step in (("GB", 1e9), ("MB", 1e6), ("KB", 1e3)):
        if size >= step:
            return f"{size / step:.1f} {unit} ({size:,} bytes)"
    return f"{size:,} bytes"
