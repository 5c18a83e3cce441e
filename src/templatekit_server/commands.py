"""What ``templatekit serve`` and ``templatekit admin …`` do (their parsers are in
``templatekit_server.cli``). Admin commands print JSON; errors go to stderr, exit 1."""

from __future__ import annotations

import argparse
import functools
import json
import logging
import sys
from collections.abc import Callable
from typing import Any

from templatekit_server import accounts, catalog, usage
from templatekit_server.db import Database
from templatekit_server.errors import ApiError
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer, server_secret
from templatekit_server.settings import Settings


def serve(args: argparse.Namespace) -> int:
    import uvicorn

    from templatekit_server.app import create_app

    settings = Settings.from_env(data_dir=args.data_dir, workers=args.workers)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.demo:
        from templatekit_server.demo import ensure_demo

        db, sealer = _open(settings)
        key = ensure_demo(db, sealer, settings.data_dir)
        db.close()
        base = f"http://{_url_host(args.host)}:{args.port}/v1"
        print(f"demo API key: {key}")
        print("render the social card:")
        print(
            f"  curl -X POST {base}/templates/createImage -H 'Authorization: Bearer {key}'"
            " -H 'Content-Type: application/json'"
            ' -d \'{"templateId": "tpl_social_card", "modifications": {"title": "Hello from templatekit"}}\''
            " -o card.png"
        )
        sys.stdout.flush()
    # uvicorn's access log would show query strings, where API keys may be: the app logs
    # its own access lines without them.
    uvicorn.run(create_app(settings), host=args.host, port=args.port, log_level="info", access_log=False)
    return 0


def _url_host(host: str) -> str:
    if host in ("0.0.0.0", "::"):
        return "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def _open(settings: Settings) -> tuple[Database, Sealer]:
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    return Database(settings.database), Sealer(server_secret(settings.secret, settings.data_dir))


Action = Callable[[Database, Sealer, argparse.Namespace], Any]


def _admin(action: Action) -> Callable[[argparse.Namespace], int]:
    """Run ``action(db, sealer, args)`` and print its JSON answer."""

    @functools.wraps(action)
    def run(args: argparse.Namespace) -> int:
        db, sealer = _open(Settings.from_env(data_dir=args.data_dir))
        try:
            print(json.dumps(action(db, sealer, args), indent=2))
        except (accounts.AccountError, ApiError, OSError, json.JSONDecodeError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 1
        finally:
            db.close()
        return 0

    return run


@_admin
def create_workspace(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, str]:
    return {"id": accounts.create_workspace(db, args.name, args.plan)}


@_admin
def set_plan(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, str]:
    accounts.set_plan(db, args.workspace, args.plan)
    return {"id": args.workspace, "plan": args.plan}


@_admin
def create_project(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, str]:
    return {"id": accounts.create_project(db, args.workspace, args.name, args.avatar)}


@_admin
def create_key(db: Database, sealer: Sealer, args: argparse.Namespace) -> dict[str, str]:
    key_id, key = accounts.create_key(db, sealer, args.project)
    return {"id": key_id, "key": key}


@_admin
def revoke_key(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, Any]:
    accounts.revoke_key(db, args.key_id)
    return {"id": args.key_id, "revoked": True}


@_admin
def add_template(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, Any]:
    _workspace(db, args.workspace)
    body = json.loads(args.file.read_text(encoding="utf-8"))
    if args.id:
        body["id"] = args.id
    body = catalog.inline_local_files(body, args.file.resolve().parent)
    template_id, version, warnings = catalog.save(db, args.workspace, body, overwrite=args.overwrite)
    return {"id": template_id, "version": version, "warnings": warnings}


@_admin
def usage_report(db: Database, _sealer: Sealer, args: argparse.Namespace) -> dict[str, Any]:
    found = _workspace(db, args.workspace)
    return usage.report(db, args.workspace, DEFAULT_PLANS[found["plan"]])


def _workspace(db: Database, workspace_id: str) -> dict[str, Any]:
    found = accounts.workspace(db, workspace_id)
    if found is None:
        raise accounts.AccountError(f"workspace {workspace_id!r} does not exist")
    return found
