"""Projects and their API keys: owners and admins make projects, and make, rotate and
revoke keys; a new key is shown once (``Visit.show_once``)."""

from __future__ import annotations

from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import accounts
from templatekit_server.accounts import AccountError
from templatekit_server.dashboard.web import MANAGERS, Visit, visit


async def projects(request: Request) -> Response:
    return _projects_page(visit(request))


def _projects_page(here: Visit, message: str = "", status: int = 200) -> Response:
    listed = accounts.projects_of(here.server.db, here.workspace_id)
    return here.page("projects.html", status, section="projects", projects=listed, message=message)


async def create_project(request: Request) -> Response:
    here = visit(request, MANAGERS, "create projects")
    name = str((await here.form()).get("name", ""))
    try:
        accounts.create_project(here.server.db, here.workspace_id, name, actor=here.actor)
    except AccountError as exc:
        return _projects_page(here, str(exc), 400)
    return here.to("dashboard:projects")


def project_of(here: Visit, project_id: str) -> dict[str, Any]:
    """A project of the workspace visited (404 for any other)."""
    found = accounts.project(here.server.db, project_id)
    if found is None or found["workspace_id"] != here.workspace_id:
        raise HTTPException(404, "no such project")
    return found


def _keys_page(here: Visit, project: dict[str, Any], status: int = 200, **more: Any) -> Response:
    listed = accounts.keys_of(here.server.db, here.server.sealer, project["id"])
    if more.get("revoked") not in {key["id"] for key in listed if key["revoked_at"]}:
        more["revoked"] = None  # the notice names only a key of this project that is revoked
    return here.page(
        "keys.html", status, section="projects", project=project, keys=listed, scopes=accounts.SCOPES, **more
    )


async def keys(request: Request) -> Response:
    """The keys; a key just made is shown this once."""
    here = visit(request, MANAGERS, "see API keys")
    project = project_of(here, request.path_params["project"])
    return _keys_page(here, project, revoked=request.query_params.get("revoked"))


def _to_keys(here: Visit, project_id: str, key: str | None, revoked: str | None = None) -> Response:
    answer = here.to("dashboard:keys", project=project_id)
    if revoked:
        answer.headers["Location"] += f"?revoked={revoked}"
    return here.show_once(answer, key=key) if key else answer


async def create_key(request: Request) -> Response:
    here = visit(request, MANAGERS, "create API keys")
    project = project_of(here, request.path_params["project"])
    scopes = [str(scope) for scope in (await here.form()).getlist("scopes")]
    try:
        _, key = accounts.create_key(here.server.db, here.server.sealer, project["id"], scopes=scopes, actor=here.actor)
    except AccountError as exc:
        return _keys_page(here, project, 400, message=str(exc))
    return _to_keys(here, project["id"], key)


async def change_key(request: Request) -> Response:
    """Revoke a key, or rotate it: a new key with its scopes, the old one revoked."""
    here = visit(request, MANAGERS, "change API keys")
    project = project_of(here, request.path_params["project"])
    await here.form()
    server = here.server
    key_id, action = request.path_params["key"], request.path_params["action"]
    listed = {key["id"]: key for key in accounts.keys_of(server.db, server.sealer, project["id"])}
    if key_id not in listed or action not in ("revoke", "rotate"):
        raise HTTPException(404, "no such key")
    if action == "rotate" and listed[key_id]["expires_at"] is not None:
        # a key that ends (an editor's, with its session) would come back as one that does not
        message = f"key {key_id} ends by itself (an editor's, with its session): revoke it; the editor makes another"
        return _keys_page(here, project, 400, message=message)
    try:
        accounts.revoke_key(server.db, key_id, actor=here.actor)
    except AccountError as exc:
        return _keys_page(here, project, 409, message=str(exc))
    made = None
    if action == "rotate":
        old = listed[key_id]  # the new key stands in for it: its scopes and its own rate limit
        _, made = accounts.create_key(
            server.db,
            server.sealer,
            project["id"],
            rate_limit=old["rate_limit"],
            scopes=old["scopes"],
            actor=here.actor,
            note=f"rotated from {key_id}",
        )
    return _to_keys(here, project["id"], made, revoked=key_id)


routes = [
    Route("/w/{workspace}/", projects, name="projects"),
    Route("/w/{workspace}/projects", create_project, methods=["POST"], name="create_project"),
    Route("/w/{workspace}/p/{project}/keys", keys, methods=["GET"], name="keys"),
    Route("/w/{workspace}/p/{project}/keys", create_key, methods=["POST"], name="create_key"),
    Route("/w/{workspace}/p/{project}/keys/{key}/{action}", change_key, methods=["POST"], name="change_key"),
]
