"""Assets: files a workspace uploads once (images, fonts, clips, audio, subtitles) and
its templates name as ``asset:ID``. The id is the content's hash, so the same bytes are
one asset; the bytes live in the file storage under ``assets/WORKSPACE/ID`` (local or
S3: every host of a cluster reads them), a row per workspace says what they are. An
asset that any stored version of a template names is not deleted."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

from sqlalchemy import Connection, select

from templatekit import Store
from templatekit.service import ASSET_ID
from templatekit_server import audit, storage
from templatekit_server.asset_types import measured, sniffed
from templatekit_server.bodies import Asset, AssetListed, Moment
from templatekit_server.catalog import KEEP_DELETED_SECONDS
from templatekit_server.db import Database, assets, iso_time, now, template_versions, templates
from templatekit_server.errors import ApiError
from templatekit_server.plans import Plan

#: The largest upload (the body limit of other operations does not apply).
MAX_ASSET_BYTES = 20_000_000
PREFIX = "ast_"


def asset_id(data: bytes) -> str:
    return PREFIX + hashlib.sha256(data).hexdigest()[:40]


def folder(workspace_id: str) -> str:
    """Where a workspace's assets are, below the file storage's root."""
    return f"assets/{workspace_id}"


def store(
    db: Database,
    files: Store,
    workspace_id: str,
    data: bytes,
    named: str | None,
    actor: str,
    plans: Mapping[str, Plan] | None = None,
) -> Asset:
    """The asset of ``data`` (stored unless the workspace has it already). With
    ``plans``, a new asset that would pass the workspace's storage quota is BAD_REQUEST:
    checked before its bytes are written, and again in the transaction that adds its row
    (when that refuses, the bytes just written are removed)."""
    found = sniffed(data, named)
    about = measured(data, found)
    made = asset_id(data)
    what = "this asset"
    with db.read() as connection:
        known = _media_type_in(connection, workspace_id, made)
        if known is None and plans is not None:
            storage.check(db, connection, workspace_id, len(data), plans, what)
    if known is None:
        path = f"{folder(workspace_id)}/{made}"
        files.put(path, data, found.media_type)  # before its row: no row without bytes
        try:
            with db.write() as connection:
                if _media_type_in(connection, workspace_id, made) is None and plans is not None:
                    storage.check(db, connection, workspace_id, len(data), plans, what)
                if not files.exists(path):  # a refused upload of the same bytes took them away meanwhile
                    files.put(path, data, found.media_type)
                inserted = db.insert_unless_present(
                    connection,
                    assets,
                    workspace_id=workspace_id,
                    id=made,
                    media_type=found.media_type,
                    size=len(data),
                    width=about.get("width"),
                    height=about.get("height"),
                    family=about.get("family"),
                    created_at=now(),
                )
                if inserted:
                    audit.record(
                        connection,
                        workspace_id,
                        actor,
                        "asset uploaded",
                        made,
                        f"{found.media_type}, {len(data):,} bytes",
                    )
        except ApiError:
            _forget_unlisted(db, files, workspace_id, made, plans)  # over the quota: the bytes have no row
            raise
    return Asset(id=made, media_type=found.media_type, size=len(data), src=f"asset:{made}", **about)


def _forget_unlisted(
    db: Database, files: Store, workspace_id: str, asset_id: str, plans: Mapping[str, Plan] | None
) -> None:
    """Delete the bytes of a refused upload unless an upload of the same bytes has listed
    them since, deciding under the workspace's lock (as uploads insert their rows under
    it), so that the other upload's row is not left without its file."""
    with db.write() as connection:
        if plans is not None:
            storage.plan_of(db, connection, workspace_id, plans)  # the lock, on PostgreSQL
        if _media_type_in(connection, workspace_id, asset_id) is None:
            files.delete(f"{folder(workspace_id)}/{asset_id}")


