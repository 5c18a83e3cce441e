"""Reading requests: the caller first, then the JSON body under the size limits; typed
fields with errors that name the field and the value; and the API key from wherever the
client put it.

Nothing is parsed before its size is known, and no stranger's body is read far: a key in
the Authorization header or the query is checked before the body is read, and a request
without one is read no further than ``max_keyless_body_bytes`` until the key its body
carries is known. A body is counted (its commas, colons and brackets) before it is
parsed, so that parsing, which holds the interpreter whatever thread runs it, stays
cheap; it is parsed in a worker thread."""

from __future__ import annotations

import difflib
import json
import typing
from collections.abc import AsyncIterator, Mapping
from typing import Any, TypeVar

import attrs
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from templatekit.service import (
    converter,
    describe_error,
    format_path,
    iter_errors,
    json_name,
    jsontext,
    shown_value,
)
from templatekit_server import accounts
from templatekit_server.accounts import Caller
from templatekit_server.bodies import Flag, Text
from templatekit_server.db import promptly
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.state import server_of

T = TypeVar("T")

_KEY_REQUIRED = "an API key is required (query apiKey, body apiKey, or Authorization: Bearer)"
_KEYS_DIFFER = "apiKey: the keys sent in the query, the body and the Authorization headers differ"


async def read_request(request: Request, operation: str) -> tuple[Caller, Any]:
    """The caller of a request and its JSON body (None when empty), the caller first:
    with a key in the Authorization header or the query, the key is checked before the
    body is read (a key in the body as well must agree); without one, the body is read up
    to ``max_keyless_body_bytes``, and further only once a key among its first fields
    (``apiKey``) is known."""
    settings = server_of(request).settings
    outside = given_key(request, None)
    if outside is not None:
        try:
            caller = await _caller(request, operation, outside)
        except UnknownKey:
            if await _body_key_differs(request, outside, settings.max_keyless_body_bytes):
                raise bad_request(_KEYS_DIFFER) from None
            raise
        body = _Body(request, settings.max_body_bytes)  # a body over the limit is refused with the key's headers
        parsed = await body.json()
        given_key(request, parsed)
        return caller, parsed
    body = _Body(request, settings.max_body_bytes)
    if await body.read(settings.max_keyless_body_bytes):
        parsed = await body.json()
        return await authenticate(request, operation, parsed), parsed
    key = leading_key(bytes(body.data[: settings.max_keyless_body_bytes]))
    if key is None:
        limit = settings.max_keyless_body_bytes
        raise ApiError(
            "UNAUTHORIZED",
            f"{_KEY_REQUIRED}; a body over {limit:,} bytes must bring its key in the Authorization header, "
            "the query, or its first fields",
        )
    caller = await _caller(request, operation, key)
    parsed = await body.json()
    given_key(request, parsed)
    return caller, parsed


class UnknownKey(ApiError):
    """A key that is none of the server's (unknown, revoked or expired)."""


async def _body_key_differs(request: Request, outside: str, limit: int) -> bool:
    """Whether the body holds an ``apiKey`` other than ``outside`` (an unknown key from
    the header or the query): then the keys disagree (BAD_REQUEST, as the interface says),
    which only the body tells. Only a body that declares no more than a keyless body may
    hold is read: a larger one is not read for a key nobody has."""
    declared = request.headers.get("content-length", "")
    if not declared.isdigit() or not 0 < int(declared) <= limit:
        return False
    body = _Body(request, limit)
    await body.read(limit)
    try:
        parsed = parse_json(bytes(body.data))
    except ApiError:
        return False
    inside = parsed.get("apiKey") if isinstance(parsed, dict) else None
    return isinstance(inside, str) and inside != "" and inside != outside


INLINE_JSON_BYTES = 16_384


def parse_json(raw: bytes) -> Any:
    """A body as JSON (None when empty); BAD_REQUEST when it is not JSON, may hold more
    than ``jsontext.MAX_VALUES`` values or nests deeper than ``jsontext.MAX_DEPTH``."""
    if not raw.strip():
        return None
    try:
        return jsontext.parse(raw, pairs_hook=jsontext.unique_fields, max_values=jsontext.MAX_VALUES)
    except jsontext.JSONTextError as exc:
        raise bad_request(f"request body: {exc}") from None


