"""What must hold before the server or an admin command starts: a data folder it can
write and a database it can open. A failure is a ``StartError`` that names the folder or
the database (never its password) and the cause, said in one line instead of a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from templatekit.service import folder_problem
from templatekit_server.db import Database, server_secret
from templatekit_server.sealing import SECRET_FILE, Sealer
from templatekit_server.sealing import server_secret as stored_secret
from templatekit_server.settings import Settings


class StartError(Exception):
    """The server cannot start; the message says what to fix."""


def ready_data_dir(path: Path) -> None:
    """Make the data folder when missing, and check that files can be written in it."""
    problem = folder_problem(path)
    if problem is not None:
        raise StartError(f"data folder {path}: {problem}")
    try:
        with tempfile.TemporaryFile(dir=path):
            pass
    except OSError as exc:
        raise StartError(f"data folder {path}: cannot write in it ({exc.strerror or exc})") from None


def open_database(url: str) -> Database:
    """The database at ``url`` with its schema in place."""
    try:
        return Database(url)
    except SQLAlchemyError as exc:
        shown = make_url(url).render_as_string(hide_password=True)
        cause = str(getattr(exc, "orig", None) or exc).splitlines()[0]
        raise StartError(f"database {shown}: cannot be opened ({cause})") from None


def open_sealer(db: Database, settings: Settings) -> Sealer:
    """The sealer of the server's secret, checked against the database's (``check_secret``).
    A ``secret.key`` made just now for a database that knows another secret is removed
    again, so that every later start is refused the same way until the old one is back."""
    path = settings.data_dir / SECRET_FILE
    made_now = not settings.secret and not path.exists()
    sealer = Sealer(stored_secret(settings.secret, settings.data_dir))
    try:
        check_secret(db, sealer)
    except StartError:
        if made_now:
            path.unlink(missing_ok=True)
        raise
    return sealer


def check_secret(db: Database, sealer: Sealer) -> None:
    """Record the secret's fingerprint in the database on first start; afterwards a
    server whose secret differs (a host of several without TEMPLATEKIT_SECRET, or with
    another value, or one whose ``secret.key`` was lost) is refused: it could open none of
    the stored keys and would sign file URLs the other hosts refuse, failing a share of
    every client's requests."""
    with db.write() as connection:
        db.insert_unless_present(connection, server_secret, id=1, fingerprint=sealer.fingerprint)
        stored = connection.execute(select(server_secret.c.fingerprint).where(server_secret.c.id == 1)).scalar()
    if stored != sealer.fingerprint:
        raise StartError(
            f"TEMPLATEKIT_SECRET: differs from the secret this database's keys were sealed with"
            f" (every server sharing a database needs the same TEMPLATEKIT_SECRET; without it, the"
            f" data folder's {SECRET_FILE} must be the one the database was first used with)"
        )
