"""The dashboard (``/dashboard/``): pages for the people of a workspace, signed in with
an email and a password, over the same database as /v1. Server-rendered HTML and plain
forms: no build step, and no script but the editor's, which a page opens."""

from __future__ import annotations

from pathlib import Path

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from templatekit_server.dashboard import assets, integrations, members, projects, signing, templates, usage
from templatekit_server.dashboard.web import error_page
from templatekit_server.errors import ApiError
from templatekit_server.state import ServerState


def dashboard_mount(server: ServerState) -> Mount:
    """The dashboard under ``/dashboard``: an app of its own, whose errors are pages."""
    static = Mount("/static", StaticFiles(directory=Path(__file__).resolve().parent / "static"), name="static")
    app = Starlette(
        routes=[
            *signing.routes,
            *projects.routes,
            *templates.routes,
            *assets.routes,
            *usage.routes,
            *members.routes,
            *integrations.routes,
            static,
        ],
        exception_handlers={HTTPException: error_page, ApiError: error_page},
    )
    app.state.server = server
    return Mount("/dashboard", app=app, name="dashboard")
