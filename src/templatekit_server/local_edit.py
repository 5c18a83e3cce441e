"""``templatekit edit FILE.json``: the editor on one template file, served on loopback by
the server's own pieces: its request and response bodies (read by the same converter),
its error envelope and handlers (with request ids), its page headers and its OpenAPI
document, over the file (``local_file``) instead of the database.

Only the page that the command opens can use it: every /v1 call needs the random key in
that page's address (a web page elsewhere cannot read it), and a Host other than loopback
is refused (against DNS rebinding). The browser is opened on a file that only this user
can read and that sends it on to that address, never on the address itself: a command
line is readable by every user of the machine. Images and fonts are read from the
template's folder, and from the folders the user allows, only.
"""

from __future__ import annotations

import contextlib
import hmac
import html
import json
import logging
import mimetypes
import os
import secrets
import signal
import socket
import tempfile
import webbrowser
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, unquote

from attrs import evolve, frozen
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import JSONResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

import templatekit as tk
from templatekit import AssetLoader, load_template
from templatekit.service import WEB, DraftRender, FontBook, render_draft
from templatekit_server.answers import json_response, warnings_header
from templatekit_server.app import RequestIds, error_handlers, error_response
from templatekit_server.asset_types import EXTENSIONS, measured, sniffed
from templatekit_server.assets import asset_id
from templatekit_server.bodies import (
    Asset,
    ImageRequest,
    NewVersion,
    PdfRequest,
    PreviewRequest,
    RevertRequest,
    TemplateSummary,
    TemplateVersion,
)
from templatekit_server.errors import ApiError, bad_request
from templatekit_server.inputs import given_key, parse_json, read_as, read_body
from templatekit_server.local_file import FILE_ID, EditedFile
from templatekit_server.openapi import document
from templatekit_server.pages import PageHeaders
from templatekit_server.rendering import DraftOutput
from templatekit_server.routes.assets import read_upload
from templatekit_server.routes.editor import draft_headers
from templatekit_server.routes.templates import if_match, version_query
from templatekit_server.settings import Settings

PAGES = ("editor", "common")
EDITOR_PAGE = WEB / "editor" / "index.html"
#: What the editor's page carries when this command serves it: it then connects with the
#: key in its address at once (see main.js).
SERVED_HERE = b"<html data-templatekit-edit "
LOOPBACK = ("127.0.0.1", "localhost")
_OPENER = """<!doctype html>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url={page}">
<title>templatekit editor</title>
<p><a href="{page}">Open the editor</a></p>
"""


@frozen
class LocalEditor:
    """What the app serves: the file, the key of its page, and where files are read from.
    At ``app.state.server``, where the server's error answers find ``settings``."""

    edited: EditedFile
    key: str
    assets: AssetLoader
    settings: Settings = Settings()

    @property
    def folders(self) -> tuple[Path, ...]:
        """Where images and fonts are read from: the file's folder and those allowed."""
        return (self.edited.path.resolve().parent, *(self.assets.local_files.folders or ()))


def _editor(request: Request) -> LocalEditor:
    editor: LocalEditor = request.app.state.server
    return editor


def _authorised(request: Request) -> LocalEditor:
    """The editor, for a request with its page's key; UNAUTHORIZED otherwise."""
    editor = _editor(request)
    given = given_key(request, None) or ""
    if not hmac.compare_digest(given.encode(), editor.key.encode()):
        raise ApiError("UNAUTHORIZED", "open the address templatekit edit printed")
    return editor


async def _body(request: Request, editor: LocalEditor) -> Any:
    return parse_json(await read_body(request, editor.settings.max_body_bytes))


def _template_id(request: Request, editor: LocalEditor) -> str:
    """The path's template id: the file's, else NOT_FOUND."""
    template_id = str(request.path_params["template_id"])
    if template_id != editor.edited.template_id:
        raise ApiError("NOT_FOUND", f"template {template_id[:80]} does not exist")
    return template_id


