"""The Starlette app: routes under /v1, request ids, the error table, and the lifespan
that starts the video runner, the webhook sender and housekeeping."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import re
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from typing import Any, TypeVar

from sqlalchemy.exc import DBAPIError, OperationalError, SQLAlchemyError
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.datastructures import MutableHeaders
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Mount
from starlette.types import ASGIApp, ExceptionHandler, Message, Receive, Scope, Send

from templatekit import TemplatekitError
from templatekit_server import catalog, idempotency, logs, render_cache, usage, webhooks
from templatekit_server.alive import TOUCH_SECONDS
from templatekit_server.dashboard import dashboard_mount
from templatekit_server.errors import DATABASE_UNAVAILABLE, ApiError, bounded, envelope, from_library
from templatekit_server.pages import PageHeaders, page_mounts
from templatekit_server.routes import assets, editor, hooks, meta, renders, signed, templates, videos
from templatekit_server.settings import Settings
from templatekit_server.state import ServerState

log = logging.getLogger("templatekit.server")
E = TypeVar("E", bound=Exception)
access = logging.getLogger("templatekit.access")

REQUEST_ID = "X-Request-Id"
HOUSEKEEPING_SECONDS = 600
CHECKPOINT_SECONDS = 2.0
_CLIENT_ID = re.compile(r"[A-Za-z0-9._\-]{1,64}")


class RequestIds:
    """Gives every request an id (the client's ``X-Request-Id`` when it is a plain
    token), at ``request.state.request_id`` and in the answer's ``X-Request-Id``; adds
    the key's rate-limit window to the answer (see ``inputs.count_request``) and
    ``X-Content-Type-Options: nosniff`` to every answer; logs one
    access line per request: method, path, status, time and id, but never the query
    string, which may carry an API key or a signature; and answers an unexpected error
    with the envelope itself, so that the connection stays usable (Starlette's own
    last-resort handler re-raises, and the server then drops the connection)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.tracebacks = logs.Tracebacks()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(b"x-request-id", b"").decode("latin-1")
        request_id = given if _CLIENT_ID.fullmatch(given) else f"req_{secrets.token_hex(12)}"
        scope.setdefault("state", {})["request_id"] = request_id

        started = time.perf_counter()
        status = 500
        answered = False

        async def send_with_id(message: Message) -> None:
            nonlocal status, answered
            if message["type"] == "http.response.start":
                status, answered = message["status"], True
                headers = MutableHeaders(scope=message)
                if REQUEST_ID not in headers:
                    headers[REQUEST_ID] = request_id
                headers.setdefault("X-Content-Type-Options", "nosniff")  # a file is what its type says
                for name, value in scope["state"].get("rate_limit_headers", {}).items():
                    if name not in headers:
                        headers[name] = value
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except ClientDisconnect:
            status = 499  # the client went away before its request was whole: nobody to answer
        except asyncio.CancelledError:
            # Only uvicorn cancels a request, when the server stops and the request outlived
            # TEMPLATEKIT_SHUTDOWN_SECONDS: what it held is given back on the way out (the
            # handlers' own except clauses), and the connection closes; not an error.
            status = status if answered else 503
            log.info("%s cancelled: the server is stopping", scope.get("path", ""))
        except Exception as exc:
            if answered:
                raise  # half an answer is out: only closing the connection can say it failed
            await self._unexpected(exc, scope, receive, send_with_id)
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            access.info("%s %s %d %.1f ms %s", scope["method"], scope["path"], status, elapsed, request_id)

    async def _unexpected(self, exc: Exception, scope: Scope, receive: Receive, send: Send) -> None:
        request = Request(scope, receive)
        request_id = _request_id(request)
        if self.tracebacks.due(exc):
            log.error("unexpected error (request %s)", request_id, exc_info=exc)
        else:
            log.error(
                "unexpected error (request %s): %s: %s (traceback logged above)", request_id, type(exc).__name__, exc
            )
        message = "an unexpected error occurred; quote the request id when reporting it"
        await error_response(request, "INTERNAL_SERVER_ERROR", message)(scope, receive, send)


def _request_id(request: Request) -> str:
    return str(getattr(request.state, "request_id", "") or f"req_{secrets.token_hex(12)}")


def error_response(
    request: Request, code: str, message: str, headers: dict[str, str] | None = None, problems: Sequence[str] = ()
) -> Response:
    """The envelope, with the code's status; every failure is logged with its request id.
    The message and problems are cut to size, and credentials in URLs they quote redacted."""
    message, problems = bounded(message, problems)
    message = logs.redacted(message)
    problems = [logs.redacted(problem) for problem in problems]
    error = ApiError(code, message, headers)
    request_id = _request_id(request)
    docs = request.app.state.server.settings.docs_url
    log.warning(
        "%s %s -> %d %s: %s (request %s)", request.method, request.url.path, error.status, code, message, request_id
    )
    return JSONResponse(
        envelope(code, message, request_id, docs, problems),
        status_code=error.status,
        headers={**error.headers, REQUEST_ID: request_id},
    )


def _handler(kind: type[E], answer: Callable[[Request, E], Awaitable[Response]]) -> ExceptionHandler:
    """``answer`` as Starlette's handler of ``kind``: Starlette passes it ``kind`` only;
    anything else (which it never passes) is raised again, never answered wrongly."""

    async def handle(request: Request, exc: Exception) -> Response:
        if not isinstance(exc, kind):
            raise exc
        return await answer(request, exc)

    return handle


async def _api_error(request: Request, exc: ApiError) -> Response:
    return error_response(request, exc.code, exc.message, exc.headers, exc.problems)


