"""Downloads (and notification posts) over http(s) under the safety limits.

A host must resolve to addresses the policy allows, and the connection goes to the
address that was checked (no second lookup that DNS rebinding could answer
differently); every redirect hop is checked again; nothing is sent to a refused
address; one deadline covers the whole download, and the body has a byte limit.
"""

from __future__ import annotations

import http.client
import ipaddress
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from typing import Any, TypeVar
from urllib.parse import SplitResult, urljoin, urlsplit

from attrs import frozen

from templatekit.assets.common import Problem, shown
from templatekit.assets.policy import ALLOW_ENV, AllowList, address_refusal

_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CHUNK = 64 * 1024
_HEADERS = {"User-Agent": "templatekit", "Accept": "*/*"}
_T = TypeVar("_T")


@frozen
class Limits:
    allow: AllowList
    timeout: float
    max_bytes: int
    max_redirects: int


def download(url: str, *, allow: AllowList, timeout: float, max_bytes: int, max_redirects: int) -> bytes:
    """The body of an http(s) URL, following redirects, under the limits given."""
    limits = Limits(allow, timeout, max_bytes, max_redirects)
    deadline = time.monotonic() + limits.timeout
    current = url
    for hop in range(limits.max_redirects + 1):
        try:
            status, location, body = _get(_http_parts(current), deadline, limits)
        except Problem as problem:
            if hop:
                raise Problem(f"redirected to {shown(current)}: {problem}") from None
            raise
        if status not in _REDIRECTS:
            return body
        if not location:
            raise Problem(f"HTTP {status} redirect without a Location header")
        current = urljoin(current, location.strip())
    raise Problem(f"more than {limits.max_redirects} redirects")


def check_endpoint(url: str, allow: AllowList) -> None:
    """Problem unless ``url`` is http(s) and its host resolves only to addresses the
    policy allows: for endpoints that another client library will connect to."""
    parts = _http_parts(url)
    _vetted(_ascii_host(parts.hostname or ""), _port(parts), allow)


def post(url: str, body: bytes, headers: dict[str, str], *, allow: AllowList, timeout: float) -> int:
    """POST ``body`` to an http(s) URL under the address policy; the answer's status.
    Redirects are not followed (a 3xx is the answer), and the answer's body is read
    only up to a small limit and dropped: a notification wants the status alone."""
    parts = _http_parts(url)
    deadline = time.monotonic() + timeout
    sent = {**_HEADERS, "Content-Type": "application/json", **headers}

    def exchange(connection: http.client.HTTPConnection) -> int:
        connection.request("POST", _target(parts), body=body, headers=sent)
        response = connection.getresponse()
        with suppress(Problem):
            _read_body(response, _CHUNK)
        return response.status

    return _exchanged(parts, deadline, timeout, allow, exchange)


def _get(parts: SplitResult, deadline: float, limits: Limits) -> tuple[int, str | None, bytes]:
    """One GET request to a vetted address: status, Location header and body."""

    def exchange(connection: http.client.HTTPConnection) -> tuple[int, str | None, bytes]:
        connection.request("GET", _target(parts), headers=_HEADERS)
        response = connection.getresponse()
        if response.status in _REDIRECTS:
            return response.status, response.getheader("Location"), b""
        if not 200 <= response.status < 300:
            raise Problem(f"the server answered HTTP {response.status} {response.reason}".rstrip())
        return response.status, None, _read_body(response, limits.max_bytes)

    return _exchanged(parts, deadline, limits.timeout, limits.allow, exchange)


