"""The one place that fetches assets: remote images, fonts and clips go through ``AssetLoader``.

Templates come from users, so every ``src`` is untrusted. The loader owns the defences
(HTTP-API.md, "Safety limits") so that no other module ever opens a URL:

- schemes: http, https, data, and local files only when ``allow_files`` is set;
- addresses: a host must resolve to globally routable addresses only, and the connection
  goes to the address that was checked (no second lookup that DNS rebinding could answer
  differently); every redirect hop is checked again; nothing is sent to a refused address;
- one deadline for the whole download, a byte limit, a pixel limit read from the image
  header before decoding, and SVGs without scripts or external references.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import http.client
import io
import ipaddress
import math
import os
import re
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, Literal
from urllib.parse import SplitResult, unquote_to_bytes, urljoin, urlsplit
from urllib.request import url2pathname
from xml.etree.ElementTree import Element, ParseError

import resvg_py
from attrs import field, frozen
from defusedxml import DefusedXmlException, DTDForbidden
from defusedxml.ElementTree import DefusedXMLParser
from PIL import Image as PILImage
from PIL import ImageOps, UnidentifiedImageError

from templatekit.cache import BoundedCache
from templatekit.errors import AssetError

__all__ = ["AssetLoader", "LoadedImage", "MemoryAssetLoader", "address_refusal"]

ALLOW_ENV = "TEMPLATEKIT_FETCH_ALLOW"
FONT_DIR = Path(__file__).resolve().parent / "fonts"

ImageFormat = Literal["PNG", "JPEG", "WEBP", "GIF", "SVG"]
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
SizeHint = tuple[int, int] | None

_RASTER_FORMATS = ("PNG", "JPEG", "WEBP", "GIF")
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_HEADERS = {"User-Agent": "templatekit", "Accept": "*/*"}


@frozen
class LoadedImage:
    """A decoded image (mode RGB or RGBA) and the bytes it came from. ``key`` names its
    content (and, for SVGs, the size it was drawn at) for the caches of later stages."""

    image: PILImage.Image = field(eq=False)
    format: ImageFormat
    data: bytes = field(eq=False, repr=False)
    key: str


class _Problem(Exception):
    """Why an asset was refused; the public methods turn it into an ``AssetError`` that
    names the asset."""


@frozen
class _AllowList:
    """Hosts and networks exempt from the address policy."""

    hosts: frozenset[str]
    networks: tuple[IPNetwork, ...]

    @classmethod
    def parse(cls, entries: Iterable[str]) -> _AllowList:
        hosts: set[str] = set()
        networks: list[IPNetwork] = []
        for entry in (e.strip().strip("[]") for e in entries):
            if not entry:
                continue
            try:
                networks.append(ipaddress.ip_network(entry, strict=False))
            except ValueError:
                hosts.add(_host_key(entry))
        return cls(frozenset(hosts), tuple(networks))

    def permits(self, host: str, address: IPAddress) -> bool:
        if _host_key(host) in self.hosts:
            return True
        candidates = {address, _embedded_ipv4(address) or address}
        return any(a in n for a in candidates for n in self.networks)


def _host_key(host: str) -> str:
    return host.lower().rstrip(".")


_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")

_KINDS: tuple[tuple[str, Callable[[Any], bool]], ...] = (
    ("a loopback", lambda ip: ip.is_loopback),
    ("an unspecified", lambda ip: ip.is_unspecified),
    ("a link-local", lambda ip: ip.is_link_local),
    ("a multicast", lambda ip: ip.is_multicast),
    ("a shared (CGNAT)", lambda ip: ip in _CGNAT),
    ("a site-local", lambda ip: ip.version == 6 and ip.is_site_local),
    ("a reserved", lambda ip: ip.is_reserved),
    ("a private", lambda ip: ip.is_private),
    ("a non-global", lambda ip: not ip.is_global),
)


def _embedded_ipv4(address: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address inside an IPv4-mapped, NAT64 or 6to4 address."""
    if address.version == 4:
        return None
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64:
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def address_refusal(address: IPAddress) -> str | None:
    """Why ``address`` may not be fetched from, or None when it is globally routable.
    An IPv6 form of an IPv4 address is judged by the IPv4 address inside it."""
    inner = _embedded_ipv4(address)
    judged = address if inner is None else inner
    kind = next((kind for kind, test in _KINDS if test(judged)), None)
    if kind is None:
        return None
    return f"{address} is {kind} address" + ("" if inner is None else f" ({inner} inside)")