def _summary(editor: LocalEditor) -> TemplateSummary:
    template = editor.edited.template()
    kind: Literal["image", "video"] = "video" if template.get("video") else "image"
    return TemplateSummary(
        id=editor.edited.template_id,
        name=str(template.get("name", "")),
        width=int(template.get("width") or 0),
        height=int(template.get("height") or 0),
        kind=kind,
    )


async def listing(request: Request) -> Response:
    editor = _authorised(request)
    return json_response([await run_in_threadpool(_summary, editor)])


async def details(request: Request) -> Response:
    editor = _authorised(request)
    template_id = _template_id(request, editor)
    found = await run_in_threadpool(lambda: tk.describe(load_template({**editor.edited.template(), "id": template_id})))
    return JSONResponse(found)


async def source(request: Request) -> Response:
    """The file's JSON: the current version, or ``?version=N``; its number is the ETag."""
    editor = _authorised(request)
    _template_id(request, editor)
    asked = request.query_params.get("version")
    edited = editor.edited
    version = edited.version(version_query(asked)) if asked is not None else await run_in_threadpool(edited.read)
    return Response(version.text, media_type="application/json", headers={"ETag": f'"{version.number}"'})


async def versions(request: Request) -> Response:
    editor = _authorised(request)
    _template_id(request, editor)
    await run_in_threadpool(editor.edited.read)  # a change made on disk is listed too
    listed = [
        TemplateVersion(version=v.number, created_at=v.created_at, note=v.note)  # type: ignore[arg-type]
        for v in reversed(editor.edited.saved)
    ]
    return json_response(listed)


async def update(request: Request) -> Response:
    """The file saved (its new version), as updateTemplate stores a template."""
    editor = _authorised(request)
    template_id = _template_id(request, editor)
    body = await _body(request, editor)
    if not isinstance(body, dict):
        raise bad_request(f"request body: must be a template object (got {type(body).__name__})")
    if body.get("id") not in (None, template_id):
        raise bad_request(f"id: {str(body['id'])[:80]!r} differs from the id in the path ({template_id})")
    expected = if_match(request.headers.get("if-match"))
    template = {key: value for key, value in body.items() if key != "apiKey"}
    if template_id == FILE_ID:  # the page's name for a file without an id: not written into it
        template.pop("id", None)
    saved = await run_in_threadpool(editor.edited.save, template, expected)
    return json_response(NewVersion(id=template_id, version=saved.number))


async def revert(request: Request) -> Response:
    editor = _authorised(request)
    template_id = _template_id(request, editor)
    number = read_as(RevertRequest, await _body(request, editor), editor.settings.max_text_chars).version
    edited = editor.edited
    template = json.loads(edited.version(number).text)
    saved = await run_in_threadpool(edited.save, template, None, f"reverted to version {number}")
    return json_response(NewVersion(id=template_id, version=saved.number))


async def preview(request: Request) -> Response:
    """The image of the template being designed, its paths read next to the file."""
    editor = _authorised(request)
    asked = read_as(PreviewRequest, await _body(request, editor), editor.settings.max_text_chars)

    modifications: Any = asked.modifications  # read whole, as the renders read it

    def draw() -> DraftRender:
        return render_draft(
            asked.template,
            modifications,
            format=asked.format,
            thumbnail=asked.thumbnail,
            scale=asked.scale,
            time=asked.time,
            base_dir=editor.edited.path.parent,
            assets=editor.assets,
        )

    drawn = DraftOutput.of(await run_in_threadpool(draw))
    return Response(drawn.data, media_type=drawn.media_type, headers=draft_headers(drawn))