def _exchanged(
    parts: SplitResult,
    deadline: float,
    timeout: float,
    allow: AllowList,
    exchange: Callable[[http.client.HTTPConnection], _T],
) -> _T:
    """``exchange`` on a connection to a vetted address of the URL's host, cut at
    ``deadline``; every network failure a Problem."""
    host = _ascii_host(parts.hostname or "")
    port = _port(parts)
    addresses = _vetted(host, port, allow)
    remaining = _remaining(deadline, timeout)
    connection: http.client.HTTPConnection
    if parts.scheme.lower() == "https":
        connection = _PinnedHTTPSConnection(host, port, addresses, remaining)
    else:
        connection = _PinnedHTTPConnection(host, port, addresses, remaining)
    try:
        connection.connect()
        with _shut_down_at(connection, deadline, timeout):
            return exchange(connection)
    except ssl.SSLCertVerificationError as exc:
        raise Problem(f"the TLS certificate is not valid for {host} ({exc.verify_message})") from None
    except TimeoutError:
        raise Problem(f"timed out after {timeout:g} s") from None
    except (OSError, http.client.HTTPException) as exc:
        raise Problem(f"the connection failed ({exc or type(exc).__name__})") from None
    finally:
        connection.close()


def _vetted(host: str, port: int, allow: AllowList) -> list[tuple[Any, ...]]:
    """The socket addresses of ``host``, all of them checked against the policy."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise Problem(f"cannot resolve {host} ({exc})") from None
    for info in infos:
        address = ipaddress.ip_address(str(info[4][0]).partition("%")[0])
        reason = None if allow.permits(host, address) else address_refusal(address)
        if reason is not None:
            raise Problem(f"{reason} (allow it with {ALLOW_ENV})")
    return [(info[0], info[1], info[2], info[4]) for info in infos]


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
        self._tls = ssl.create_default_context()
        super().__init__(host, port, timeout=timeout, context=self._tls)
        self._addresses = addresses

    def connect(self) -> None:
        self.sock = self._tls.wrap_socket(_connect(self._addresses, self.timeout), server_hostname=self.host)


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
    except (OSError, http.client.HTTPException, Problem):  # a cut connection reads as a short body too
        if expired.is_set():
            raise Problem(f"timed out after {timeout:g} s") from None
        raise
    finally:
        timer.cancel()
    if expired.is_set():
        raise Problem(f"timed out after {timeout:g} s")


def _read_body(response: http.client.HTTPResponse, limit: int) -> bytes:
    """The body, refused as soon as it is known to exceed ``limit`` bytes."""
    length = response.getheader("Content-Length", "")
    if length.strip().isdigit() and int(length) > limit:
        raise Problem(f"the response is {int(length):,} bytes, more than the {limit:,} byte limit")
    chunks: list[bytes] = []
    total = 0
    while chunk := response.read(min(_CHUNK, limit + 1 - total)):
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise Problem(f"the response is more than the {limit:,} byte limit")
    if length.strip().isdigit() and total < int(length):
        raise Problem(f"the response ended after {total:,} of its {int(length):,} bytes")
    return b"".join(chunks)


def _http_parts(url: str) -> SplitResult:
    if any(char.isspace() or ord(char) < 0x20 or ord(char) == 0x7F for char in url):
        raise Problem("the URL holds spaces or control characters (percent-encode them)")
    try:
        parts = urlsplit(url)
        _port(parts)
    except ValueError as exc:
        raise Problem(f"not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise Problem(f"the {parts.scheme or 'missing'} scheme is not allowed (use http or https)")
    if not parts.hostname:
        raise Problem("the URL has no host")
    return parts


def _ascii_host(host: str) -> str:
    """The host name as DNS and the Host header want it: IDNA for non-ASCII names."""
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError:
        raise Problem(f"{host!r} is not a valid host name") from None


def _port(parts: SplitResult) -> int:
    return parts.port or (443 if parts.scheme.lower() == "https" else 80)


def _target(parts: SplitResult) -> str:
    return (parts.path or "/") + (f"?{parts.query}" if parts.query else "")


def _remaining(deadline: float, timeout: float) -> float:
    left = deadline - time.monotonic()
    if left <= 0:
        raise Problem(f"timed out after {timeout:g} s")
    return left
