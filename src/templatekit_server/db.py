"""The database: tables, schema migrations, transactions.

Queries elsewhere are SQLAlchemy Core expressions, which every supported database
speaks; what differs between databases (SQLite's write locking, upserts, PostgreSQL's
row locks and advisory locks) lives here only. The default is an SQLite file in the data
directory; ``database_url`` may name a PostgreSQL database
(``postgresql+psycopg://user:password@host/db``, the ``postgres`` extra) shared by several
server processes on several hosts.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any, TypeVar

from attrs import frozen
from sqlalchemy import (
    JSON,
    Boolean,
    Column,
    Connection,
    Engine,
    Float,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Select,
    String,
    Table,
    Text,
    bindparam,
    cast,
    create_engine,
    event,
    func,
    insert,
    inspect,
    select,
    text,
)
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError
from sqlalchemy.pool import PoolProxiedConnection
from sqlalchemy.sql import ClauseElement
from sqlalchemy.sql.compiler import SQLCompiler
from starlette.concurrency import run_in_threadpool

metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

#: One row: a digest of the server secret the database's keys were sealed with, so that a
#: host started with another secret (or none, making its own) refuses to start instead of
#: failing a share of the signed and file URLs behind the load balancer.
server_secret = Table(
    "server_secret",
    metadata,
    Column("id", Integer, primary_key=True),
    Column("fingerprint", String(64), nullable=False),
)

#: The generations of stills being rendered, counted already: a row kept alive by its
#: server while it renders (``usage.InFlight``), then marked rendered; one left untouched
#: by a server killed mid-render is given back by any server (``usage.give_back_abandoned``).
renders_in_flight = Table(
    "renders_in_flight",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("workspace_id", String(64), nullable=False),
    Column("day", String(10), nullable=False),
    Column("month", String(7), nullable=False),
    Column("operation", String(64), nullable=False),
    Column("generations", Integer, nullable=False),
    Column("project_id", String(64), nullable=False),
    Column("rendered", Boolean, nullable=False),
    Column("touched_at", Float, nullable=False, index=True),
)

workspaces = Table(
    "workspaces",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("name", String(200), nullable=False),
    Column("plan", String(32), nullable=False),
    Column("created_at", Float, nullable=False),
)

projects = Table(
    "projects",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("workspace_id", String(64), ForeignKey("workspaces.id"), nullable=False, index=True),
    Column("name", String(200), nullable=False),
    Column("avatar", Text),
    Column("created_at", Float, nullable=False),
    # signs the webhooks sent to URLs that requests name (webhookUrl); sealed, made when first needed
    Column("webhook_secret", Text),
)

api_keys = Table(
    "api_keys",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("projects.id"), nullable=False, index=True),
    Column("sha256", String(64), nullable=False, unique=True),
    Column("md5", String(32), nullable=False, index=True),
    # The key itself, encrypted with the server secret: signed URLs are checked with it.
    Column("sealed", Text, nullable=False),
    Column("prefix", String(16)),  # the key's start, shown in lists (none: made before it was kept)
    Column("created_at", Float, nullable=False),
    Column("revoked_at", Float),
    Column("rate_limit", Integer),  # requests per minute instead of the plan's
    # Space-separated scopes (render, templates:write); NULL for keys made before scopes,
    # which keep what they could do then: render and upload templates.
    Column("scopes", Text),
    # A key the dashboard made for a person's editor: it ends at ``expires_at``, and with
    # the session (the hash of its token) that asked for it.
    Column("expires_at", Float),
    Column("session_id", String(64), index=True),
    Column("note", Text),  # what the key is for, shown in lists
    Column("last_used_at", Float),  # noted at most once a minute (accounts.LAST_USE_STEP)
)

templates = Table(
    "templates",
    metadata,
    Column("workspace_id", String(64), ForeignKey("workspaces.id"), primary_key=True),
    Column("id", String(200), primary_key=True),
    Column("name", String(500), nullable=False),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("kind", String(16), nullable=False),
    Column("version", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    Column("deleted_at", Float),  # deleted: renders answer NOT_FOUND; versions are kept 30 days
)

template_versions = Table(
    "template_versions",
    metadata,
    Column("workspace_id", String(64), primary_key=True),
    Column("template_id", String(200), primary_key=True),
    Column("version", Integer, primary_key=True),
    Column("body", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("note", Text),  # what made this version, e.g. "reverted to version 2"
    # the body's bytes (UTF-8), counted against the workspace's storage quota; the index
    # lets the sum be read without reading the bodies
    Column("size", Integer),
    Index("ix_template_versions_size", "workspace_id", "size"),
)

videos = Table(
    "videos",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("workspace_id", String(64), nullable=False),
    Column("project_id", String(64), nullable=False, index=True),
    Column("template_id", String(200), nullable=False),
    Column("template_version", Integer, nullable=False),
    Column("modifications", JSON),
    Column("status", String(16), nullable=False),  # queued, rendering, done, failed
    Column("frame", Integer, nullable=False, default=0),
    Column("total_frames", Integer, nullable=False, default=0),
    Column("generations", Integer, nullable=False),
    Column("usage_day", String(16), nullable=False),  # the periods the generations were counted in
    Column("usage_month", String(16), nullable=False),
    Column("file_key", String(500)),
    Column("error", JSON),
    Column("request_id", String(64), nullable=False),
    Column("attempts", Integer, nullable=False, default=0),
    Column("worker", String(64)),
    Column("heartbeat_at", Float),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float),
    Column("duration", Float),  # seconds, for the video.done webhook
    Column("api_base", Text),  # the /v1 base URL the request came to: the webhooks' file URLs start with it
    Column("webhook_url", Text),  # the request's own webhook target, if it named one
    Column("output", String(8)),  # mp4, webm, gif or webp (none: mp4, as before there was a choice)
    Column("turn", Float),  # its place in the fair order, given when it starts (see jobs.claim)
    Index("ix_videos_status_created", "status", "created_at"),
    Index("ix_videos_turn", "turn"),
    Index("ix_videos_workspace_turn", "workspace_id", "turn"),
)

video_events = Table(
    "video_events",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("video_id", String(64), nullable=False, index=True),
    Column("type", String(16), nullable=False),
    Column("data", JSON, nullable=False),
    Column("created_at", Float, nullable=False),
)

usage = Table(
    "usage",
    metadata,
    Column("workspace_id", String(64), primary_key=True),
    Column("period", String(16), primary_key=True),  # "2026-11-23" (a day) or "2026-11" (a month)
    Column("count", Integer, nullable=False),
)

usage_by_operation = Table(
    "usage_by_operation",
    metadata,
    Column("workspace_id", String(64), primary_key=True),
    Column("period", String(16), primary_key=True),
    Column("operation", String(32), primary_key=True),
    Column("count", Integer, nullable=False),
)

assets = Table(
    "assets",
    metadata,
    Column("workspace_id", String(64), primary_key=True),
    Column("id", String(64), primary_key=True),  # "ast_" + the content's SHA-256 (its first 40 digits)
    Column("media_type", String(100), nullable=False),
    Column("size", Integer, nullable=False),
    Column("width", Integer),
    Column("height", Integer),
    Column("family", String(200)),
    Column("created_at", Float, nullable=False),
)

usage_by_project = Table(
    "usage_by_project",
    metadata,
    Column("workspace_id", String(64), primary_key=True),
    Column("project_id", String(64), primary_key=True),
    Column("day", String(16), primary_key=True),  # "2026-11-23"
    Column("count", Integer, nullable=False),
)

idempotency = Table(
    "idempotency",
    metadata,
    Column("key_id", String(64), primary_key=True),
    Column("idempotency_key", String(255), primary_key=True),
    Column("request_hash", String(64), nullable=False),
    Column("state", String(16), nullable=False),  # pending, done
    Column("status", Integer),
    Column("media_type", String(100)),
    Column("headers", JSON),
    Column("body", LargeBinary),
    Column("video_id", String(64)),
    Column("created_at", Float, nullable=False),
)

render_cache = Table(
    "render_cache",
    metadata,
    Column("key", String(64), primary_key=True),
    Column("file_key", String(500), nullable=False),
    Column("media_type", String(100), nullable=False),
    Column("etag", String(80), nullable=False),
    Column("warnings", JSON),
    Column("created_at", Float, nullable=False),
)

hooks = Table(
    "hooks",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("projects.id"), nullable=False, index=True),
    Column("template_id", String(200), nullable=False),
    Column("output", String(8), nullable=False),  # png, jpeg, webp, pdf or mp4
    Column("map", JSON),  # layer or layer.field -> a path in the posted JSON; none: the body is the modifications
    Column("token_sha256", String(64), nullable=False, unique=True),  # the URL's secret, hashed
    Column("secret_header", String(100)),  # the header carrying the sender's signature, if one is required
    Column("sealed_secret", Text),  # the key it is signed with, encrypted with the server secret
    Column("respond", String(8), nullable=False),  # url or file
    Column("created_at", Float, nullable=False),
    Column("deleted_at", Float),
    Column("webhook_url", Text),  # where the hook's renders are announced, besides the project's endpoints
    Column("signature", String(32)),  # how senders sign: body (in secret_header) or standard-webhooks; none: unsigned
)

webhook_endpoints = Table(
    "webhook_endpoints",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("project_id", String(64), ForeignKey("projects.id"), nullable=False, index=True),
    Column("url", Text, nullable=False),
    Column("events", Text, nullable=False),  # space-separated event types
    Column("sealed_secret", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("deleted_at", Float),
    Column("failures", Integer),  # attempts failed in a row (none: none yet)
    Column("paused_at", Float),  # paused after too many failures in a row: its deliveries wait
)

webhook_deliveries = Table(
    "webhook_deliveries",
    metadata,
    Column("id", String(64), primary_key=True),  # the webhook-id header: the same on every attempt
    Column("project_id", String(64), nullable=False, index=True),
    Column("endpoint_id", String(64)),  # none: a URL the request named, signed with the project's secret
    Column("url", Text, nullable=False),
    Column("type", String(32), nullable=False),
    Column("body", Text, nullable=False),  # the exact bytes posted on every attempt
    Column("status", String(16), nullable=False),  # pending, sending, delivered, failed
    Column("attempts", Integer, nullable=False),
    Column("next_at", Float, nullable=False),  # when it is due (pending) or may be taken back (sending)
    Column("worker", String(64)),
    Column("created_at", Float, nullable=False),
    Column("finished_at", Float),
    Index("ix_webhook_deliveries_due", "status", "next_at"),
)

webhook_attempts = Table(
    "webhook_attempts",
    metadata,
    Column("delivery_id", String(64), primary_key=True),
    Column("attempt", Integer, primary_key=True),
    Column("at", Float, nullable=False),
    Column("status_code", Integer),  # none: no answer (refused address, connection error, timeout)
    Column("error", Text),
    Column("seconds", Float, nullable=False),
    Column("sender", String(64)),  # the server's sender that made it
)

users = Table(
    "users",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("email", String(320), nullable=False, unique=True),  # trimmed and lower-cased
    Column("password_hash", Text, nullable=False),  # argon2id, with its parameters and salt
    Column("created_at", Float, nullable=False),
)

memberships = Table(
    "memberships",
    metadata,
    Column("workspace_id", String(64), ForeignKey("workspaces.id"), primary_key=True),
    Column("user_id", String(64), ForeignKey("users.id"), primary_key=True, index=True),
    Column("role", String(16), nullable=False),  # owner, admin, designer, viewer
    Column("created_at", Float, nullable=False),
)

sessions = Table(
    "sessions",
    metadata,
    Column("id", String(64), primary_key=True),  # the SHA-256 of the cookie's token
    Column("user_id", String(64), ForeignKey("users.id"), nullable=False, index=True),
    Column("csrf", String(64), nullable=False),  # the token every form of the session carries
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
)

sign_in_failures = Table(
    "sign_in_failures",
    metadata,
    Column("subject", String(400), nullable=False),  # "email:…" or "address:…"
    Column("at", Float, nullable=False),
    Index("ix_sign_in_failures_subject", "subject", "at"),
)

audit_log = Table(
    "audit_log",
    metadata,
    Column("seq", Integer, primary_key=True, autoincrement=True),
    Column("workspace_id", String(64), nullable=False),
    Column("at", Float, nullable=False),
    Column("actor", String(400), nullable=False),  # an email, "key key_…", "admin command", an address
    Column("action", String(64), nullable=False),  # "key created", "template saved", …
    Column("subject", String(400), nullable=False),  # what it was done to: an id, an email
    Column("detail", Text),
    Index("ix_audit_log_workspace", "workspace_id", "seq"),
)

invitations = Table(
    "invitations",
    metadata,
    Column("id", String(64), primary_key=True),
    Column("workspace_id", String(64), ForeignKey("workspaces.id"), nullable=False, index=True),
    Column("token_hash", String(64), nullable=False, unique=True),  # the SHA-256 of the link's token
    Column("email", String(320)),  # whom it was sent to, if anyone
    Column("role", String(16), nullable=False),
    Column("invited_by", String(320), nullable=False),
    Column("created_at", Float, nullable=False),
    Column("expires_at", Float, nullable=False),
    Column("accepted_at", Float),
    Column("accepted_by", String(64)),
)

MIGRATION_LOCK = 0x746B6D67  # "tkmg": the advisory lock of schema migrations on PostgreSQL
VIDEO_CLAIM_LOCK = 0x746B7663  # "tkvc": the one of claiming a video, whose turn follows from the others'


def _add_columns(connection: Connection, table: Table, names: Sequence[str]) -> None:
    """Add the named columns of ``table`` that the database does not have yet (a new
    database has them already: step 0 makes the tables as they are now)."""
    present = {column["name"] for column in inspect(connection).get_columns(table.name)}
    for name in names:
        if name not in present:
            column = table.c[name]
            kind = column.type.compile(dialect=connection.dialect)
            connection.execute(text(f"ALTER TABLE {table.name} ADD COLUMN {name} {kind}"))


# Each step brings the schema from its index to the next version; step 0 creates it.
def _key_scopes_and_template_history(connection: Connection) -> None:
    _add_columns(connection, api_keys, ["scopes"])
    _add_columns(connection, templates, ["deleted_at"])
    _add_columns(connection, template_versions, ["note"])


def _webhooks(connection: Connection) -> None:
    _add_columns(connection, projects, ["webhook_secret"])
    _add_columns(connection, videos, ["duration", "api_base", "webhook_url"])
    _add_columns(connection, hooks, ["webhook_url"])
    metadata.create_all(connection, tables=[webhook_endpoints, webhook_deliveries, webhook_attempts])


def _paused_endpoints(connection: Connection) -> None:
    _add_columns(connection, webhook_endpoints, ["failures", "paused_at"])


def _hook_signatures(connection: Connection) -> None:
    _add_columns(connection, hooks, ["signature"])
    connection.execute(hooks.update().where(hooks.c.secret_header.is_not(None)).values(signature="body"))


def _people(connection: Connection) -> None:
    _add_columns(connection, api_keys, ["prefix", "expires_at", "session_id", "note", "last_used_at"])
    made = [users, memberships, sessions, sign_in_failures, audit_log, invitations, usage_by_project, assets]
    metadata.create_all(connection, tables=made)


def _video_outputs(connection: Connection) -> None:
    _add_columns(connection, videos, ["output"])


def _video_turns(connection: Connection) -> None:
    _add_columns(connection, videos, ["turn"])
    for index in videos.indexes:
        if index.name in ("ix_videos_turn", "ix_videos_workspace_turn"):
            index.create(connection, checkfirst=True)


def _version_sizes(connection: Connection) -> None:
    _add_columns(connection, template_versions, ["size"])
    body = template_versions.c.body
    size = func.octet_length(body) if connection.dialect.name == "postgresql" else func.length(cast(body, LargeBinary))
    connection.execute(template_versions.update().where(template_versions.c.size.is_(None)).values(size=size))
    for index in template_versions.indexes:
        index.create(connection, checkfirst=True)


MIGRATIONS: list[Callable[[Connection], None]] = [
    lambda connection: metadata.create_all(connection),
    _key_scopes_and_template_history,
    lambda connection: metadata.create_all(connection, tables=[hooks]),
    _webhooks,
    _paused_endpoints,
    _hook_signatures,
    _people,
    _video_outputs,
    _video_turns,
    _version_sizes,
    lambda connection: metadata.create_all(connection, tables=[server_secret]),
    lambda connection: metadata.create_all(connection, tables=[renders_in_flight]),
]


def now() -> float:
    return time.time()


def iso_time(timestamp: float) -> str:
    """A stored time as the interface shows times: ISO 8601 in UTC, ending in Z."""
    return datetime.fromtimestamp(timestamp, UTC).isoformat().replace("+00:00", "Z")


@frozen
class Statements:
    """A transaction of ``Database.statements``, on the driver's connection: ``first``,
    ``rows`` and ``run`` take it as they take a SQLAlchemy ``Connection`` (the same
    ``connection``, ``engine`` and ``invalidate``), and nothing else does."""

    connection: PoolProxiedConnection  # the driver's connection, as ``Connection.connection``
    engine: Engine  # where it comes from, as ``Connection.engine``

    def invalidate(self, exception: BaseException | None = None) -> None:
        """Drop the connection, lost, from the pool (as ``Connection.invalidate``)."""
        self.connection.invalidate(exception)


#: A transaction the statements run by ``Database.first``, ``rows`` and ``run`` can take.
Transaction = Connection | Statements


def _no_rows(cursor: Any) -> None:
    """What a statement that returns no rows gives."""


class Database:
    """An engine with the schema in place. ``read()`` and ``write()`` are transactions;
    on SQLite a write transaction takes the write lock when it starts, so that
    check-then-update sequences (quotas, job claims) are atomic across processes."""

    def __init__(self, url: str, migrate: bool = True) -> None:
        """``migrate=False`` for a process whose server has migrated already (a render
        worker): it then connects only when it first needs to, so that a worker started
        while the database is away starts, and its renders fail one by one instead."""
        self.url = make_url(url)
        self.sqlite = self.url.get_backend_name() == "sqlite"
        self.postgres = self.url.get_backend_name() == "postgresql"
        options: dict[str, Any] = {"future": True}
        if self.sqlite:
            options["connect_args"] = {"check_same_thread": False, "timeout": 30}
        else:
            # a database host that does not answer fails a request in seconds, not minutes
            options.update(pool_pre_ping=True, pool_size=10, max_overflow=20, connect_args={"connect_timeout": 5})
        if self.sqlite:
            _private_file(self.url.database)
        self.engine: Engine = create_engine(url, **options)
        self._count_upserts: dict[tuple[str, tuple[str, ...], bool], Any] = {}
        self._compiled: dict[ClauseElement, tuple[str, tuple[str, ...] | None]] = {}
        # SQLite lets one transaction write at a time; the threads of one process that
        # want to write wait their turn on a lock rather than in SQLite's busy handler,
        # which sleeps and retries (a writer could wait seconds while others came and
        # went: one workspace's stream of writes held up another's reservation)
        self._writing: Any = _writer_lock(self.url.database) if self.sqlite else contextlib.nullcontext()
        # transactions run on the event loop (``promptly``) use connections that never
        # wait: busy, they give up at once and the work goes to a thread instead
        self._prompt_engine: Engine | None = None
        if self.sqlite:
            _sqlite_locking(self.engine, busy_ms=30_000)
            if _is_file(self.url.database):
                self._prompt_engine = create_engine(
                    url, future=True, connect_args={"check_same_thread": False, "timeout": 0}
                )
                _sqlite_locking(self._prompt_engine, busy_ms=0, checkpoints=False)
        if migrate:
            self.migrate()

    def migrate(self) -> None:
        """Create the schema, or bring it to the newest version."""
        with self.write() as connection:
            self.one_at_a_time(connection, MIGRATION_LOCK)  # servers starting together migrate one after the other
            metadata.create_all(connection, tables=[schema_version])
            current = connection.execute(select(schema_version.c.version)).scalar()
            start = 0 if current is None else current
            for step in MIGRATIONS[start:]:
                step(connection)
            if current is None:
                connection.execute(insert(schema_version).values(version=len(MIGRATIONS)))
            elif current < len(MIGRATIONS):
                connection.execute(schema_version.update().values(version=len(MIGRATIONS)))

    @contextmanager
    def read(self) -> Iterator[Connection]:
        with self._engine().connect() as connection, connection.begin():
            yield connection

    @contextmanager
    def write(self) -> Iterator[Connection]:
        engine = self._engine()
        with self._writer(engine), engine.connect() as connection:
            connection = connection.execution_options(templatekit_write=True)
            with connection.begin():
                yield connection

    @contextmanager
    def statements(self, write: bool = False) -> Iterator[Statements]:
        """A transaction for ``first``, ``rows`` and ``run`` only, on the driver's own
        connection: SQLAlchemy's connection, its events and its transaction cost about
        35 µs more than the statements of a key lookup (10 µs), and every render runs
        two such transactions (its key; its template, reservation and record in flight)."""
        engine = self._engine()
        with self._writer(engine) if write else contextlib.nullcontext():
            try:
                driver = engine.raw_connection()
            except self.engine.dialect.loaded_dbapi.Error as exc:  # the database away
                raise self._failure(exc, engine, None, None, lost=False) from exc
            transaction = Statements(driver, engine)
            try:
                if self.sqlite:
                    self._execute(transaction, _begin_sql(write), (), _no_rows)
                yield transaction
                self._settle(transaction, driver.commit)
            except BaseException:
                if driver.is_valid:  # else lost, and dropped from the pool already
                    with contextlib.suppress(Exception):  # the pool drops one that cannot roll back
                        driver.rollback()
                raise
            finally:
                driver.close()

    def _writer(self, engine: Engine) -> contextlib.AbstractContextManager[Any]:
        """The lock a write transaction on ``engine`` holds (SQLite: one writer per process
        at a time); DatabaseBusy for ``promptly``'s engine while another thread holds it."""
        if engine is self.engine:
            return self._writing
        if self._writing.acquire(blocking=False):
            return _held(self._writing)
        raise DatabaseBusy

    def _engine(self) -> Engine:
        return self._prompt_engine if self._prompt_engine is not None and _PROMPT.get() else self.engine

    @property
    def needs_checkpoints(self) -> bool:
        """Whether ``checkpoint`` has work: a SQLite file whose ``promptly`` connections
        leave the write-ahead log to it (PostgreSQL and memory need none)."""
        return self._prompt_engine is not None

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (SQLite): the connections of
        ``promptly`` leave it to this, so that no request waits for a checkpoint's disk
        writes on the event loop."""
        if not self.needs_checkpoints:
            return
        with self.engine.connect() as connection:
            connection.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)")

    def first(self, connection: Transaction, statement: ClauseElement, parameters: Mapping[str, Any]) -> Any:
        """The first row of a statement that every request runs (a key's caller, a
        render's template and usage counters), or None: compiled once for this database,
        then run on the driver's own cursor in ``connection``'s transaction, which spares
        SQLAlchemy's work per execution (most of a key lookup's cost). For statements of
        plain columns and named bind parameters: the row is the driver's tuple."""
        return self._on_cursor(connection, statement, parameters, lambda cursor: cursor.fetchone())

    def rows(self, connection: Transaction, statement: ClauseElement, parameters: Mapping[str, Any]) -> list[Any]:
        """Every row of such a statement (see ``first``)."""
        return list(self._on_cursor(connection, statement, parameters, lambda cursor: cursor.fetchall()))

    def run(self, connection: Transaction, statement: ClauseElement, parameters: Mapping[str, Any]) -> None:
        """Such a statement that returns no rows (see ``first``)."""
        self._on_cursor(connection, statement, parameters, _no_rows)

    def _on_cursor(
        self,
        connection: Transaction,
        statement: ClauseElement,
        parameters: Mapping[str, Any],
        fetch: Callable[[Any], Any],
    ) -> Any:
        compiled = self._compiled.get(statement)
        if compiled is None:
            done = statement.compile(dialect=self.engine.dialect)
            assert isinstance(done, SQLCompiler)
            order = tuple(done.positiontup or ()) if done.positional else None
            compiled = self._compiled[statement] = (str(done), order)
        sql, order = compiled
        arguments = tuple(parameters[name] for name in order) if order is not None else dict(parameters)
        return self._execute(connection, sql, arguments, fetch)

    def _execute(self, connection: Transaction, sql: str, arguments: Any, fetch: Callable[[Any], Any]) -> Any:
        def step() -> Any:
            cursor = connection.connection.cursor()
            try:
                cursor.execute(sql, arguments)
                return fetch(cursor)
            finally:
                cursor.close()

        return self._settle(connection, step, sql, arguments)

    def _settle(self, connection: Transaction, step: Callable[[], T], sql: str = "COMMIT", arguments: Any = None) -> T:
        """``step()`` on ``connection``, its driver's error raised as ``_failure`` says (a
        lost connection is dropped from the pool first; the pool's ping on checkout finds
        any other that the database lost with it)."""
        dbapi = self.engine.dialect.loaded_dbapi
        try:
            return step()
        except dbapi.Error as exc:
            lost = self.engine.dialect.is_disconnect(exc, connection.connection, None)
            if lost:
                connection.invalidate(exc)
            raise self._failure(exc, connection.engine, sql, arguments, lost) from exc

    def _failure(self, exc: Exception, engine: Engine, sql: str | None, arguments: Any, lost: bool) -> Exception:
        """A driver's error as SQLAlchemy raises it, for the server's handlers; DatabaseBusy
        on ``promptly``'s engine when SQLite is busy."""
        if engine is self._prompt_engine and _is_busy(exc):
            return DatabaseBusy()
        dbapi_error = self.engine.dialect.loaded_dbapi.Error
        return DBAPIError.instance(
            sql, arguments, exc, dbapi_error, connection_invalidated=lost, dialect=self.engine.dialect
        )

    def add_to_count(
        self, connection: Transaction, table: Table, keys: dict[str, Any], n: int, limit: int | None
    ) -> bool:
        """Add ``n`` to the ``count`` of the row at ``keys`` (made when absent) unless the
        sum would pass ``limit``; whether it was added. One statement, an upsert whose
        update has the limit as its condition, so that it is atomic on its own."""
        if limit is not None and n > limit:
            return False
        statement = self._count_upsert(table, tuple(keys), limit is not None)
        parameters = {f"key_{name}": value for name, value in keys.items()}
        # a row comes back only when one was written (rowcount is not reliable for
        # upserts across drivers: psycopg gives -1)
        return self.first(connection, statement, {**parameters, "n": n, "limit": limit}) is not None

    def _count_upsert(self, table: Table, keys: tuple[str, ...], limited: bool) -> Any:
        """``add_to_count``'s statement, built once per table and kind: every render
        counts its usage, and building the statement cost more than running it."""
        cache_key = (table.name, keys, limited)
        statement = self._count_upserts.get(cache_key)
        if statement is None:
            n = bindparam("n", type_=Integer)
            values: dict[str, Any] = {name: bindparam(f"key_{name}") for name in keys}
            statement = self._insert(table).values(**values, count=n)
            statement = statement.on_conflict_do_update(
                index_elements=list(keys),
                set_={"count": table.c.count + n},
                where=table.c.count + n <= bindparam("limit", type_=Integer) if limited else None,
            ).returning(table.c.count)
            self._count_upserts[cache_key] = statement
        return statement

    def insert_unless_present(self, connection: Connection, table: Table, **values: Any) -> bool:
        """Insert the row unless its primary key is taken; whether it was inserted. Atomic
        against other inserts of the same key, on every host."""
        statement = self._insert(table).values(**values).on_conflict_do_nothing()
        primary = list(table.primary_key.columns)
        return connection.execute(statement.returning(*primary)).first() is not None

    def upsert(self, connection: Connection, table: Table, keys: dict[str, Any], values: dict[str, Any]) -> None:
        """Insert the row, or replace its ``values`` when its primary key is taken."""
        statement = self._insert(table).values(**keys, **values)
        connection.execute(statement.on_conflict_do_update(index_elements=list(keys), set_=values))

    def one_at_a_time(self, connection: Connection, lock: int) -> None:
        """Hold ``lock`` until the transaction of ``connection`` ends, so that the work it
        names runs on one server at a time. On PostgreSQL an advisory lock; SQLite's
        write transactions are one at a time already."""
        if self.postgres:
            connection.execute(text("SELECT pg_advisory_xact_lock(:lock)"), {"lock": lock})

    def next_free(self, query: Select[Any]) -> Select[Any]:
        """``query`` taking the rows it finds for this transaction, passing over rows other
        transactions hold (PostgreSQL's ``FOR UPDATE SKIP LOCKED``; SQLite's write lock
        already gives one writer at a time)."""
        return query.with_for_update(skip_locked=True) if self.postgres else query

    def _insert(self, table: Table) -> Any:
        return (postgresql if self.postgres else sqlite).insert(table)

    def close(self) -> None:
        self.engine.dispose()
        if self._prompt_engine is not None:
            self._prompt_engine.dispose()


