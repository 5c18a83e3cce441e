"""The 1-day cache of signed-URL renders: keyed by the canonical query and the
template's version, so a repeat is served without rendering or billing, and an edited
template is rendered afresh."""

from __future__ import annotations

import hashlib

from attrs import frozen
from sqlalchemy import delete, select

from templatekit import StorageError
from templatekit_server.db import Database, now, render_cache
from templatekit_server.files import Files

LIFETIME = 86_400


@frozen
class Cached:
    data: bytes
    media_type: str
    etag: str
    warnings: tuple[str, ...]


def cache_key(workspace_id: str, template_id: str, version: int, canonical: str) -> str:
    text = f"{workspace_id}\n{template_id}\n{version}\n{canonical}"
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def etag(data: bytes) -> str:
    return '"' + hashlib.sha256(data).hexdigest()[:32] + '"'


def lookup(db: Database, files: Files, key: str) -> Cached | None:
    with db.read() as connection:
        row = connection.execute(
            select(render_cache).where(render_cache.c.key == key, render_cache.c.created_at >= now() - LIFETIME)
        ).first()
    if row is None:
        return None
    try:
        data = files.store.get(row.file_key)
    except StorageError:  # the file went away: render again
        return None
    return Cached(data, row.media_type, row.etag, tuple(row.warnings or ()))


def keep(db: Database, files: Files, key: str, data: bytes, media_type: str, warnings: tuple[str, ...]) -> Cached:
    file_key = Files.new_key("cache", media_type)
    files.store.put(file_key, data, media_type)
    cached = Cached(data, media_type, etag(data), warnings)
    with db.write() as connection:
        old = connection.execute(select(render_cache.c.file_key).where(render_cache.c.key == key)).scalar()
        values = {
            "file_key": file_key,
            "media_type": media_type,
            "etag": cached.etag,
            "warnings": list(warnings),
            "created_at": now(),
        }
        db.upsert(connection, render_cache, {"key": key}, values)
    if old is not None:
        files.store.delete(old)
    return cached


def forget_expired(db: Database, files: Files) -> int:
    """Delete cache entries older than a day, and their files; how many."""
    with db.write() as connection:
        rows = connection.execute(
            select(render_cache.c.key, render_cache.c.file_key).where(render_cache.c.created_at < now() - LIFETIME)
        ).all()
        connection.execute(delete(render_cache).where(render_cache.c.key.in_([row.key for row in rows])))
    for row in rows:
        files.store.delete(row.file_key)
    return len(rows)
