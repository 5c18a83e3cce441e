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
from templatekit_server.sealing import Sealer


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


def check_secret(db: Database, sealer: Sealer) -> None:
    """Record the secret's fingerprint in the database on first start; afterwards a
    server whose secret differs (a host of several without TEMPLATEKIT_SECRET, or with
    another value) is refused: it could open none of the stored keys and would sign file
    URLs the other hosts refuse, failing a share of every client's requests."""
    with db.write() as connection:
        db.insert_unless_present(connection, server_secret, id=1, fingerprint=sealer.fingerprint)
        stored = connection.execute(select(server_secret.c.fingerprint).where(server_secret.c.id == 1)).scalar()
    if stored != sealer.fingerprint:
        raise StartError(
            "TEMPLATEKIT_SECRET: differs from the secret this database's keys were sealed with"
            " (every server sharing a database needs the same TEMPLATEKIT_SECRET)"
        )
