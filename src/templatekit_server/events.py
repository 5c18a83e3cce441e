"""The events of video jobs, kept in the database so that any process (and, with a
shared database, any host) can stream them, and a client can resume a stream."""

from __future__ import annotations

from typing import Any

from sqlalchemy import Connection, select, update

from templatekit_server.db import Database, now, video_events, videos


def add(connection: Connection, video_id: str, kind: str, data: dict[str, Any]) -> None:
    connection.execute(
        video_events.insert().values(video_id=video_id, type=kind, data={"type": kind, **data}, created_at=now())
    )


def record_progress(db: Database, video_id: str, frame: int, total: int) -> None:
    """A rendering job's progress: the job row and a ``progress`` event."""
    share = round(frame / total, 4) if total else 0.0
    with db.write() as connection:
        connection.execute(
            update(videos)
            .where(videos.c.id == video_id, videos.c.status == "rendering")
            .values(frame=frame, total_frames=total, heartbeat_at=now())
        )
        add(connection, video_id, "progress", {"frame": frame, "totalFrames": total, "progress": share})


def after(db: Database, video_id: str, seq: int) -> list[tuple[int, dict[str, Any]]]:
    """The events of a video after ``seq``, oldest first: (seq, data)."""
    with db.read() as connection:
        rows = connection.execute(
            select(video_events.c.seq, video_events.c.data)
            .where(video_events.c.video_id == video_id, video_events.c.seq > seq)
            .order_by(video_events.c.seq)
        ).all()
    return [(int(seq), dict(data)) for seq, data in rows]


def latest(db: Database, video_id: str) -> tuple[int, dict[str, Any]] | None:
    with db.read() as connection:
        row = connection.execute(
            select(video_events.c.seq, video_events.c.data)
            .where(video_events.c.video_id == video_id)
            .order_by(video_events.c.seq.desc())
            .limit(1)
        ).first()
    return None if row is None else (int(row[0]), dict(row[1]))