async def _library_error(request: Request, exc: TemplatekitError) -> Response:
    error = from_library(exc)
    return error_response(request, error.code, error.message, problems=error.problems)


async def _http_error(request: Request, exc: HTTPException) -> Response:
    if exc.status_code == 404:
        return error_response(request, "NOT_FOUND", f"no such endpoint: {request.method} {request.url.path}")
    if exc.status_code == 405:
        message = f"{request.method} is not allowed on {request.url.path}"
        return error_response(request, "METHOD_NOT_ALLOWED", message, dict(exc.headers or {}))
    return error_response(request, "BAD_REQUEST", str(exc.detail))


async def _database_error(request: Request, exc: SQLAlchemyError) -> Response:
    """The database failed (full disk, lost connection): the request is refused whole,
    its transaction rolled back, so nothing is billed or half-written. Its reason names
    hosts and files: it goes to the log only."""
    reason = getattr(exc, "orig", None) or exc
    log.error("database error (request %s): %s", _request_id(request), " ".join(str(reason).split()))
    if isinstance(exc, OperationalError) and "full" in str(reason).lower():  # SQLite's "database or disk is full"
        message = "the server's disk is full: the database could not write; try again once there is room"
    elif isinstance(exc, DBAPIError) and (exc.connection_invalidated or isinstance(exc, OperationalError)):
        message = DATABASE_UNAVAILABLE
    else:
        message = "the server's database failed; quote the request id when reporting it"
    return error_response(request, "INTERNAL_SERVER_ERROR", message)


def error_handlers() -> dict[Any, ExceptionHandler]:
    """The handlers that answer the interface's errors in its envelope, with the request id."""
    return {
        ApiError: _handler(ApiError, _api_error),
        TemplatekitError: _handler(TemplatekitError, _library_error),
        HTTPException: _handler(HTTPException, _http_error),
    }


async def _housekeeping(state: ServerState) -> None:
    while True:
        try:
            await run_in_threadpool(idempotency.forget_expired, state.db)
            await run_in_threadpool(render_cache.forget_expired, state.db, state.files)
            await run_in_threadpool(state.files.forget_expired_images)
            await run_in_threadpool(catalog.forget_deleted, state.db)
            await run_in_threadpool(webhooks.forget_old, state.db)
            await run_in_threadpool(state.releases.settle, state.db)
        except Exception:  # logged; the next round tries again
            log.exception("housekeeping failed")
        await asyncio.sleep(HOUSEKEEPING_SECONDS)


async def _renders_in_flight(state: ServerState) -> None:
    """Keep this server's stills in flight alive, and give back, soon after, the
    generations of those whose server was killed while rendering them
    (``usage.give_back_abandoned``): a failed render is free."""
    while True:
        try:
            await run_in_threadpool(state.in_flight.keep_alive, state.db)
            await run_in_threadpool(usage.give_back_abandoned, state.db)
        except SQLAlchemyError as exc:  # the database away: said once a round, without a traceback
            log.warning("renders in flight not kept alive this round: %s", str(exc).splitlines()[0])
        except Exception:  # logged; the next round tries again
            log.exception("keeping renders in flight failed")
        await asyncio.sleep(TOUCH_SECONDS)


def _freeze_start_up() -> None:
    """What starting made (modules, the database's tables, the app and its routes) lives
    as long as the process: moved out of the garbage collector's sight, so that a full
    collection visits only what came since. It visited all of it, and stopped the event
    loop, and every request in flight, for 45–75 ms a few times a minute under load."""
    gc.collect()
    gc.freeze()


async def _checkpoints(state: ServerState) -> None:
    """The database's write-ahead log copied into its file now and then, in a thread
    (see ``Database.checkpoint``)."""
    while True:
        try:
            await run_in_threadpool(state.db.checkpoint)
        except Exception as exc:  # a busy or failing disk: the next round tries again
            log.warning("the database's log was not checkpointed: %s", exc)
        await asyncio.sleep(CHECKPOINT_SECONDS)


def create_app(settings: Settings | None = None) -> Starlette:
    """The /v1 app for ``settings`` (default: from the environment)."""
    state = ServerState(settings or Settings.from_env())
    logs.install()

    @contextlib.asynccontextmanager
    async def lifespan(_app: Starlette) -> AsyncIterator[dict[str, Any]]:
        state.stills.start()
        _freeze_start_up()
        tasks = [
            asyncio.create_task(state.runner.run()),
            asyncio.create_task(state.sender.run()),
            asyncio.create_task(_housekeeping(state)),
            asyncio.create_task(_renders_in_flight(state)),
        ]
        if state.db.needs_checkpoints:
            tasks.append(asyncio.create_task(_checkpoints(state)))
        try:
            yield {}
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            state.close()
            gc.unfreeze()  # an app stopped in a process that goes on (tests, notebooks) leaves nothing frozen

    interface = [
        *renders.routes,
        *signed.routes,
        *videos.routes,
        *editor.routes,
        *templates.routes,
        *assets.routes,
        *meta.routes,
        *hooks.routes,
    ]
    mounts = [Mount("/v1", routes=interface), *page_mounts(state.settings)]
    if state.settings.dashboard:
        mounts.append(dashboard_mount(state))
    app = Starlette(
        routes=mounts,
        middleware=[Middleware(RequestIds), Middleware(PageHeaders, settings=state.settings)],
        exception_handlers={**error_handlers(), SQLAlchemyError: _handler(SQLAlchemyError, _database_error)},
        lifespan=lifespan,
    )
    app.state.server = state
    return app
