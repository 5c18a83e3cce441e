"""What must hold before the server or an admin command starts: a data folder it can
write and a database it can open. A failure is a ``StartError`` that names the folder or
the database (never its password) and the cause, said in one line instead of a traceback."""

from __future__ import annotations

import tempfile
from pathlib import Path

from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError

from templatekit.service import folder_problem
from templatekit_server.db import Database


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
