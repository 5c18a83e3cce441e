"""Signing in and out. The sign-in form carries a CSRF token of its own cookie (there is
no session yet); failures are counted by email and by address, and answered alike for an
unknown email and a wrong password."""

from __future__ import annotations

import secrets

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from templatekit_server import people
from templatekit_server.accounts import AccountError
from templatekit_server.dashboard.web import SESSION_COOKIE, checked_form, page, password_work, secure, signed_in
from templatekit_server.db import Database
from templatekit_server.state import server_of

SIGN_IN_COOKIE = "tk_sign_in"


async def home(request: Request) -> Response:
    session = signed_in(request)
    mine = people.workspaces_of(server_of(request).db, session.user_id)
    if not mine:
        return page(request, "empty.html", session=session)
    return RedirectResponse(request.url_for("dashboard:projects", workspace=mine[0]["id"]), 303)


async def sign_in_page(request: Request) -> Response:
    return _sign_in_form(request, "")


def sign_in_form_token(request: Request) -> str:
    """The CSRF token of a form posted before there is a session (kept while it is retried)."""
    return request.cookies.get(SIGN_IN_COOKIE) or secrets.token_urlsafe(24)


def _sign_in_form(request: Request, message: str, status: int = 200, email: str = "") -> Response:
    token = sign_in_form_token(request)
    answer = page(request, "sign_in.html", status, csrf=token, message=message, email=email)
    answer.set_cookie(
        SIGN_IN_COOKIE, token, httponly=True, samesite="strict", secure=secure(request), path="/dashboard"
    )
    return answer


async def sign_in(request: Request) -> Response:
    db = server_of(request).db
    form = await checked_form(request, request.cookies.get(SIGN_IN_COOKIE, ""))
    email, password = str(form.get("email", "")), str(form.get("password", ""))
    try:
        people.checked_length(email)
    except AccountError as exc:  # no account has it: not counted, kept, nor shown back
        return _sign_in_form(request, str(exc), 400, "")
    address = request.client.host if request.client else "unknown"
    subjects = [f"email:{email.strip().lower()}", f"address:{address}"]
    throttled, user_id = await password_work(_checked, db, email, password, subjects)
    if throttled:
        return _sign_in_form(request, "too many attempts: wait a few minutes and try again", 429, email)
    if user_id is None:  # the same for an unknown email and a wrong password
        return _sign_in_form(request, "the email or the password is not right", 401, email)
    return start(request, user_id, request.url_for("dashboard:home"))


def _checked(db: Database, email: str, password: str, subjects: list[str]) -> tuple[bool, str | None]:
    """(throttled, the user's id when the password is theirs), in a thread of the password
    work: the throttle is asked there too, so that attempts arriving together are counted
    before the next is checked, as many at a time as that work runs."""
    if people.throttled(db, subjects):
        return True, None
    return False, people.check_password(db, email, password, subjects)


def start(request: Request, user_id: str, to: object) -> Response:
    """A new session for ``user_id``, its cookie set, on the way to ``to``."""
    answer = RedirectResponse(str(to), 303)
    answer.set_cookie(
        SESSION_COOKIE,
        people.start_session(server_of(request).db, user_id),
        max_age=people.SESSION_SECONDS,
        httponly=True,
        samesite="lax",
        secure=secure(request),
        path="/",
    )
    answer.delete_cookie(SIGN_IN_COOKIE, path="/dashboard")
    return answer


async def sign_out(request: Request) -> Response:
    """The session ends, and the keys made for its editor are revoked."""
    session = signed_in(request)
    await checked_form(request, session.csrf)
    people.end_session(server_of(request).db, request.cookies[SESSION_COOKIE])
    answer = RedirectResponse(request.url_for("dashboard:sign_in"), 303)
    answer.delete_cookie(SESSION_COOKIE, path="/")
    return answer


routes = [
    Route("/", home, name="home"),
    Route("/sign-in", sign_in_page, methods=["GET"], name="sign_in"),
    Route("/sign-in", sign_in, methods=["POST"]),
    Route("/sign-out", sign_out, methods=["POST"], name="sign_out"),
]