async def read_body(request: Request, limit: int) -> bytes:
    """The raw body; BAD_REQUEST when it is over ``limit`` bytes, refused before it is read
    when its Content-Length says so."""
    body = _Body(request, limit)
    await body.read(limit)
    return bytes(body.data)


class _Body:
    """A request body read in steps: as far as a first limit, and on to the whole."""

    def __init__(self, request: Request, limit: int) -> None:
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > limit:
            raise bad_request(f"request body: {int(declared):,} bytes, more than the {limit:,} byte limit")
        self.limit = limit
        self.data = bytearray()
        self.ended = False
        self._chunks: AsyncIterator[bytes] = request.stream()

    async def read(self, upto: int) -> bool:
        """Read until more than ``upto`` bytes have come (at most a chunk more), or the
        body ends; True when it has ended."""
        while not self.ended and len(self.data) <= upto:
            chunk = await anext(self._chunks, None)
            if chunk is None:
                self.ended = True
                break
            self.data += chunk
            if len(self.data) > self.limit:
                raise bad_request(f"request body: more than the {self.limit:,} byte limit")
        return self.ended

    async def json(self) -> Any:
        """The whole body as JSON (``parse_json``): a body of up to ``INLINE_JSON_BYTES``
        on the event loop, where it takes less time than a trip to a thread (about 0.2 ms
        at the limit, 10 µs for a render's usual few hundred bytes); a larger one in a
        worker thread, so that the loop goes on serving others meanwhile."""
        await self.read(self.limit)
        if len(self.data) <= INLINE_JSON_BYTES:
            return parse_json(bytes(self.data))
        return await run_in_threadpool(parse_json, bytes(self.data))


_DECODER = json.JSONDecoder()


def leading_key(head: bytes) -> str | None:
    """The ``apiKey`` of a JSON object whose first bytes are ``head``, when it is among
    the fields that begin and end within them; nothing after them is read."""
    text = head.decode("utf-8", errors="ignore")  # a character cut at the end is left out
    index = _after_space(text, 0)
    if not text.startswith("{", index):
        return None
    index += 1
    while True:
        index = _after_space(text, index)
        try:
            name, index = _DECODER.raw_decode(text, index)
            index = _after_space(text, index)
            if not isinstance(name, str) or not text.startswith(":", index):
                return None
            value, index = _DECODER.raw_decode(text, _after_space(text, index + 1))
        except (ValueError, RecursionError):
            return None  # not JSON, or a field that goes on past ``head``
        if name == "apiKey":
            return value if isinstance(value, str) else None
        index = _after_space(text, index)
        if not text.startswith(",", index):
            return None
        index += 1


def _after_space(text: str, index: int) -> int:
    while index < len(text) and text[index] in " \t\r\n":
        index += 1
    return index


class Fields:
    """Typed access to a query string's fields, where every value is text; flags are read
    as request bodies read them (``bodies.Flag``)."""

    def __init__(self, source: Mapping[str, Any], max_text: int) -> None:
        self.source = source
        self.max_text = max_text

    def raw(self, name: str) -> Any:
        """The field's value; BAD_REQUEST for a query field given more than once, whose
        values would otherwise be read one of them, silently."""
        getlist = getattr(self.source, "getlist", None)
        if getlist is not None and len(given := getlist(name)) > 1:
            raise bad_request(f"{name}: given {len(given)} times in the query; give it once")
        return self.source.get(name)

    def text(self, name: str, *, required: bool = False) -> str | None:
        value = self.raw(name)
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
        value = self.raw(name)
        if value is None or value == "":
            return False
        try:
            return bool(converter.structure(value, Flag))
        except ValueError as exc:
            raise bad_request(f"{name}: {exc}") from None


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
    for authorization in request.headers.getlist("authorization"):  # each one sent: they must agree too
        if not authorization:
            continue
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError("UNAUTHORIZED", "Authorization: expected 'Bearer <API key>'")
        found.append(token.strip())
    keys = {key for key in found if key}
    if len(keys) > 1:
        raise bad_request(_KEYS_DIFFER)
    return keys.pop() if keys else None


