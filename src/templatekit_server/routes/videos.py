"""renderVideo and videos/{id}: video jobs, answered when done, at once, or as an
event stream (``text/event-stream``) that a client can resume by the video's id."""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import AsyncIterator
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

import templatekit as tk
from templatekit import TemplatekitError, load_template
from templatekit_server import accounts, catalog, events, jobs, webhooks
from templatekit_server.accounts import Caller
from templatekit_server.answers import WARNINGS_HEADER, idempotent, json_answer, json_response, warnings_header
from templatekit_server.bodies import Url, VideoDone, VideoQueued, VideoRequest
from templatekit_server.db import iso_time
from templatekit_server.errors import ApiError, bad_request, envelope, from_library
from templatekit_server.idempotency import Answer
from templatekit_server.inputs import Fields, authenticate, read_as, read_request, unread_fields
from templatekit_server.state import ServerState, server_of

POLL_SECONDS = 0.25
log = logging.getLogger("templatekit.server")
TERMINAL = ("done", "error")


async def render_video(request: Request) -> Response:
    server = server_of(request)
    caller, body = await read_request(request, "renderVideo")
    asked = read_as(VideoRequest, body, server.settings.max_text_chars)
    body = body or {}
    unread = unread_fields(VideoRequest, body)
    if server.video_unavailable:  # refused before a job exists, never a job that fails later
        raise bad_request(f"renderVideo: {server.video_unavailable}")
    template_id = catalog.checked_template_id(asked.template_id)
    modifications = asked.modifications
    webhook_url = await webhooks.requested_url(body, server.allow, server.lookup_lane(caller.workspace_id))
    query = Fields(request.query_params, server.settings.max_text_chars)
    stream = query.flag("stream")
    wait = query.raw("wait") is None or query.flag("wait")

    async def produce() -> Answer:
        video_id, warnings = await run_in_threadpool(
            queued_video, server, caller, template_id, modifications, request, webhook_url, asked.format
        )
        server.runner.wake()
        answer = json_answer(VideoQueued(id=video_id, status="queued"), 202, warnings_header((*unread, *warnings)))
        return Answer(answer.status, answer.media_type, answer.headers, answer.body, video_id)

    answer, _ = await idempotent(request, caller, "renderVideo", body, produce, server.settings.render_timeout)
    video_id = str(answer.video_id)
    warned = {name: value for name, value in answer.headers.items() if name == WARNINGS_HEADER}
    if stream:
        return _event_stream(request, caller, video_id, after=0, headers=warned, revoked="BAD_REQUEST")
    if not wait:
        return json_response(VideoQueued(id=video_id, status="queued"), 202, warned)
    return await _finished(request, caller, video_id, warned)


def queued_video(
    server: ServerState,
    caller: Caller,
    template_id: str,
    modifications: Any,
    request: Request,
    webhook_url: str | None = None,
    output: str = "mp4",
) -> tuple[str, tuple[str, ...]]:
    """Check the template and the modifications, then queue the video, written as
    ``output`` (announced when it ends to the project's webhook endpoints and to
    ``webhook_url``); its id, and the warnings of modifications that do not apply."""
    info = catalog.info(server.db, caller.workspace_id, template_id)
    if info.kind != "video":
        raise bad_request(f"templateId: {template_id} is not a video template (it has no video field)")
    template = load_template(catalog.body(server.db, caller.workspace_id, template_id, info.version))
    if (too_large := template.frames_too_large()) is not None:
        raise bad_request(f"templateId: {template_id}: {too_large}")
    try:
        applied = tk.apply(template, modifications)  # bad modifications are answered now, not in a failed job
    except TemplatekitError as exc:
        raise from_library(exc) from None
    plan = server.plan(caller)
    request_id = request.state.request_id
    video_id = jobs.create(
        server.db,
        caller,
        plan,
        template_id,
        info.version,
        template,
        modifications,
        request_id,
        server.api_base(request),
        webhook_url,
        output,
    )
    return video_id, tuple(applied.warnings)


async def _finished(request: Request, caller: Caller, video_id: str, headers: dict[str, str]) -> Response:
    """Wait for the video; 200 ``{url, id}`` with ``headers``, or the error it failed
    with. A client that goes away stops the waiting, not the job."""
    server = server_of(request)
    while not await request.is_disconnected():
        row = await run_in_threadpool(jobs.find, server.db, video_id)
        if row.status in ("done", "failed") and not await run_in_threadpool(
            accounts.key_in_force, server.db, caller.key_id
        ):  # asked once, before the answer: a key revoked meanwhile gets nothing of the video
            # renderVideo's word for a key not in force, as when it is asked with one
            raise bad_request("the API key was revoked or expired while the request waited")
        if row.status == "done":
            done = VideoDone(url=Url(_video_url(server, request, row.file_key)), id=video_id)
            return json_response(done, headers=headers)
        if row.status == "failed":
            error = row.error or {}
            raise ApiError(error.get("code", "INTERNAL_SERVER_ERROR"), error.get("message", "the render failed"))
        await asyncio.sleep(POLL_SECONDS)
    return Response(status_code=499)  # nobody reads it: the client closed the connection


