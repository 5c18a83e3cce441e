"""``templatekit edit FILE.json``: the editor on one template file, with no database
and no server extra. A small HTTP server on loopback serves the editor page and the
few /v1 operations it uses, on the file: its source, saving (atomically, refused when
the file changed on disk meanwhile), the versions saved in this session and reverting
to one, previews, renders of the saved file (PNG, JPEG, WebP, PDF), fonts and the
template format's schema.

Only the page that the command opens can use it: every /v1 call needs the random token
in that page's address (a web page elsewhere cannot read it), and a Host other than
loopback is refused (against DNS rebinding). The browser is opened on a file that only
this user can read and that sends it on to that address, never on the address itself: a
command line is readable by every user of the machine. Images and fonts are read from the
template's folder, and from the folders the user allows, only.
"""

from __future__ import annotations

import hmac
import html
import json
import mimetypes
import os
import secrets
import stat
import tempfile
import threading
import time
import traceback
import webbrowser
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from functools import cache
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, quote, unquote, urlsplit

from attrs import define, evolve, field

from templatekit.assets import AssetLoader
from templatekit.editing.draft import render_draft
from templatekit.errors import TemplateError, TemplatekitError
from templatekit.loading import load_template
from templatekit.model.schema import format_schemas
from templatekit.render import render_image, render_pdf
from templatekit.text.fonts import FontBook
from templatekit.web import WEB, page_headers

Json = Any
#: The id the page uses for a file whose template has none.
FILE_ID = "file"
MAX_BODY = 50_000_000
PAGES = ("editor", "common")
EDITOR_PAGE = WEB / "editor" / "index.html"
#: What the editor's page carries when this server serves it: it then connects with the
#: token in its address at once (see main.js).
SERVED_HERE = b"<html data-templatekit-edit "
HEADERS = page_headers()
_OPENER = """<!doctype html>
<meta charset="utf-8">
<meta name="referrer" content="no-referrer">
<meta http-equiv="refresh" content="0; url={page}">
<title>templatekit editor</title>
<p><a href="{page}">Open the editor</a></p>
"""


