"""The workspace's templates: thumbnails the engine renders (at the lowest priority of the
shared workers, not billed), versions and revert, and the way into the editor without
pasting a key: the editor asks the dashboard for a short-lived key of the project chosen,
with the scopes of the person's role, which ends with the session that asked for it."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from templatekit_server import accounts, catalog
from templatekit_server.dashboard.projects import project_of
from templatekit_server.dashboard.web import DESIGNERS, Visit, visit
from templatekit_server.db import api_keys, now
from templatekit_server.errors import ApiError
from templatekit_server.rendering import StillJob, render_still
from templatekit_server.routes.templates import version_query

#: How long a key made for a person's editor lasts (it also ends with their session).
EDITOR_KEY_SECONDS = 2 * 3600
#: A key that ends sooner than this is not handed out again: a new one is made.
EDITOR_KEY_MARGIN = 10 * 60
#: The header the editor's request carries: a page of another origin cannot send it
#: without a preflight the server does not allow, which is this request's CSRF guard.
EDITOR_HEADER = "X-Templatekit-Page"


async def templates_page(request: Request) -> Response:
    here = visit(request)
    listed = catalog.listed(here.server.db, here.workspace_id)
    projects = accounts.projects_of(here.server.db, here.workspace_id)
    chosen = request.query_params.get("project") or (projects[0]["id"] if projects else "")
    if chosen and chosen not in {project["id"] for project in projects}:
        raise HTTPException(404, "no such project")
    return here.page(
        "templates.html",
        section="templates",
        templates=listed,
        projects=projects,
        project=chosen,
        designs=here.role in DESIGNERS,
    )


async def thumbnail(request: Request) -> Response:
    """A template's thumbnail (longest side 320 px); with ``?v=N``, of that version, kept
    by the browser for good."""
    here = visit(request)
    template_id = request.path_params["template"]
    asked = request.query_params.get("v")
    try:
        version = version_query(asked, "v") if asked else None
    except ApiError as exc:
        return Response(f"no thumbnail: {exc.message}", 400, media_type="text/plain")
    try:
        info = catalog.info(here.server.db, here.workspace_id, template_id)
        job = StillJob(here.workspace_id, template_id, version or info.version, None, "png", thumbnail=True)
        output = await here.server.stills.run(render_still, job, here.preview_share())
    except ApiError as exc:
        return Response(f"no thumbnail: {exc.message}", 404, media_type="text/plain")
    kept = "private, max-age=31536000, immutable" if "v" in request.query_params else "private, no-cache"
    return Response(output.data, media_type="image/png", headers={"Cache-Control": kept})


async def template_page(request: Request) -> Response:
    here = visit(request)
    return _template_page(here, request.path_params["template"], request.query_params.get("reverted"))


def _template_page(
    here: Visit, template_id: str, reverted: Any = None, message: str = "", status: int = 200
) -> Response:
    try:
        info = catalog.info(here.server.db, here.workspace_id, template_id)
        versions = catalog.versions(here.server.db, here.workspace_id, template_id)
    except ApiError as exc:
        raise HTTPException(404, exc.message) from None
    return here.page(
        "template.html",
        status,
        section="templates",
        template=info,
        versions=versions,
        designs=here.role in DESIGNERS,
        reverted=_version_or_none(reverted),
        message=message,
    )


def _version_or_none(text: Any) -> int | None:
    try:
        return version_query(str(text)) if text is not None else None
    except ApiError:
        return None


async def revert(request: Request) -> Response:
    here = visit(request, DESIGNERS, "revert templates")
    template_id = request.path_params["template"]
    asked = str((await here.form()).get("version", ""))
    try:
        version = version_query(asked, "version")
        version = await run_in_threadpool(
            catalog.revert, here.server.db, here.workspace_id, template_id, version, here.actor, here.server.plans
        )
    except ApiError as exc:
        return _template_page(here, template_id, message=exc.message, status=400)
    answer = here.to("dashboard:template", template=template_id)
    answer.headers["Location"] += f"?reverted={version}"
    return answer


async def editor_key(request: Request) -> Response:
    """A key for the editor of the person signed in, in JSON: ``{key, expiresAt}``; the
    same one again while it has more than ``EDITOR_KEY_MARGIN`` left."""
    if request.headers.get(EDITOR_HEADER) != "editor":
        return JSONResponse({"error": f"this request must carry {EDITOR_HEADER}: editor"}, 403)
    try:
        here = visit(request, DESIGNERS, "edit templates")
        project = project_of(here, request.path_params["project"])
    except HTTPException as exc:
        status = 401 if exc.status_code == 303 else exc.status_code
        message = "sign in to the dashboard first" if status == 401 else exc.detail
        return JSONResponse({"error": message}, status)
    server = here.server
    key, expires = _live_editor_key(here, project["id"])
    if key is None:
        expires = now() + EDITOR_KEY_SECONDS
        _, key = accounts.create_key(
            server.db,
            server.sealer,
            project["id"],
            scopes=accounts.SCOPES,
            expires_at=expires,
            session_id=here.session.id,
            note=f"editor of {here.session.email}",
            actor=here.actor,
        )
    return JSONResponse({"key": key, "expiresAt": expires}, headers={"Cache-Control": "no-store"})


def _live_editor_key(here: Visit, project_id: str) -> tuple[str | None, float]:
    with here.server.db.read() as connection:
        row = connection.execute(
            select(api_keys.c.sealed, api_keys.c.expires_at)
            .where(
                api_keys.c.session_id == here.session.id,
                api_keys.c.project_id == project_id,
                api_keys.c.revoked_at.is_(None),
                api_keys.c.expires_at > now() + EDITOR_KEY_MARGIN,
            )
            .order_by(api_keys.c.expires_at.desc())
        ).first()
    if row is None:
        return None, 0.0
    return here.server.sealer.unseal(row.sealed), float(row.expires_at)


routes = [
    Route("/w/{workspace}/templates", templates_page, name="templates"),
    Route("/w/{workspace}/templates/{template}", template_page, name="template"),
    Route("/w/{workspace}/templates/{template}/thumbnail.png", thumbnail, name="thumbnail"),
    Route("/w/{workspace}/templates/{template}/revert", revert, methods=["POST"], name="revert"),
    Route("/w/{workspace}/p/{project}/editor-key", editor_key, methods=["POST"], name="editor_key"),
]