async def upload_asset(request: Request) -> Response:
    """An upload kept as a file beside the template (``assets/ID.ext``), named in the
    template by its relative path, so that ``templatekit render FILE`` needs no server."""
    editor = _authorised(request)
    data, named = await read_upload(request)
    found = sniffed(data, named)
    made = asset_id(data)
    relative = f"assets/{made}.{EXTENSIONS[found.media_type]}"
    target = editor.edited.path.resolve().parent / relative
    if not target.exists():
        target.parent.mkdir(exist_ok=True)
        partial = target.with_suffix(target.suffix + ".partial")
        partial.write_bytes(data)
        partial.replace(target)
    asset = Asset(id=made, media_type=found.media_type, size=len(data), src=relative, **measured(data, found))
    return json_response(asset, 201)


async def create_image(request: Request) -> Response:
    return await _render(request, ImageRequest)


async def create_pdf(request: Request) -> Response:
    return await _render(request, PdfRequest)


async def _render(request: Request, kind: type[PdfRequest]) -> Response:
    """The saved file rendered with the body's modifications (the editor's "Try it")."""
    editor = _authorised(request)
    asked = read_as(kind, await _body(request, editor), editor.settings.max_text_chars)
    if asked.template_id != editor.edited.template_id:
        raise ApiError("NOT_FOUND", f"template {asked.template_id[:80]} does not exist")
    if isinstance(asked, ImageRequest) and asked.s3_config is not None:
        raise bad_request("s3Config: templatekit edit uploads nowhere; render with the server to upload")

    modifications: Any = asked.modifications

    def render() -> tk.RenderResult:
        edited = editor.edited
        saved = evolve(load_template(edited.read().text), base_dir=edited.path.parent)
        if isinstance(asked, ImageRequest):
            return tk.render_image(
                saved,
                modifications,
                format=asked.format,
                thumbnail=asked.thumbnail,
                debug=asked.debug,
                assets=editor.assets,
            )
        return tk.render_pdf(saved, modifications, debug=asked.debug, assets=editor.assets)

    result = await run_in_threadpool(render)
    return Response(result.data, media_type=result.media_type, headers=warnings_header(result.warnings))


async def fonts(request: Request) -> Response:
    _authorised(request)
    return JSONResponse(await run_in_threadpool(lambda: FontBook.bundled().families()))


async def openapi(request: Request) -> Response:
    _authorised(request)
    return JSONResponse(document())


async def page_file(request: Request) -> Response:
    """A file of the editor's pages, as the path was sent (``raw_path``: an encoded
    ``/`` names no folder); the editor's own page marked as served here."""
    path = request.scope.get("raw_path", b"").decode("latin-1").split("?", 1)[0] or request.url.path
    if path in ("/", "/editor"):
        return RedirectResponse("/editor/", status_code=302)
    file = _page_file(path)
    if file is None:
        raise ApiError("NOT_FOUND", f"no such page: {path[:200]}")
    media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
    if media_type.startswith("text/") or file.suffix == ".js":
        media_type = ("text/javascript" if file.suffix == ".js" else media_type) + "; charset=utf-8"
    data = file.read_bytes()
    if file == EDITOR_PAGE:
        data = data.replace(b"<html ", SERVED_HERE, 1)
    return Response(data, media_type=media_type, headers={"Cache-Control": "no-cache"})


def _page_file(path: str) -> Path | None:
    """The file of the editor's pages that ``path`` names, or None: only files under
    ``WEB/<page>`` (an encoded ``/``, ``\\`` or ``..`` in a part names nothing)."""
    parts = [unquote(part) for part in path.strip("/").split("/")]
    if any("\x00" in part for part in parts):
        raise bad_request("the path holds a NUL, which no file name can have")
    if not parts or parts[0] not in PAGES or any(p in ("", ".", "..") or "/" in p or "\\" in p for p in parts[1:]):
        return None
    root = (WEB / parts[0]).resolve()
    file = root.joinpath(*parts[1:]).resolve()
    if path.endswith("/"):
        file = file / "index.html"
    return file if file.is_relative_to(root) and file.is_file() else None