_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#]*@")


def _shown(src: str) -> str:
    """``src`` as error messages show it: data URIs shortened, and no user name, password
    or query string (they may hold credentials)."""
    if src[:5].lower() == "data:":
        return src if len(src) <= 48 else src[:40] + "…"
    if "://" not in src:
        return src
    base, query, _ = _USERINFO.sub(r"\1", src).partition("?")
    return f"{base}?…" if query else base


def _scheme(src: str) -> str:
    """The URL scheme, or "" for a plain path (a Windows drive letter is a path)."""
    match = re.match(r"([a-zA-Z][a-zA-Z0-9+.-]*):", src)
    return match.group(1).lower() if match and len(match.group(1)) > 1 else ""


def _decode_data_uri(src: str) -> bytes:
    """The bytes of a ``data:`` URI, base64 or percent-encoded."""
    header, comma, payload = src[5:].partition(",")
    if not comma:
        raise _Problem("a data URI needs a comma before its data")
    raw = unquote_to_bytes(payload)
    if not header.lower().endswith(";base64"):
        return raw
    compact = b"".join(raw.split())
    try:
        return base64.b64decode(compact + b"=" * (-len(compact) % 4), validate=True)
    except binascii.Error:
        raise _Problem("the data URI is not valid base64") from None


class AssetLoader:
    """Fetches and decodes assets under the safety limits; one instance per process is
    enough and keeps its caches warm. ``allow`` (default: ``TEMPLATEKIT_FETCH_ALLOW``,
    comma-separated host names, IPs or CIDRs) exempts hosts from the address policy."""

    def __init__(
        self,
        *,
        allow: Iterable[str] | None = None,
        allow_files: bool = True,
        timeout: float = 10.0,
        max_bytes: int = 20_000_000,
        max_pixels: int = 50_000_000,
        max_redirects: int = 3,
    ) -> None:
        entries = os.environ.get(ALLOW_ENV, "").split(",") if allow is None else allow
        self.allow = _AllowList.parse(entries)
        self.allow_files = allow_files
        self.timeout = timeout
        self.max_bytes = max_bytes
        self.max_pixels = max_pixels
        self.max_redirects = max_redirects
        self._downloads: BoundedCache[str, bytes] = BoundedCache(max_entries=256, max_weight=100_000_000)
        self._images: BoundedCache[tuple[str, SizeHint], LoadedImage] = BoundedCache(
            max_entries=128, max_weight=400_000_000
        )

    def fetch(self, src: str, base_dir: Path | None = None) -> bytes:
        """The bytes of ``src``: an http(s) URL, a data URI, or (when files are allowed)
        a path, relative to ``base_dir``, or a file:// URL."""
        try:
            return self._fetch(src, base_dir)
        except _Problem as problem:
            raise AssetError(f"cannot fetch {_shown(src)}: {problem}", url=src) from None

    def load_image(self, src: str, base_dir: Path | None = None, *, size_hint: SizeHint = None) -> LoadedImage:
        """``src`` decoded. ``size_hint`` is the box the image will fill, in px: an SVG
        is drawn at twice that size, so that it stays crisp on high-density output."""
        data = self.fetch(src, base_dir)
        digest = hashlib.sha256(data).hexdigest()
        svg = _is_svg(data)
        cache_key = (digest, size_hint if svg else None)
        loaded = self._images.get(cache_key)
        if loaded is None:
            try:
                if svg:
                    loaded = self._decode_svg(data, digest, size_hint)
                else:
                    loaded = self._decode_raster(data, digest)
            except _Problem as problem:
                raise AssetError(f"cannot decode {_shown(src)}: {problem}", url=src) from None
            width, height = loaded.image.size
            self._images.put(cache_key, loaded, width * height * len(loaded.image.mode) + len(data))
        return loaded

    def _fetch(self, src: str, base_dir: Path | None) -> bytes:
        scheme = _scheme(src)
        if scheme in ("http", "https"):
            return self._download(src)
        if scheme == "data":
            return self._checked_size(_decode_data_uri(src))
        if scheme in ("", "file"):
            if not self.allow_files:
                raise _Problem("local files are not allowed here; use an http(s) URL or a data URI")
            return self._read_file(_file_path(src, scheme, base_dir))
        raise _Problem(f"the {scheme}: scheme is not supported (use http, https or data)")

    def _checked_size(self, data: bytes) -> bytes:
        if len(data) > self.max_bytes:
            raise _Problem(f"it is {len(data):,} bytes, more than the {self.max_bytes:,} byte limit")
        return data

    def _read_file(self, path: Path) -> bytes:
        try:
            if path.stat().st_size > self.max_bytes:
                raise _Problem(f"the file is more than the {self.max_bytes:,} byte limit")
            return path.read_bytes()
        except OSError as exc:
            raise _Problem(f"cannot read {path}: {exc.strerror or exc}") from None

    def _download(self, url: str) -> bytes:
        cached = self._downloads.get(url)
        if cached is not None:
            return cached
        deadline = time.monotonic() + self.timeout
        current = url
        for hop in range(self.max_redirects + 1):
            try:
                status, location, body = self._get(_http_parts(current), deadline)
            except _Problem as problem:
                if hop:
                    raise _Problem(f"redirected to {_shown(current)}: {problem}") from None
                raise
            if status not in _REDIRECTS:
                self._downloads.put(url, body, len(body))
                return body
            if not location:
                raise _Problem(f"HTTP {status} redirect without a Location header")
            current = urljoin(current, location.strip())
        raise _Problem(f"more than {self.max_redirects} redirects")

    def _get(self, parts: SplitResult, deadline: float) -> tuple[int, str | None, bytes]:
        """One GET request to a vetted address: status, Location header and body."""
        host = _ascii_host(parts.hostname or "")
        port = _port(parts)
        addresses = self._vetted(host, port)
        remaining = _remaining(deadline, self.timeout)
        connection: http.client.HTTPConnection
        if parts.scheme.lower() == "https":
            connection = _PinnedHTTPSConnection(host, port, addresses, remaining)
        else:
            connection = _PinnedHTTPConnection(host, port, addresses, remaining)
        try:
            connection.connect()
            with _shut_down_at(connection, deadline, self.timeout):
                connection.request("GET", _target(parts), headers=_HEADERS)
                response = connection.getresponse()
                if response.status in _REDIRECTS:
                    return response.status, response.getheader("Location"), b""
                if not 200 <= response.status < 300:
                    raise _Problem(f"the server answered HTTP {response.status} {response.reason}".rstrip())
                return response.status, None, _read_body(response, self.max_bytes)
        except ssl.SSLCertVerificationError as exc:
            raise _Problem(f"the TLS certificate is not valid for {host} ({exc.verify_message})") from None
        except TimeoutError:
            raise _Problem(f"timed out after {self.timeout:g} s") from None
        except (OSError, http.client.HTTPException) as exc:
            raise _Problem(f"the connection failed ({exc or type(exc).__name__})") from None
        finally:
            connection.close()

    def _vetted(self, host: str, port: int) -> list[tuple[Any, ...]]:
        """The socket addresses of ``host``, all of them checked against the policy."""
        try:
            infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (OSError, UnicodeError) as exc:
            raise _Problem(f"cannot resolve {host} ({exc})") from None
        for info in infos:
            address = ipaddress.ip_address(str(info[4][0]).partition("%")[0])
            reason = None if self.allow.permits(host, address) else address_refusal(address)
            if reason is not None:
                raise _Problem(f"{reason} (allow it with {ALLOW_ENV})")
        return [(info[0], info[1], info[2], info[4]) for info in infos]

    def _decode_raster(self, data: bytes, digest: str) -> LoadedImage:
        image = _open_raster(data)
        width, height = image.size
        if width * height > self.max_pixels:
            limit = _megapixels(self.max_pixels)
            raise _Problem(f"the image is {width}x{height} px, more than the {limit} limit")
        try:
            image.load()
            upright = _rgb_or_rgba(ImageOps.exif_transpose(image))
        except (OSError, ValueError, SyntaxError, EOFError) as exc:
            raise _Problem(f"the {image.format} data cannot be decoded ({exc})") from None
        return LoadedImage(upright, image.format, data, digest)

    def _decode_svg(self, data: bytes, digest: str, size_hint: SizeHint) -> LoadedImage:
        root = _check_svg(data)
        text = _svg_text(data)
        width, height = _raster_size(_svg_size(root), size_hint, self.max_pixels)
        try:
            png = resvg_py.svg_to_bytes(
                svg_string=text,
                width=width,
                height=height,
                dpi=96,  # physical units (in, mm, pt) as CSS defines them
                skip_system_fonts=True,
                font_dirs=[str(FONT_DIR)],
            )
        except (ValueError, RuntimeError) as exc:
            raise _Problem(f"the SVG could not be drawn ({exc})") from None
        image = PILImage.open(io.BytesIO(bytes(png))).convert("RGBA")
        return LoadedImage(image, "SVG", data, f"{digest}@{image.width}x{image.height}")


