"""Building answers: warnings in ``X-Templatekit-Warnings``, JSON (the bodies of
``bodies``, written by the model's converter as the document describes them), and
requests made idempotent by ``Idempotency-Key``."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from templatekit.service import converter
from templatekit_server import idempotency
from templatekit_server.accounts import Caller
from templatekit_server.idempotency import Answer
from templatekit_server.state import server_of

WARNINGS_HEADER = "X-Templatekit-Warnings"
WARNINGS_LIMIT = 4096


def warnings_header(warnings: Iterable[str]) -> dict[str, str]:
    """The warnings as a JSON array (ASCII, so any header can carry it), cut to whole
    items within 4 KB; no header without warnings."""
    kept: list[str] = []
    for warning in warnings:
        if len(json.dumps([*kept, warning])) > WARNINGS_LIMIT:
            break
        kept.append(warning)
    return {WARNINGS_HEADER: json.dumps(kept)} if kept else {}


def json_answer(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> Answer:
    """A JSON answer that may be kept for a repeat of the request."""
    body = json.dumps(converter.unstructure(value), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return Answer(status, "application/json", headers or {}, body)


def json_response(value: Any, status: int = 200, headers: dict[str, str] | None = None) -> JSONResponse:
    """A JSON answer: a body class, or data already in JSON's terms."""
    return JSONResponse(converter.unstructure(value), status, headers)


def response(answer: Answer, replayed: bool = False) -> Response:
    headers = dict(answer.headers)
    if replayed:
        headers["Idempotent-Replayed"] = "true"
    return Response(answer.body, answer.status, headers=headers, media_type=answer.media_type)


async def idempotent(
    request: Request,
    caller: Caller,
    operation: str,
    body: Any,
    produce: Callable[[], Awaitable[Answer]],
    wait: float,
    key: str | None = None,
) -> tuple[Answer, bool]:
    """``produce()``'s answer and False; with an ``Idempotency-Key`` header (or ``key``),
    the first answer to the same request and True (a replay) when there was one."""
    key = key or request.headers.get("idempotency-key")
    if key is None:
        return await produce(), False
    db = server_of(request).db
    digest = idempotency.request_hash(operation, body, dict(request.query_params))
    claimed = await idempotency.claim(db, caller.key_id, key, digest, wait)
    if isinstance(claimed, Answer):
        return claimed, True
    try:
        answer = await claimed.held_while(produce())
    except BaseException:
        await run_in_threadpool(claimed.give_up)
        raise
    await run_in_threadpool(claimed.finish, answer)
    return answer, False
