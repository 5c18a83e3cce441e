"""What every dashboard page shares: the HTML templates (Jinja2, which escapes every value
it inserts), the signed-in person and their role in the workspace of the address, and
forms that must carry the session's CSRF token."""

from __future__ import annotations

import functools
import hmac
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
from attrs import frozen
from jinja2 import Environment, FileSystemLoader
from markupsafe import Markup
from starlette.datastructures import FormData
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.templating import Jinja2Templates

from templatekit_server import accounts, people
from templatekit_server.db import iso_time
from templatekit_server.errors import ApiError
from templatekit_server.fairness import Share
from templatekit_server.state import ServerState, server_of

SESSION_COOKIE = "tk_session"
ONCE_COOKIE = "tk_once"
#: Who may do what: owner (everything, members), admin (projects, keys, webhooks, hooks,
#: templates), designer (templates and assets, the editor), viewer (reads only).
MANAGERS = ("owner", "admin")
DESIGNERS = ("owner", "admin", "designer")

_T = TypeVar("_T")
#: Password hashes and checks (argon2id: about a fifth of a second of CPU each) run in
#: threads, never on the event loop, as many at once as there are cores: a burst of
#: sign-ins waits its turn there, without holding up other requests or the threads
#: their other work runs in.
_PASSWORD_WORK = anyio.CapacityLimiter(max(1, os.cpu_count() or 1))


async def password_work(function: Callable[..., _T], *args: Any) -> _T:
    """``function(*args)``, which hashes or checks a password, in a thread."""
    return await anyio.to_thread.run_sync(functools.partial(function, *args), limiter=_PASSWORD_WORK)


pages = Jinja2Templates(
    env=Environment(loader=FileSystemLoader(Path(__file__).resolve().parent / "html"), autoescape=True)
)
pages.env.filters["when"] = lambda at: iso_time(at)[:16].replace("T", " ") if at else "—"


def isolated(value: object) -> Markup:
    """A name people gave (a workspace's, a template's, an email) in its own direction,
    escaped: a right-to-left name, or one with bidi controls (U+202E), cannot turn the
    text around it."""
    return Markup("<bdi>{}</bdi>").format(value)


pages.env.filters["isolated"] = isolated


def secure(request: Request) -> bool:
    """Whether cookies get ``Secure``: the page came over HTTPS, or people reach the
    server at an HTTPS public URL (behind a proxy that does not say so)."""
    public = server_of(request).settings.public_url or ""
    return request.url.scheme == "https" or public.startswith("https://")


def page(request: Request, name: str, status: int = 200, **context: Any) -> Response:
    """A page of the dashboard, kept by no cache: it may show a secret once (a new key, an
    invitation's link, a hook's URL), a form's CSRF token, or what only its members see."""
    answer = pages.TemplateResponse(request, name, context, status_code=status)
    answer.headers["Cache-Control"] = "no-store"
    return answer


def signed_in(request: Request) -> people.Session:
    """The person signed in; signed out, the answer is the way to the sign-in form."""
    token = request.cookies.get(SESSION_COOKIE)
    found = people.session(server_of(request).db, token) if token else None
    if found is None:
        raise HTTPException(303, headers={"Location": str(request.url_for("dashboard:sign_in"))})
    return found


async def checked_form(request: Request, csrf: str) -> FormData:
    """The posted form, refused (403) unless it carries ``csrf``."""
    form = await request.form()
    given = form.get("csrf")
    if not csrf or not isinstance(given, str) or not hmac.compare_digest(given, csrf):
        raise HTTPException(403, "this form has expired or did not come from this page: reload it and try again")
    for name, value in form.multi_items():  # a file where text is asked would be kept as its description
        if not isinstance(value, str):
            raise HTTPException(400, f"{name}: must be text, not a file")
    return form


