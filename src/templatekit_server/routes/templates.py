"""Templates: details, the stored JSON, the list, and uploads."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Callable
from functools import cache
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import Route

from templatekit_server import catalog
from templatekit_server.answers import idempotent, json_answer, response, warnings_header
from templatekit_server.bodies import MAX_VERSION, Created, NewVersion, RevertRequest
from templatekit_server.db import Database
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.idempotency import Answer
from templatekit_server.inputs import Fields, authenticate, read_as, read_request
from templatekit_server.state import server_of

#: How long a repeat of a template write waits for the first, still running, to finish.
WRITE_WAIT = 30.0


@cache
def _operations_without_get() -> frozenset[str]:
    """The names under /templates/ that are POST operations (createImage, preview, …): a GET, PUT
    or DELETE of one is a 405, not an operation on a template of that id."""
    from templatekit_server.routes import editor, renders, videos

    return frozenset(
        route.path.removeprefix("/templates/")
        for route in (*renders.routes, *videos.routes, *editor.routes)
        if route.path.startswith("/templates/") and "GET" not in (route.methods or ())
    )


#: About how many bytes of a listing with layers are made at a time (in a thread) and
#: sent before the next are made: see ``listing``.
LISTING_CHUNK_BYTES = 256 * 1024


def encoded(value: Any) -> bytes:
    """JSON as Starlette's ``JSONResponse`` writes it (compact, UTF-8)."""
    return json.dumps(value, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


async def _read(request: Request, operation: str, reader: Callable[[Database, str, str], Any]) -> Response:
    """``reader(db, workspace, template id)`` of the path's template, as JSON (written in
    the thread that reads it: a template's details may hold megabytes of data URIs)."""
    caller = await authenticate(request, operation)
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    db = server_of(request).db
    found = await run_in_threadpool(lambda: encoded(reader(db, caller.workspace_id, template_id)))
    return Response(found, media_type="application/json")


async def details(request: Request) -> Response:
    return await _read(request, "getTemplate", catalog.details)


async def source(request: Request) -> Response:
    """The template JSON as stored: the current version, or ``?version=N``; its version
    number is the ETag (for ``If-Match`` when saving an edit of it)."""
    server = server_of(request)
    caller = await authenticate(request, "getTemplateSource")
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    asked = Fields(request.query_params, server.settings.max_text_chars).text("version")
    version = version_query(asked) if asked is not None else None

    def stored() -> tuple[str, int]:
        found = catalog.info(server.db, caller.workspace_id, template_id)
        served = version or found.version
        return catalog.body(server.db, caller.workspace_id, template_id, served), served

    text, served = await run_in_threadpool(stored)
    return Response(text, media_type="application/json", headers={"ETag": f'"{served}"'})


def version_query(text: str, name: str = "query.version") -> int:
    """A version number given as text (a query parameter, a form field): 1 to MAX_VERSION
    in ASCII digits; else BAD_REQUEST naming the field ``name``, the text cut to 40
    characters."""
    if not re.fullmatch(r"[0-9]{1,10}", text) or not 1 <= int(text) <= MAX_VERSION:
        raise bad_request(f"{name}: must be a version number, 1 or more (got {text[:40]!r})")
    return int(text)


async def listing(request: Request) -> Response:
    """The workspace's templates. With ``includeLayers``, each with its layers as
    ``GET /templates/{id}`` gives them (every ``suggestInput`` whole, data URIs too):
    the answer is streamed, a chunk of about ``LISTING_CHUNK_BYTES`` at a time, each made
    (templates read, described and written as JSON) in a thread while the event loop
    sends the one before, so that the server holds about one chunk and one template at
    a time, however many templates there are and however large."""
    server = server_of(request)
    caller = await authenticate(request, "listTemplates")
    fields = Fields(request.query_params, server.settings.max_text_chars)
    with_layers = fields.flag("includeLayers")
    found = await run_in_threadpool(catalog.listed, server.db, caller.workspace_id)
    if not with_layers:
        return Response(
            await run_in_threadpool(encoded, [info.summary() for info in found]), media_type="application/json"
        )
    ids = [info.id for info in found]
    # the first chunk before the answer starts: a failure there is still an error answer
    first, start = await run_in_threadpool(described_chunk, server.db, caller.workspace_id, ids, 0)
    return StreamingResponse(
        _described(server.db, caller.workspace_id, ids, first, start), media_type="application/json"
    )


async def _described(
    db: Database, workspace_id: str, ids: list[str], first: list[bytes], start: int
) -> AsyncIterator[bytes]:
    """The JSON array of the templates ``ids`` with their layers, a chunk at a time (each
    template's JSON sent as it is, not joined to the others: a copy less of each)."""
    yield b"["
    parts, separator = first, b""
    while True:
        for part in parts:
            if separator:
                yield separator
            yield part
            separator = b","
        if start >= len(ids):
            break
        parts, start = await run_in_threadpool(described_chunk, db, workspace_id, ids, start)
    yield b"]"


def described_chunk(db: Database, workspace_id: str, ids: list[str], start: int) -> tuple[list[bytes], int]:
    """The JSON of the templates from ``ids[start]`` on, with their layers, until about
    ``LISTING_CHUNK_BYTES``; and where the next chunk starts. A template deleted since the
    list was read is left out."""
    parts: list[bytes] = []
    size = 0
    index = start
    while index < len(ids) and size < LISTING_CHUNK_BYTES:
        try:
            part = encoded(catalog.listed_with_layers(db, workspace_id, ids[index]))
        except ApiError as exc:
            if exc.code != "NOT_FOUND":
                raise
        else:
            parts.append(part)
            size += len(part)
        index += 1
    return parts, index


async def upload(request: Request) -> Response:
    server = server_of(request)
    caller, body = await read_request(request, "createTemplate")
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a template object (got {type(body).__name__})")
    template = {key: value for key, value in body.items() if key != "apiKey"}
    overwrite = Fields(request.query_params, server.settings.max_text_chars).flag("overwrite")

    async def produce() -> Answer:
        template_id, _, warnings = await run_in_threadpool(
            lambda: catalog.save(
                server.db, caller.workspace_id, template, overwrite=overwrite, actor=caller.actor, plans=server.plans
            )
        )
        return json_answer(Created(id=template_id), 201, warnings_header(warnings))

    return response(*await idempotent(request, caller, "createTemplate", template, produce, WRITE_WAIT))


async def listing_or_upload(request: Request) -> Response:
    return await (upload(request) if request.method == "POST" else listing(request))


async def update(request: Request) -> Response:
    """A new version of the template; with ``If-Match: <version>``, only if that is its
    current version (CONFLICT otherwise), so that two editors cannot overwrite each other."""
    server = server_of(request)
    caller, body = await read_request(request, "updateTemplate")
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a template object (got {type(body).__name__})")
    if body.get("id") not in (None, template_id):
        raise bad_request(f"id: {str(body['id'])[:80]!r} differs from the id in the path ({template_id})")
    expected = if_match(request.headers.get("if-match"))
    template = {key: value for key, value in body.items() if key != "apiKey"} | {"id": template_id}

    async def produce() -> Answer:
        _, version, warnings = await run_in_threadpool(
            lambda: catalog.save(
                server.db,
                caller.workspace_id,
                template,
                existing=True,
                expected=expected,
                actor=caller.actor,
                plans=server.plans,
            )
        )
        return json_answer(NewVersion(id=template_id, version=version), headers=warnings_header(warnings))

    operation = f"updateTemplate:{template_id}:{expected}"  # the path and If-Match make the request too
    return response(*await idempotent(request, caller, operation, template, produce, WRITE_WAIT))


def if_match(value: str | None) -> int | None:
    """The version an edit is guarded by, from ``If-Match``: none for ``*`` (any current
    version, as HTTP means it). A weak tag (``W/"2"``, as proxies that compress write it)
    cannot guard an edit, since ``If-Match`` compares tags strongly: it is refused by name
    rather than taken for a version that never matches."""
    if value is None or value.strip() == "*":
        return None
    text = value.strip()
    if text.upper().startswith("W/"):
        raise bad_request(f"If-Match: a weak tag cannot guard an edit; send the version alone (got {value[:40]!r})")
    text = text.strip('"')
    if not re.fullmatch(r"[0-9]{1,10}", text):
        raise bad_request(f"If-Match: must be a version number or * (got {value[:40]!r})")
    return int(text)


async def revert(request: Request) -> Response:
    server = server_of(request)
    caller, body = await read_request(request, "revertTemplate")
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    version = read_as(RevertRequest, body, server.settings.max_text_chars).version

    async def produce() -> Answer:
        new_version = await run_in_threadpool(
            catalog.revert, server.db, caller.workspace_id, template_id, version, caller.actor, server.plans
        )
        return json_answer(NewVersion(id=template_id, version=new_version))

    return response(
        *await idempotent(request, caller, f"revertTemplate:{template_id}", {"version": version}, produce, WRITE_WAIT)
    )


async def delete(request: Request) -> Response:
    caller = await authenticate(request, "deleteTemplate")
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    await run_in_threadpool(catalog.delete, server_of(request).db, caller.workspace_id, template_id, caller.actor)
    return Response(status_code=204)


async def versions(request: Request) -> Response:
    return await _read(request, "listTemplateVersions", catalog.versions)


async def one_template(request: Request) -> Response:
    if request.path_params["template_id"] in _operations_without_get():
        raise HTTPException(405, headers={"Allow": "POST"})
    handler = {"PUT": update, "DELETE": delete}.get(request.method, details)
    return await handler(request)


routes = [
    Route("/templates", listing_or_upload, methods=["GET", "POST"]),  # one route: a 405 names both
    Route("/templates/{template_id}", one_template, methods=["GET", "PUT", "DELETE"]),
    Route("/templates/{template_id}/source", source, methods=["GET"]),
    Route("/templates/{template_id}/versions", versions, methods=["GET"]),
    Route("/templates/{template_id}/revert", revert, methods=["POST"]),
]
