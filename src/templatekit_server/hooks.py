"""Hooks: secret URLs through which another system (a form service, an automation tool)
requests a render without an API key.

A hook belongs to a project and names a template, an output and a map from the posted
JSON to modifications: ``{"title": "$.name", "photo.src": "$.files[0].url", "items":
"$.lines[*]"}`` (a JSONPath subset: ``$``, dotted names, ``[n]``, and ``[*]`` for every
item of a list). Without a map the body is the modifications themselves. The URL's token
is 256 random bits, kept hashed; with ``secret_header`` the sender must also sign the raw
body: ``NAME: sha256=<hex HMAC-SHA256 keyed by the hook's secret>``.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from typing import Any

from attrs import frozen
from sqlalchemy import select

from templatekit.assets.policy import AllowList
from templatekit_server.accounts import AccountError, change_live, new_id, require_project, sha256_hex
from templatekit_server.db import Database, hooks, iso_time, now
from templatekit_server.sealing import Sealer
from templatekit_server.webhooks import url_problem

OUTPUTS = ("png", "jpeg", "webp", "pdf", "mp4")
RESPONDS = ("url", "file")
_PATH = re.compile(r"\$((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[(?:\d+|\*)\])*)")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+|\*)\]")
_TARGET = re.compile(r"[^.\s]{1,200}(\.[A-Za-z][A-Za-z0-9]{0,63})?")
_HEADER = re.compile(r"[A-Za-z0-9-]{1,100}")


@frozen
class Hook:
    id: str
    project_id: str
    template_id: str
    output: str
    map: dict[str, str] | None
    secret_header: str | None
    sealed_secret: str | None
    respond: str
    webhook_url: str | None = None

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "project": self.project_id,
            "template": self.template_id,
            "output": self.output,
            "map": self.map,
            "secretHeader": self.secret_header,
            "respond": self.respond,
            "webhookUrl": self.webhook_url,
        }


def checked_map(mapping: Any) -> dict[str, str] | None:
    """A hook's map, or AccountError naming the entry that is wrong."""
    if mapping is None:
        return None
    if not isinstance(mapping, dict) or not mapping:
        raise AccountError("map: must be a JSON object of 'layer' or 'layer.field' to '$.path'")
    layers_whole = {target for target in mapping if "." not in target}
    for target, path in mapping.items():
        if not _TARGET.fullmatch(target):
            raise AccountError(f"map: {target!r} is not 'layer' or 'layer.field'")
        if not isinstance(path, str) or not _PATH.fullmatch(path):
            raise AccountError(f"map.{target}: {path!r} is not a path such as $.name, $.items[0].url or $.rows[*]")
        if "." in target and target.split(".", 1)[0] in layers_whole:
            layer = target.split(".", 1)[0]
            raise AccountError(f"map: {layer!r} and {target!r} both set layer {layer!r}; name its main field instead")
    return dict(mapping)


def create(
    db: Database,
    sealer: Sealer,
    *,
    project_id: str,
    template_id: str,
    output: str = "png",
    mapping: dict[str, str] | None = None,
    secret_header: str | None = None,
    respond: str = "url",
    webhook_url: str | None = None,
    allow: AllowList | None = None,
) -> tuple[Hook, str, str | None]:
    """A new hook: (hook, token, secret); the secret only with ``secret_header``.
    ``webhook_url`` hears of its stored renders and videos (under the ``allow`` policy)."""
    if output not in OUTPUTS:
        raise AccountError(f"output {output!r}: must be one of {', '.join(OUTPUTS)}")
    if respond not in RESPONDS:
        raise AccountError(f"respond {respond!r}: must be one of {', '.join(RESPONDS)}")
    if secret_header is not None and not _HEADER.fullmatch(secret_header):
        raise AccountError(f"secret header {secret_header!r}: must be a header name (letters, digits, '-')")
    if webhook_url is not None:
        problem = url_problem(webhook_url, allow or AllowList.parse(()))
        if problem is not None:
            raise AccountError(f"webhook URL: {problem}")
    token, secret = secrets.token_urlsafe(32), None
    if secret_header is not None:
        secret = secrets.token_urlsafe(32)
    hook = Hook(
        new_id("hook"),
        project_id,
        template_id,
        output,
        checked_map(mapping),
        secret_header,
        None if secret is None else sealer.seal(secret),
        respond,
        webhook_url,
    )
    with db.write() as connection:
        require_project(connection, project_id)
        connection.execute(
            hooks.insert().values(
                id=hook.id,
                project_id=project_id,
                template_id=template_id,
                output=output,
                map=hook.map,
                token_sha256=sha256_hex(token),
                secret_header=secret_header,
                sealed_secret=hook.sealed_secret,
                respond=respond,
                webhook_url=webhook_url,
                created_at=now(),
            )
        )
    return hook, token, secret


