"""Members of a workspace and invitations by link (sent by email too when the server has
a mail server), and the audit log. Every member sees who belongs; owners invite, change
roles and remove; owners and admins read the audit log."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.routing import Route

from templatekit_server import audit, invitations, mail, people
from templatekit_server.accounts import AccountError, sha256_hex
from templatekit_server.dashboard.signing import SIGN_IN_COOKIE, sign_in_form_token, start
from templatekit_server.dashboard.web import (
    MANAGERS,
    SESSION_COOKIE,
    Visit,
    checked_form,
    page,
    password_work,
    secure,
    visit,
)
from templatekit_server.state import server_of

OWNERS = ("owner",)


def _members_page(here: Visit, status: int = 200, **more: object) -> Response:
    db = here.server.db
    return here.page(
        "members.html",
        status,
        section="members",
        members=people.members(db, here.workspace_id),
        pending=invitations.pending(db, here.workspace_id) if here.role in OWNERS else [],
        roles=people.ROLES,
        mails=bool(here.server.settings.smtp_url),
        **more,
    )


async def members(request: Request) -> Response:
    return _members_page(visit(request))


async def invite(request: Request) -> Response:
    """A new invitation: its link is shown once, and mailed when there is an email and a
    mail server."""
    here = visit(request, OWNERS, "invite members")
    form = await here.form()
    email, role = str(form.get("email", "")).strip(), str(form.get("role", ""))
    server = here.server
    try:
        token = invitations.invite(server.db, here.workspace_id, role, here.actor, email or None)
    except AccountError as exc:  # the form again as it was filled (an email too long to be one is not shown back)
        typed = {"email": _shown_back(email), "role": role}
        return _members_page(here, 400, message=str(exc), typed=typed)
    link = server.public_root(request) + request.url_for("dashboard:invitation", token=token).path
    sent = ""
    if email and server.settings.smtp_url:
        workspace = next(
            w for w in people.workspaces_of(server.db, here.session.user_id) if w["id"] == here.workspace_id
        )
        subject, body = mail.invitation(workspace["name"], role, here.actor, link)
        try:
            await run_in_threadpool(
                mail.send, server.settings.smtp_url, server.settings.smtp_from, email, subject, body
            )
            sent = email
        except mail.MailError as exc:
            return _members_page(here, 502, message=f"{exc}; pass the link on by hand", link=link)
    return here.show_once(here.to("dashboard:members"), link=link, sent=sent)


async def change(request: Request) -> Response:
    """A member's new role, or their removal (their sessions end at once)."""
    here = visit(request, OWNERS, "change members")
    form = await here.form()
    user_id, action = request.path_params["user"], request.path_params["action"]
    if people.role_in(here.server.db, user_id, here.workspace_id) is None or action not in ("role", "remove"):
        raise HTTPException(404, "no such member")
    role = str(form.get("role", ""))
    if action == "role":
        try:
            people.checked_role(role)
        except AccountError as exc:  # a value the form cannot give: a bad request, not a conflict
            return _members_page(here, 400, message=str(exc))
    try:
        if action == "role":
            people.add_member(here.server.db, here.workspace_id, user_id, role, here.actor)
        else:
            people.remove_member(here.server.db, here.workspace_id, user_id, here.actor)
    except AccountError as exc:
        return _members_page(here, 409, message=str(exc))
    if user_id == here.session.user_id and action == "remove":
        return RedirectResponse(request.url_for("dashboard:home"), 303)
    return here.to("dashboard:members")


async def cancel(request: Request) -> Response:
    here = visit(request, OWNERS, "cancel invitations")
    await here.form()
    try:
        invitations.cancel(here.server.db, here.workspace_id, request.path_params["invitation"], here.actor)
    except AccountError as exc:
        return _members_page(here, 404, message=str(exc))
    return here.to("dashboard:members")


# ------------------------------------------------------------------ opening a link


def _signed_in_session(request: Request) -> people.Session | None:
    token = request.cookies.get(SESSION_COOKIE)
    return people.session(server_of(request).db, token) if token else None


