"""A workspace's templates, with every version kept.

A template is stored as the JSON it was uploaded as (so that fields this version does
not know survive), under an id unique in its workspace. Uploading over an existing id,
updating or reverting makes a new version; renders use the newest, and cached renders
are keyed by version, so that an edit never serves a stale image. A deleted template
answers NOT_FOUND; its versions are kept for ``KEEP_DELETED_SECONDS``, and uploading its
id again continues its version numbers. Every kept version counts against the
workspace's storage quota (``storage``), checked in the transaction that stores it.
"""

from __future__ import annotations

import base64
import json
import mimetypes
import re
import secrets
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from attrs import frozen
from sqlalchemy import Connection, bindparam, exists, select, update
from sqlalchemy.exc import IntegrityError

import templatekit as tk
from templatekit import Template, TemplateError, load_template
from templatekit.service import converter
from templatekit_server import audit, storage
from templatekit_server.db import Database, Transaction, iso_time, now, template_versions, templates
from templatekit_server.errors import ApiError
from templatekit_server.plans import Plan

_ID = re.compile(r"[A-Za-z0-9_\-]{1,200}")
KEEP_DELETED_SECONDS = 30 * 86_400
_REMOTE = ("http://", "https://", "data:", "asset:")


@frozen
class TemplateInfo:
    id: str
    name: str
    width: int
    height: int
    kind: str  # image or video
    version: int

    def summary(self) -> dict[str, Any]:
        return {"id": self.id, "name": self.name, "width": self.width, "height": self.height, "kind": self.kind}


def checked_template_id(value: str, field: str = "templateId") -> str:
    if not _ID.fullmatch(value):
        raise ApiError("BAD_REQUEST", f"{field}: must be 1 to 200 letters, digits, '_' or '-' (got {_shown(value)})")
    return value


def parse_template(body: Any) -> tuple[Template, list[str]]:
    """The uploaded JSON as a Template (lenient: unknown fields are warnings), or
    BAD_REQUEST naming every problem. Every ``src`` must be a URL, a data URI or an
    asset (``asset:ID``): the server reads no local files for templates."""
    if not isinstance(body, dict):
        raise ApiError("BAD_REQUEST", f"body: must be a template object (got {type(body).__name__})")
    problems = [
        f"{path}: {_shown(src)} is a local path; use an http(s) URL, a data URI or an uploaded asset (asset:ID)"
        for path, src in _local(body)
    ]
    try:
        template = load_template(body)
    except TemplateError as exc:
        problems.extend(exc.problems)
        template = None
    if problems or template is None:
        raise ApiError("BAD_REQUEST", "template is invalid: " + "; ".join(problems), problems=problems)
    return template, list(template.load_warnings)


def as_read(given: Any, read: Any) -> Any:
    """The template as given, but for each value that the reader took as another kind
    (a layer's ``"text": 42`` as text, ``"visible": 0`` as false), written as it was
    read: what is stored is given back as the template format describes it, and fields
    this version does not know are kept as they came."""
    if isinstance(given, dict) and isinstance(read, dict):
        return {key: as_read(value, read[key]) if key in read else value for key, value in given.items()}
    if isinstance(given, list) and isinstance(read, list | tuple) and len(given) == len(read):
        return [as_read(value, seen) for value, seen in zip(given, read, strict=True)]
    if _scalar_kind(given) and _scalar_kind(read) and _scalar_kind(given) != _scalar_kind(read):
        return read
    return given


def _scalar_kind(value: Any) -> str | None:
    """A plain JSON value's kind (bool before number: True is an int to Python)."""
    for kind, types in (("boolean", bool), ("number", int | float), ("string", str)):
        if isinstance(value, types):
            return kind
    return None


def _local(value: Any, path: str = "") -> list[tuple[str, str]]:
    """The (JSON path, value) of every ``src`` that is not a URL or a data URI."""
    found: list[tuple[str, str]] = []
    if isinstance(value, dict):
        for key, item in value.items():
            here = f"{path}.{key}" if path else str(key)
            if key == "src" and isinstance(item, str) and not item.startswith(_REMOTE):
                found.append((here, item))
            else:
                found.extend(_local(item, here))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found.extend(_local(item, f"{path}[{index}]"))
    return found


def inline_local_files(body: dict[str, Any], base_dir: Path) -> dict[str, Any]:
    """The template with every local ``src`` (relative to ``base_dir``) replaced by a data
    URI of the file, so that a template written for files can be stored on the server."""

    def inlined(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                key: _data_uri(base_dir / item)
                if key == "src" and isinstance(item, str) and not item.startswith(_REMOTE)
                else inlined(item)
                for key, item in value.items()
            }
        if isinstance(value, list):
            return [inlined(item) for item in value]
        return value

    return inlined(body)


def _data_uri(path: Path) -> str:
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    return f"data:{media_type};base64,{base64.b64encode(path.read_bytes()).decode('ascii')}"


