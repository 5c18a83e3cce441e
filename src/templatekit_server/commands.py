"""What ``templatekit serve`` and ``templatekit admin …`` do (their parsers are in
``templatekit_server.cli``). Admin commands print JSON; errors go to stderr, exit 1."""

from __future__ import annotations

import argparse
import functools
import getpass
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from attrs import asdict, frozen

from templatekit.service import AllowList, jsontext
from templatekit_server import accounts, audit, catalog, hooks, people, usage, webhooks
from templatekit_server.db import Database, iso_time
from templatekit_server.errors import ApiError
from templatekit_server.plans import ConfigError, Plan, load_plans
from templatekit_server.sealing import Sealer
from templatekit_server.settings import Settings
from templatekit_server.startup import StartError, open_database, open_sealer, ready_data_dir


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from templatekit_server.app import create_app
    from templatekit_server.malformed import EdgeLimits, enveloped_protocol

    settings = Settings.from_env(data_dir=args.data_dir, workers=args.workers, config=args.config)
    limits = EdgeLimits(
        settings.head_seconds, settings.max_head_bytes, settings.body_idle_seconds, settings.max_connections
    )
    for name, value in asdict(limits).items():
        if not value > 0:
            print(f"error: TEMPLATEKIT_{name.upper()}={value}: must be more than 0", file=sys.stderr)
            return 1
    try:
        load_plans(settings.config_path)  # a bad file stops the start with its reason
    except ConfigError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        if args.demo:
            _start_demo(settings, f"http://{_url_host(args.host)}:{args.port}")
        app = create_app(settings)
    except StartError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    # uvicorn's access log would show query strings, where API keys may be: the app logs
    # its own access lines without them.
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        http=enveloped_protocol(settings.docs_url, limits),
        ws="none",  # the interface has no WebSocket: an upgrade is a plain request, logged as the app logs
        log_level="info",
        access_log=False,
        timeout_graceful_shutdown=settings.shutdown_seconds,
    )
    return 0


def _start_demo(settings: Settings, root: str) -> None:
    """Make the demo account and print its key, a curl line, the addresses of the
    playground and the editor, the dashboard's sign-in, and which templates need something
    this installation lacks."""
    from templatekit_server.demo import ensure_demo, needs

    db, sealer = _open(settings)
    try:
        demo = ensure_demo(db, sealer, settings.data_dir)
    finally:
        db.close()
    key = demo.key
    print(f"demo API key: {key}")
    print("render the social card:")
    print(
        f"  curl -X POST {root}/v1/templates/createImage -H 'Authorization: Bearer {key}'"
        " -H 'Content-Type: application/json'"
        ' -d \'{"templateId": "tpl_social_card", "modifications": {"title": "Hello from templatekit"}}\''
        " -o card.png"
    )
    print(f"try every template in your browser (paste the key): {root}/playground/")
    print(f"design and edit templates (the same key): {root}/editor/")
    if settings.dashboard:
        print(f"dashboard: {root}/dashboard/  sign in with {demo.email} / {demo.password}")
    for template_name, reason in needs():
        print(f"note: {template_name}: {reason}")
    sys.stdout.flush()


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _open(settings: Settings) -> tuple[Database, Sealer]:
    ready_data_dir(settings.data_dir)
    db = open_database(settings.database)
    return db, open_sealer(db, settings)  # keys sealed with another secret would open on no server


@frozen
class Admin:
    """What an admin command works with."""

    db: Database
    sealer: Sealer
    plans: dict[str, Plan]
    allow: AllowList