def listed(db: Database, workspace_id: str) -> list[AssetListed]:
    """Every asset of the workspace, newest first, with the templates whose current
    version names it."""
    with db.read() as connection:
        rows = connection.execute(
            select(assets).where(assets.c.workspace_id == workspace_id).order_by(assets.c.created_at.desc())
        ).all()
        current = connection.execute(
            select(template_versions.c.template_id, template_versions.c.body)
            .join(
                templates,
                (templates.c.workspace_id == template_versions.c.workspace_id)
                & (templates.c.id == template_versions.c.template_id)
                & (templates.c.version == template_versions.c.version),
            )
            .where(template_versions.c.workspace_id == workspace_id, templates.c.deleted_at.is_(None))
        ).all()
    return [
        AssetListed(
            id=row.id,
            media_type=row.media_type,
            size=row.size,
            width=row.width,
            height=row.height,
            family=row.family,
            created_at=Moment(iso_time(row.created_at)),
            used_by=tuple(sorted(template_id for template_id, body in current if f'"asset:{row.id}"' in body)),
        )
        for row in rows
    ]


def media_type(db: Database, workspace_id: str, made: str) -> str:
    """The asset's media type; NOT_FOUND when the workspace has no such asset."""
    with db.read() as connection:
        found = _media_type_in(connection, workspace_id, made)
    if found is None:
        raise ApiError("NOT_FOUND", f"asset {made[:80]} does not exist")
    return found


def exists(db: Database, workspace_id: str, made: str) -> bool:
    """Whether the workspace has the asset ``made`` (render workers ask before they draw
    bytes they kept: a deleted asset is gone on every host at once)."""
    return not missing(db, workspace_id, [made])


def named_in(text: str) -> list[str]:
    """The asset ids named anywhere in ``text`` (a request, a URL's query)."""
    return sorted(set(ASSET_ID.findall(text)))


def missing(db: Database, workspace_id: str, named: list[str]) -> list[str]:
    """Those of the asset ids ``named`` that the workspace does not have, or no longer has."""
    with db.read() as connection:
        held = set(
            connection.execute(
                select(assets.c.id).where(assets.c.workspace_id == workspace_id, assets.c.id.in_(named))
            ).scalars()
        )
    return [made for made in named if made not in held]


def _media_type_in(connection: Connection, workspace_id: str, made: str) -> str | None:
    """The media type of the workspace's asset ``made``; None when it has none such."""
    found = connection.execute(
        select(assets.c.media_type).where(assets.c.workspace_id == workspace_id, assets.c.id == made)
    ).scalar()
    return None if found is None else str(found)


def delete(db: Database, files: Store, workspace_id: str, made: str, actor: str) -> None:
    """Gone, row and bytes; CONFLICT naming the templates any of whose stored versions
    name it (a revert would bring it back)."""
    with db.write() as connection:
        if _media_type_in(connection, workspace_id, made) is None:
            raise ApiError("NOT_FOUND", f"asset {made[:80]} does not exist")
        users = connection.execute(
            select(templates.c.id, templates.c.deleted_at)
            .where(
                templates.c.workspace_id == workspace_id,
                templates.c.id.in_(
                    select(template_versions.c.template_id).where(
                        template_versions.c.workspace_id == workspace_id,
                        template_versions.c.body.contains(f'"asset:{made}"'),
                    )
                ),
            )
            .order_by(templates.c.id)
        ).all()
        if users:
            raise ApiError("CONFLICT", _in_use(made, [(row.id, row.deleted_at) for row in users]))
        connection.execute(assets.delete().where(assets.c.workspace_id == workspace_id, assets.c.id == made))
        audit.record(connection, workspace_id, actor, "asset deleted", made)
    files.delete(f"{folder(workspace_id)}/{made}")


def _in_use(made: str, users: Sequence[tuple[str, float | None]]) -> str:
    """Why an asset stays: the templates that name it, and the deleted ones among them
    with the day their versions go (until then, storing the id again brings them back)."""
    kept = [template_id for template_id, deleted_at in users if deleted_at is None]
    deleted = [(template_id, deleted_at) for template_id, deleted_at in users if deleted_at is not None]
    reasons = [f"used by templates {', '.join(kept)}: change them first"] if kept else []
    if deleted:
        until = iso_time(max(deleted_at for _, deleted_at in deleted) + KEEP_DELETED_SECONDS)[:10]
        names = ", ".join(template_id for template_id, _ in deleted)
        reasons.append(
            f"named by deleted templates {names}, whose versions are kept until {until} "
            "(storing one of them again brings its versions back)"
        )
    return f"asset {made} is " + "; and ".join(reasons)
