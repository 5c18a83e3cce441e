"""``templatekit serve``, ``templatekit admin`` and ``templatekit edit``: the server's commands, added to the
``templatekit`` command through the ``templatekit.commands`` entry points.

Only the argument parsers live here, since every ``templatekit`` run builds them; what
the commands do is in ``templatekit_server.commands``, imported when one runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from templatekit.service import extras
from templatekit_server.settings import DATA_DIR_ENV


def _command(name: str, command: str = "admin") -> Callable[[argparse.Namespace], int]:
    """Run ``commands.<name>``; first say which of the server's packages are missing, if any."""

    def run(args: argparse.Namespace) -> int:
        missing = extras.unavailable("server")
        if missing:
            print(f"error: templatekit {command}: {missing}", file=sys.stderr)
            return 2
        from templatekit_server import commands

        return int(getattr(commands, name)(args))

    return run


def add_edit(commands: Any) -> None:
    edit = commands.add_parser("edit", help="design a template file in the editor, in your browser")
    edit.add_argument("template", type=Path, help="template JSON file (made when you first save, if new)")
    edit.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default: any free one)")
    edit.add_argument("--no-browser", action="store_true", help="print the address without opening a browser")
    edit.add_argument(
        "--allow-files",
        action="append",
        type=Path,
        default=[],
        metavar="DIR",
        help="read images and fonts from DIR too (repeatable); by default only from the template's folder",
    )
    edit.set_defaults(run=_edit)


def _edit(args: argparse.Namespace) -> int:
    """The editor on one file; first say which of the editor's packages are missing, if any."""
    missing = extras.unavailable("editor")
    if missing:
        print(f"error: templatekit edit: {missing}", file=sys.stderr)
        return 2
    for folder in args.allow_files:
        if not folder.is_dir():
            print(f"error: --allow-files {folder}: not a folder", file=sys.stderr)
            return 2
    from templatekit_server import local_edit

    return local_edit.run(args.template, args.port, not args.no_browser, args.allow_files)


def _common_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help=f"database and file storage (default: ${DATA_DIR_ENV}, else ./templatekit-data)",
    )
    parser.add_argument(
        "--config", type=Path, default=None, help="TOML file of plans (default: $TEMPLATEKIT_CONFIG, else built in)"
    )


def add_serve(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the /v1 HTTP server")
    _common_options(serve)
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8000, help="port (default 8000)")
    serve.add_argument("--workers", type=int, default=None, help="render processes (default: one per core)")
    serve.add_argument(
        "--demo", action="store_true", help="create a demo workspace, project, key and the example templates"
    )
    serve.set_defaults(run=_command("serve", "serve"))


def _password_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--password-stdin", action="store_true", help="read the password from standard input (default: a prompt)"
    )