async def authenticate(request: Request, operation: str, body: Any = None) -> Caller:
    """The caller of a request, counted against its rate limit. A missing key is
    UNAUTHORIZED; an unknown or revoked key is UNAUTHORIZED, except on renderVideo where
    the interface answers BAD_REQUEST."""
    key = given_key(request, body)
    if key is None:
        raise ApiError("UNAUTHORIZED", _KEY_REQUIRED)
    return await _caller(request, operation, key)


async def _caller(request: Request, operation: str, key: str) -> Caller:
    server = server_of(request)
    caller = await promptly(server.db, accounts.caller_for_key, server.db, key)
    if caller is None:
        code = "BAD_REQUEST" if operation == "renderVideo" else "UNAUTHORIZED"
        raise UnknownKey(code, "the API key is unknown, revoked or expired")
    await count_request(request, caller, operation)
    return caller


async def count_request(request: Request, caller: Caller, operation: str, window: str = "") -> None:
    """Count the request against the key's rate limit (the key's own, else its plan's),
    whose window goes into the answer's X-RateLimit headers; then FORBIDDEN when the key
    lacks the operation's scope. ``window`` names another window of the key's, with the
    same limit (signed URLs have theirs)."""
    server = server_of(request)
    per_minute = caller.rate_limit or server.plan(caller).rate_per_minute
    counted = await server.limiter.hit(f"{window}:{caller.key_id}" if window else caller.key_id, per_minute, operation)
    if counted is not None:
        request.state.rate_limit_headers = counted.headers()
    # After the count, so that a refusal for a missing scope carries the key's X-RateLimit
    # headers as every answer to a keyed request does (and counts as the request it is).
    missing = caller.may(operation)
    if missing is not None:
        raise ApiError("FORBIDDEN", f"this API key lacks the {missing} scope that {operation} needs")


def read_as(cls: type[T], body: Any, max_text: int) -> T:
    """A JSON body as the request class ``cls``, read by the model's converter; a field
    given as empty text counts as absent. BAD_REQUEST naming the first wrong field and
    its value, or a text field over ``max_text`` characters."""
    if body is None:
        body = {}
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a JSON object (got {type(body).__name__})")
    try:
        found = converter.structure({name: value for name, value in body.items() if value != ""}, cls)
    except Exception as exc:  # cattrs' groups of the fields' errors
        path, error = next(iter_errors(exc))
        message = "required" if isinstance(error, KeyError) else describe_error(error)
        raise bad_request(f"{format_path(path)}: {message}") from None
    for name in _text_fields(cls):
        value = getattr(found, name)
        if value is not None and len(value) > max_text:
            raise bad_request(f"{json_name(name)}: at most {max_text:,} characters (got {len(value):,})")
    return found


def unread_fields(cls: type, body: Any) -> tuple[str, ...]:
    """A warning for each field of a request body that ``cls`` does not read, with the
    field it may have meant: clients may send fields a version does not read, so they are
    not refused, but a misspelt ``modifications`` would otherwise change nothing unsaid."""
    if not isinstance(body, dict):
        return ()
    known = [json_name(attribute.name) for attribute in attrs.fields(cls)]
    warnings = []
    for name in body:
        if name not in known:
            close = difflib.get_close_matches(str(name), known, n=1)
            meant = f" (did you mean {close[0]!r}?)" if close else ""
            warnings.append(f"request body: {shown_value(name)}: unknown field ignored{meant}")
    return tuple(warnings)


_TEXT_FIELDS: dict[type, tuple[str, ...]] = {}


def _text_fields(cls: type) -> tuple[str, ...]:
    """The fields of a request class that hold text (its annotations resolved once: that
    took 7% of the server's own time per render request)."""
    found = _TEXT_FIELDS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls)
        found = _TEXT_FIELDS[cls] = tuple(a.name for a in attrs.fields(cls) if hints[a.name] in (Text, Text | None))
    return found