def save(
    db: Database,
    workspace_id: str,
    body: dict[str, Any],
    *,
    overwrite: bool = False,
    existing: bool = False,
    expected: int | None = None,
    note: str | None = None,
    actor: str = audit.ADMIN_COMMAND,
    plans: Mapping[str, Plan] | None = None,
) -> tuple[str, int, list[str]]:
    """Store a template; returns its id, its version and the warnings of reading it.
    The id is the body's, else a new one. CONFLICT when the id exists and neither
    ``overwrite`` nor ``existing`` is set; with ``existing`` (an update), NOT_FOUND when
    it does not exist, and CONFLICT when ``expected`` is not its current version. With
    ``plans``, BAD_REQUEST when the new version would pass the workspace's storage quota
    (checked in the transaction that stores it; without, as for the admin commands, none)."""
    template, warnings = parse_template(body)
    template_id = checked_template_id(str(body.get("id") or f"tpl_{secrets.token_hex(8)}"), "id")
    kept = as_read(body, converter.unstructure(template))
    stored = json.dumps({**kept, "id": template_id}, ensure_ascii=False, separators=(",", ":"))
    size = len(stored.encode("utf-8"))
    kind = "video" if template.video is not None else "image"
    timestamp = now()
    try:
        with db.write() as connection:
            row = connection.execute(
                select(templates.c.version, templates.c.deleted_at).where(
                    templates.c.workspace_id == workspace_id, templates.c.id == template_id
                )
            ).first()
            current = None if row is None or row.deleted_at is not None else row.version
            if existing and current is None:
                raise ApiError("NOT_FOUND", f"template {template_id} does not exist")
            if current is not None and not (overwrite or existing):
                raise ApiError("CONFLICT", f"template {template_id} exists already; send overwrite=true to replace it")
            if expected is not None and expected != current:
                raise ApiError("CONFLICT", f"template {template_id} is at version {current}, not {expected} (If-Match)")
            if plans is not None:
                storage.check(db, connection, workspace_id, size, plans, "this template version")
            version = 1 if row is None else row.version + 1
            values = {"name": template.name, "width": template.width, "height": template.height, "kind": kind}
            if row is None:
                connection.execute(
                    templates.insert().values(
                        workspace_id=workspace_id,
                        id=template_id,
                        version=version,
                        created_at=timestamp,
                        updated_at=timestamp,
                        **values,
                    )
                )
            else:  # stored before; if its versions were forgotten, it is new again
                forgotten = row.deleted_at is not None and not _has_versions(connection, workspace_id, template_id)
                new_again = {"created_at": timestamp} if forgotten else {}
                connection.execute(
                    update(templates)
                    .where(templates.c.workspace_id == workspace_id, templates.c.id == template_id)
                    .values(version=version, updated_at=timestamp, deleted_at=None, **values, **new_again)
                )
            connection.execute(
                template_versions.insert().values(
                    workspace_id=workspace_id,
                    template_id=template_id,
                    version=version,
                    body=stored,
                    size=size,
                    created_at=timestamp,
                    note=note,
                )
            )
            detail = f"version {version}" + (f": {note}" if note else "")
            audit.record(connection, workspace_id, actor, "template saved", template_id, detail)
    except IntegrityError:  # another request stored the same id at the same moment
        raise ApiError("CONFLICT", f"template {template_id} was stored by another request at the same time") from None
    return template_id, version, warnings


#: Whether a template row still has versions (those of one deleted long ago are forgotten).
_HAS_VERSIONS = exists().where(
    template_versions.c.workspace_id == templates.c.workspace_id,
    template_versions.c.template_id == templates.c.id,
)


def _has_versions(connection: Connection, workspace_id: str, template_id: str) -> bool:
    this_one = (templates.c.workspace_id == workspace_id) & (templates.c.id == template_id)
    found = connection.execute(select(templates.c.id).where(this_one, _HAS_VERSIONS)).first()
    return found is not None


def info(db: Database, workspace_id: str, template_id: str) -> TemplateInfo:
    """The template's summary, or NOT_FOUND."""
    with db.read() as connection:
        return info_in(db, connection, workspace_id, template_id)


def info_in(db: Database, connection: Transaction, workspace_id: str, template_id: str) -> TemplateInfo:
    """``info`` within a transaction of the caller's."""
    row = db.first(connection, _INFO_OF_TEMPLATE, {"workspace_id": workspace_id, "template_id": template_id})
    if row is None:
        raise ApiError("NOT_FOUND", f"template {template_id} does not exist")
    return TemplateInfo(*row)


def listed(db: Database, workspace_id: str) -> list[TemplateInfo]:
    with db.read() as connection:
        rows = connection.execute(
            select(*_INFO_COLUMNS)
            .where(templates.c.workspace_id == workspace_id, templates.c.deleted_at.is_(None))
            .order_by(templates.c.created_at)
        ).all()
    return [TemplateInfo(*row) for row in rows]


