"""Reading requests: the JSON body under the size limit, typed fields with errors that
name the field and the value, and the API key from wherever the client put it."""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from templatekit import jsontext
from templatekit_server import accounts
from templatekit_server.accounts import Caller
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.state import server_of


async def read_json(request: Request, limit: int) -> Any:
    """The body as JSON (None when empty); BAD_REQUEST when it is too large, not JSON,
    or nested deeper than ``jsontext.MAX_DEPTH``."""
    return parse_json(await read_body(request, limit))


def parse_json(raw: bytes) -> Any:
    """A body read by ``read_body`` as JSON, as ``read_json`` reads it."""
    if not raw.strip():
        return None
    try:
        return jsontext.parse(raw, pairs_hook=_without_duplicates)
    except jsontext.JSONTextError as exc:
        raise bad_request(f"request body: {exc}") from None


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body; BAD_REQUEST when it is over ``limit`` bytes, refused before it is read
    when its Content-Length says so."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        raise bad_request(f"request body: {int(declared):,} bytes, more than the {limit:,} byte limit")
    chunks: list[bytes] = []
    size = 0
    async for chunk in request.stream():
        size += len(chunk)
        if size > limit:
            raise bad_request(f"request body: more than the {limit:,} byte limit")
        chunks.append(chunk)
    return b"".join(chunks)


def _without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise bad_request(f"request body: the field {key!r} is given twice")
        result[key] = value
    return result


class Fields:
    """Typed access to a request's fields (the JSON body, or the query string, where
    every value is text)."""

    def __init__(self, source: Mapping[str, Any], max_text: int, where: str = "body") -> None:
        self.source = source
        self.max_text = max_text
        self.where = where

    def raw(self, name: str) -> Any:
        return self.source.get(name)

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.source.get(name)
        if value is None or value == "":
            if required:
                raise bad_request(f"{name}: required")
            return None
        if not isinstance(value, str):
            raise bad_request(f"{name}: must be a string (got {_kind(value)} {_shown(value)})")
        if len(value) > self.max_text:
            raise bad_request(f"{name}: at most {self.max_text:,} characters (got {len(value):,})")
        return value

    def flag(self, name: str) -> bool:
        value = self.source.get(name)
        if value is None or isinstance(value, bool):
            return bool(value)
        if isinstance(value, str) and value.lower() in ("true", "false", "1", "0", ""):
            return value.lower() in ("true", "1")
        raise bad_request(f"{name}: must be true or false (got {_shown(value)})")

    def number(self, name: str) -> float | None:
        value = self.source.get(name)
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
            raise bad_request(f"{name}: must be a number (got {_shown(value)})")
        return float(value)

    def choice(self, name: str, choices: Iterable[str], default: str, aliases: Mapping[str, str] | None = None) -> str:
        value = self.text(name)
        if value is None:
            return default
        value = (aliases or {}).get(value.lower(), value.lower())
        options = tuple(choices)
        if value not in options:
            raise bad_request(f"{name}: must be one of {', '.join(options)} (got {_shown(self.source[name])})")
        return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", bool: "a boolean", int: "a number", float: "a number"}.get(
        type(value), type(value).__name__
    )


def _shown(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def given_key(request: Request, body: Any) -> str | None:
    """The API key from the query, the body or a Bearer header; all that are sent must agree."""
    found: list[str] = []
    query = request.query_params.getlist("apiKey")
    found.extend(query)
    if isinstance(body, dict) and body.get("apiKey") is not None:
        if not isinstance(body["apiKey"], str):
            raise bad_request("apiKey: must be a string")
        found.append(body["apiKey"])
    authorization = request.headers.get("authorization")
    if authorization:
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError("UNAUTHORIZED", "Authorization: expected 'Bearer <API key>'")
        found.append(token.strip())
    keys = {key for key in found if key}
    if len(keys) > 1:
        raise bad_request("apiKey: the keys sent in the query, the body and the Authorization header differ")
    return keys.pop() if keys else None


async def authenticate(request: Request, operation: str, body: Any = None) -> Caller:
    """The caller of a request, counted against its rate limit. A missing key is
    UNAUTHORIZED; an unknown or revoked key is UNAUTHORIZED, except on renderVideo where
    the interface answers BAD_REQUEST."""
    key = given_key(request, body)
    if key is None:
        raise ApiError("UNAUTHORIZED", "an API key is required (query apiKey, body apiKey, or Authorization: Bearer)")
    server = server_of(request)
    caller = await run_in_threadpool(accounts.caller_for_key, server.db, key)
    if caller is None:
        code = "BAD_REQUEST" if operation == "renderVideo" else "UNAUTHORIZED"
        raise ApiError(code, "the API key is unknown or revoked")
    await count_request(request, caller, operation)
    return caller


async def count_request(request: Request, caller: Caller, operation: str) -> None:
    """FORBIDDEN when the key lacks the operation's scope; else count the request against
    the key's rate limit (the key's own, else its plan's), whose window goes into the
    answer's X-RateLimit headers."""
    missing = caller.may(operation)
    if missing is not None:
        raise ApiError("FORBIDDEN", f"this API key lacks the {missing} scope that {operation} needs")
    server = server_of(request)
    per_minute = caller.rate_limit or server.plan(caller).rate_per_minute
    window = await server.limiter.hit(caller.key_id, per_minute, operation)
    if window is not None:
        request.state.rate_limit_headers = window.headers()
