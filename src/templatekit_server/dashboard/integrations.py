"""A project's webhooks and hooks, for owners and admins: webhook endpoints (the signing
secret shown once; rotate, resume a paused one, delete), the deliveries log with each
attempt and "send again", and hooks (their secret URL shown once; rotate, delete). Every
id a form names is checked to be of the project in the address."""

from __future__ import annotations

from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import catalog, hooks, webhooks
from templatekit_server.accounts import AccountError
from templatekit_server.bodies import WEBHOOK_EVENTS
from templatekit_server.dashboard.projects import project_of
from templatekit_server.dashboard.web import MANAGERS, Visit, visit
from templatekit_server.errors import ApiError

DELIVERIES_SHOWN = 50
#: A refused endpoint's URL is filled in again up to the longest one kept.
MAX_URL_SHOWN = 2048


def _webhooks_page(
    here: Visit, project: dict[str, Any], status: int = 200, message: str = "", typed: dict[str, Any] | None = None
) -> Response:
    db = here.server.db
    return here.page(
        "webhooks.html",
        status,
        section="projects",
        project=project,
        endpoints=webhooks.endpoints(db, project["id"]),
        deliveries=webhooks.deliveries(db, project["id"], DELIVERIES_SHOWN),
        events=list(WEBHOOK_EVENTS),
        message=message,
        typed=typed or {},
    )


async def webhooks_page(request: Request) -> Response:
    here = visit(request, MANAGERS, "see webhooks")
    return _webhooks_page(here, project_of(here, request.path_params["project"]))


async def add_endpoint(request: Request) -> Response:
    here = visit(request, MANAGERS, "add webhook endpoints")
    project = project_of(here, request.path_params["project"])
    form = await here.form()
    events = [str(event) for event in form.getlist("events")] or None
    try:
        made = await run_in_threadpool(  # it resolves the URL's host: off the event loop
            webhooks.add_endpoint,
            here.server.db,
            here.server.sealer,
            here.server.allow,
            project["id"],
            str(form.get("url", "")),
            events,
            here.actor,
        )
    except AccountError as exc:  # the form again as it was filled
        url = str(form.get("url", ""))
        typed = {"url": url if len(url) <= MAX_URL_SHOWN else "", "events": events or []}
        return _webhooks_page(here, project, 400, str(exc), typed)
    return here.show_once(here.to("dashboard:webhooks", project=project["id"]), secret=made["secret"], url=made["url"])


async def change_endpoint(request: Request) -> Response:
    here = visit(request, MANAGERS, "change webhook endpoints")
    project = project_of(here, request.path_params["project"])
    await here.form()
    endpoint_id, action = request.path_params["endpoint"], request.path_params["action"]
    known = {endpoint["id"]: endpoint for endpoint in webhooks.endpoints(here.server.db, project["id"])}
    if endpoint_id not in known or action not in ("rotate", "resume", "delete"):
        raise HTTPException(404, "no such webhook endpoint")
    back = here.to("dashboard:webhooks", project=project["id"])
    if action == "rotate":
        secret = webhooks.rotate_endpoint(here.server.db, here.server.sealer, endpoint_id, here.actor)
        return here.show_once(back, secret=secret, url=known[endpoint_id]["url"])
    if action == "resume":
        webhooks.resume_endpoint(here.server.db, endpoint_id, here.actor)
        here.server.sender.wake()
    else:
        webhooks.delete_endpoint(here.server.db, endpoint_id, here.actor)
    return back


async def send_again(request: Request) -> Response:
    here = visit(request, MANAGERS, "send webhooks again")
    project = project_of(here, request.path_params["project"])
    await here.form()
    try:
        webhooks.send_again(here.server.db, project["id"], request.path_params["delivery"])
    except AccountError as exc:
        return _webhooks_page(here, project, 409, str(exc))
    here.server.sender.wake()
    return here.to("dashboard:webhooks", project=project["id"])


# ------------------------------------------------------------------ hooks


def _hook_url(here: Visit, token: str) -> str:
    """The hook's URL on /v1 (the dashboard's own base is /dashboard, not the server's)."""
    return f"{here.server.public_root(here.request)}/v1/hooks/{token}"


def _hooks_page(
    here: Visit, project: dict[str, Any], status: int = 200, message: str = "", typed: dict[str, Any] | None = None
) -> Response:
    db = here.server.db
    return here.page(
        "hooks.html",
        status,
        section="projects",
        project=project,
        hooks=hooks.listed(db, project["id"]),
        templates=catalog.listed(db, here.workspace_id),
        outputs=hooks.OUTPUTS,
        message=message,
        typed=typed or {},
    )


async def hooks_page(request: Request) -> Response:
    here = visit(request, MANAGERS, "see hooks")
    return _hooks_page(here, project_of(here, request.path_params["project"]))


async def create_hook(request: Request) -> Response:
    here = visit(request, MANAGERS, "create hooks")
    project = project_of(here, request.path_params["project"])
    form = await here.form()
    template_id = str(form.get("template", ""))
    try:
        catalog.info(here.server.db, here.workspace_id, template_id)  # of this workspace
        _, token, secret = hooks.create(
            here.server.db,
            here.server.sealer,
            project_id=project["id"],
            template_id=catalog.checked_template_id(template_id, "template"),
            output=str(form.get("output", "png")),
            standard_webhooks=form.get("signed") == "on",
            allow=here.server.allow,
            actor=here.actor,
        )
    except (AccountError, ApiError) as exc:  # the form again as it was filled
        typed = {"template": template_id, "output": str(form.get("output", "")), "signed": form.get("signed") == "on"}
        return _hooks_page(here, project, 400, str(exc), typed)
    shown = {"url": _hook_url(here, token), **({"secret": secret} if secret else {})}
    return here.show_once(here.to("dashboard:hooks", project=project["id"]), **shown)


async def change_hook(request: Request) -> Response:
    here = visit(request, MANAGERS, "change hooks")
    project = project_of(here, request.path_params["project"])
    await here.form()
    hook_id, action = request.path_params["hook"], request.path_params["action"]
    if hook_id not in {hook["id"] for hook in hooks.listed(here.server.db, project["id"])} or action not in (
        "rotate",
        "delete",
    ):
        raise HTTPException(404, "no such hook")
    back = here.to("dashboard:hooks", project=project["id"])
    if action == "delete":
        hooks.delete(here.server.db, hook_id, here.actor)
        return back
    token, secret = hooks.rotate(here.server.db, here.server.sealer, hook_id, here.actor)
    return here.show_once(back, url=_hook_url(here, token), **({"secret": secret} if secret else {}))


routes = [
    Route("/w/{workspace}/p/{project}/webhooks", webhooks_page, methods=["GET"], name="webhooks"),
    Route("/w/{workspace}/p/{project}/webhooks", add_endpoint, methods=["POST"], name="add_endpoint"),
    Route(
        "/w/{workspace}/p/{project}/webhooks/{endpoint}/{action}",
        change_endpoint,
        methods=["POST"],
        name="change_endpoint",
    ),
    Route("/w/{workspace}/p/{project}/deliveries/{delivery}/again", send_again, methods=["POST"], name="send_again"),
    Route("/w/{workspace}/p/{project}/hooks", hooks_page, methods=["GET"], name="hooks"),
    Route("/w/{workspace}/p/{project}/hooks", create_hook, methods=["POST"], name="create_hook"),
    Route("/w/{workspace}/p/{project}/hooks/{hook}/{action}", change_hook, methods=["POST"], name="change_hook"),
]
