"""The dashboard (``/dashboard/``): pages for the people of a workspace, signed in with
an email and a password, over the same database as /v1. Server-rendered HTML (Jinja2,
which escapes every value it inserts) and plain forms: no script, no build step. Every
form that changes something carries the session's CSRF token; the sign-in form carries
one of its own cookie, as there is no session yet."""

from __future__ import annotations

import hmac
import secrets
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles
from starlette.templating import Jinja2Templates

from templatekit_server import accounts, people
from templatekit_server.accounts import AccountError
from templatekit_server.db import iso_time
from templatekit_server.state import ServerState, server_of

HERE = Path(__file__).resolve().parent
SESSION_COOKIE = "tk_session"
SIGN_IN_COOKIE = "tk_sign_in"
NEW_KEY_COOKIE = "tk_new_key"
#: What each role may manage (a viewer reads only).
MANAGES_KEYS = ("owner", "admin")

pages = Jinja2Templates(env=Environment(loader=FileSystemLoader(HERE / "templates"), autoescape=True))
pages.env.filters["when"] = lambda at: iso_time(at)[:16].replace("T", " ") if at else "—"


def _secure(request: Request) -> bool:
    return request.url.scheme == "https"


def _page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    return pages.TemplateResponse(request, name, context, status_code=status)


def _signed_in(request: Request) -> people.Session:
    token = request.cookies.get(SESSION_COOKIE)
    found = people.session(server_of(request).db, token) if token else None
    if found is None:
        raise HTTPException(303, headers={"Location": str(request.url_for("dashboard:sign_in"))})
    return found


async def _form(request: Request, csrf: str) -> dict[str, str]:
    """The posted form, refused (403) unless it carries ``csrf``."""
    form = await request.form()
    given = str(form.get("csrf", ""))
    if not csrf or not hmac.compare_digest(given, csrf):
        raise HTTPException(403, "this form has expired or did not come from this page: reload it and try again")
    return {name: str(value) for name, value in form.items() if isinstance(value, str)}


def _member(request: Request, session: people.Session, workspace_id: str) -> str:
    role = people.role_in(server_of(request).db, session.user_id, workspace_id)
    if role is None:
        raise HTTPException(404, "no such workspace")
    return role


def _require(role: str, allowed: tuple[str, ...], what: str) -> None:
    if role not in allowed:
        raise HTTPException(403, f"your role ({role}) cannot {what}")


# ------------------------------------------------------------------ signing in and out


async def home(request: Request) -> Response:
    session = _signed_in(request)
    mine = people.workspaces_of(server_of(request).db, session.user_id)
    if not mine:
        return _page(request, "empty.html", session=session)
    return RedirectResponse(request.url_for("dashboard:projects", workspace=mine[0]["id"]), 303)


async def sign_in_page(request: Request) -> Response:
    return _sign_in_form(request, "")


def _sign_in_form(request: Request, message: str, status: int = 200, email: str = "") -> Response:
    token = request.cookies.get(SIGN_IN_COOKIE) or secrets.token_urlsafe(24)  # kept while the form is retried
    answer = _page(request, "sign_in.html", status, csrf=token, message=message, email=email)
    answer.set_cookie(
        SIGN_IN_COOKIE, token, httponly=True, samesite="strict", secure=_secure(request), path="/dashboard"
    )
    return answer


async def sign_in(request: Request) -> Response:
    server = server_of(request)
    form = await _form(request, request.cookies.get(SIGN_IN_COOKIE, ""))
    email = form.get("email", "")
    address = request.client.host if request.client else "unknown"
    subjects = [f"email:{email.strip().lower()}", f"address:{address}"]
    if people.throttled(server.db, subjects):
        return _sign_in_form(request, "too many attempts: wait a few minutes and try again", 429, email)
    user_id = people.check_password(server.db, email, form.get("password", ""), subjects)
    if user_id is None:  # the same for an unknown email and a wrong password
        return _sign_in_form(request, "the email or the password is not right", 401, email)
    answer = RedirectResponse(request.url_for("dashboard:home"), 303)
    answer.set_cookie(
        SESSION_COOKIE,
        people.start_session(server.db, user_id),
        max_age=people.SESSION_SECONDS,
        httponly=True,
        samesite="lax",
        secure=_secure(request),
        path="/",
    )
    answer.delete_cookie(SIGN_IN_COOKIE, path="/dashboard")
    return answer


async def sign_out(request: Request) -> Response:
    session = _signed_in(request)
    await _form(request, session.csrf)
    people.end_session(server_of(request).db, request.cookies[SESSION_COOKIE])
    answer = RedirectResponse(request.url_for("dashboard:sign_in"), 303)
    answer.delete_cookie(SESSION_COOKIE, path="/")
    return answer


# ------------------------------------------------------------------ projects and keys


def _context(request: Request, session: people.Session, workspace_id: str) -> dict[str, Any]:
    db = server_of(request).db
    mine = people.workspaces_of(db, session.user_id)
    current = next(w for w in mine if w["id"] == workspace_id)
    return {"session": session, "workspaces": mine, "workspace": current, "role": current["role"]}


async def projects(request: Request) -> Response:
    session = _signed_in(request)
    workspace_id = request.path_params["workspace"]
    _member(request, session, workspace_id)
    return _projects_page(request, session, workspace_id, "")


def _projects_page(
    request: Request, session: people.Session, workspace_id: str, message: str, status: int = 200
) -> Response:
    listed = accounts.projects_of(server_of(request).db, workspace_id)
    context = _context(request, session, workspace_id)
    return _page(request, "projects.html", status, projects=listed, message=message, **context)


