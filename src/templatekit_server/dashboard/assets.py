"""The workspace's assets: each with the templates whose current version uses it;
designers upload (a form with one file) and delete (refused while a stored version uses
it); pictures are shown from the workspace's own storage."""

from __future__ import annotations

import hmac

from starlette.concurrency import run_in_threadpool
from starlette.datastructures import UploadFile
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import assets
from templatekit_server.dashboard.web import DESIGNERS, Visit, visit
from templatekit_server.errors import ApiError
from templatekit_server.inputs import read_body
from templatekit_server.routes.assets import parsed_form

#: The pictures the page shows as such (an SVG is listed, not drawn, on this origin).
SHOWN = ("image/png", "image/jpeg", "image/webp", "image/gif")


def _assets_page(here: Visit, status: int = 200, message: str = "") -> Response:
    listed = assets.listed(here.server.db, here.workspace_id)
    return here.page(
        "assets.html",
        status,
        section="assets",
        assets=listed,
        shown=SHOWN,
        designs=here.role in DESIGNERS,
        message=message,
    )


async def assets_page(request: Request) -> Response:
    return _assets_page(visit(request))


async def upload(request: Request) -> Response:
    """One file from a form, its CSRF token beside it: the form is read (within the
    upload limit) before the token can be checked. What the API's readers refuse is said
    on the page, in the form's terms: a file too large (413), a body that is no form."""
    here = visit(request, DESIGNERS, "upload assets")
    try:
        raw = await read_body(request, assets.MAX_ASSET_BYTES)
    except ApiError:  # the body's only refusal: its size
        return _assets_page(here, 413, f"file: at most {assets.MAX_ASSET_BYTES // 1_000_000} MB")
    try:
        form = await parsed_form(request, raw)
    except ApiError as exc:
        return _assets_page(here, exc.status, exc.message)
    given, file = form.get("csrf"), form.get("file")
    if not isinstance(given, str) or not hmac.compare_digest(given, here.session.csrf):
        raise HTTPException(403, "this form has expired or did not come from this page: reload it and try again")
    here.still_allowed()
    if not isinstance(file, UploadFile) or not file.filename:
        return _assets_page(here, 400, "file: choose a file to upload")
    data = await file.read()
    try:
        await run_in_threadpool(
            assets.store,
            here.server.db,
            here.server.files.store,
            here.workspace_id,
            data,
            file.content_type,
            here.actor,
            here.server.plans,
        )
    except ApiError as exc:
        return _assets_page(here, exc.status, exc.message)
    return here.to("dashboard:assets")


async def delete(request: Request) -> Response:
    here = visit(request, DESIGNERS, "delete assets")
    await here.form()
    try:
        await run_in_threadpool(
            assets.delete,
            here.server.db,
            here.server.files.store,
            here.workspace_id,
            request.path_params["asset"],
            here.actor,
        )
    except ApiError as exc:
        return _assets_page(here, exc.status, exc.message)
    return here.to("dashboard:assets")


async def picture(request: Request) -> Response:
    here = visit(request)
    made = request.path_params["asset"]
    try:
        media_type = assets.media_type(here.server.db, here.workspace_id, made)
    except ApiError as exc:
        raise HTTPException(404, exc.message) from None
    if media_type not in SHOWN:
        raise HTTPException(404, "only pictures are shown here")
    data = await run_in_threadpool(here.server.files.store.get, f"{assets.folder(here.workspace_id)}/{made}")
    return Response(data, media_type=media_type, headers={"Cache-Control": "private, max-age=31536000, immutable"})


routes = [
    Route("/w/{workspace}/assets", assets_page, methods=["GET"], name="assets"),
    Route("/w/{workspace}/assets", upload, methods=["POST"], name="upload_asset"),
    Route("/w/{workspace}/assets/{asset}/delete", delete, methods=["POST"], name="delete_asset"),
    Route("/w/{workspace}/assets/{asset}", picture, methods=["GET"], name="asset_picture"),
]