def _video_url(server: ServerState, request: Request, key: str) -> str:
    return server.files.url(server.api_base(request), key, expiring=False)


async def video(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "getVideo")
    video_id = request.path_params["video_id"]
    row = await run_in_threadpool(jobs.find, server.db, video_id)
    if row is None or row.workspace_id != caller.workspace_id:  # another tenant's is not there for this one
        raise ApiError("NOT_FOUND", f"video {video_id[:80]} does not exist")
    if row.project_id != caller.project_id:
        raise ApiError("FORBIDDEN", f"video {video_id} belongs to another project")
    if Fields(request.query_params, server.settings.max_text_chars).flag("stream"):
        latest = await run_in_threadpool(events.latest, server.db, video_id)
        return _event_stream(request, caller, video_id, after=latest[0] - 1 if latest else 0)
    answer: dict[str, Any] = {
        "id": row.id,
        "status": row.status,
        "progress": 1.0
        if row.status == "done"
        else round(row.frame / row.total_frames, 4)
        if row.total_frames
        else 0.0,
        "createdAt": iso_time(row.created_at),
    }
    if row.status == "done":
        answer["url"] = _video_url(server, request, row.file_key)
    if row.status == "failed":
        answer["error"] = row.error
    return JSONResponse(answer)


def _event_stream(
    request: Request,
    caller: Caller,
    video_id: str,
    after: int,
    headers: dict[str, str] | None = None,
    revoked: str = "UNAUTHORIZED",
) -> Response:
    """The video's records as an event stream; ``revoked`` is the code of the error that
    ends it when the key stops being in force (the one the operation answers such a key
    with: BAD_REQUEST on renderVideo)."""
    headers = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no", **(headers or {})}
    records = _events(request, caller, video_id, after, revoked)
    return StreamingResponse(records, media_type="text/event-stream", headers=headers)


async def _events(request: Request, caller: Caller, video_id: str, after: int, revoked: str) -> AsyncIterator[str]:
    """``_records``, each sent only while the caller's key is in force (else an ``error``
    ends the stream: a key revoked or expired meanwhile gets nothing more), and a log
    line when the stream ends: after the last event, or when the client went away (the
    render goes on either way; it is not the stream's)."""
    server = server_of(request)
    sent = 0
    try:
        async for record in _records(request, video_id, after):
            if not await run_in_threadpool(accounts.key_in_force, server.db, caller.key_id):
                message = "the API key was revoked or expired while the stream was open"
                error = envelope(revoked, message, request.state.request_id, server.settings.docs_url)
                yield _record({"type": "error", **error})
                return
            sent += 1
            yield record
    finally:
        log.info("event stream of %s closed after %d records", video_id, sent)


async def _records(request: Request, video_id: str, after: int) -> AsyncIterator[str]:
    """The video's events after ``after`` as SSE records, then new ones as they come,
    ``queued {ahead}`` while it waits, a keep-alive comment when nothing else is sent,
    until ``done`` or ``error``."""
    server = server_of(request)
    seq, ahead_sent, sent_at = after, None, time.monotonic()
    while True:
        found = await run_in_threadpool(events.after, server.db, video_id, seq)
        for number, data in found:
            seq = number
            if data["type"] == "done":
                row = await run_in_threadpool(jobs.find, server.db, video_id)
                data = {"type": "done", "url": _video_url(server, request, row.file_key)}
            yield _record(data)
            sent_at = time.monotonic()
            if data["type"] in TERMINAL:
                return
        if not found:
            row = await run_in_threadpool(jobs.find, server.db, video_id)
            if row.status == "queued":
                ahead = await run_in_threadpool(jobs.ahead, server.db, row, server.weight_of)
                if ahead != ahead_sent:
                    ahead_sent = ahead
                    yield _record({"type": "queued", "ahead": ahead})
                    sent_at = time.monotonic()
        if time.monotonic() - sent_at >= server.settings.keep_alive_seconds:
            yield ": keep-alive\n\n"
            sent_at = time.monotonic()
        await asyncio.sleep(POLL_SECONDS)


def _record(data: dict[str, Any]) -> str:
    return f"event: {data['type']}\ndata: {json.dumps(data, separators=(',', ':'))}\n\n"


routes = [
    Route("/templates/renderVideo", render_video, methods=["POST"]),
    Route("/videos/{video_id}", video, methods=["GET"]),
]