class DatabaseBusy(Exception):
    """A transaction run ``promptly`` would have had to wait for the database."""


_PROMPT = contextvars.ContextVar("templatekit_prompt", default=False)
T = TypeVar("T")


async def promptly(db: Database, work: Callable[..., T], *args: Any) -> T:
    """``work(*args)``, whose transactions are short, on the event loop when the database
    can take them without waiting (a SQLite file whose writer is free), else in a thread.

    A request's own few statements (its key, its reservation) take about 0.2 ms, and two
    trips to a thread cost more than that; under load those trips also queue behind
    other threads for the interpreter, and a write transaction held open meanwhile keeps
    every other writer waiting. ``work`` must be safe to run again in a thread after
    giving up part-way (DatabaseBusy): reads, and writes that either happen or not."""
    if db._prompt_engine is not None:
        token = _PROMPT.set(True)
        try:
            return work(*args)
        except DatabaseBusy:
            pass
        finally:
            _PROMPT.reset(token)
    return await run_in_threadpool(work, *args)


@contextmanager
def _held(lock: threading.RLock) -> Iterator[None]:
    """A lock taken already, released at the end."""
    try:
        yield
    finally:
        lock.release()


def _is_busy(exc: BaseException) -> bool:
    """SQLite's answer to a connection that may not wait for another's lock."""
    return isinstance(exc, sqlite3.OperationalError) and exc.sqlite_errorcode & 0xFF in (
        sqlite3.SQLITE_BUSY,
        sqlite3.SQLITE_LOCKED,
    )


