"""Pieces shared by the loader and the SVG checks: the refusal exception, how an
asset is named in messages, data URIs, and telling SVG from raster data."""

from __future__ import annotations

import base64
import binascii
import re
from urllib.parse import unquote_to_bytes


class Problem(Exception):
    """Why an asset was refused; the loader turns it into an ``AssetError`` that names
    the asset."""


_USERINFO = re.compile(r"^([a-zA-Z][a-zA-Z0-9+.-]*://)[^/?#]*@")


#: The most characters of a source an error message shows.
SHOWN_SOURCE = 200


def shown(src: str) -> str:
    """``src`` as error messages show it: data URIs shortened, no user name, password or
    query string (they may hold credentials), and a long one cut in its middle, so that
    what went wrong still fits the message after it."""
    if src[:5].lower() == "data:":
        return src if len(src) <= 48 else src[:40] + "…"
    if "://" in src:
        base, query, _ = _USERINFO.sub(r"\1", src).partition("?")
        src = f"{base}?…" if query else base
    return src if len(src) <= SHOWN_SOURCE else f"{src[: SHOWN_SOURCE - 41]}…{src[-40:]}"


def decode_data_uri(src: str) -> bytes:
    """The bytes of a ``data:`` URI, base64 or percent-encoded."""
    header, comma, payload = src[5:].partition(",")
    if not comma:
        raise Problem("a data URI needs a comma before its data")
    raw = unquote_to_bytes(payload)
    if not header.lower().endswith(";base64"):
        return raw
    compact = b"".join(raw.split())
    try:
        return base64.b64decode(compact + b"=" * (-len(compact) % 4), validate=True)
    except binascii.Error:
        raise Problem("the data URI is not valid base64") from None


def megapixels(pixels: int) -> str:
    return f"{pixels / 1_000_000:g} MP"


def is_svg(data: bytes) -> bool:
    head = data[:4096].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head.startswith(b"<") and b"<svg" in head
