"""POST /hooks/{token}: a render requested through a hook's secret URL, billed,
rate-limited and idempotent as the same render through /v1 with a key.

The idempotency key is ``Idempotency-Key``, else the sender's own delivery id
(``webhook-id`` of Standard Webhooks senders, ``X-Delivery-Id``, ``X-GitHub-Delivery``),
so that a sender that delivers twice is rendered and billed once; a repeat must carry
the same bytes. A hook signed as Standard Webhooks sign takes only the signed
``webhook-id``: an unsigned header could be changed to have a captured request rendered
and billed again.
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import accounts, hooks
from templatekit_server.answers import idempotent, json_answer, response, warnings_header
from templatekit_server.bodies import StoredUrl, Url, VideoQueued
from templatekit_server.errors import ApiError
from templatekit_server.files import Files
from templatekit_server.hooks import Hook
from templatekit_server.idempotency import Answer, checked_key
from templatekit_server.inputs import count_request, parse_json, read_body
from templatekit_server.routes.renders import Still, announced, delivered, render
from templatekit_server.routes.videos import queued_video
from templatekit_server.state import ServerState, server_of

DELIVERY_HEADERS = ("idempotency-key", "webhook-id", "x-delivery-id", "x-github-delivery")


async def call_hook(request: Request) -> Response:
    server = server_of(request)
    hook = await run_in_threadpool(hooks.for_token, server.db, request.path_params["token"])
    if hook is None:
        raise ApiError("NOT_FOUND", "no such hook (its URL may have been rotated or deleted)")
    raw = await read_body(request, server.settings.max_body_bytes)
    _check_signature(server, hook, request, raw)
    caller = await run_in_threadpool(accounts.caller_for_project, server.db, hook.project_id, hook.id)
    if caller is None:
        raise ApiError("NOT_FOUND", "no such hook (its project no longer exists)")
    await count_request(request, caller, "hook")
    digest, modifications = await run_in_threadpool(_requested, hook, raw)
    delivery = _delivery_id(hook, request)

    async def produce() -> Answer:
        if hook.output in hooks.VIDEO_OUTPUTS:
            video_id, warnings = await run_in_threadpool(
                queued_video, server, caller, hook.template_id, modifications, request, hook.webhook_url, hook.output
            )
            server.runner.wake()
            return json_answer(VideoQueued(id=video_id, status="queued"), 202, warnings_header(warnings))
        still = Still("hook", caller, hook.template_id, modifications, hook.output, webhook_url=hook.webhook_url)
        output, reservation, _ = await render(request, still)
        headers = warnings_header(output.warnings)
        if hook.respond == "file":
            return Answer(200, output.media_type, headers, output.data)
        key = Files.new_key(f"images/{caller.project_id}", output.media_type)
        await delivered(server, reservation, server.files.store.put, key, output.data, output.media_type)
        url = server.files.url(server.api_base(request), key)
        await announced(server, reservation, still, url)
        return json_answer(StoredUrl(url=Url(url)), headers=headers)

    wait = server.settings.render_timeout + 5
    answer, replayed = await idempotent(request, caller, "hook", digest, produce, wait, key=delivery)
    return response(answer, replayed)


def _requested(hook: Hook, raw: bytes) -> tuple[str, Any]:
    """What a repeat must match, the body's SHA-256 (a sender repeats its bytes, which
    is what it signs), and the modifications the hook's map makes of the body. In a
    thread: a body of megabytes takes a while to read and map."""
    body = parse_json(raw)
    return hashlib.sha256(raw).hexdigest(), hooks.modifications({} if body is None else body, hook.map)


def _delivery_id(hook: Hook, request: Request) -> str | None:
    """The key a repeated delivery is known by: the signed ``webhook-id`` of a hook signed
    as Standard Webhooks sign, else the first delivery header the sender sent."""
    if hook.signature == hooks.STANDARD_WEBHOOKS:
        return checked_key(request.headers["webhook-id"], "webhook-id")
    header = next((name for name in DELIVERY_HEADERS if name in request.headers), None)
    return None if header is None else checked_key(request.headers[header], header)


def _check_signature(server: ServerState, hook: Hook, request: Request, raw: bytes) -> None:
    """UNAUTHORIZED unless the request is signed as the hook wants, if it wants it."""
    if hook.signature is None:
        return
    secret = None if hook.sealed_secret is None else server.sealer.unseal(hook.sealed_secret)
    if secret is None:
        raise ApiError("UNAUTHORIZED", "the hook's secret cannot be read; rotate the hook for a new one")
    problem = hooks.signature_problem(hook, secret, request.headers, raw, time.time())
    if problem is not None:
        raise ApiError("UNAUTHORIZED", problem)


routes = [Route("/hooks/{token}", call_hook, methods=["POST"])]