class Refused(Exception):
    """An answer in the interface's error envelope."""

    def __init__(self, status: HTTPStatus, code: str, message: str, problems: list[str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.problems = status, code, message, problems or []


@define
class Version:
    number: int
    text: str
    created: float
    note: str

    def listed(self) -> dict[str, Any]:
        created = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(self.created))
        return {"version": self.number, "createdAt": created, "note": self.note}


def blank_template(path: Path) -> dict[str, Any]:
    return {"name": path.stem or "Untitled", "width": 1200, "height": 630, "background": "#ffffff", "layers": []}


def _as_text(template: Json) -> str:
    return json.dumps(template, indent=2, ensure_ascii=False) + "\n"


@define
class EditedFile:
    """The template file and the versions saved to it in this session (the first is
    the file as opened). What is on disk is compared with what was last read or written
    before every save, so that a change made meanwhile by another program is never
    overwritten: it becomes a version of its own when the page reloads."""

    path: Path
    versions: list[Version] = field(factory=list)
    disk_text: str | None = None  # None: the file does not exist yet
    lock: threading.Lock = field(factory=threading.Lock)
    #: the id the page calls the template by: the file's id when opened (FILE_ID without
    #: one), kept for the session even when an edit changes the file's ``id``
    template_id: str = FILE_ID

    @classmethod
    def open(cls, path: Path) -> EditedFile:
        edited = cls(path)
        if path.exists():
            text = path.read_text(encoding="utf-8")
            try:
                json.loads(text)
            except ValueError as exc:
                raise TemplateError([f"not JSON ({exc}); fix or move it first"], source=str(path)) from None
            edited.disk_text = text
            edited.versions.append(Version(1, text, time.time(), "as opened"))
        else:
            edited.versions.append(Version(1, _as_text(blank_template(path)), time.time(), "new file"))
        found = json.loads(edited.current.text)
        given = found.get("id") if isinstance(found, dict) else None
        edited.template_id = given if isinstance(given, str) and given else FILE_ID
        return edited

    @property
    def current(self) -> Version:
        return self.versions[-1]

    def _on_disk(self) -> str | None:
        return self.path.read_text(encoding="utf-8") if self.path.exists() else None

    def read(self) -> Version:
        """The current version; a change made on disk by another program becomes one."""
        with self.lock:
            disk = self._on_disk()
            if disk is not None and disk != self.disk_text:
                self.disk_text = disk
                self._add(disk, "changed on disk")
            return self.current

    def save(self, template: dict[str, Any], expected: int | None, note: str = "") -> Version:
        _check(template)
        with self.lock:
            if self._on_disk() != self.disk_text:
                raise Refused(
                    HTTPStatus.CONFLICT,
                    "CONFLICT",
                    f"{self.path.name} changed on disk; reload to edit its new contents",
                )
            if expected is not None and expected != self.current.number:
                raise Refused(
                    HTTPStatus.CONFLICT,
                    "CONFLICT",
                    f"version {expected} is not the current version ({self.current.number}); reload to see the changes",
                )
            text = _as_text(template)
            _write_atomically(self.path, text)
            self.disk_text = text
            return self._add(text, note)

    def _add(self, text: str, note: str) -> Version:
        version = Version(self.current.number + 1, text, time.time(), note)
        self.versions.append(version)
        return version

    def version(self, number: int) -> Version:
        found = next((v for v in self.versions if v.number == number), None)
        if found is None:
            raise Refused(HTTPStatus.NOT_FOUND, "NOT_FOUND", f"version {number} does not exist")
        return found


def _check(template: dict[str, Any]) -> None:
    """BAD_REQUEST naming every problem: an invalid template is never written."""
    try:
        load_template(template)
    except TemplateError as exc:
        raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", "; ".join(exc.problems), exc.problems) from None


def _write_atomically(path: Path, text: str) -> None:
    """The whole new text or the old file, never half of one (a crash, a full disk). A
    symbolic link stays one (its target is written) and the file keeps its permissions."""
    target = path.resolve()
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(text)
            out.flush()
            os.fsync(out.fileno())
        mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else 0o666 & ~_umask()
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def _umask() -> int:
    current = os.umask(0)
    os.umask(current)
    return current


class EditorServer(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(
        self, edited: EditedFile, port: int = 0, token: str | None = None, allow_files: Sequence[Path] = ()
    ) -> None:
        self.edited = edited
        self.token = token or secrets.token_urlsafe(24)
        #: reads images and fonts in the file's folder and in ``allow_files`` only
        self.assets = AssetLoader(allow_files=allow_files)
        super().__init__(("127.0.0.1", port), _Handler)

    @property
    def folders(self) -> tuple[Path, ...]:
        """Where images and fonts are read from: the file's folder and those allowed."""
        return (self.edited.path.resolve().parent, *(self.assets.local_files.folders or ()))

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}"

    @property
    def page(self) -> str:
        """The editor's address, with the token the page calls the server with."""
        return f"{self.root}/editor/#key={self.token}&template={quote(self.edited.template_id, safe='')}"


class _Handler(BaseHTTPRequestHandler):
    server: EditorServer
    protocol_version = "HTTP/1.1"
    # headers and body go out as two writes: without this, the body waits for the
    # client's delayed acknowledgement of the headers (40 ms on Linux)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
        """Quiet: the command prints its address, not every request."""

    def do_GET(self) -> None:  # noqa: N802 - the base class's name
        self._answer("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._answer("POST")

    def do_PUT(self) -> None:  # noqa: N802
        self._answer("PUT")

    def _answer(self, method: str) -> None:
        try:
            self._check_host()
            path = urlsplit(self.path).path
            if path.startswith("/v1/"):
                self._authorised()
                self._api(method, path.removeprefix("/v1"))
            elif method == "GET":
                self._static(path)
            else:
                raise Refused(HTTPStatus.METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED", f"{method} is not allowed on {path}")
        except Refused as refused:
            self._error(refused)
        except TemplatekitError as exc:
            problems = exc.problems if isinstance(exc, TemplateError) else []
            self._error(Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", str(exc), problems))
        except Exception as exc:  # answered, so that the page can say it; the traceback goes to stderr
            traceback.print_exc()
            self._error(Refused(HTTPStatus.INTERNAL_SERVER_ERROR, "INTERNAL_SERVER_ERROR", f"unexpected error: {exc}"))

    def _check_host(self) -> None:
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0]
        if host not in ("127.0.0.1", "localhost"):
            raise Refused(HTTPStatus.FORBIDDEN, "FORBIDDEN", "only loopback addresses may reach this editor")

    def _authorised(self) -> None:
        given = (self.headers.get("Authorization") or "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(given.encode(), self.server.token.encode()):
            raise Refused(HTTPStatus.UNAUTHORIZED, "UNAUTHORIZED", "open the address templatekit edit printed")

    def _api(self, method: str, path: str) -> None:
        edited = self.server.edited
        routes: dict[tuple[str, str], Callable[[], None]] = {
            ("GET", "/templates"): lambda: self._json(_listing(edited)),
            ("GET", "/fonts"): lambda: self._json(FontBook.bundled().families()),
            ("GET", "/openapi.json"): lambda: self._json({"openapi": "3.1.0", "components": {"schemas": _schemas()}}),
            ("POST", "/templates/preview"): self._preview,
            ("POST", "/templates/createImage"): lambda: self._render("image"),
            ("POST", "/templates/createPdf"): lambda: self._render("pdf"),
        }
        if (method, path) in routes:
            routes[method, path]()
            return
        parts = path.strip("/").split("/")
        if len(parts) in (2, 3) and parts[0] == "templates" and unquote(parts[1]) == edited.template_id:
            action = parts[2] if len(parts) == 3 else ""
            handler = {
                ("GET", "source"): self._source,
                ("GET", "versions"): lambda: self._json(_versions(edited)),
                ("PUT", ""): self._save,
                ("POST", "revert"): self._revert,
                ("GET", ""): lambda: self._json({"id": edited.template_id, **_summary(edited)}),
            }.get((method, action))
            if handler is not None:
                handler()
                return
        raise Refused(HTTPStatus.NOT_FOUND, "NOT_FOUND", f"no such endpoint: {method} /v1{path}")

    def _source(self) -> None:
        asked = parse_qs(urlsplit(self.path).query).get("version", [""])[0]
        edited = self.server.edited
        version = edited.version(int(asked)) if asked.isdigit() else edited.read()
        self._send(HTTPStatus.OK, version.text.encode(), "application/json", {"ETag": f'"{version.number}"'})

    def _save(self) -> None:
        body = self._body()
        if not isinstance(body, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", "request body: must be a template object")
        edited = self.server.edited
        if edited.template_id == FILE_ID and body.get("id") == FILE_ID:
            body = {key: value for key, value in body.items() if key != "id"}
        expected = (self.headers.get("If-Match") or "").strip().strip('"')
        saved = edited.save(body, int(expected) if expected.isdigit() else None)
        self._json({"id": edited.template_id, "version": saved.number})

    def _revert(self) -> None:
        body = self._body()
        number = body.get("version") if isinstance(body, dict) else None
        if isinstance(number, bool) or not isinstance(number, int):
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", f"version: must be a version number (got {number!r})")
        edited = self.server.edited
        saved = edited.save(json.loads(edited.version(number).text), None, f"reverted to version {number}")
        self._json({"id": edited.template_id, "version": saved.number})

    def _preview(self) -> None:
        body = self._body()
        if not isinstance(body, dict) or not isinstance(body.get("template"), dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", "template: must be a template object")
        drawn = render_draft(
            body["template"],
            body.get("modifications"),
            format=str(body.get("format") or "png"),
            thumbnail=body.get("thumbnail") is True,
            scale=_number(body, "scale") or 1.0,
            time=_number(body, "time"),
            base_dir=self.server.edited.path.parent,
            assets=self.server.assets,
        )
        headers = {}
        if drawn.result.warnings:
            headers["X-Templatekit-Warnings"] = json.dumps(list(drawn.result.warnings))
        if drawn.scans:
            headers["X-Templatekit-Scans"] = json.dumps([scan.as_json() for scan in drawn.scans])
        self._send(HTTPStatus.OK, drawn.result.data, drawn.result.media_type, headers)

    def _render(self, output: str) -> None:
        """The saved file rendered with the body's modifications (the editor's "Try it")."""
        body = self._body()
        if not isinstance(body, dict):
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", "request body: must be a JSON object")
        edited = self.server.edited
        saved = evolve(load_template(json.loads(edited.read().text)), base_dir=edited.path.parent)
        modifications, assets = body.get("modifications"), self.server.assets
        if output == "pdf":
            result = render_pdf(saved, modifications, assets=assets)
        else:
            result = render_image(saved, modifications, format=str(body.get("format") or "png"), assets=assets)
        headers = {"X-Templatekit-Warnings": json.dumps(list(result.warnings))} if result.warnings else {}
        self._send(HTTPStatus.OK, result.data, result.media_type, headers)

    def _body(self) -> Json:
        length = int(self.headers.get("Content-Length") or 0)
        if length > MAX_BODY:
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", f"request body: at most {MAX_BODY:,} bytes")
        try:
            return json.loads(self.rfile.read(length) or b"null")
        except ValueError as exc:
            raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", f"request body: not JSON ({exc})") from None

    def _static(self, path: str) -> None:
        if path in ("/", "/editor"):
            self._send(HTTPStatus.FOUND, b"", "text/plain", {"Location": "/editor/"})
            return
        file = _page_file(path)
        if file is None:
            raise Refused(HTTPStatus.NOT_FOUND, "NOT_FOUND", f"no such page: {path}")
        media_type = mimetypes.guess_type(file.name)[0] or "application/octet-stream"
        if media_type.startswith("text/") or file.suffix == ".js":
            media_type = ("text/javascript" if file.suffix == ".js" else media_type) + "; charset=utf-8"
        data = file.read_bytes()
        if file == EDITOR_PAGE:
            data = data.replace(b"<html ", SERVED_HERE, 1)
        self._send(HTTPStatus.OK, data, media_type, {"Cache-Control": "no-cache"})

    def _json(self, value: Json) -> None:
        self._send(HTTPStatus.OK, json.dumps(value).encode(), "application/json")

    def _error(self, refused: Refused) -> None:
        error: dict[str, Any] = {"code": refused.code, "message": refused.message}
        if refused.problems:
            error["problems"] = refused.problems
        self._send(refused.status, json.dumps({"error": error}).encode(), "application/json")

    def _send(self, status: HTTPStatus, data: bytes, media_type: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        self.send_header("Content-Type", media_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (HEADERS | (headers or {})).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)


def _page_file(path: str) -> Path | None:
    """The file of the editor's pages that ``path`` names, or None: only files under
    ``WEB/<page>`` (an encoded ``/``, ``\\`` or ``..`` in a part names nothing)."""
    parts = [unquote(part) for part in path.strip("/").split("/")]
    if any("\x00" in part for part in parts):
        raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", "the path holds a NUL, which no file name can have")
    if not parts or parts[0] not in PAGES or any(p in ("", ".", "..") or "/" in p or "\\" in p for p in parts[1:]):
        return None
    root = (WEB / parts[0]).resolve()
    file = root.joinpath(*parts[1:]).resolve()
    if path.endswith("/"):
        file = file / "index.html"
    return file if file.is_relative_to(root) and file.is_file() else None


@contextmanager
def opened_in_browser(page: str) -> Iterator[Path]:
    """The browser opened on a file that sends it to ``page``, kept while the editor
    runs. The token in ``page`` stays out of the browser's command line (which every user
    of the machine can read in /proc), in a file only this user can read: mode 0600 in a
    folder of mode 0700."""
    with tempfile.TemporaryDirectory(prefix="templatekit-edit-") as folder:
        opener = Path(folder) / "open.html"
        handle = os.open(opener, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(handle, "w", encoding="utf-8") as out:
            out.write(_OPENER.format(page=html.escape(page)))
        webbrowser.open(opener.as_uri())
        yield opener


def _number(body: dict[str, Any], name: str) -> float | None:
    value = body.get(name)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise Refused(HTTPStatus.BAD_REQUEST, "BAD_REQUEST", f"{name}: must be a number (got {value!r:.40})")
    return float(value)


def _summary(edited: EditedFile) -> dict[str, Any]:
    found = json.loads(edited.current.text)
    template = found if isinstance(found, dict) else {}
    kind = "video" if template.get("video") else "image"
    return {key: template.get(key) for key in ("name", "width", "height")} | {"kind": kind}


def _versions(edited: EditedFile) -> list[dict[str, Any]]:
    edited.read()  # a change made on disk is listed too
    return [version.listed() for version in reversed(edited.versions)]


def _listing(edited: EditedFile) -> list[dict[str, Any]]:
    edited.read()
    return [{"id": edited.template_id, **_summary(edited)}]


@cache
def _schemas() -> Json:
    return format_schemas()