class LoopbackOnly:
    """Refuses a request whose Host is not loopback (a page of another site that a DNS
    rebinding pointed at this port), in the interface's envelope."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            host = dict(scope["headers"]).get(b"host", b"").decode("latin-1").rsplit(":", 1)[0]
            if host not in LOOPBACK:
                message = "only loopback addresses may reach this editor"
                await error_response(Request(scope, receive), "FORBIDDEN", message)(scope, receive, send)
                return
        await self.app(scope, receive, send)


def local_app(editor: LocalEditor) -> Starlette:
    """The /v1 operations the editor uses, on ``editor``'s file, and the editor's pages."""
    interface = [
        Route("/templates", listing, methods=["GET"]),
        Route("/templates/preview", preview, methods=["POST"]),
        Route("/templates/createImage", create_image, methods=["POST"]),
        Route("/templates/createPdf", create_pdf, methods=["POST"]),
        Route("/templates/{template_id}", details, methods=["GET"]),
        Route("/templates/{template_id}", update, methods=["PUT"]),
        Route("/templates/{template_id}/source", source, methods=["GET"]),
        Route("/templates/{template_id}/versions", versions, methods=["GET"]),
        Route("/templates/{template_id}/revert", revert, methods=["POST"]),
        Route("/fonts", fonts, methods=["GET"]),
        Route("/assets", upload_asset, methods=["POST"]),
        Route("/openapi.json", openapi, methods=["GET"]),
    ]
    app = Starlette(
        routes=[Mount("/v1", routes=interface), Route("/{path:path}", page_file, methods=["GET"])],
        middleware=[
            Middleware(RequestIds),
            Middleware(PageHeaders, settings=editor.settings, everywhere=True),
            Middleware(LoopbackOnly),
        ],
        exception_handlers=error_handlers(),
    )
    app.state.server = editor
    return app


def page_address(root: str, editor: LocalEditor) -> str:
    """The editor's address, with the key the page calls /v1 with."""
    return f"{root}/editor/#key={editor.key}&template={quote(editor.edited.template_id, safe='')}"


@contextmanager
def opened_in_browser(page: str) -> Iterator[Path]:
    """The browser opened on a file that sends it to ``page``, kept while the editor
    runs. The key in ``page`` stays out of the browser's command line (which every user
    of the machine can read in /proc), in a file only this user can read: mode 0600 in a
    folder of mode 0700."""
    with tempfile.TemporaryDirectory(prefix="templatekit-edit-") as folder:
        opener = Path(folder) / "open.html"
        handle = os.open(opener, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(_OPENER.format(page=html.escape(page)))
        webbrowser.open(opener.as_uri())
        yield opener


def run(template: Path, port: int, browser: bool, allow_files: Sequence[Path]) -> int:
    """Serve the editor on ``template`` until stopped (Ctrl-C or SIGTERM)."""
    import uvicorn

    editor = LocalEditor(EditedFile.open(template), secrets.token_urlsafe(24), AssetLoader(allow_files=allow_files))
    listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    listening.bind(("127.0.0.1", port))
    listening.listen(128)  # connections wait from now on, not refused while uvicorn starts
    page = page_address(f"http://127.0.0.1:{listening.getsockname()[1]}", editor)
    print(f"editing {template} at {page}", flush=True)
    folders = ", ".join(map(str, editor.folders))
    print(f"images and fonts are read from {folders} only (--allow-files DIR adds a folder)", flush=True)
    print("saving writes the file; press Ctrl-C to stop", flush=True)
    logging.getLogger("templatekit.server").setLevel(logging.ERROR)  # each refused request is the page's to say
    server = uvicorn.Server(uvicorn.Config(local_app(editor), log_level="warning", access_log=False, lifespan="off"))
    # uvicorn stops gracefully, then raises the signal again: as KeyboardInterrupt, so
    # that the opener's folder is removed on the way out
    signal.signal(signal.SIGTERM, signal.default_int_handler)
    with contextlib.suppress(KeyboardInterrupt), opened_in_browser(page) if browser else contextlib.nullcontext():
        server.run(sockets=[listening])
    return 0