def add_admin(commands: Any) -> None:
    admin = commands.add_parser("admin", help="manage workspaces, projects, keys, users and templates")
    _common_options(admin)
    groups = admin.add_subparsers(required=True, metavar="OBJECT")

    workspace = groups.add_parser("workspace", help="workspaces").add_subparsers(required=True, metavar="ACTION")
    create = workspace.add_parser("create", help="create a workspace")
    create.add_argument("--name", required=True)
    create.add_argument("--plan", default="free", help="free, automate, pro or scale (default free)")
    create.set_defaults(run=_command("create_workspace"))
    workspace.add_parser("list", help="every workspace").set_defaults(run=_command("list_workspaces"))
    plan = workspace.add_parser("set-plan", help="change a workspace's plan")
    plan.add_argument("workspace")
    plan.add_argument("plan")
    plan.set_defaults(run=_command("set_plan"))

    project = groups.add_parser("project", help="projects").add_subparsers(required=True, metavar="ACTION")
    create = project.add_parser("create", help="create a project in a workspace")
    create.add_argument("--workspace", required=True)
    create.add_argument("--name", required=True)
    create.add_argument("--avatar", default=None, help="URL of the project's picture")
    create.set_defaults(run=_command("create_project"))

    listed = project.add_parser("list", help="a workspace's projects")
    listed.add_argument("--workspace", required=True)
    listed.set_defaults(run=_command("list_projects"))

    key = groups.add_parser("key", help="API keys").add_subparsers(required=True, metavar="ACTION")
    listed = key.add_parser("list", help="a project's keys, by their first characters (never the keys)")
    listed.add_argument("--project", required=True)
    listed.set_defaults(run=_command("list_keys"))
    create = key.add_parser("create", help="create a key (shown once)")
    create.add_argument("--project", required=True)
    create.add_argument("--rate-limit", type=int, default=None, help="requests a minute (default: the plan's)")
    create.add_argument(
        "--scope",
        action="append",
        help="what the key may do, repeatable: render (the default), templates:write (to edit templates)",
    )
    create.set_defaults(run=_command("create_key"))
    rate = key.add_parser("set-rate-limit", help="a key's own rate limit, or 'plan' for its plan's")
    rate.add_argument("key_id")
    rate.add_argument("limit", help="requests a minute, or 'plan'")
    rate.set_defaults(run=_command("set_rate_limit"))
    revoke = key.add_parser("revoke", help="revoke a key by its id")
    revoke.add_argument("key_id")
    revoke.set_defaults(run=_command("revoke_key"))

    user = groups.add_parser("user", help="people who sign in to the dashboard").add_subparsers(
        required=True, metavar="ACTION"
    )
    made = user.add_parser("create", help="a user in a workspace with a role")
    made.add_argument("--workspace", required=True)
    made.add_argument("--email", required=True)
    made.add_argument("--role", default="viewer", help="owner, admin, designer or viewer (default viewer)")
    made.add_argument(
        "--existing", action="store_true", help="the email has an account already: add it, with its own password"
    )
    _password_option(made)
    made.set_defaults(run=_command("create_user"))
    listed = user.add_parser("list", help="a workspace's users and their roles")
    listed.add_argument("--workspace", required=True)
    listed.set_defaults(run=_command("list_users"))
    reset = user.add_parser("reset-password", help="a new password for a user; their sessions end")
    reset.add_argument("--email", required=True)
    _password_option(reset)
    reset.set_defaults(run=_command("reset_password"))

    log = groups.add_parser("audit", help="a workspace's audit log: who did what, newest first")
    log.add_argument("--workspace", required=True)
    log.add_argument("--limit", type=int, default=100, help="entries at most (default 100)")
    log.set_defaults(run=_command("audit_log"))

    template = groups.add_parser("template", help="templates").add_subparsers(required=True, metavar="ACTION")
    add = template.add_parser("add", help="store a template file (local images and fonts are embedded)")
    add.add_argument("--workspace", required=True)
    add.add_argument("file", type=Path)
    add.add_argument("--id", default=None, help="template id (default: the file's id, else a new one)")
    add.add_argument("--overwrite", action="store_true", help="replace a template of the same id")
    add.set_defaults(run=_command("add_template"))

    hook = groups.add_parser("hook", help="hooks: secret URLs that render without a key").add_subparsers(
        required=True, metavar="ACTION"
    )
    made = hook.add_parser("create", help="create a hook (its URL and secret are shown once)")
    made.add_argument("--project", required=True)
    made.add_argument("--template", required=True)
    made.add_argument(
        "--output", default="png", help="png (default), jpeg, webp, pdf; mp4, webm or gif for video templates"
    )
    made.add_argument("--map", default=None, help='JSON: {"layer": "$.path", "layer.field": "$.other"}')
    made.add_argument(
        "--signature",
        default=None,
        choices=["standard-webhooks"],
        help="require requests signed as Standard Webhooks sign (id, timestamp and body): replays are refused",
    )
    made.add_argument(
        "--secret-header", default=None, help="require the body signed in this header (replays cannot be told apart)"
    )
    made.add_argument("--respond", default="url", help="url (default: the stored file's URL) or file")
    made.add_argument("--webhook-url", default=None, help="announce its stored renders and videos here too")
    made.add_argument("--base-url", default=None, help="the server's public URL (default: TEMPLATEKIT_PUBLIC_URL)")
    made.set_defaults(run=_command("create_hook"))
    hooks_of = hook.add_parser("list", help="a project's hooks")
    hooks_of.add_argument("--project", required=True)
    hooks_of.set_defaults(run=_command("list_hooks"))
    rotate = hook.add_parser("rotate", help="a new URL (and secret, if signed) for a hook; the old ones stop working")
    rotate.add_argument("hook_id")
    rotate.add_argument("--base-url", default=None, help="the server's public URL (default: TEMPLATEKIT_PUBLIC_URL)")
    rotate.set_defaults(run=_command("rotate_hook"))
    removed = hook.add_parser("delete", help="delete a hook")
    removed.add_argument("hook_id")
    removed.set_defaults(run=_command("delete_hook"))

    webhook = groups.add_parser("webhook", help="webhooks: where a project's renders are announced").add_subparsers(
        required=True, metavar="ACTION"
    )
    endpoint = webhook.add_parser("add", help="add an endpoint (its signing secret is shown once)")
    endpoint.add_argument("--project", required=True)
    endpoint.add_argument("--url", required=True)
    endpoint.add_argument(
        "--events", default=None, help="comma-separated (default: video.done,video.failed,render.done)"
    )
    endpoint.set_defaults(run=_command("add_webhook"))
    endpoints = webhook.add_parser("list", help="a project's endpoints")
    endpoints.add_argument("--project", required=True)
    endpoints.set_defaults(run=_command("list_webhooks"))
    resigned = webhook.add_parser("rotate", help="a new signing secret for an endpoint")
    resigned.add_argument("endpoint_id")
    resigned.set_defaults(run=_command("rotate_webhook"))
    resumed = webhook.add_parser("resume", help="deliver to an endpoint paused after failing again and again")
    resumed.add_argument("endpoint_id")
    resumed.set_defaults(run=_command("resume_webhook"))
    dropped = webhook.add_parser("delete", help="delete an endpoint (deliveries already queued still go out)")
    dropped.add_argument("endpoint_id")
    dropped.set_defaults(run=_command("delete_webhook"))
    secret = webhook.add_parser("secret", help="the secret signing deliveries to URLs that requests name")
    secret.add_argument("--project", required=True)
    secret.add_argument("--rotate", action="store_true", help="replace it")
    secret.set_defaults(run=_command("webhook_secret"))
    log = webhook.add_parser("deliveries", help="a project's newest deliveries and their attempts")
    log.add_argument("--project", required=True)
    log.add_argument("--limit", type=int, default=50)
    log.set_defaults(run=_command("webhook_deliveries"))

    report = groups.add_parser("usage", help="a workspace's generations today and this month")
    report.add_argument("--workspace", required=True)
    report.set_defaults(run=_command("usage_report"))
