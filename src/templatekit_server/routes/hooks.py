"""POST /hooks/{token}: a render requested through a hook's secret URL, billed,
rate-limited and idempotent as the same render through /v1 with a key.

The idempotency key is ``Idempotency-Key``, else the sender's own delivery id
(``webhook-id`` of Standard Webhooks senders, ``X-Delivery-Id``, ``X-GitHub-Delivery``),
so that a sender that delivers twice is rendered and billed once.
"""

from __future__ import annotations

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import accounts, hooks
from templatekit_server.answers import idempotent, json_answer, response, warnings_header
from templatekit_server.errors import ApiError
from templatekit_server.files import Files
from templatekit_server.hooks import Hook
from templatekit_server.idempotency import Answer
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
    body = parse_json(raw)
    caller = await run_in_threadpool(accounts.caller_for_project, server.db, hook.project_id, hook.id)
    if caller is None:
        raise ApiError("NOT_FOUND", "no such hook (its project no longer exists)")
    await count_request(request, caller, "hook")
    modifications = hooks.modifications({} if body is None else body, hook.map)
    delivery = next((request.headers[name] for name in DELIVERY_HEADERS if name in request.headers), None)

    async def produce() -> Answer:
        if hook.output == "mp4":
            video_id = await run_in_threadpool(
                queued_video, server, caller, hook.template_id, modifications, request, hook.webhook_url
            )
            server.runner.wake()
            return json_answer({"id": video_id, "status": "queued"}, 202)
        still = Still("hook", caller, hook.template_id, modifications, hook.output, webhook_url=hook.webhook_url)
        output, reservation, _ = await render(request, still)
        headers = warnings_header(output.warnings)
        if hook.respond == "file":
            return Answer(200, output.media_type, headers, output.data)
        key = Files.new_key(f"images/{caller.project_id}", output.media_type)
        await delivered(server, reservation, server.files.store.put, key, output.data, output.media_type)
        url = server.files.url(server.api_base(request), key)
        await announced(server, reservation, still, url)
        return json_answer({"url": url}, headers=headers)

    wait = server.settings.render_timeout + 5
    answer, replayed = await idempotent(request, caller, "hook", body, produce, wait, key=delivery)
    return response(answer, replayed)


def _check_signature(server: ServerState, hook: Hook, request: Request, raw: bytes) -> None:
    if hook.secret_header is None or hook.sealed_secret is None:
        return
    given = request.headers.get(hook.secret_header)
    if given is None:
        raise ApiError("UNAUTHORIZED", f"{hook.secret_header}: missing; the hook requires a signed body")
    secret = server.sealer.unseal(hook.sealed_secret)
    if secret is None or not hooks.signed(secret, raw, given):
        raise ApiError("UNAUTHORIZED", f"{hook.secret_header}: the signature does not match the body")


routes = [Route("/hooks/{token}", call_hook, methods=["POST"])]
