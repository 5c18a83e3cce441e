"""The asset loader against a real HTTP server on 127.0.0.1: address policy, redirects,
deadline and size limits, decoding of every accepted format, and SVG safety."""

from __future__ import annotations

import base64
import gzip
import hashlib
import io
import ipaddress
import json
import os
import shutil
import socket
import ssl
import struct
import subprocess
import sys
import threading
import time
import zlib
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest
from PIL import Image

import templatekit as tk
from templatekit.assets import ALLOW_ENV, AssetLoader, MemoryAssetLoader, address_refusal
from templatekit.assets.files import NOT_HERE
from templatekit.errors import AssetError
from tests.conftest import template

pytestmark = pytest.mark.network

RED, BLUE = (255, 0, 0), (0, 0, 255)

Route = Callable[[BaseHTTPRequestHandler], None]


# ------------------------------------------------------------------ test files


def encode(image: Image.Image, fmt: str, **options) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, fmt, **options)
    return buffer.getvalue()


def halves(size: tuple[int, int] = (40, 20), mode: str = "RGB") -> Image.Image:
    """Red on the left half, blue on the right."""
    image = Image.new(mode, size, RED)
    image.paste(Image.new(mode, (size[0] // 2, size[1]), BLUE), (size[0] // 2, 0))
    return image


def png_header_only(width: int, height: int) -> bytes:
    """A PNG that declares its size but holds no pixel data."""

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IEND", b"")


SVG_NS = 'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink"'


def svg(body: str, attributes: str = 'viewBox="0 0 20 10"') -> bytes:
    return f"<svg {SVG_NS} {attributes}>{body}</svg>".encode()


GOOD_SVG = svg('<rect width="10" height="10" fill="red"/><rect x="10" width="10" height="10" fill="blue"/>')


@pytest.fixture(scope="module")
def files() -> dict[str, bytes]:
    rotated = halves()
    exif = Image.Exif()
    exif[0x0112] = 6  # stored sideways: display needs a 90° clockwise turn
    two_frames = [Image.new("P", (8, 8), 1), Image.new("P", (8, 8), 2)]
    for frame in two_frames:
        frame.putpalette([0, 0, 0, *RED, *BLUE] + [0] * 759)
    transparent = Image.new("RGBA", (10, 10), (0, 0, 0, 0))
    transparent.paste((*BLUE, 255), (0, 0, 5, 10))
    return {
        "/a.png": encode(halves(), "PNG"),
        "/a.jpg": encode(halves(), "JPEG", quality=95),
        "/a.webp": encode(transparent, "WEBP", lossless=True),
        "/a.gif": encode(two_frames[0], "GIF", save_all=True, append_images=two_frames[1:]),
        "/a.svg": GOOD_SVG,
        "/a.bmp": encode(halves(), "BMP"),
        "/rotated.jpg": encode(rotated, "JPEG", quality=95, exif=exif),
        "/huge.png": encode(Image.new("1", (8000, 7000), 1), "PNG"),
        "/huge-header.png": png_header_only(8000, 7000),
        "/garbage": bytes(range(256)) * 8,
    }


# ------------------------------------------------------------------ the server


class Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, routes: dict[str, Route]) -> None:
        super().__init__(("127.0.0.1", 0), Handler)
        self.routes = routes
        self.seen: list[tuple[str, str | None]] = []

    @property
    def port(self) -> int:
        return self.server_address[1]

    def url(self, path: str, host: str = "127.0.0.1") -> str:
        return f"http://{host}:{self.port}{path}"

    def paths(self) -> list[str]:
        return [path for path, _ in self.seen]

    def handle_error(self, request, client_address) -> None:
        """Clients that give up early (deadline, size limit) break pipes; that is expected."""


class Handler(BaseHTTPRequestHandler):
    server: Server

    def do_GET(self) -> None:
        self.server.seen.append((self.path, self.headers.get("Host")))
        route = self.server.routes.get(self.path.partition("?")[0])
        if route is None:
            send(self, b"not found", status=404)
        else:
            route(self)

    def log_message(self, format: str, *args) -> None:
        pass


def send(handler: BaseHTTPRequestHandler, body: bytes, status: int = 200) -> None:
    handler.send_response(status)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def redirect(location: str | Callable[[], str], delay: float = 0.0) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        time.sleep(delay)
        handler.send_response(302)
        handler.send_header("Location", location() if callable(location) else location)
        handler.send_header("Content-Length", "0")
        handler.end_headers()

    return route


def drip(handler: BaseHTTPRequestHandler) -> None:
    """A byte every 0.1 s: each read is quick, the whole download is not."""
    handler.send_response(200)
    handler.send_header("Content-Length", "30")
    handler.end_headers()
    for _ in range(30):
        handler.wfile.write(b"x")
        handler.wfile.flush()
        time.sleep(0.1)


def unsized(size: int) -> Route:
    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.end_headers()
        for _ in range(size // 65536):
            handler.wfile.write(b"\0" * 65536)

    return route


def lying(declared: int, sent: bytes) -> Route:
    """A Content-Length that is not the length of the body."""

    def route(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Length", str(declared))
        handler.end_headers()
        handler.wfile.write(sent)
        handler.close_connection = True

    return route


def gzip_bomb(handler: BaseHTTPRequestHandler) -> None:
    """50 KB that a client which decompresses would turn into 50 MB."""
    body = gzip.compress(b"\0" * 50_000_000, compresslevel=9)
    handler.send_response(200)
    handler.send_header("Content-Encoding", "gzip")
    handler.send_header("Content-Type", "image/png")
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.fixture(scope="module")
def running(files: dict[str, bytes]) -> Iterator[Server]:
    routes: dict[str, Route] = {path: (lambda h, body=body: send(h, body)) for path, body in files.items()}
    server = Server(routes)
    routes.update(
        {
            **{f"/hop/{n}": redirect(f"/hop/{n - 1}" if n > 1 else "/a.png") for n in range(1, 6)},
            **{f"/slow-hop/{n}": redirect(f"/slow-hop/{n - 1}", delay=0.3) for n in range(1, 4)},
            "/to-private": redirect("http://10.0.0.1/a.png"),
            "/to-file": redirect("file:///etc/passwd"),
            "/to-v6-loopback": redirect(lambda: f"http://[::1]:{server.port}/a.png"),
            "/no-location": lambda h: send(h, b"", status=302),
            "/slow": drip,
            "/big": lambda h: send(h, b"\0" * 2_000_000),
            "/big-unsized": unsized(2_000_000),
            "/host": lambda h: send(h, files["/a.png"]),
            "/lying-long": lying(declared=2_000_000, sent=files["/a.jpg"][:100]),
            "/lying-short": lying(declared=100, sent=files["/a.jpg"]),
            "/gzip-bomb": gzip_bomb,
        }
    )
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


@pytest.fixture
def server(running: Server) -> Server:
    running.seen.clear()
    return running


@pytest.fixture
def loader() -> AssetLoader:
    return AssetLoader(allow=["127.0.0.1"])


@pytest.fixture
def strict(monkeypatch: pytest.MonkeyPatch) -> AssetLoader:
    """The default policy, whatever the environment of the test run."""
    monkeypatch.delenv(ALLOW_ENV, raising=False)
    return AssetLoader()


def refused(call: Callable[[], object]) -> str:
    with pytest.raises(AssetError) as caught:
        call()
    return str(caught.value)


# ------------------------------------------------------------------ address policy


@pytest.mark.parametrize(
    ("host", "reason"),
    [
        ("127.0.0.1", "127.0.0.1 is a loopback address"),
        ("localhost", "is a loopback address"),
        ("2130706433", "127.0.0.1 is a loopback address"),
        ("0177.0.0.1", "127.0.0.1 is a loopback address"),
        ("0x7f.0.0.1", "127.0.0.1 is a loopback address"),
        ("127.1", "127.0.0.1 is a loopback address"),
        ("0", "0.0.0.0 is an unspecified address"),
        ("012.1.2.3", "10.1.2.3 is a private address"),
        ("[::1]", "::1 is a loopback address"),
        ("0.0.0.0", "0.0.0.0 is an unspecified address"),
        ("10.1.2.3", "10.1.2.3 is a private address"),
        ("192.168.1.1", "is a private address"),
        ("169.254.169.254", "169.254.169.254 is a link-local address"),
        ("100.64.0.1", "100.64.0.1 is a shared (CGNAT) address"),
        ("224.0.0.1", "is a multicast address"),
        ("240.0.0.1", "is a reserved address"),
        ("[fe80::1]", "is a link-local address"),
        ("[fc00::1]", "is a private address"),
        ("[::ffff:127.0.0.1]", "is a loopback address (127.0.0.1 inside)"),
        ("[64:ff9b::a00:1]", "is a private address (10.0.0.1 inside)"),
        ("[2002:a9fe:a9fe::]", "is a link-local address (169.254.169.254 inside)"),
    ],
)
def test_default_loader_refuses_non_global_addresses_without_connecting(
    strict: AssetLoader, server: Server, host: str, reason: str
) -> None:
    url = server.url("/a.png", host)
    message = refused(lambda: strict.fetch(url))
    assert message.startswith(f"cannot fetch {url}: ")
    assert reason in message
    assert f"allow it with {ALLOW_ENV}" in message
    assert server.seen == []


@pytest.mark.parametrize("address", ["8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::808:808"])
def test_global_addresses_pass_the_policy(address: str) -> None:
    assert address_refusal(ipaddress.ip_address(address)) is None


def test_allow_list_by_address(loader: AssetLoader, server: Server, files: dict[str, bytes]) -> None:
    assert loader.fetch(server.url("/a.png")) == files["/a.png"]
    assert server.paths() == ["/a.png"]


def test_allow_list_by_network_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, server: Server, files: dict[str, bytes]
) -> None:
    monkeypatch.setenv(ALLOW_ENV, " 10.0.0.0/8 , 127.0.0.0/8 ")
    assert AssetLoader().fetch(server.url("/a.png")) == files["/a.png"]


def test_allow_list_by_host_name_sends_the_real_host_header(server: Server) -> None:
    AssetLoader(allow=["localhost"]).fetch(server.url("/host", "localhost"))
    assert server.seen == [("/host", f"localhost:{server.port}")]


def test_a_host_name_on_the_allow_list_does_not_cover_its_address(server: Server) -> None:
    message = refused(lambda: AssetLoader(allow=["localhost"]).fetch(server.url("/a.png")))
    assert "loopback" in message
    assert server.seen == []


def test_credentials_and_query_stay_out_of_messages(strict: AssetLoader) -> None:
    url = "http://alice:s3cret@10.0.0.1/a.png?token=abc"
    with pytest.raises(AssetError) as caught:
        strict.fetch(url)
    message = str(caught.value)
    assert "s3cret" not in message and "abc" not in message and "alice" not in message
    assert message.startswith("cannot fetch http://10.0.0.1/a.png?…: 10.0.0.1 is a private address")
    assert caught.value.url == url


# ------------------------------------------------------------------ redirects


def test_redirects_up_to_the_limit_are_followed(loader: AssetLoader, server: Server, files) -> None:
    assert loader.fetch(server.url("/hop/3")) == files["/a.png"]
    assert server.paths() == ["/hop/3", "/hop/2", "/hop/1", "/a.png"]


def test_too_many_redirects(loader: AssetLoader, server: Server) -> None:
    message = refused(lambda: loader.fetch(server.url("/hop/4")))
    assert message.endswith("more than 3 redirects")
    assert server.paths() == ["/hop/4", "/hop/3", "/hop/2", "/hop/1"]


def test_max_redirects_is_configurable(server: Server) -> None:
    message = refused(lambda: AssetLoader(allow=["127.0.0.1"], max_redirects=0).fetch(server.url("/hop/1")))
    assert message.endswith("more than 0 redirects")


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/to-private", "redirected to http://10.0.0.1/a.png: 10.0.0.1 is a private address"),
        ("/to-v6-loopback", "::1 is a loopback address"),
        ("/to-file", "redirected to file:///etc/passwd: the file scheme is not allowed"),
        ("/no-location", "HTTP 302 redirect without a Location header"),
    ],
)
def test_every_redirect_hop_is_checked(loader: AssetLoader, server: Server, path: str, reason: str) -> None:
    message = refused(lambda: loader.fetch(server.url(path)))
    assert message.startswith(f"cannot fetch {server.url(path)}: ")
    assert reason in message
    assert server.paths() == [path]


# ------------------------------------------------------------------ time and size limits


def test_one_deadline_for_a_slow_body(server: Server) -> None:
    started = time.monotonic()
    message = refused(lambda: AssetLoader(allow=["127.0.0.1"], timeout=0.5).fetch(server.url("/slow")))
    assert "timed out after 0.5 s" in message
    assert time.monotonic() - started < 1.5


def test_one_deadline_across_redirects(server: Server) -> None:
    started = time.monotonic()
    message = refused(lambda: AssetLoader(allow=["127.0.0.1"], timeout=0.5).fetch(server.url("/slow-hop/3")))
    assert "timed out after 0.5 s" in message
    assert time.monotonic() - started < 1.5


def test_content_length_over_the_limit_is_refused(server: Server) -> None:
    message = refused(lambda: AssetLoader(allow=["127.0.0.1"], max_bytes=1_000_000).fetch(server.url("/big")))
    assert "the response is 2,000,000 bytes, more than the 1,000,000 byte limit" in message


def test_reading_stops_at_the_limit_without_content_length(server: Server) -> None:
    message = refused(lambda: AssetLoader(allow=["127.0.0.1"], max_bytes=1_000_000).fetch(server.url("/big-unsized")))
    assert "more than the 1,000,000 byte limit" in message


def test_a_body_shorter_than_its_content_length_is_an_error(loader: AssetLoader, server: Server) -> None:
    message = refused(lambda: loader.load_image(server.url("/lying-long")))
    assert "the response ended after 100 of its 2,000,000 bytes" in message


def test_a_body_longer_than_its_content_length_is_cut_there(loader: AssetLoader, server: Server) -> None:
    assert len(loader.fetch(server.url("/lying-short"))) == 100
    assert "cannot decode" in refused(lambda: loader.load_image(server.url("/lying-short")))


def test_compressed_bodies_are_never_inflated(loader: AssetLoader, server: Server) -> None:
    data = loader.fetch(server.url("/gzip-bomb"))
    assert len(data) < 100_000  # the bytes as sent, not 50 MB
    assert "not a PNG, JPEG, WebP, GIF or SVG image" in refused(lambda: loader.load_image(server.url("/gzip-bomb")))


def test_http_errors_are_reported(loader: AssetLoader, server: Server) -> None:
    message = refused(lambda: loader.fetch(server.url("/missing.png")))
    assert message == f"cannot fetch {server.url('/missing.png')}: the server answered HTTP 404 Not Found"
    long = server.url("/" + "a" * 4000 + "/photo.png")  # cut in its middle, the reason kept
    message = refused(lambda: loader.fetch(long))
    assert message == f"cannot fetch {long[:159]}…{long[-40:]}: the server answered HTTP 404 Not Found"


def test_an_image_that_cannot_be_downloaded_is_asked_for_once_per_render(loader: AssetLoader, server: Server) -> None:
    """Its size is read before its pixels (the memory budget, "hug"): a failure then is
    the render's, not a reason to wait for it a second time."""
    photo = {
        "type": "image",
        "name": "photo",
        "x": 0,
        "y": 0,
        "width": 40,
        "height": 20,
        "src": server.url("/missing.png"),
    }
    hugging = {"type": "frame", "name": "row", "x": 0, "y": 0, "width": "hug", "height": "hug", "layout": "row",
               "layers": [{**photo, "name": "hugged", "width": "hug", "height": "hug"}]}  # fmt: skip
    for layer, name in ((photo, "photo"), (hugging, "hugged")):
        server.seen.clear()
        with pytest.raises(tk.AssetError, match=f"layer '{name}': cannot fetch .*HTTP 404 Not Found"):
            tk.render_image(template(layer, width=40, height=20), assets=loader)
        assert server.paths() == ["/missing.png"]


def test_remote_bytes_are_cached(loader: AssetLoader, server: Server) -> None:
    first = loader.fetch(server.url("/a.png"))
    assert loader.fetch(server.url("/a.png")) is first
    assert server.paths() == ["/a.png"]


@pytest.fixture(scope="module")
def self_signed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    if shutil.which("openssl") is None:
        pytest.skip("needs the openssl command")
    folder = tmp_path_factory.mktemp("tls")
    cert, key = folder / "cert.pem", folder / "key.pem"
    command = "openssl req -x509 -nodes -days 1 -subj /CN=localhost -newkey ec -pkeyopt ec_paramgen_curve:P-256"
    subprocess.run([*command.split(), "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return cert, key


def test_https_certificates_are_verified(self_signed: tuple[Path, Path], files) -> None:
    server = Server({"/a.png": lambda h: send(h, files["/a.png"])})
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(*self_signed)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        url = f"https://localhost:{server.port}/a.png"
        message = refused(lambda: AssetLoader(allow=["localhost"]).fetch(url))
        assert message.startswith(f"cannot fetch {url}: the TLS certificate is not valid for localhost")
        assert server.seen == []
    finally:
        server.shutdown()
        server.server_close()


# ------------------------------------------------------------------ schemes, data URIs, files


def test_data_uris_base64_and_percent_encoded() -> None:
    loader = AssetLoader(allow_files=False)
    payload = bytes(range(256))
    encoded = base64.b64encode(payload).decode()
    assert loader.fetch(f"data:application/octet-stream;base64,{encoded}") == payload
    assert loader.fetch("data:image/svg+xml," + quote(GOOD_SVG.decode())) == GOOD_SVG
    assert loader.fetch("data:;BASE64,aGVsbG8") == b"hello"


@pytest.mark.parametrize(
    ("src", "reason"),
    [
        ("data:;base64,a$$b", "the data URI is not valid base64"),
        ("data:image/png;base64", "a data URI needs a comma"),
        ("ftp://example.com/a.png", "the ftp: scheme is not supported"),
        ("javascript:alert(1)", "the javascript: scheme is not supported"),
    ],
)
def test_bad_sources_are_refused(src: str, reason: str) -> None:
    message = refused(lambda: AssetLoader().fetch(src))
    assert reason in message


def test_long_data_uris_are_shortened_in_messages() -> None:
    src = "data:image/png;base64," + "A" * 1000 + "$"
    message = refused(lambda: AssetLoader().fetch(src))
    assert message == f"cannot fetch {src[:40]}…: the data URI is not valid base64"


def test_data_uri_over_the_byte_limit() -> None:
    src = "data:;base64," + base64.b64encode(b"\0" * 2000).decode()
    assert "more than the 1,000 byte limit" in refused(lambda: AssetLoader(max_bytes=1000).fetch(src))


def test_files_relative_to_the_base_dir_and_file_urls(tmp_path: Path, files) -> None:
    (tmp_path / "img").mkdir()
    (tmp_path / "img" / "a.png").write_bytes(files["/a.png"])
    loader = AssetLoader()
    assert loader.fetch("img/a.png", tmp_path) == files["/a.png"]
    assert loader.fetch(str(tmp_path / "img" / "a.png")) == files["/a.png"]
    assert loader.fetch((tmp_path / "img" / "a.png").as_uri()) == files["/a.png"]
    assert "cannot read" in refused(lambda: loader.fetch("img/missing.png", tmp_path))


def _messages_in_a_child(sources: list[str]) -> list[str]:
    """The default loader's message for each of ``sources``, got in a process of its own
    held to 1 GB and 60 s: a read that never ends fails the test, not the machine."""
    script = (
        "import json, resource, sys\n"
        "resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))\n"
        "from templatekit.assets import AssetLoader\n"
        "from templatekit.errors import AssetError\n"
        "messages = []\n"
        "for src in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        AssetLoader().fetch(src)\n"
        "        messages.append('read')\n"
        "    except AssetError as exc:\n"
        "        messages.append(str(exc))\n"
        "print(json.dumps(messages))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script, json.dumps(sources)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return list(json.loads(done.stdout))


def test_devices_fifos_sockets_folders_and_kernel_files_are_refused_unread(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)  # nobody writes to it: opening it to read would wait for ever
    with socket.socket(socket.AF_UNIX) as listening:
        listening.bind(str(tmp_path / "socket"))
        sources = ["/dev/zero", "/dev/urandom", str(fifo), str(tmp_path / "socket"), str(tmp_path)]
        started = time.monotonic()
        messages = _messages_in_a_child([*sources, "/proc/self/environ", "/sys/kernel/uevent_helper"])
    assert time.monotonic() - started < 30
    for src, message in zip(sources, messages, strict=False):
        assert message == f"cannot fetch {src}: it is not a regular file (a folder, a device, a FIFO or a socket)"
    assert [message.partition(": ")[2] for message in messages[-2:]] == ["files of /proc, /sys are not read"] * 2


def test_a_loader_confined_to_folders_reads_nothing_else_and_does_not_say_what_exists(
    tmp_path: Path, files: dict[str, bytes]
) -> None:
    for folder in ("template", "shared", "outside"):
        (tmp_path / folder).mkdir()
    (tmp_path / "template" / "logo.png").write_bytes(files["/a.png"])
    (tmp_path / "shared" / "photo.png").write_bytes(files["/a.png"])
    secret = tmp_path / "outside" / "secret.png"
    secret.write_bytes(files["/a.png"])
    (tmp_path / "template" / "link.png").symlink_to(secret)
    base = tmp_path / "template"
    loader = AssetLoader(allow_files=[tmp_path / "shared"])
    for src in ("logo.png", "../shared/photo.png", str(tmp_path / "shared" / "photo.png")):
        assert loader.fetch(src, base) == files["/a.png"]
    assert loader.raster_size("../shared/photo.png", base) == (40, 20)
    for src in ("../outside/secret.png", str(secret), secret.as_uri(), "link.png", "../outside/missing.png"):
        message = refused(lambda src=src: loader.fetch(src, base))
        assert message == f"cannot fetch {src}: {NOT_HERE}"
        assert loader.raster_size(src, base) is None
    assert refused(lambda: loader.fetch("/etc/hostname", base)).endswith(NOT_HERE)
    assert refused(lambda: loader.fetch("/proc/self/environ", base)).endswith(NOT_HERE)
    only_its_folder = AssetLoader(allow_files=[])
    assert only_its_folder.fetch("logo.png", base) == files["/a.png"]
    assert refused(lambda: only_its_folder.fetch("../shared/photo.png", base)).endswith(NOT_HERE)


@pytest.mark.parametrize("src", ["a\x00b.png", "file:///tmp/a%00b.png", "\ud800.png"])
def test_a_path_no_file_can_have_is_an_asset_error(tmp_path: Path, src: str) -> None:
    for loader in (AssetLoader(), AssetLoader(allow_files=[tmp_path])):
        message = refused(lambda loader=loader: loader.fetch(src, tmp_path))
        assert message.endswith("the path holds a NUL or another character no file name can have")
        assert loader.raster_size(src, tmp_path) is None


def test_files_can_be_forbidden(tmp_path: Path) -> None:
    (tmp_path / "a.png").write_bytes(b"x")
    loader = AssetLoader(allow_files=False)
    for src in ("a.png", str(tmp_path / "a.png"), (tmp_path / "a.png").as_uri()):
        with pytest.raises(AssetError, match="local files are not allowed"):
            loader.fetch(src, tmp_path)


# ------------------------------------------------------------------ decoding rasters


@pytest.mark.parametrize(("path", "fmt"), [("/a.png", "PNG"), ("/a.jpg", "JPEG")])
def test_rasters_decode(loader: AssetLoader, server: Server, path: str, fmt: str, files) -> None:
    loaded = loader.load_image(server.url(path))
    assert (loaded.format, loaded.image.mode, loaded.image.size) == (fmt, "RGB", (40, 20))
    assert loaded.data == files[path]
    assert close(loaded.image.getpixel((5, 10)), RED) and close(loaded.image.getpixel((35, 10)), BLUE)


def test_webp_keeps_its_transparency(loader: AssetLoader, server: Server) -> None:
    loaded = loader.load_image(server.url("/a.webp"))
    assert (loaded.format, loaded.image.mode) == ("WEBP", "RGBA")
    assert loaded.image.getpixel((2, 5)) == (*BLUE, 255)
    assert loaded.image.getpixel((8, 5))[3] == 0


def test_gif_first_frame(loader: AssetLoader, server: Server) -> None:
    loaded = loader.load_image(server.url("/a.gif"))
    assert loaded.format == "GIF" and loaded.image.mode in ("RGB", "RGBA")
    assert loaded.image.getpixel((4, 4))[:3] == RED


def test_exif_orientation_is_applied(loader: AssetLoader, server: Server) -> None:
    image = loader.load_image(server.url("/rotated.jpg")).image
    assert image.size == (20, 40)
    assert close(image.getpixel((10, 5)), RED) and close(image.getpixel((10, 35)), BLUE)


@pytest.mark.parametrize(
    ("image", "fmt", "mode", "pixel"),
    [
        (Image.new("L", (4, 4), 128), "PNG", "RGB", (128, 128, 128)),
        (Image.new("LA", (4, 4), (128, 0)), "PNG", "RGBA", (128, 128, 128, 0)),
        (Image.new("1", (4, 4), 1), "PNG", "RGB", (255, 255, 255)),
        (Image.new("I;16", (4, 4), 32768), "PNG", "RGB", (128, 128, 128)),
        (Image.new("CMYK", (4, 4), (0, 255, 255, 0)), "JPEG", "RGB", RED),
    ],
    ids=["L", "LA", "1", "I;16", "CMYK"],
)
def test_modes_become_rgb_or_rgba(image: Image.Image, fmt: str, mode: str, pixel: tuple[int, ...]) -> None:
    loaded = MemoryAssetLoader({"x": encode(image, fmt)}).load_image("x")
    assert loaded.image.mode == mode
    assert close(loaded.image.getpixel((1, 1)), pixel)


def test_palette_with_transparency_becomes_rgba() -> None:
    image = Image.new("P", (4, 4), 0)
    image.putpalette([*RED, *BLUE] + [0] * 762)
    image.putpixel((0, 0), 1)
    loaded = MemoryAssetLoader({"x": encode(image, "PNG", transparency=1)}).load_image("x")
    assert loaded.image.mode == "RGBA"
    assert loaded.image.getpixel((0, 0))[3] == 0 and loaded.image.getpixel((1, 1)) == (*RED, 255)


@pytest.mark.parametrize("path", ["/huge.png", "/huge-header.png"])
def test_pixel_limit_is_checked_from_the_header(loader: AssetLoader, server: Server, path: str) -> None:
    message = refused(lambda: loader.load_image(server.url(path)))
    reason = "the image is 8000x7000 px, more than the 50 MP limit"
    assert message == f"cannot decode {server.url(path)}: {reason}"


def test_pixel_limit_is_configurable(files) -> None:
    loader = MemoryAssetLoader({"a.png": files["/a.png"]}, max_pixels=100)
    message = refused(lambda: loader.load_image("a.png"))
    assert "the image is 40x20 px, more than the 0.0001 MP limit" in message


@pytest.mark.parametrize("path", ["/garbage", "/a.bmp"])
def test_other_formats_are_refused(loader: AssetLoader, server: Server, path: str) -> None:
    message = refused(lambda: loader.load_image(server.url(path)))
    assert message == f"cannot decode {server.url(path)}: it is not a PNG, JPEG, WebP, GIF or SVG image"


def test_truncated_image(files) -> None:
    cut = files["/a.png"][:-30]
    message = refused(lambda: MemoryAssetLoader({"cut.png": cut}).load_image("cut.png"))
    assert message.startswith("cannot decode cut.png: the PNG data cannot be decoded")


def test_decoded_images_are_cached_by_content(files) -> None:
    loader = MemoryAssetLoader({"a.png": files["/a.png"], "copy.png": files["/a.png"]})
    first = loader.load_image("a.png")
    assert loader.load_image("copy.png") is first
    assert first.key == hashlib.sha256(files["/a.png"]).hexdigest()


def test_memory_loader_refuses_unknown_sources() -> None:
    with pytest.raises(AssetError) as caught:
        MemoryAssetLoader({}).fetch("https://example.com/logo.png")
    assert caught.value.url == "https://example.com/logo.png"
    assert "not among the files of this MemoryAssetLoader" in str(caught.value)


# ------------------------------------------------------------------ SVG


def test_svg_is_drawn_at_twice_the_box_keeping_its_aspect(loader: AssetLoader, server: Server) -> None:
    loaded = loader.load_image(server.url("/a.svg"), size_hint=(100, 100))
    assert (loaded.format, loaded.image.mode, loaded.image.size) == ("SVG", "RGBA", (400, 200))
    assert loaded.image.getpixel((100, 100)) == (*RED, 255)
    assert loaded.image.getpixel((300, 100)) == (*BLUE, 255)
    assert loaded.key.endswith("@400x200")


def test_svg_natural_size_without_a_hint() -> None:
    inches = svg("", 'width="2in" height="1in" viewBox="0 0 2 1"')
    loader = MemoryAssetLoader({"a.svg": GOOD_SVG, "b.svg": inches})
    assert loader.load_image("a.svg").image.size == (20, 10)
    assert loader.load_image("b.svg").image.size == (192, 96)


def test_svg_sizes_are_cached_apart() -> None:
    loader = MemoryAssetLoader({"a.svg": GOOD_SVG})
    small = loader.load_image("a.svg", size_hint=(10, 10))
    large = loader.load_image("a.svg", size_hint=(50, 50))
    assert small.image.size == (40, 20) and large.image.size == (200, 100)
    assert small.key != large.key
    assert loader.load_image("a.svg", size_hint=(10, 10)) is small


def test_svg_text_uses_the_bundled_fonts() -> None:
    text = svg('<text x="2" y="40" font-family="Inter" font-size="40">Hi</text>', 'width="80" height="50"')
    image = MemoryAssetLoader({"t.svg": text}).load_image("t.svg").image
    assert image.getchannel("A").getbbox() is not None


def test_absurd_svg_sizes_do_not_break_the_loader() -> None:
    loader = MemoryAssetLoader({"inf.svg": svg("", 'width="1e400" height="1e300" viewBox="0 0 1e400 1"')})
    with pytest.raises(AssetError, match="cannot decode inf.svg: "):
        loader.load_image("inf.svg", size_hint=(10, 10))


def test_huge_svg_without_a_hint_is_refused() -> None:
    loader = MemoryAssetLoader({"big.svg": svg("", 'width="10000" height="10000"')})
    assert "more than the 50 MP limit" in refused(lambda: loader.load_image("big.svg"))
    assert loader.load_image("big.svg", size_hint=(100, 100)).image.size == (200, 200)


NESTED = "data:image/svg+xml;base64," + base64.b64encode(svg('<image href="/etc/passwd"/>')).decode()


@pytest.mark.parametrize(
    ("document", "reason"),
    [
        (svg("<script>alert(1)</script>"), "the SVG has a <script> element"),
        (svg("", 'onload="alert(1)"'), "the SVG has an event attribute (onload)"),
        (
            svg('<image href="http://127.0.0.1/x.png" width="1" height="1"/>'),
            "external resource (http://127.0.0.1/x.png)",
        ),
        (svg('<image xlink:href="file:///etc/passwd"/>'), "external resource (file:///etc/passwd)"),
        (svg('<use href="other.svg#icon"/>'), "external resource (other.svg#icon)"),
        (
            svg("<rect style=\"fill: url('https://example.com/p.svg#g')\"/>"),
            "external resource (https://example.com",
        ),
        (svg("<style>@import 'https://example.com/a.css';</style>"), "imports a style sheet"),
        (svg(f'<image href="{NESTED}"/>'), "external resource (/etc/passwd)"),
        (b'<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY a "aaaa">]><svg>&a;</svg>', "internal DTD"),
        (b'<svg xmlns="http://www.w3.org/2000/svg"><rect></svg>', "not well-formed XML"),
        (b'<!DOCTYPE svg [<!ATTLIST image href CDATA "/etc/passwd">]><svg><image/></svg>', "internal DTD"),
        (b"<html><svg/></html>", "the document is <html>, not <svg>"),
    ],
)
def test_unsafe_svgs_are_refused(document: bytes, reason: str) -> None:
    message = refused(lambda: MemoryAssetLoader({"x.svg": document}).load_image("x.svg"))
    assert message.startswith("cannot decode x.svg: ")
    assert reason in message


def test_safe_references_are_allowed() -> None:
    red = base64.b64encode(encode(Image.new("RGB", (2, 2), RED), "PNG")).decode()
    document = svg(
        '<defs><linearGradient id="g"><stop stop-color="blue"/></linearGradient></defs>'
        '<rect width="10" height="10" fill="url(#g)"/>'
        f'<image x="10" width="10" height="10" preserveAspectRatio="none" '
        f'href="data:image/png;base64,{red}"/>',
    )
    doctype = (
        b'<?xml version="1.0"?><!DOCTYPE svg PUBLIC "-//W3C//DTD SVG 1.1//EN" '
        b'"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd">'
    )
    image = MemoryAssetLoader({"x.svg": doctype + document}).load_image("x.svg").image
    assert image.getpixel((5, 5)) == (*BLUE, 255)
    assert close(image.getpixel((15, 5)), (*RED, 255))


def close(actual: tuple[int, ...], expected: tuple[int, ...], tolerance: int = 12) -> bool:
    """Channel by channel, within ``tolerance`` (JPEG is lossy); extra channels are ignored."""
    return all(abs(a - e) <= tolerance for a, e in zip(actual[: len(expected)], expected, strict=True))


def test_a_local_file_is_read_once_until_it_changes(tmp_path):
    """A template's font or picture is read once, and the same bytes come back at every
    render (so that caches keyed by them hit at once); a file changed is read again."""
    path = tmp_path / "face.bin"
    path.write_bytes(b"first version")
    loader = AssetLoader()
    first = loader.fetch("face.bin", tmp_path)
    assert loader.fetch("face.bin", tmp_path) is first
    path.write_bytes(b"second, longer version")
    assert loader.fetch("face.bin", tmp_path) == b"second, longer version"
    os.utime(path, ns=(1, 1))  # the same size, another change time
    path.write_bytes(b"second, LONGER version")
    assert loader.fetch("face.bin", tmp_path) == b"second, LONGER version"