async def create_project(request: Request) -> Response:
    session = _signed_in(request)
    workspace_id = request.path_params["workspace"]
    _require(_member(request, session, workspace_id), MANAGES_KEYS, "create projects")
    form = await _form(request, session.csrf)
    name = form.get("name", "").strip()
    if not name or len(name) > 200:
        return _projects_page(request, session, workspace_id, "name: must be 1 to 200 characters", 400)
    accounts.create_project(server_of(request).db, workspace_id, name)
    return RedirectResponse(request.url_for("dashboard:projects", workspace=workspace_id), 303)


def _project(request: Request, workspace_id: str) -> dict[str, Any]:
    found = accounts.project(server_of(request).db, request.path_params["project"])
    if found is None or found["workspace_id"] != workspace_id:
        raise HTTPException(404, "no such project")
    return found


def _keys_page(
    request: Request, session: people.Session, workspace_id: str, project: dict[str, Any], **more: Any
) -> Response:
    server: ServerState = server_of(request)
    listed = accounts.keys_of(server.db, server.sealer, project["id"])
    if more.get("revoked") not in {key["id"] for key in listed if key["revoked_at"]}:
        more["revoked"] = None  # the notice names only a key of this project that is revoked
    context = _context(request, session, workspace_id)
    status = more.pop("status", 200)
    return _page(request, "keys.html", status, project=project, keys=listed, scopes=accounts.SCOPES, **context, **more)


async def keys(request: Request) -> Response:
    """The keys; a key just made is shown this once (from its sealed cookie, then gone)."""
    session = _signed_in(request)
    workspace_id = request.path_params["workspace"]
    _require(_member(request, session, workspace_id), MANAGES_KEYS, "see API keys")
    sealed = request.cookies.get(NEW_KEY_COOKIE)
    made = server_of(request).sealer.unseal(sealed) if sealed else None
    project = _project(request, workspace_id)
    answer = _keys_page(request, session, workspace_id, project, made=made, revoked=request.query_params.get("revoked"))
    if sealed:
        answer.delete_cookie(NEW_KEY_COOKIE, path=request.url.path)
    return answer


def _shown_once(request: Request, key: str | None, revoked: str | None = None) -> Response:
    """To the keys page (so that reloading it makes nothing again), with a new key in a
    sealed cookie for that page only, kept for a minute: shown once, by whichever host
    of a cluster answers."""
    url = request.url_for("dashboard:keys", **{k: request.path_params[k] for k in ("workspace", "project")})
    answer = RedirectResponse(f"{url}?revoked={revoked}" if revoked else str(url), 303)
    if key is not None:
        sealed = server_of(request).sealer.seal(key)
        answer.set_cookie(
            NEW_KEY_COOKIE, sealed, max_age=60, httponly=True, samesite="strict", secure=_secure(request), path=url.path
        )
    return answer


async def create_key(request: Request) -> Response:
    session = _signed_in(request)
    workspace_id = request.path_params["workspace"]
    _require(_member(request, session, workspace_id), MANAGES_KEYS, "create API keys")
    project = _project(request, workspace_id)
    form = await request.form()
    await _form(request, session.csrf)
    scopes = [str(scope) for scope in form.getlist("scopes")]
    server = server_of(request)
    try:
        _, key = accounts.create_key(server.db, server.sealer, project["id"], scopes=scopes)
    except AccountError as exc:
        return _keys_page(request, session, workspace_id, project, message=str(exc), status=400)
    return _shown_once(request, key)


async def change_key(request: Request) -> Response:
    """Revoke a key, or rotate it: a new key with its scopes, the old one revoked."""
    session = _signed_in(request)
    workspace_id = request.path_params["workspace"]
    _require(_member(request, session, workspace_id), MANAGES_KEYS, "change API keys")
    project = _project(request, workspace_id)
    await _form(request, session.csrf)
    server = server_of(request)
    key_id = request.path_params["key"]
    listed = {key["id"]: key for key in accounts.keys_of(server.db, server.sealer, project["id"])}
    if key_id not in listed or request.path_params["action"] not in ("revoke", "rotate"):
        raise HTTPException(404, "no such key")
    try:
        accounts.revoke_key(server.db, key_id)
    except AccountError as exc:
        return _keys_page(request, session, workspace_id, project, message=str(exc), status=409)
    made = None
    if request.path_params["action"] == "rotate":
        _, made = accounts.create_key(server.db, server.sealer, project["id"], scopes=listed[key_id]["scopes"])
    return _shown_once(request, made, revoked=key_id)


async def error_page(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    if exc.status_code == 303:
        return RedirectResponse(exc.headers["Location"], 303)  # type: ignore[index]
    return _page(request, "error.html", exc.status_code, message=exc.detail)


routes = [
    Route("/", home, name="home"),
    Route("/sign-in", sign_in_page, methods=["GET"], name="sign_in"),
    Route("/sign-in", sign_in, methods=["POST"]),
    Route("/sign-out", sign_out, methods=["POST"], name="sign_out"),
    Route("/w/{workspace}/", projects, name="projects"),
    Route("/w/{workspace}/projects", create_project, methods=["POST"], name="create_project"),
    Route("/w/{workspace}/p/{project}/keys", keys, methods=["GET"], name="keys"),
    Route("/w/{workspace}/p/{project}/keys", create_key, methods=["POST"], name="create_key"),
    Route("/w/{workspace}/p/{project}/keys/{key}/{action:str}", change_key, methods=["POST"], name="change_key"),
    Mount("/static", StaticFiles(directory=HERE / "static"), name="static"),
]


def dashboard_mount(server: ServerState) -> Mount:
    """The dashboard under ``/dashboard``: an app of its own, whose errors are pages."""
    app = Starlette(routes=routes, exception_handlers={HTTPException: error_page})
    app.state.server = server
    return Mount("/dashboard", app=app, name="dashboard")