def _admin(action: Callable[[Admin, argparse.Namespace], Any]) -> Callable[[argparse.Namespace], int]:
    """Run ``action(admin, args)`` and print its JSON answer."""

    @functools.wraps(action)
    def run(args: argparse.Namespace) -> int:
        settings = Settings.from_env(data_dir=args.data_dir, config=args.config)
        try:
            plans = load_plans(settings.config_path)
        except ConfigError as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        try:
            allow = AllowList.parse(settings.fetch_allow.split(","))
            db, sealer = _open(settings)
        except (StartError, ValueError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        try:
            print(json.dumps(action(Admin(db, sealer, plans, allow), args), indent=2))
        except (accounts.AccountError, ApiError, OSError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        finally:
            db.close()
        return 0

    return run


def _hook_url(args: argparse.Namespace, token: str) -> str:
    base = args.base_url or Settings.from_env().public_url or "http://127.0.0.1:8000"
    return f"{base.rstrip('/')}/v1/hooks/{token}"


@_admin
def create_hook(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    try:
        mapping = None if args.map is None else jsontext.parse(args.map, pairs_hook=jsontext.unique_fields)
    except jsontext.JSONTextError as exc:
        raise accounts.AccountError(f"--map: {exc}") from None
    hook, token, secret = hooks.create(
        admin.db,
        admin.sealer,
        project_id=args.project,
        template_id=catalog.checked_template_id(args.template, "template"),
        output=args.output,
        mapping=mapping,
        secret_header=args.secret_header,
        standard_webhooks=args.signature == hooks.STANDARD_WEBHOOKS,
        respond=args.respond,
        webhook_url=args.webhook_url,
        allow=admin.allow,
    )
    made = {**hook.summary(), "url": _hook_url(args, token)}
    if secret is not None:
        made["secret"] = secret
    project = accounts.project(admin.db, args.project)
    try:
        catalog.info(admin.db, project["workspace_id"] if project else "", hook.template_id)
    except ApiError:  # a hook may be made before its template, but more often the id is mistyped
        made["warning"] = (
            f"template {hook.template_id} does not exist yet: the hook answers NOT_FOUND until it is stored"
        )
    return made


@_admin
def list_hooks(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    return hooks.listed(admin.db, args.project)


@_admin
def rotate_hook(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    token, secret = hooks.rotate(admin.db, admin.sealer, args.hook_id)
    rotated = {"id": args.hook_id, "url": _hook_url(args, token)}
    return rotated if secret is None else {**rotated, "secret": secret}


@_admin
def delete_hook(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    hooks.delete(admin.db, args.hook_id)
    return {"id": args.hook_id, "deleted": True}


@_admin
def add_webhook(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    events = None if args.events is None else args.events.split(",")
    return webhooks.add_endpoint(admin.db, admin.sealer, admin.allow, args.project, args.url, events)


@_admin
def list_webhooks(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    return webhooks.endpoints(admin.db, args.project)


@_admin
def rotate_webhook(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    return {"id": args.endpoint_id, "secret": webhooks.rotate_endpoint(admin.db, admin.sealer, args.endpoint_id)}


@_admin
def resume_webhook(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    webhooks.resume_endpoint(admin.db, args.endpoint_id)
    return {"id": args.endpoint_id, "paused": False}


@_admin
def delete_webhook(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    webhooks.delete_endpoint(admin.db, args.endpoint_id)
    return {"id": args.endpoint_id, "deleted": True}


@_admin
def webhook_secret(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    secret = webhooks.request_secret(admin.db, admin.sealer, args.project, rotate=args.rotate)
    return {"project": args.project, "secret": secret}


@_admin
def webhook_deliveries(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    if args.limit < 1:
        raise accounts.AccountError(f"limit {args.limit}: must be 1 or more")
    return webhooks.deliveries(admin.db, args.project, args.limit)


@_admin
def list_workspaces(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    return [
        {"id": row["id"], "name": row["name"], "plan": row["plan"], "created": iso_time(row["created_at"])}
        for row in accounts.workspaces_list(admin.db)
    ]


@_admin
def list_projects(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    _workspace(admin.db, args.workspace)
    return [
        {"id": row["id"], "name": row["name"], "created": iso_time(row["created_at"])}
        for row in accounts.projects_of(admin.db, args.workspace)
    ]


@_admin
def list_keys(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    if accounts.project(admin.db, args.project) is None:
        raise accounts.AccountError(f"project {args.project!r} does not exist")
    return [
        {
            "id": key["id"],
            "prefix": key["prefix"],
            "scopes": key["scopes"],
            "created": iso_time(key["created_at"]),
            "revoked": iso_time(key["revoked_at"]) if key["revoked_at"] else None,
            "lastUsed": iso_time(key["last_used_at"]) if key["last_used_at"] else None,
        }
        for key in accounts.keys_of(admin.db, admin.sealer, args.project)
    ]


def _new_password(args: argparse.Namespace) -> str:
    """The password from standard input's first line, or typed twice at a prompt."""
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    try:
        typed = getpass.getpass("password: ")
        again = getpass.getpass("the same again: ")
    except EOFError:  # no terminal, and nothing on standard input
        raise accounts.AccountError("no password was typed: give it on standard input with --password-stdin") from None
    if again != typed:
        raise accounts.AccountError("the two passwords differ")
    return typed


@_admin
def create_user(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    """A user in a workspace with a role. An email that has an account already is
    refused unless ``--existing`` says to add that account, which keeps its password:
    anyone holding an invitation link may have made it, for an email not theirs."""
    _workspace(admin.db, args.workspace)
    user_id = people.user_id_of(admin.db, args.email)
    existing = user_id is not None
    if existing and not args.existing:
        email = people.normal_email(args.email)
        raise accounts.AccountError(
            f"{email} has an account already, with a password of its own (not one given here), which may"
            " have been made by anyone who held an invitation link. If it is this person's, add it with"
            f" --existing; if that is not sure, give it a new password first (admin user reset-password"
            f" --email {email}, which signs it out everywhere) and then add it with --existing"
        )
    if user_id is None:
        user_id = people.create_user(admin.db, args.email, _new_password(args))
    people.add_member(admin.db, args.workspace, user_id, args.role)
    return {
        "id": user_id,
        "email": people.normal_email(args.email),
        "workspace": args.workspace,
        "role": args.role,
        "existing": existing,
    }


@_admin
def list_users(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    _workspace(admin.db, args.workspace)
    return [
        {"id": row["id"], "email": row["email"], "role": row["role"], "since": iso_time(row["created_at"])}
        for row in people.members(admin.db, args.workspace)
    ]


@_admin
def reset_password(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    people.set_password(admin.db, args.email, _new_password(args))
    return {"email": people.normal_email(args.email), "signedOut": True}


@_admin
def audit_log(admin: Admin, args: argparse.Namespace) -> list[dict[str, Any]]:
    _workspace(admin.db, args.workspace)
    if args.limit < 1:
        raise accounts.AccountError(f"limit {args.limit}: must be 1 or more")
    return audit.entries(admin.db, args.workspace, args.limit)


@_admin
def create_workspace(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    return {"id": accounts.create_workspace(admin.db, args.name, args.plan, admin.plans)}


@_admin
def set_plan(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    accounts.set_plan(admin.db, args.workspace, args.plan, admin.plans)
    return {"id": args.workspace, "plan": args.plan}


@_admin
def create_project(admin: Admin, args: argparse.Namespace) -> dict[str, str]:
    return {"id": accounts.create_project(admin.db, args.workspace, args.name, args.avatar)}


@_admin
def create_key(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    scopes = args.scope or ["render"]
    key_id, key = accounts.create_key(admin.db, admin.sealer, args.project, args.rate_limit, scopes)
    granted = [scope for scope in accounts.SCOPES if scope in scopes]
    return {"id": key_id, "key": key, "rateLimit": args.rate_limit, "scopes": granted}


@_admin
def set_rate_limit(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    limit = None if args.limit == "plan" else _whole(args.limit, "limit")
    accounts.set_rate_limit(admin.db, args.key_id, limit)
    return {"id": args.key_id, "rateLimit": limit}


def _whole(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise accounts.AccountError(
            f"{name} {text!r}: must be a whole number of requests a minute, or 'plan'"
        ) from None


@_admin
def revoke_key(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    accounts.revoke_key(admin.db, args.key_id)
    return {"id": args.key_id, "revoked": True}


@_admin
def add_template(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    _workspace(admin.db, args.workspace)
    try:
        body = jsontext.parse(args.file.read_text(encoding="utf-8-sig"), pairs_hook=jsontext.unique_fields)
    except (jsontext.JSONTextError, UnicodeDecodeError) as exc:
        raise accounts.AccountError(f"{args.file}: {exc}") from None
    if args.id:
        body["id"] = args.id
    body = catalog.inline_local_files(body, args.file.resolve().parent)
    template_id, version, warnings = catalog.save(admin.db, args.workspace, body, overwrite=args.overwrite)
    return {"id": template_id, "version": version, "warnings": warnings}


@_admin
def usage_report(admin: Admin, args: argparse.Namespace) -> dict[str, Any]:
    found = _workspace(admin.db, args.workspace)
    return usage.report(admin.db, args.workspace, admin.plans[found["plan"]])


def _workspace(db: Database, workspace_id: str) -> dict[str, Any]:
    found = accounts.workspace(db, workspace_id)
    if found is None:
        raise accounts.AccountError(f"workspace {workspace_id!r} does not exist")
    return found