@frozen
class Visit:
    """A signed-in person on a page of a workspace they belong to."""

    request: Request
    session: people.Session
    workspace_id: str
    role: str
    allowed: tuple[str, ...] | None = None
    what: str = ""

    @property
    def server(self) -> ServerState:
        return server_of(self.request)

    @property
    def workspace_name(self) -> str:
        found = accounts.workspace(self.server.db, self.workspace_id)
        return str(found["name"]) if found else self.workspace_id

    @property
    def actor(self) -> str:
        """The person as the audit log names them."""
        return self.session.email

    def preview_share(self) -> Share:
        """The workspace's claim on the shared render workers at a preview's priority
        (thumbnails are not billed, and wait for every billed render)."""
        found = accounts.workspace(self.server.db, self.workspace_id)
        free = self.server.plans["free"]
        plan = self.server.plans.get(found["plan"], free) if found else free
        return Share(self.workspace_id, plan.weight, plan.max_queue_seconds, preview=True)

    def require(self, allowed: tuple[str, ...], what: str) -> None:
        if self.role not in allowed:
            raise HTTPException(403, f"your role ({self.role}) cannot {what}")

    async def form(self) -> FormData:
        form = await checked_form(self.request, self.session.csrf)
        self.still_allowed()
        return form

    def still_allowed(self) -> None:
        """The role asked again once a form's body has arrived: a member removed, or given
        a lower role, while it was being sent is refused as their next request would be."""
        visit(self.request, self.allowed, self.what)

    def page(self, name: str, status: int = 200, **context: Any) -> Response:
        """A page of the workspace, with the navigation every such page has (and what
        the form before it made, shown this once: see ``show_once``)."""
        mine = people.workspaces_of(self.server.db, self.session.user_id)
        current = next(w for w in mine if w["id"] == self.workspace_id)
        answer = page(
            self.request,
            name,
            status,
            session=self.session,
            workspaces=mine,
            workspace=current,
            role=self.role,
            once=self.once(),
            **context,
        )
        if ONCE_COOKIE in self.request.cookies:
            answer.delete_cookie(ONCE_COOKIE, path=self.request.url.path)
        return answer

    def once(self) -> dict[str, str]:
        """What ``show_once`` handed to this page (empty: nothing, or not for this page)."""
        sealed = self.request.cookies.get(ONCE_COOKIE)
        opened = self.server.sealer.unseal(sealed) if sealed else None
        return dict(json.loads(opened)) if opened else {}

    def show_once(self, answer: RedirectResponse, **secrets: str) -> RedirectResponse:
        """``answer`` (the way to a page) carrying ``secrets`` that page shows once: a new
        key, an invitation's link, a hook's URL. They travel sealed in a cookie for that
        page only, for a minute, so that reloading the page shows them no more (and any
        host of a cluster can open them), and no form is posted twice."""
        path = urlsplit(answer.headers["location"]).path
        sealed = self.server.sealer.seal(json.dumps(secrets))
        answer.set_cookie(
            ONCE_COOKIE, sealed, max_age=60, httponly=True, samesite="strict", secure=secure(self.request), path=path
        )
        return answer

    def to(self, name: str, **params: str) -> RedirectResponse:
        """See other: the page ``name`` of this workspace (after a form, so that reloading
        does not post it again)."""
        return RedirectResponse(self.request.url_for(name, workspace=self.workspace_id, **params), 303)


def visit(request: Request, allowed: tuple[str, ...] | None = None, what: str = "") -> Visit:
    """The signed-in person on the workspace of the address (404 when they are not a
    member: another workspace is not shown to exist); with ``allowed``, their role must be
    one of those (403 saying what they cannot do)."""
    session = signed_in(request)
    workspace_id = request.path_params["workspace"]
    role = people.role_in(server_of(request).db, session.user_id, workspace_id)
    if role is None:
        raise HTTPException(404, "no such workspace")
    found = Visit(request, session, workspace_id, role, allowed, what)
    if allowed is not None:
        found.require(allowed, what)
    return found


async def error_page(request: Request, exc: Exception) -> Response:
    """A page saying what went wrong: for a page's own refusals, and for what the API's
    readers refuse in a form (a file over the upload limit, a body that is no form)."""
    if isinstance(exc, ApiError):
        status, message = exc.status, exc.message
    else:
        assert isinstance(exc, HTTPException)
        if exc.status_code == 303:
            return RedirectResponse((exc.headers or {})["Location"], 303)
        status, message = exc.status_code, exc.detail
    token = request.cookies.get(SESSION_COOKIE)  # signed in, the page still says who
    session = people.session(server_of(request).db, token) if token else None
    return page(request, "error.html", status, message=message, session=session)
