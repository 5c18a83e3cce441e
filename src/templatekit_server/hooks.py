"""Hooks: secret URLs through which another system (a form service, an automation tool)
requests a render without an API key.

A hook belongs to a project and names a template, an output and a map from the posted
JSON to modifications: ``{"title": "$.name", "photo.src": "$.files[0].url", "items":
"$.lines[*]"}`` (a JSONPath subset: ``$``, dotted names, ``[n]``, and ``[*]`` for every
item of a list). Without a map the body is the modifications themselves. A path gives
at most ``MAX_ROWS`` rows (the items its ``[*]`` reaches, or those of the list it ends
at), counted before any is built.

The URL's token is 256 random bits, kept hashed. A hook may also want the sender's
signature (``signature``):

- ``body``: the raw body signed in a header the hook names, ``NAME: sha256=<hex
  HMAC-SHA256 keyed by the hook's secret>``. Nothing signed says when or which delivery
  it is, so a captured request can be sent again, and is billed again, at any time.
- ``standard-webhooks``: as Standard Webhooks signs, ``webhook-signature: v1,<base64
  HMAC-SHA256 of "id.timestamp.body">`` with a ``whsec_`` secret. The signed timestamp
  must be within ``TOLERANCE`` of the server's clock and the signed id is the request's
  idempotency key, remembered a day: a captured request gets the first answer again,
  and is refused once it is older than the tolerance.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from typing import Any

from attrs import frozen
from sqlalchemy import Connection, select

from templatekit.service import MAX_ROWS, AllowList
from templatekit_server import audit, catalog, webhooks
from templatekit_server.accounts import AccountError, Audited, change_live, new_id, require_project, sha256_hex
from templatekit_server.db import Database, hooks, iso_time, now
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.sealing import Sealer

OUTPUTS = ("png", "jpeg", "webp", "pdf", "mp4", "webm", "gif")
#: the outputs a hook queues as a video job (a WebP is the still; an animated one is asked
#: for through renderVideo)
VIDEO_OUTPUTS = ("mp4", "webm", "gif")
RESPONDS = ("url", "file")
STANDARD_WEBHOOKS = "standard-webhooks"
#: How far a Standard Webhooks timestamp may be from the server's clock, in seconds.
TOLERANCE = 300
_PATH = re.compile(r"\$((?:\.[A-Za-z_][A-Za-z0-9_-]*|\[(?:\d+|\*)\])*)")
_STEP = re.compile(r"\.([A-Za-z_][A-Za-z0-9_-]*)|\[(\d+|\*)\]")
_TARGET = re.compile(r"[^.\s]{1,200}(\.[A-Za-z][A-Za-z0-9]{0,63})?")
_HEADER = re.compile(r"[A-Za-z0-9-]{1,100}")
_STANDARD_HEADERS = ("webhook-id", "webhook-timestamp", "webhook-signature")
_UNIX_SECONDS = re.compile(r"[0-9]{1,12}")


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
    signature: str | None = None  # body, standard-webhooks, or None: unsigned

    def summary(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "project": self.project_id,
            "template": self.template_id,
            "output": self.output,
            "map": self.map,
            "signature": self.signature,
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


def _check_output(db: Database, connection: Connection, workspace_id: str, template_id: str, output: str) -> None:
    """A video output (mp4, webm, gif) needs a video template: AccountError naming the
    output when the template, stored in the hook's workspace, is a still one. A template
    not stored yet is not checked (a hook may be made before it); a still output of a
    video template is its still, as createImage renders it."""
    if output not in VIDEO_OUTPUTS:
        return
    try:
        found = catalog.info_in(db, connection, workspace_id, template_id)
    except ApiError:
        return
    if found.kind != "video":
        stills = ", ".join(name for name in OUTPUTS if name not in VIDEO_OUTPUTS)
        raise AccountError(
            f"output {output!r}: template {template_id} is not a video template (it has no video field); "
            f"its hooks give one of {stills}"
        )


def create(
    db: Database,
    sealer: Sealer,
    *,
    project_id: str,
    template_id: str,
    output: str = "png",
    mapping: dict[str, str] | None = None,
    secret_header: str | None = None,
    standard_webhooks: bool = False,
    respond: str = "url",
    webhook_url: str | None = None,
    allow: AllowList | None = None,
    actor: str = audit.ADMIN_COMMAND,
) -> tuple[Hook, str, str | None]:
    """A new hook: (hook, token, secret); the secret only when the sender signs, with
    ``secret_header`` (the body) or ``standard_webhooks``. ``webhook_url`` hears of its
    stored renders and videos (under the ``allow`` policy)."""
    if output not in OUTPUTS:
        raise AccountError(f"output {output!r}: must be one of {', '.join(OUTPUTS)}")
    if respond not in RESPONDS:
        raise AccountError(f"respond {respond!r}: must be one of {', '.join(RESPONDS)}")
    signature = _signature(secret_header, standard_webhooks)
    if webhook_url is not None:
        problem = webhooks.url_problem(webhook_url, allow or AllowList.parse(()))
        if problem is not None:
            raise AccountError(f"webhook URL: {problem}")
    token, secret = secrets.token_urlsafe(32), _new_secret(signature)
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
        signature,
    )
    with db.write() as connection:
        workspace_id = require_project(connection, project_id)
        _check_output(db, connection, workspace_id, template_id, output)
        audit.record(connection, workspace_id, actor, "hook made", hook.id, f"template {template_id}")
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
                signature=signature,
                created_at=now(),
            )
        )
    return hook, token, secret


def _signature(secret_header: str | None, standard_webhooks: bool) -> str | None:
    """How the sender signs, from the options that ask for it."""
    if secret_header is not None and standard_webhooks:
        raise AccountError("a hook is signed either in a secret header or as Standard Webhooks sign, not both")
    if secret_header is not None and not _HEADER.fullmatch(secret_header):
        raise AccountError(f"secret header {secret_header!r}: must be a header name (letters, digits, '-')")
    if standard_webhooks:
        return STANDARD_WEBHOOKS
    return None if secret_header is None else "body"


def _new_secret(signature: str | None) -> str | None:
    """A secret for the way the sender signs: Standard Webhooks' ``whsec_<base64>``, or
    256 random bits as text."""
    if signature is None:
        return None
    return webhooks.new_secret() if signature == STANDARD_WEBHOOKS else secrets.token_urlsafe(32)


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
    hooks.c.signature,
)


def for_token(db: Database, token: str) -> Hook | None:
    with db.read() as connection:
        row = connection.execute(
            select(*_COLUMNS).where(hooks.c.token_sha256 == sha256_hex(token), hooks.c.deleted_at.is_(None))
        ).first()
    return None if row is None else Hook(**row._mapping)


def listed(db: Database, project_id: str) -> list[dict[str, Any]]:
    with db.read() as connection:
        rows = connection.execute(
            select(*_COLUMNS, hooks.c.created_at)
            .where(hooks.c.project_id == project_id, hooks.c.deleted_at.is_(None))
            .order_by(hooks.c.created_at)
        ).all()
    return [{**Hook(*row[:-1]).summary(), "createdAt": iso_time(row[-1])} for row in rows]


def rotate(db: Database, sealer: Sealer, hook_id: str, actor: str = audit.ADMIN_COMMAND) -> tuple[str, str | None]:
    """A new token for the hook and, when its sender signs, a new secret of the same
    kind: (token, secret). The old URL and secret stop working at once, since a sender's
    settings that leaked one have most likely leaked both."""
    with db.read() as connection:
        signature = connection.execute(select(hooks.c.signature).where(hooks.c.id == hook_id)).scalar()
    token, secret = secrets.token_urlsafe(32), _new_secret(signature)
    sealed = {} if secret is None else {"sealed_secret": sealer.seal(secret)}
    change_live(
        db, hooks, hook_id, "hook", Audited("hook URL changed", actor), token_sha256=sha256_hex(token), **sealed
    )
    return token, secret


def delete(db: Database, hook_id: str, actor: str = audit.ADMIN_COMMAND) -> None:
    change_live(db, hooks, hook_id, "hook", Audited("hook deleted", actor), deleted_at=now())


def signature_problem(hook: Hook, secret: str, headers: Mapping[str, str], body: bytes, clock: float) -> str | None:
    """What is wrong with a request's signature at time ``clock``, if anything, for a
    hook whose sender signs (``secret`` its secret, unsealed)."""
    if hook.signature == STANDARD_WEBHOOKS:
        return _standard_webhook_problem(secret, headers, body, clock)
    header = str(hook.secret_header)
    given = headers.get(header)
    if given is None:
        return f"{header}: missing; the hook requires a signed body"
    return None if _signed(secret, body, given) else f"{header}: the signature does not match the body"


def _signed(secret: str, body: bytes, given: str) -> bool:
    """Whether ``given`` is ``sha256=<hex HMAC-SHA256 of body keyed by secret>``."""
    expected = "sha256=" + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), given.strip().lower().encode("utf-8", "replace"))


def _standard_webhook_problem(secret: str, headers: Mapping[str, str], body: bytes, clock: float) -> str | None:
    """What is wrong with a Standard Webhooks signature at time ``clock``, if anything:
    a missing header, a timestamp out of ``TOLERANCE``, or no ``v1`` signature (of the
    space-separated ones the scheme allows, for a sender changing its secret) that
    matches the id, the timestamp and the body."""
    given = [headers.get(name, "") for name in _STANDARD_HEADERS]
    missing = [name for name, value in zip(_STANDARD_HEADERS, given, strict=True) if not value]
    if missing:
        return f"{', '.join(missing)}: missing; the hook requires a Standard Webhooks signature"
    message_id, stamp, signatures = given
    if not _UNIX_SECONDS.fullmatch(stamp):
        return f"webhook-timestamp: must be the time it was sent in Unix seconds (got {stamp[:20]!r})"
    skew = abs(clock - int(stamp))
    if skew > TOLERANCE:
        return (
            f"webhook-timestamp: {skew:,.0f} s from the server's clock, more than the {TOLERANCE // 60} minutes allowed"
        )
    expected = webhooks.signature(secret, message_id, int(stamp), body).encode("ascii")
    if not any(hmac.compare_digest(expected, one.encode("utf-8", "replace")) for one in signatures.split()):
        return "webhook-signature: no v1 signature matches the id, timestamp and body"
    return None


def modifications(body: Any, mapping: dict[str, str] | None) -> Any:
    """The modifications a posted body asks for: the body itself without a map; with one,
    an object of each layer's value (``layer``) or fields (``layer.field``), leaving out
    paths the body does not have. BAD_REQUEST when a path gives more than ``MAX_ROWS``
    values, before any is read: a small body can list a million items, and each row
    built, checked and reported costs far more than its two bytes."""
    if mapping is None:
        return body
    found: dict[str, Any] = {}
    for target, path in mapping.items():
        steps = [(name, index) for name, index in _STEP.findall(path[1:])]
        count = _count(body, steps)
        if count > MAX_ROWS:
            raise bad_request(f"map.{target}: {path} gives {count:,} rows, more than the {MAX_ROWS:,} a table takes")
        value = _walk(body, steps)
        if value is _MISSING:
            continue
        layer, _, field = target.partition(".")
        if field:
            found.setdefault(layer, {})[field] = value
        else:
            found[layer] = value
    return found


_MISSING = object()
Steps = list[tuple[str, str]]


def _count(value: Any, steps: Steps) -> int:
    """How many rows a path gives, without building them: the items its first ``[*]``
    reaches that have the rest of the path, or the items of the list it ends at."""
    for position, (name, index) in enumerate(steps):
        if index == "*":
            if not isinstance(value, list):
                return 0
            rest = steps[position + 1 :]
            return sum(_has(item, rest) for item in value) if rest else len(value)
        value = _step(value, name, index)
        if value is _MISSING:
            return 0
    return len(value) if isinstance(value, list) else 1


def _has(value: Any, steps: Steps) -> bool:
    """Whether ``value`` has the path (a ``[*]`` is there on any list)."""
    for name, index in steps:
        if index == "*":
            return isinstance(value, list)
        value = _step(value, name, index)
        if value is _MISSING:
            return False
    return True


def _walk(value: Any, steps: Steps) -> Any:
    """The value at a path of the subset; ``[*]`` reads the rest of the path in every item."""
    for position, (name, index) in enumerate(steps):
        if index == "*":
            if not isinstance(value, list):
                return _MISSING
            items = [_walk(item, steps[position + 1 :]) for item in value]
            return [item for item in items if item is not _MISSING]
        value = _step(value, name, index)
        if value is _MISSING:
            return _MISSING
    return value


def _step(value: Any, name: str, index: str) -> Any:
    """One step of a path: an object's member or a list's item, else ``_MISSING``."""
    if name:
        return value.get(name, _MISSING) if isinstance(value, dict) else _MISSING
    number = int(index)
    return value[number] if isinstance(value, list) and number < len(value) else _MISSING