def _is_file(database: str | None) -> bool:
    return bool(database) and database != ":memory:" and not str(database).startswith("file:")


def _private_file(database: str | None) -> None:
    """Create a SQLite file readable by the server's user only (it holds key hashes and
    sealed signing keys); SQLite gives its journal files the same mode."""
    if database is None or not _is_file(database):
        return
    try:
        os.close(os.open(database, os.O_RDWR | os.O_CREAT, 0o600))
    except OSError:  # SQLite says what is wrong with the path when it opens it
        return


_WRITER_LOCKS: dict[str, threading.RLock] = {}


def _writer_lock(path: str | None) -> threading.RLock:
    """The lock of this process's writers to the SQLite file at ``path``."""
    key = os.path.realpath(path) if path else ""
    return _WRITER_LOCKS.setdefault(key, threading.RLock())


def _sqlite_locking(engine: Engine, busy_ms: int, checkpoints: bool = True) -> None:
    """WAL (readers never wait for the writer), foreign keys, and BEGIN IMMEDIATE for
    write transactions (SQLite's default BEGIN takes the lock only at the first write,
    so two check-then-update transactions could both pass their check). A connection
    waits up to ``busy_ms`` for another's lock; without ``checkpoints`` its commits
    leave the log's checkpoints to others (``Database.checkpoint``)."""

    @event.listens_for(engine, "connect")
    def _connect(dbapi_connection: Any, _record: Any) -> None:
        dbapi_connection.isolation_level = None  # transactions are begun below
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={busy_ms:d}")
        if not checkpoints:
            cursor.execute("PRAGMA wal_autocheckpoint=0")
        cursor.close()

    if busy_ms == 0:

        @event.listens_for(engine, "handle_error")
        def _busy(context: Any) -> None:
            if _is_busy(context.original_exception):
                raise DatabaseBusy from context.original_exception

    @event.listens_for(engine, "begin")
    def _begin(connection: Connection) -> None:
        connection.exec_driver_sql(_begin_sql(connection.get_execution_options().get("templatekit_write", False)))


def _begin_sql(write: bool) -> str:
    """How a SQLite transaction begins: a write takes the write lock at once."""
    return "BEGIN IMMEDIATE" if write else "BEGIN"