class MemoryAssetLoader(AssetLoader):
    """An ``AssetLoader`` that serves ``fetch`` from a dict of ``src -> bytes``, so that
    tests of templates need neither network nor files. Decoding and limits are real."""

    def __init__(self, files: Mapping[str, bytes], **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.files = dict(files)

    def fetch(self, src: str, base_dir: Path | None = None) -> bytes:
        data = self.files.get(src)
        if data is None:
            message = f"cannot fetch {_shown(src)}: not among the files of this MemoryAssetLoader"
            raise AssetError(message, url=src)
        return data


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to addresses checked in advance, never to a fresh DNS answer.
    The request still carries the real host name in its Host header."""

    def __init__(self, host: str, port: int, addresses: list[tuple[Any, ...]], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self._addresses, self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """As ``_PinnedHTTPConnection``, with TLS: SNI and the certificate check use the real
    host name."""

    def __init__(self, host: str, port: int, addresses: list[tuple[Any, ...]], timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = _connect(self._addresses, self.timeout)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self.host)


def _connect(addresses: list[tuple[Any, ...]], timeout: float | None) -> socket.socket:
    """A socket connected to the first of ``addresses`` that answers."""
    error: OSError | None = None
    for family, kind, proto, sockaddr in addresses:
        sock = socket.socket(family, kind, proto)
        sock.settimeout(timeout)
        try:
            sock.connect(sockaddr)
            return sock
        except OSError as exc:
            sock.close()
            error = exc
    raise error or OSError("no address to connect to")


@contextmanager
def _shut_down_at(connection: http.client.HTTPConnection, deadline: float, timeout: float) -> Iterator[None]:
    """Cut the connection at ``deadline``: per-read timeouts alone would let a server
    that sends a byte now and then hold a download open for ever."""
    expired = threading.Event()
    sock = connection.sock

    def expire() -> None:
        expired.set()
        with suppress(OSError):
            sock.shutdown(socket.SHUT_RDWR)

    timer = threading.Timer(max(0.0, deadline - time.monotonic()), expire)
    timer.daemon = True
    timer.start()
    try:
        yield
    except (OSError, http.client.HTTPException):
        if expired.is_set():
            raise _Problem(f"timed out after {timeout:g} s") from None
        raise
    finally:
        timer.cancel()
    if expired.is_set():
        raise _Problem(f"timed out after {timeout:g} s")


def _read_body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The body, refused as soon as it is known to exceed ``limit`` bytes."""
    length = response.getheader("Content-Length", "")
    if length.strip().isdigit() and int(length) > limit:
        raise _Problem(f"the response is {int(length):,} bytes, more than the {limit:,} byte limit")
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(min(_CHUNK, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise _Problem(f"the response is more than the {limit:,} byte limit")
    return b"".join(chunks)


def _http_parts(url: str) -> SplitResult:
    try:
        parts = urlsplit(url)
        _port(parts)
    except ValueError as exc:
        raise _Problem(f"not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise _Problem(f"the {parts.scheme or 'missing'} scheme is not allowed (use http or https)")
    if not parts.hostname:
        raise _Problem("the URL has no host")
    return parts


def _ascii_host(host: str) -> str:
    """The host name as DNS and the Host header want it: IDNA for non-ASCII names."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        raise _Problem(f"{host!r} is not a valid host name") from None


def _port(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme.lower() == "https" else 80)


def _target(parts: SplitResult) -> str:
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _remaining(deadline: float, timeout: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise _Problem(f"timed out after {timeout:g} s")
    return left


def _file_path(src: str, scheme: str, base_dir: Path | None) -> Path:
    if scheme == "file":
        parts = urlsplit(src)
        if parts.netloc not in ("", "localhost"):
            raise _Problem(f"file URLs of other hosts ({parts.netloc}) are not supported")
        return Path(url2pathname(parts.path))
    path = Path(src)
    return path if path.is_absolute() or base_dir is None else Path(base_dir) / path


def _megapixels(pixels: int) -> str:
    return f"{pixels / 1_000_000:g} MP"


def _open_raster(data: bytes) -> PILImage.Image:
    """The image with only its header read, so that its size can be checked first."""
    try:
        return PILImage.open(io.BytesIO(data), formats=_RASTER_FORMATS)
    except PILImage.DecompressionBombError as exc:
        raise _Problem(f"the image has too many pixels ({exc})") from None
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, EOFError):
        raise _Problem("it is not a PNG, JPEG, WebP, GIF or SVG image") from None


def _rgb_or_rgba(image: PILImage.Image) -> PILImage.Image:
    """RGB, or RGBA when the image has transparency, which is all painters handle."""
    if image.mode in ("RGB", "RGBA"):
        return image
    if image.mode.startswith("I"):
        image = image.convert("I").point(lambda value: value * (1 / 256)).convert("L")
    return image.convert("RGBA" if image.has_transparency_data else "RGB")


_URL_IN_CSS = re.compile(r"""url\(\s*(['"]?)(.*?)\1\s*\)""", re.IGNORECASE | re.DOTALL)
_IMPORT_IN_CSS = re.compile(r"""@import\s+(?:url\(\s*)?['"]?\s*([^'")\s;]*)""", re.IGNORECASE)


def _is_svg(data: bytes) -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<") and b"<svg" in head


def _local(name: str) -> str:
    return name.rpartition("}")[2]


class _SVGParser(DefusedXMLParser):
    """defusedxml's parser, accepting a DOCTYPE without an internal subset: the standard
    SVG 1.1 DOCTYPE is common, and neither expat nor resvg loads the DTD it names."""

    def __init__(self) -> None:
        super().__init__(forbid_dtd=True, forbid_entities=True, forbid_external=True)

    def defused_start_doctype_decl(
        self, name: str, sysid: str | None, pubid: str | None, has_internal_subset: bool
    ) -> None:
        if has_internal_subset:
            raise DTDForbidden(name, sysid, pubid)


def _check_svg(data: bytes) -> Element:
    """The parsed SVG, refused if it could run code or reach outside itself: no entities,
    no internal DTD, no ``<script>``, no event attributes, and no reference (href, CSS
    ``url()`` or ``@import``) to anything but the document itself or a data URI."""
    parser = _SVGParser()
    try:
        parser.feed(data)
        root = parser.close()
    except DTDForbidden:
        raise _Problem("SVGs with an internal DTD are not allowed") from None
    except DefusedXmlException as exc:
        raise _Problem(f"the SVG declares entities or external references ({exc})") from None
    except ParseError as exc:
        raise _Problem(f"the SVG is not well-formed XML ({exc})") from None
    if _local(root.tag) != "svg":
        raise _Problem(f"the document is <{_local(root.tag)}>, not <svg>")
    for element in root.iter():
        _check_element(element)
    return root


def _check_element(element: Element) -> None:
    name = _local(element.tag)
    if name.lower() == "script":
        raise _Problem("the SVG has a <script> element")
    for attribute, value in element.attrib.items():
        local = _local(attribute)
        if local.lower().startswith("on"):
            raise _Problem(f"the SVG has an event attribute ({local})")
        if local == "href":
            _check_reference(value)
        _check_css(value)
    if name == "style":
        _check_css(element.text or "")


def _check_reference(target: str) -> None:
    value = target.strip()
    if value.startswith("#"):
        return
    if value[:5].lower() != "data:":
        raise _Problem(f"the SVG refers to an external resource ({_shown(value)[:80]})")
    data = _decode_data_uri(value)
    if _is_svg(data):
        _check_svg(data)


def _check_css(text: str) -> None:
    for match in _URL_IN_CSS.finditer(text):
        target = match.group(2).strip()
        if not target.startswith("#"):
            _check_reference(target)
    for match in _IMPORT_IN_CSS.finditer(text):
        if match.group(1)[:5].lower() != "data:":
            raise _Problem(f"the SVG imports a style sheet ({_shown(match.group(1))[:80]})")


def _svg_text(data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _Problem("the SVG is not UTF-8 text") from None


_LENGTH = re.compile(r"\s*([+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)\s*(px|pt|pc|mm|cm|in)?\s*")
_PX_PER_UNIT = {None: 1.0, "px": 1.0, "pt": 4 / 3, "pc": 16.0, "mm": 96 / 25.4, "cm": 96 / 2.54, "in": 96.0}


def _svg_length(value: str | None) -> float | None:
    match = _LENGTH.fullmatch(value or "")
    if match is None:
        return None
    length = float(match.group(1)) * _PX_PER_UNIT[match.group(2)]
    return length if 0 < length < math.inf else None


def _svg_size(root: Element) -> tuple[float, float]:
    """The natural size of an SVG in px, as resvg reads it: width and height, completed
    from the viewBox's aspect ratio, or 100 x 100."""
    width, height = _svg_length(root.get("width")), _svg_length(root.get("height"))
    view = _view_box_size(root.get("viewBox"))
    if view is not None:
        view_width, view_height = view
        if width is not None and height is None:
            height = width * view_height / view_width
        elif height is not None and width is None:
            width = height * view_width / view_height
        elif width is None and height is None:
            width, height = view_width, view_height
    return (width or 100.0, height or 100.0)


def _view_box_size(value: str | None) -> tuple[float, float] | None:
    try:
        numbers = [float(v) for v in re.split(r"[\s,]+", (value or "").strip()) if v]
    except ValueError:
        return None
    if len(numbers) != 4 or not all(0 < n < math.inf for n in numbers[2:]):
        return None
    return numbers[2], numbers[3]


def _raster_size(natural: tuple[float, float], size_hint: SizeHint, max_pixels: int) -> tuple[int, int]:
    """The size to draw an SVG at: twice the box it fills, covering it whatever the fit,
    bounded by the pixel limit and, for extreme aspect ratios, by 4x that doubled box."""
    width, height = natural
    if size_hint is None:
        if width * height > max_pixels:
            limit = _megapixels(max_pixels)
            raise _Problem(f"the SVG is {width:g}x{height:g} px, more than the {limit} limit")
        scale, budget = 1.0, max_pixels
    else:
        box_width, box_height = 2 * max(1, size_hint[0]), 2 * max(1, size_hint[1])
        scale = max(box_width / width, box_height / height)
        budget = min(max_pixels, 4 * box_width * box_height)
        scale = min(scale, math.sqrt(budget / (width * height)))
    # A side under 1 px is drawn 1 px wide; capping the other keeps the area within budget.
    return min(max(1, round(width * scale)), budget), min(max(1, round(height * scale)), budget)
