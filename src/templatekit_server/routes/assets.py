"""Assets over /v1: upload (the raw file, or a multipart form's ``file``, streamed up to
20 MB), list with the templates that use each, fetch (cached forever: the id is the
content's hash), delete (refused while a stored template version uses it)."""

from __future__ import annotations

from collections.abc import AsyncGenerator

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import FormData, UploadFile
from starlette.formparsers import MultiPartException, MultiPartParser
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import assets
from templatekit_server.answers import json_response
from templatekit_server.errors import bad_request
from templatekit_server.inputs import authenticate, read_body
from templatekit_server.state import server_of


async def upload(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "uploadAsset")
    data, named = await read_upload(request)
    made = await run_in_threadpool(
        assets.store, server.db, server.files.store, caller.workspace_id, data, named, caller.actor, server.plans
    )
    return json_response(made, 201)


async def read_upload(request: Request) -> tuple[bytes, str | None]:
    """An upload's bytes and the type the client named: the body itself, or a multipart
    form's ``file``; read up to ``MAX_ASSET_BYTES``."""
    raw = await read_body(request, assets.MAX_ASSET_BYTES)
    named = request.headers.get("content-type")
    data = raw
    if named and named.lower().startswith("multipart/form-data"):
        data, named = await _form_file(request, raw)
    if not data:
        raise bad_request("file: the body is empty; send the file's bytes, or a multipart form with a field named file")
    return data, named


async def _form_file(request: Request, raw: bytes) -> tuple[bytes, str | None]:
    """The bytes and type of a multipart body's ``file`` field (read already, within the limit)."""
    file = (await parsed_form(request, raw)).get("file")
    if not isinstance(file, UploadFile):
        raise bad_request("file: the multipart form has no file field named file")
    return await file.read(), file.content_type


async def parsed_form(request: Request, raw: bytes) -> FormData:
    """A multipart body read already (so within its size limit): one file at most."""

    async def once() -> AsyncGenerator[bytes, None]:
        yield raw

    try:
        return await MultiPartParser(request.headers, once(), max_files=1, max_fields=10).parse()
    except MultiPartException as exc:
        raise bad_request(f"request body: not a multipart form ({exc.message})") from None


async def listing(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "listAssets")
    return json_response(await run_in_threadpool(assets.listed, server.db, caller.workspace_id))


async def fetch(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "getAsset")
    made = request.path_params["asset_id"]
    media_type = await run_in_threadpool(assets.media_type, server.db, caller.workspace_id, made)
    data = await run_in_threadpool(server.files.store.get, f"{assets.folder(caller.workspace_id)}/{made}")
    # a file of the workspace's, not a page: opened in a browser, an SVG runs nothing
    # and reaches nothing of this origin
    headers = {
        "ETag": f'"{made}"',
        "Cache-Control": "private, max-age=31536000, immutable",
        "Content-Security-Policy": "default-src 'none'; img-src data:; style-src 'unsafe-inline'; sandbox",
        "X-Content-Type-Options": "nosniff",
    }
    return Response(data, media_type=media_type, headers=headers)


async def remove(request: Request) -> Response:
    server = server_of(request)
    caller = await authenticate(request, "deleteAsset")
    made = request.path_params["asset_id"]
    await run_in_threadpool(assets.delete, server.db, server.files.store, caller.workspace_id, made, caller.actor)
    return Response(status_code=204)


async def one(request: Request) -> Response:
    return await (remove(request) if request.method == "DELETE" else fetch(request))


async def many(request: Request) -> Response:
    return await (upload(request) if request.method == "POST" else listing(request))


routes = [
    Route("/assets", many, methods=["GET", "POST"]),
    Route("/assets/{asset_id}", one, methods=["GET", "DELETE"]),
]
