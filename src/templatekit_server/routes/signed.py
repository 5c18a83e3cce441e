"""GET /templates/signedurl: an image rendered from the parameters of a URL signed with
an API key, so that the URL can be placed in a page or an e-mail without the key.

The steps: check the signature and its expiry, then answer the render cache's copy for
these exact parameters (304 to a client that has it), else render, keep it in the cache
(unless ``nocache``) and answer it.
"""

from __future__ import annotations

import time

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from templatekit_server import accounts, assets, catalog, idempotency, render_cache, signing, usage
from templatekit_server.accounts import Caller
from templatekit_server.answers import warnings_header
from templatekit_server.bodies import SignedQuery
from templatekit_server.errors import bad_request
from templatekit_server.inputs import count_request, read_as
from templatekit_server.rendering import StillOutput
from templatekit_server.routes.renders import Still, delivered, render, still_of, to_bucket
from templatekit_server.state import ServerState, server_of

CACHED = "public, max-age=86400"


async def signed_url(request: Request) -> Response:
    server = server_of(request)
    params = request.query_params.multi_items()
    try:
        query = signing.single_values(params)
    except ValueError as exc:
        raise bad_request(str(exc)) from None
    canonical = signing.canonical(params)
    caller = await _verified(request, server, query, canonical)
    asked = read_as(SignedQuery, query, server.settings.max_text_chars)
    still = await still_of(server, "signedurl", caller, asked)
    info = await run_in_threadpool(catalog.info, server.db, caller.workspace_id, still.template_id)
    fresh = asked.nocache
    key = render_cache.cache_key(caller.workspace_id, still.template_id, info.version, canonical)
    cached = None if fresh else await run_in_threadpool(render_cache.lookup, server.db, server.files, key)
    named = assets.named_in(canonical)
    if cached is not None and named and await run_in_threadpool(assets.missing, server.db, caller.workspace_id, named):
        return await _rendered(request, still, canonical, fresh)  # an asset it drew was deleted: says so
    if cached is not None:
        return _from_cache(request, cached)
    if fresh:
        return await _rendered(request, still, canonical, fresh)
    return await _rendered_once(request, still, canonical, key)


def _from_cache(request: Request, cached: render_cache.Cached) -> Response:
    """The cache's copy, or 304 to a client that has it."""
    if request.headers.get("if-none-match") == cached.etag:
        return Response(status_code=304, headers={"ETag": cached.etag, "Cache-Control": CACHED})
    return _answer(cached.data, cached.media_type, cached.etag, cached.warnings, CACHED)


async def _rendered_once(request: Request, still: Still, canonical: str, key: str) -> Response:
    """A URL not in the cache, rendered once however many hosts are asked for it at the
    same moment (a page shown to many, or a holder of the URL sending it to every host
    at once): the others wait for that render and are served the cache's copy, free,
    since a cached render is billed once."""
    server = server_of(request)
    turn = await idempotency.turn(server.db, still.caller.key_id, f"signedurl:{key}")
    try:
        cached = await run_in_threadpool(render_cache.lookup, server.db, server.files, key)
        if cached is not None:  # rendered by the request whose turn came first
            return _from_cache(request, cached)
        return await turn.held_while(_rendered(request, still, canonical, fresh=False))
    finally:
        await run_in_threadpool(turn.give_up)


async def _verified(request: Request, server: ServerState, query: dict[str, str], canonical: str) -> Caller:
    """The caller whose key signed the query; BAD_REQUEST for a wrong or expired URL.
    Only a URL the key signed counts against the key's rate limit and carries its
    window: the key's hash is public in every URL it signs, so anyone could otherwise
    use up its limit, and watch it, with forged signatures (guessing an HMAC-SHA256
    needs no limit to fail). Signed URLs count in a window of their own, of the same
    size: whoever holds one (a page that shows it, a crawler) can use up that window,
    but not the key's calls to the interface."""
    caller, key = await _signer(server, query)
    if not signing.valid(key, canonical, query["sign"]):
        raise bad_request("sign: the signature does not match the parameters")
    problem = signing.expiry_problem(query.get("expires"), time.time())
    if problem is not None:
        raise bad_request(problem)
    await count_request(request, caller, "signedurl", window="signed")
    return caller


async def _signer(server: ServerState, query: dict[str, str]) -> tuple[Caller, str]:
    """The caller named by ``apiKeyHashed`` (SHA-256) or ``apiKeyMd5``, and the key."""
    if not query.get("sign"):
        raise bad_request("sign: required (signed URLs must be signed with HMAC-SHA256)")
    hashed, md5 = query.get("apiKeyHashed", "").lower(), query.get("apiKeyMd5", "").lower()
    if not hashed and not md5:
        raise bad_request("apiKeyHashed: required (the SHA-256 of the API key, in hex)")
    found = await run_in_threadpool(
        accounts.caller_for_hash, server.db, server.sealer, sha256=hashed or None, md5=None if hashed else md5
    )
    if found is None:
        raise bad_request("apiKeyHashed: no API key has this hash (or the key was revoked)")
    return found


async def _rendered(request: Request, still: Still, canonical: str, fresh: bool) -> Response:
    """Render; keep the image in the cache under the version rendered (unless ``fresh``),
    and upload it to the caller's bucket if the URL names one."""
    server = server_of(request)
    output, reservation, version = await render(request, still)
    location = None
    if still.bucket is not None:
        location = await to_bucket(server, reservation, still, output)
    if fresh:
        tag = render_cache.etag(output.data)
        answer = _answer(output.data, output.media_type, tag, output.warnings, "no-store")
    else:
        answer = await _kept(server, reservation, still, version, canonical, output)
    if location is not None:
        answer.headers["Content-Location"] = location
    return answer


async def _kept(
    server: ServerState,
    reservation: usage.Reservation | None,
    still: Still,
    version: int,
    canonical: str,
    output: StillOutput,
) -> Response:
    key = render_cache.cache_key(still.caller.workspace_id, still.template_id, version, canonical)
    files = server.files
    kept = await delivered(
        server, reservation, render_cache.keep, server.db, files, key, output.data, output.media_type, output.warnings
    )
    return _answer(kept.data, kept.media_type, kept.etag, kept.warnings, CACHED)


def _answer(data: bytes, media_type: str, tag: str, warnings: tuple[str, ...], cache: str) -> Response:
    headers = {"ETag": tag, "Cache-Control": cache, **warnings_header(warnings)}
    return Response(data, 200, headers=headers, media_type=media_type)


routes = [Route("/templates/signedurl", signed_url, methods=["GET"])]
