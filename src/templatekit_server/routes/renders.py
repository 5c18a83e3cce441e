"""createImage, createPdf and createStoredImage: renders of stills (signed URLs, in
``signed``, share the steps).

Each is: read the request, authenticate, reserve a generation (thumbnails are free),
render in a worker, deliver (bytes, a stored file, or the caller's bucket); a failure
anywhere gives the generation back.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio.to_thread
from attrs import evolve, frozen
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import catalog, usage, webhooks
from templatekit_server.accounts import Caller
from templatekit_server.answers import idempotent, json_answer, response, warnings_header
from templatekit_server.bodies import ImageRequest, PdfRequest, StoredImageRequest, StoredUrl, Url
from templatekit_server.bucket import Bucket
from templatekit_server.db import promptly
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.files import Files
from templatekit_server.idempotency import Answer
from templatekit_server.inputs import read_as, read_request, unread_fields
from templatekit_server.rendering import StillJob, StillOutput, render_still
from templatekit_server.state import ServerState, server_of

Produce = Callable[[], Awaitable[Answer]]

T = TypeVar("T")


@frozen
class Still:
    """What to render, for whom, and where to put it."""

    operation: str
    caller: Caller
    template_id: str
    modifications: Any
    output: str
    thumbnail: bool = False
    debug: bool = False
    bucket: Bucket | None = None
    #: where ``render.done`` is posted besides the project's endpoints (stored renders)
    webhook_url: str | None = None
    #: what the request said that was not read (a misspelt field), told with the render's warnings
    notes: tuple[str, ...] = ()


#: Each operation's request body.
REQUESTS: dict[str, type[PdfRequest]] = {
    "createImage": ImageRequest,
    "createPdf": PdfRequest,
    "createStoredImage": StoredImageRequest,
}


async def _posted(request: Request, operation: str) -> tuple[dict[str, Any], Still]:
    """The body of a render request and what it asks for."""
    server = server_of(request)
    caller, body = await read_request(request, operation)
    asked = read_as(REQUESTS[operation], body, server.settings.max_text_chars)
    body = body or {}
    still = await still_of(server, operation, caller, asked)
    if body.get("webhookUrl") not in (None, "") and operation != "createStoredImage":
        raise bad_request(
            f"webhookUrl: {operation} answers with the file itself; createStoredImage and renderVideo announce theirs"
        )
    webhook_url = await webhooks.requested_url(body, server.allow, server.lookup_lane(caller.workspace_id))
    return body, evolve(still, webhook_url=webhook_url, notes=unread_fields(REQUESTS[operation], body))


async def _answered(request: Request, body: dict[str, Any], still: Still, produce: Produce) -> Response:
    wait = server_of(request).settings.render_timeout + 5
    return response(*await idempotent(request, still.caller, still.operation, body, produce, wait))


async def _bucket(server: ServerState, caller: Caller, value: Any) -> Bucket | None:
    """The caller's bucket from ``s3Config``; FORBIDDEN on plans without it. Read off the
    event loop, in the workspace's lane of threads: checking its endpoint resolves the
    host, which may take seconds."""
    if value is None or value == "":
        return None
    plan = server.plan(caller)
    if not plan.s3_config:
        raise ApiError("FORBIDDEN", f"s3Config is not available on the {plan.name} plan")
    lane = server.lookup_lane(caller.workspace_id)
    return await anyio.to_thread.run_sync(Bucket.parse, value, server.allow, server.settings.s3_timeout, limiter=lane)


async def still_of(server: ServerState, operation: str, caller: Caller, asked: PdfRequest) -> Still:
    template_id = catalog.checked_template_id(asked.template_id)
    if not isinstance(asked, ImageRequest):  # a PDF has no thumbnail, and is answered, not uploaded
        return Still(operation, caller, template_id, asked.modifications, "pdf", debug=asked.debug)
    return Still(
        operation,
        caller,
        template_id,
        asked.modifications,
        asked.format,
        thumbnail=asked.thumbnail,
        debug=asked.debug,
        bucket=await _bucket(server, caller, asked.s3_config),
    )


async def render(request: Request, still: Still) -> tuple[StillOutput, usage.Reservation | None, int]:
    """Reserve, render; the output, the reservation (None when free) and the version."""
    server = server_of(request)
    caller = still.caller
    info, reservation = await promptly(server.db, _reserved, server, still)
    job = StillJob(
        caller.workspace_id,
        still.template_id,
        info.version,
        still.modifications,
        still.output,
        still.thumbnail,
        still.debug,
    )
    server.in_flight.started(reservation)  # kept alive: a server killed mid-render leaves it to be given back
    try:
        output = await server.stills.run(render_still, job, server.share(caller))
    except BaseException:
        server.in_flight.ended(reservation, done=False)
        await _release(server, reservation)
        raise
    server.in_flight.ended(reservation, done=True)
    return evolve(output, warnings=(*still.notes, *output.warnings)), reservation, info.version


def _reserved(server: ServerState, still: Still) -> tuple[catalog.TemplateInfo, usage.Reservation | None]:
    """The template's version and, unless the render is free, its generation reserved:
    one transaction (and one trip to a thread) per render."""
    caller = still.caller
    if still.thumbnail:
        return catalog.info(server.db, caller.workspace_id, still.template_id), None
    server.releases.settle(server.db)
    with server.db.statements(write=True) as connection:
        info = catalog.info_in(server.db, connection, caller.workspace_id, still.template_id)
        plan = server.plan(caller)
        reservation = usage.reserve_in(
            server.db, connection, caller.workspace_id, plan, 1, still.operation, project_id=caller.project_id
        )
        return info, usage.in_flight_in(server.db, connection, reservation)


async def _release(server: ServerState, reservation: usage.Reservation | None) -> None:
    if reservation is not None:
        await promptly(server.db, server.releases.release, server.db, reservation)


async def delivered(server: ServerState, reservation: usage.Reservation | None, work: Any, *args: Any) -> Any:
    """``work(*args)`` in a thread; a failure gives the generation back."""
    return await _or_given_back(server, reservation, run_in_threadpool(work, *args))


async def to_bucket(
    server: ServerState, reservation: usage.Reservation | None, still: Still, output: StillOutput
) -> str:
    """Upload to the caller's bucket in the workspace's own lane of threads; the URL."""
    assert still.bucket is not None
    lane = server.bucket_lane(still.caller.workspace_id)
    upload = anyio.to_thread.run_sync(still.bucket.upload, output.data, output.media_type, limiter=lane)
    return await _or_given_back(server, reservation, upload)


async def _or_given_back(server: ServerState, reservation: usage.Reservation | None, step: Awaitable[T]) -> T:
    """What ``step`` comes to; its failure gives the generation back."""
    try:
        return await step
    except BaseException:
        await _release(server, reservation)
        raise


async def announced(server: ServerState, reservation: usage.Reservation | None, still: Still, url: str) -> None:
    """Queue ``render.done`` for a stored render; a failure gives the generation back."""
    project = still.caller.project_id
    announce = server.announcer.render_done
    queued = promptly(server.db, announce, server.db, project, url, still.template_id, still.output, still.webhook_url)
    await _or_given_back(server, reservation, queued)
    server.sender.wake()


async def create_image(request: Request) -> Response:
    body, still = await _posted(request, "createImage")

    async def produce() -> Answer:
        server = server_of(request)
        output, reservation, _ = await render(request, still)
        headers = warnings_header(output.warnings)
        if still.bucket is not None:
            headers["Content-Location"] = await to_bucket(server, reservation, still, output)
        return Answer(200, output.media_type, headers, output.data)

    return await _answered(request, body, still, produce)


async def create_pdf(request: Request) -> Response:
    body, still = await _posted(request, "createPdf")

    async def produce() -> Answer:
        output, _, _ = await render(request, still)
        return Answer(200, output.media_type, warnings_header(output.warnings), output.data)

    return await _answered(request, body, still, produce)


async def create_stored_image(request: Request) -> Response:
    body, still = await _posted(request, "createStoredImage")

    async def produce() -> Answer:
        server = server_of(request)
        output, reservation, _ = await render(request, still)
        if still.bucket is not None:
            url = await to_bucket(server, reservation, still, output)
        else:
            key = Files.new_key(f"images/{still.caller.project_id}", output.media_type)
            await delivered(server, reservation, server.files.store.put, key, output.data, output.media_type)
            url = server.files.url(server.api_base(request), key)
        await announced(server, reservation, still, url)
        return json_answer(StoredUrl(url=Url(url)), headers=warnings_header(output.warnings))

    return await _answered(request, body, still, produce)


routes = [
    Route("/templates/createImage", create_image, methods=["POST"]),
    Route("/templates/createPdf", create_pdf, methods=["POST"]),
    Route("/templates/createStoredImage", create_stored_image, methods=["POST"]),
]