_COLUMNS = (
    hooks.c.id,
    hooks.c.project_id,
    hooks.c.template_id,
    hooks.c.output,
    hooks.c.map,
    hooks.c.secret_header,
    hooks.c.sealed_secret,
    hooks.c.respond,
    hooks.c.webhook_url,
)


def for_token(db: Database, token: str) -> Hook | None:
    with db.read() as connection:
        row = connection.execute(
            select(*_COLUMNS).where(hooks.c.token_sha256 == sha256_hex(token), hooks.c.deleted_at.is_(None))
        ).first()
    return None if row is None else Hook(*row)


def listed(db: Database, project_id: str) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(
            select(*_COLUMNS, hooks.c.created_at)
            .where(hooks.c.project_id == project_id, hooks.c.deleted_at.is_(None))
            .order_by(hooks.c.created_at)
        ).all()
    return [{**Hook(*row[:-1]).summary(), "createdAt": iso_time(row[-1])} for row in rows]


def rotate(db: Database, hook_id: str) -> str:
    """A new token for the hook; the old URL stops working at once."""
    token = secrets.token_urlsafe(32)
    change_live(db, hooks, hook_id, "hook", token_sha256=sha256_hex(token))
    return token


def delete(db: Database, hook_id: str) -> None:
    change_live(db, hooks, hook_id, "hook", deleted_at=now())


def signed(secret: str, body: bytes, given: str) -> bool:
    """Whether ``given`` is ``sha256=<hex HMAC-SHA256 of body keyed by secret>``."""
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), given.strip().lower().encode("utf-8", "replace"))


def modifications(body: Any, mapping: dict[str, str] | None) -> Any:
    """The modifications a posted body asks for: the body itself without a map; with one,
    an object of each layer's value (``layer``) or fields (``layer.field``), leaving out
    paths the body does not have."""
    if mapping is None:
        return body
    found: dict[str, Any] = {}
    for target, path in mapping.items():
        value = _read(body, path)
        if value is _MISSING:
            continue
        layer, _, field = target.partition(".")
        if field:
            found.setdefault(layer, {})[field] = value
        else:
            found[layer] = value
    return found


_MISSING = object()


def _read(value: Any, path: str) -> Any:
    """The value at a path of the subset; ``[*]`` reads the rest of the path in every item."""
    steps = [(name, index) for name, index in _STEP.findall(path[1:])]
    return _walk(value, steps)


def _walk(value: Any, steps: list[tuple[str, str]]) -> Any:
    for position, (name, index) in enumerate(steps):
        if index == "*":
            if not isinstance(value, list):
                return _MISSING
            items = [_walk(item, steps[position + 1 :]) for item in value]
            return [item for item in items if item is not _MISSING]
        if name:
            value = value.get(name, _MISSING) if isinstance(value, dict) else _MISSING
        else:
            number = int(index)
            value = value[number] if isinstance(value, list) and number < len(value) else _MISSING
        if value is _MISSING:
            return _MISSING
    return value
