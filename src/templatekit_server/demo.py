"""``templatekit serve --demo``: a demo workspace (pro plan), project and key, an owner
who signs in to the dashboard, and the example templates, made on first start and found
again on later ones."""

from __future__ import annotations

import json
import secrets
from pathlib import Path

from attrs import frozen
from sqlalchemy import select

from templatekit import RenderError
from templatekit.service import extras
from templatekit_server import accounts, catalog, people
from templatekit_server.db import Database, api_keys
from templatekit_server.plans import DEFAULT_PLANS
from templatekit_server.sealing import Sealer

MARKER = "demo.json"
DEMO_EMAIL = "demo@example.com"


def example_templates() -> list[Path]:
    """The example templates: shipped in the package, or in the source tree's examples/."""
    for folder in (
        Path(__file__).resolve().parent / "demo_templates",
        Path(__file__).resolve().parents[2] / "examples" / "templates",
    ):
        if folder.is_dir():
            return sorted(folder.glob("*.json"))
    return []


@frozen
class Demo:
    """The demo's API key, and the owner who signs in to the dashboard."""

    key: str
    email: str
    password: str


def ensure_demo(db: Database, sealer: Sealer, data_dir: Path) -> Demo:
    """The demo key and owner (made the first time), with the example templates stored."""
    marker = data_dir / MARKER
    if marker.exists():
        ids = json.loads(marker.read_text(encoding="utf-8"))
        with db.read() as connection:
            sealed = connection.execute(select(api_keys.c.sealed).where(api_keys.c.id == ids["key"])).scalar()
        key = None if sealed is None else sealer.unseal(sealed)
        if key is not None:
            _store_examples(db, ids["workspace"])
            password = ids.get("password") or _add_owner(db, data_dir, ids)
            return Demo(key, DEMO_EMAIL, password)
    workspace = accounts.create_workspace(db, "Demo", "pro", DEFAULT_PLANS)
    project = accounts.create_project(db, workspace, "Demo project")
    key_id, key = accounts.create_key(db, sealer, project, scopes=accounts.SCOPES)  # the demo may do everything
    ids = {"workspace": workspace, "project": project, "key": key_id}
    marker.write_text(json.dumps(ids), encoding="utf-8")
    _store_examples(db, workspace)
    return Demo(key, DEMO_EMAIL, _add_owner(db, data_dir, ids))


def _add_owner(db: Database, data_dir: Path, ids: dict[str, str]) -> str:
    """The demo owner (a new password if the user exists from an earlier demo), noted in
    the marker with the rest: it is printed on every start."""
    password = secrets.token_urlsafe(12)
    if people.user_id_of(db, DEMO_EMAIL) is None:
        people.create_user(db, DEMO_EMAIL, password)
    else:
        people.set_password(db, DEMO_EMAIL, password)
    people.add_member(db, ids["workspace"], people.user_id_of(db, DEMO_EMAIL) or "", "owner")
    marker = data_dir / MARKER
    marker.write_text(json.dumps({**ids, "password": password}), encoding="utf-8")
    marker.chmod(0o600)
    return password


def _store_examples(db: Database, workspace: str) -> None:
    """Each example template not stored yet (an edited copy is left alone)."""
    stored = {info.id for info in catalog.listed(db, workspace)}
    for path in example_templates():
        body = json.loads(path.read_text(encoding="utf-8"))
        if body.get("id") not in stored:
            catalog.save(db, workspace, catalog.inline_local_files(body, path.parent))


def needs() -> list[tuple[str, str]]:
    """The example templates this installation cannot render, each with what it lacks."""
    found = []
    for path in example_templates():
        body = json.loads(path.read_text(encoding="utf-8"))
        layers = body.get("layers", [])
        kinds = {layer.get("type") for layer in layers}
        reason = extras.unavailable("video") if "video" in body or "video" in kinds else None
        if reason is None and any(layer.get("figure") for layer in layers):
            reason = _plotly_unavailable()
        if reason:
            found.append((f"{body.get('name')} ({body.get('id')})", reason))
    return found


def _plotly_unavailable() -> str | None:
    """Why charts given as Plotly figures cannot be drawn here, if so."""
    try:
        from templatekit.service import find_browser

        find_browser()
    except RenderError as exc:
        return str(exc)
    return None
