"""The project's info, liveness, stored files and the OpenAPI document."""

from __future__ import annotations

import posixpath

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from templatekit import StorageError
from templatekit.service import checked_key
from templatekit_server import accounts
from templatekit_server.answers import json_response
from templatekit_server.bodies import Liveness, Moment, Project, Url
from templatekit_server.db import iso_time
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.files import MEDIA_TYPES
from templatekit_server.inputs import authenticate
from templatekit_server.openapi import document
from templatekit_server.state import server_of


async def info(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "getInfo")
    found = await run_in_threadpool(accounts.project, server.db, caller.project_id)
    if found is None:  # pragma: no cover - keys belong to projects
        raise ApiError("NOT_FOUND", "the key's project does not exist")
    created = iso_time(found["created_at"])
    avatar = None if found["avatar"] is None else Url(found["avatar"])
    return json_response(Project(id=found["id"], name=found["name"], created_at=Moment(created), avatar=avatar))


async def liveness(_request: Request) -> Response:
    return json_response(Liveness(status="ok"))


async def stored_file(request: Request) -> Response:
    """A stored file, for whoever has its signed URL."""
    server = server_of(request)
    key = request.path_params["path"]
    try:
        checked_key(key)
    except StorageError:
        raise ApiError("NOT_FOUND", "no such file") from None
    expires_text = request.query_params.get("expires")
    signature = request.query_params.get("sig", "")
    if expires_text is not None and not expires_text.isdigit():
        raise bad_request(f"expires: must be unix seconds (got {expires_text[:40]!r})")
    expires = int(expires_text) if expires_text is not None else None
    if not signature or not server.files.allowed(key, expires, signature):
        raise bad_request("sig: the file URL is not valid or has expired")
    media_type = MEDIA_TYPES.get(posixpath.splitext(key)[1].lstrip("."), "application/octet-stream")
    store = server.files.store
    if not await run_in_threadpool(store.exists, key):
        raise ApiError("NOT_FOUND", "the file does not exist any more")
    headers = {"Cache-Control": "private, max-age=3600"}
    if store.local:
        return FileResponse(store.path(key), media_type=media_type, headers=headers)
    data = await run_in_threadpool(store.get, key)
    return Response(data, media_type=media_type, headers=headers)


async def openapi(_request: Request) -> Response:
    return JSONResponse(document())


routes = [
    Route("/info", info, methods=["GET"]),
    Route("/liveness", liveness, methods=["GET"]),
    Route("/files/{path:path}", stored_file, methods=["GET"]),
    Route("/openapi.json", openapi, methods=["GET"]),
]
