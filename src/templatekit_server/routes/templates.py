"""Templates: details, the stored JSON, the list, and uploads."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from templatekit_server import catalog
from templatekit_server.answers import json_response, warnings_header
from templatekit_server.bodies import MAX_VERSION, Created, NewVersion, RevertRequest
from templatekit_server.db import Database
from templatekit_server.errors import bad_request
from templatekit_server.inputs import Fields, authenticate, read_as, read_request
from templatekit_server.state import server_of


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


async def _read(request: Request, operation: str, reader: Callable[[Database, str, str], Any]) -> Response:
    """``reader(db, workspace, template id)`` of the path's template, as JSON."""
    caller = await authenticate(request, operation)
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    found = await run_in_threadpool(reader, server_of(request).db, caller.workspace_id, template_id)
    return JSONResponse(found)


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
    server = server_of(request)
    caller = await authenticate(request, "listTemplates")
    fields = Fields(request.query_params, server.settings.max_text_chars)
    with_layers = fields.flag("includeLayers")

    def listed() -> list[dict[str, Any]]:
        found = catalog.listed(server.db, caller.workspace_id)
        if not with_layers:
            return [info.summary() for info in found]
        return [
            {**info.summary(), "layers": catalog.details(server.db, caller.workspace_id, info.id)["layers"]}
            for info in found
        ]

    return JSONResponse(await run_in_threadpool(listed))


async def upload(request: Request) -> Response:
    server = server_of(request)
    caller, body = await read_request(request, "createTemplate")
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a template object (got {type(body).__name__})")
    template = {key: value for key, value in body.items() if key != "apiKey"}
    overwrite = Fields(request.query_params, server.settings.max_text_chars).flag("overwrite")
    template_id, _, warnings = await run_in_threadpool(
        lambda: catalog.save(
            server.db, caller.workspace_id, template, overwrite=overwrite, actor=caller.actor, plans=server.plans
        )
    )
    return json_response(Created(id=template_id), 201, warnings_header(warnings))


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
    return json_response(NewVersion(id=template_id, version=version), headers=warnings_header(warnings))


def if_match(value: str | None) -> int | None:
    if value is None:
        return None
    text = value.strip().strip('"')
    if not re.fullmatch(r"[0-9]{1,10}", text):
        raise bad_request(f"If-Match: must be a version number (got {value[:40]!r})")
    return int(text)


async def revert(request: Request) -> Response:
    server = server_of(request)
    caller, body = await read_request(request, "revertTemplate")
    template_id = catalog.checked_template_id(request.path_params["template_id"], "id")
    version = read_as(RevertRequest, body, server.settings.max_text_chars).version
    new_version = await run_in_threadpool(
        catalog.revert, server.db, caller.workspace_id, template_id, version, caller.actor, server.plans
    )
    return json_response(NewVersion(id=template_id, version=new_version))


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