async def invitation(request: Request) -> Response:
    """The page of a link: join (signed in), or make an account and join. A member of its
    workspace is told so here, before a button that could only be refused."""
    db = server_of(request).db
    found = invitations.open_invitation(db, request.path_params["token"])
    session = _signed_in_session(request)
    if found is None:
        raise HTTPException(410, "this invitation has expired, was cancelled or was used already")
    role = people.role_in(db, session.user_id, found["workspace_id"]) if session else None
    message = people.member_already(found["workspace_name"], role) if role else ""
    csrf = session.csrf if session else sign_in_form_token(request)
    answer = page(
        request, "invitation.html", invitation=found, session=session, csrf=csrf, member=role, message=message
    )
    if session is None:
        answer.set_cookie(
            SIGN_IN_COOKIE, csrf, httponly=True, samesite="strict", secure=secure(request), path="/dashboard"
        )
    return answer


async def accept(request: Request) -> Response:
    db = server_of(request).db
    token = request.path_params["token"]
    session = _signed_in_session(request)
    form = await checked_form(request, session.csrf if session else request.cookies.get(SIGN_IN_COOKIE, ""))
    found = invitations.open_invitation(db, token)
    if found is None:
        raise HTTPException(410, "this invitation has expired, was cancelled or was used already")
    try:
        if session is not None:
            workspace_id = invitations.accept(db, token, session.user_id, session.email)
            return RedirectResponse(request.url_for("dashboard:projects", workspace=workspace_id), 303)
        email = found["email"] or str(form.get("email", ""))
        password = str(form.get("password", ""))
        if password != str(form.get("again", "")):
            raise AccountError("the two passwords differ")
        # Which emails have an account may be asked here only as often as at sign-in.
        address = request.client.host if request.client else "unknown"
        subjects = [f"address:{address}", f"invitation:{sha256_hex(token)}"]
        if people.throttled(db, subjects):
            return invitation_page(request, found, None, "too many attempts: wait a few minutes and try again", 429)
        if people.user_id_of(db, email) is not None:
            people.count_failure(db, subjects)
            raise AccountError(f"{people.normal_email(email)} has an account: sign in first, then open this link again")
        hashed = await password_work(people.password_hash, password)
        user_id, workspace_id = invitations.accept_new(db, token, people.normal_email(email), hashed)
    except AccountError as exc:
        return invitation_page(request, found, session, str(exc), 400, _shown_back(str(form.get("email", "")).strip()))
    return start(request, user_id, request.url_for("dashboard:projects", workspace=workspace_id))


def _shown_back(email: str) -> str:
    """An email typed in a refused form, to fill it in again: not one too long to be an
    email (it is nobody's, and would make the page as long)."""
    return email if len(email) <= people.MAX_EMAIL else ""


def invitation_page(
    request: Request,
    found: dict[str, Any],
    session: people.Session | None,
    message: str,
    status: int,
    email: str = "",
) -> Response:
    """The link's page again, saying what went wrong, with the email typed kept."""
    csrf = session.csrf if session else request.cookies.get(SIGN_IN_COOKIE, "")
    return page(
        request, "invitation.html", status, invitation=found, session=session, message=message, csrf=csrf, email=email
    )


async def audit_page(request: Request) -> Response:
    here = visit(request, MANAGERS, "read the audit log")
    return here.page("audit.html", section="audit", entries=audit.entries(here.server.db, here.workspace_id))


routes = [
    Route("/w/{workspace}/members", members, name="members"),
    Route("/w/{workspace}/members/invite", invite, methods=["POST"], name="invite"),
    Route("/w/{workspace}/members/{user}/{action}", change, methods=["POST"], name="change_member"),
    Route("/w/{workspace}/invitations/{invitation}/cancel", cancel, methods=["POST"], name="cancel_invitation"),
    Route("/invite/{token}", invitation, methods=["GET"], name="invitation"),
    Route("/invite/{token}", accept, methods=["POST"], name="accept"),
    Route("/w/{workspace}/audit", audit_page, name="audit"),
]