def body(db: Database, workspace_id: str, template_id: str, version: int) -> str:
    with db.read() as connection:
        text = connection.execute(
            select(template_versions.c.body).where(
                template_versions.c.workspace_id == workspace_id,
                template_versions.c.template_id == template_id,
                template_versions.c.version == version,
            )
        ).scalar()
    if text is None:
        raise ApiError("NOT_FOUND", f"template {template_id} version {version} does not exist")
    return str(text)


def versions(db: Database, workspace_id: str, template_id: str) -> list[dict[str, Any]]:
    """``[{version, createdAt, note}]`` of a template, newest first."""
    info(db, workspace_id, template_id)
    with db.read() as connection:
        rows = connection.execute(
            select(template_versions.c.version, template_versions.c.created_at, template_versions.c.note)
            .where(template_versions.c.workspace_id == workspace_id, template_versions.c.template_id == template_id)
            .order_by(template_versions.c.version.desc())
        ).all()
    return [{"version": row.version, "createdAt": iso_time(row.created_at), "note": row.note} for row in rows]


def revert(
    db: Database,
    workspace_id: str,
    template_id: str,
    version: int,
    actor: str = audit.ADMIN_COMMAND,
    plans: Mapping[str, Plan] | None = None,
) -> int:
    """Make ``version`` the current one again, as a new version (counted against the
    storage quota with ``plans``, as ``save``); returns that version."""
    found = info(db, workspace_id, template_id)
    stored = json.loads(body(db, workspace_id, template_id, version))
    note = f"reverted to version {version}"
    _, new_version, _ = save(
        db, workspace_id, stored, existing=True, expected=found.version, note=note, actor=actor, plans=plans
    )
    return new_version


def delete(db: Database, workspace_id: str, template_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    """Delete a template: renders of it answer NOT_FOUND; its versions are kept for
    ``KEEP_DELETED_SECONDS``, then ``forget_deleted`` removes them."""
    with db.write() as connection:
        done = connection.execute(
            update(templates)
            .where(
                templates.c.workspace_id == workspace_id,
                templates.c.id == template_id,
                templates.c.deleted_at.is_(None),
            )
            .values(deleted_at=now())
        )
        if done.rowcount:
            audit.record(connection, workspace_id, actor, "template deleted", template_id)
    if not done.rowcount:
        raise ApiError("NOT_FOUND", f"template {template_id} does not exist")


def forget_deleted(db: Database) -> int:
    """Remove the versions of the templates deleted more than ``KEEP_DELETED_SECONDS``
    ago, and their names and sizes; how many were forgotten.

    The template's row stays, holding only its last version number: a version number
    then names one design for good, even when the id is used again (its versions go on
    from there), so that what keeps a render by template and version (a render worker's
    loaded templates, a browser's thumbnail) can never show a forgotten design for a
    new one."""
    cutoff = now() - KEEP_DELETED_SECONDS
    forgotten = 0
    with db.write() as connection:
        candidates = connection.execute(
            select(templates.c.workspace_id, templates.c.id).where(templates.c.deleted_at < cutoff, _HAS_VERSIONS)
        ).all()
        for workspace_id, template_id in candidates:
            # the row first, still deleted: one stored again meanwhile (by another host) keeps its versions
            cleared = connection.execute(
                update(templates)
                .where(
                    templates.c.workspace_id == workspace_id,
                    templates.c.id == template_id,
                    templates.c.deleted_at < cutoff,
                )
                .values(name="", width=0, height=0)
            )
            if cleared.rowcount:
                connection.execute(
                    template_versions.delete().where(
                        template_versions.c.workspace_id == workspace_id, template_versions.c.template_id == template_id
                    )
                )
                forgotten += 1
    return forgotten


def details(db: Database, workspace_id: str, template_id: str) -> dict[str, Any]:
    """``{name, id, layers: [{name, id, type, suggestInput}]}`` of the newest version."""
    found = info(db, workspace_id, template_id)
    return tk.describe(load_template(body(db, workspace_id, template_id, found.version)))


def listed_with_layers(db: Database, workspace_id: str, template_id: str) -> dict[str, Any]:
    """The template's summary and the layers of ``details``, of the same version."""
    found = info(db, workspace_id, template_id)
    described = tk.describe(load_template(body(db, workspace_id, template_id, found.version)))
    return {**found.summary(), "layers": described["layers"]}


_INFO_COLUMNS = (
    templates.c.id,
    templates.c.name,
    templates.c.width,
    templates.c.height,
    templates.c.kind,
    templates.c.version,
)

_INFO_OF_TEMPLATE = select(*_INFO_COLUMNS).where(
    templates.c.workspace_id == bindparam("workspace_id"),
    templates.c.id == bindparam("template_id"),
    templates.c.deleted_at.is_(None),
)


def _shown(value: str) -> str:
    return repr(value if len(value) <= 80 else value[:77] + "...")
