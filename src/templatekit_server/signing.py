"""Signed image URLs: the canonical text of a query and its HMAC-SHA256.

Every parameter but ``sign``, sorted by name, each name and value encoded as the WHATWG
URLSearchParams serialiser does (``application/x-www-form-urlencoded``: space to ``+``;
ASCII letters, digits and ``*-._`` kept; every other byte of the UTF-8 form as ``%XX``
in upper case, so ``~`` is ``%7E``), joined as ``name=value`` with ``&``. The server
rebuilds the text from the decoded parameters, so any client encoding of the same
values verifies.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Iterable, Sequence

_KEPT = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789*-._")


def form_encode(text: str) -> str:
    out: list[str] = []
    for byte in text.encode("utf-8"):
        if byte in _KEPT:
            out.append(chr(byte))
        elif byte == 0x20:
            out.append("+")
        else:
            out.append(f"%{byte:02X}")
    return "".join(out)


def canonical(params: Iterable[tuple[str, str]]) -> str:
    """The text that is signed: every parameter except ``sign``, sorted by name."""
    pairs = sorted((name, value) for name, value in params if name != "sign")
    return "&".join(f"{form_encode(name)}={form_encode(value)}" for name, value in pairs)


def signature(key: str, text: str) -> str:
    return hmac.new(key.encode("utf-8"), text.encode("utf-8"), hashlib.sha256).hexdigest()


def valid(key: str, text: str, given: str) -> bool:
    # compare_digest takes non-ASCII text only as bytes
    return hmac.compare_digest(signature(key, text).encode("ascii"), given.lower().encode("utf-8", "replace"))


def single_values(params: Sequence[tuple[str, str]]) -> dict[str, str]:
    """The query as a dict; ValueError naming a parameter given twice (which value was
    signed would be ambiguous)."""
    names = [name for name, _ in params]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"{twice[0]}: given more than once")
    return dict(params)


def expiry_problem(expires: str | None, now: float) -> str | None:
    """Why ``expires`` (unix seconds, optional) makes the URL unusable, if it does."""
    if expires is None:
        return None
    if not expires.isdigit():
        return f"expires: must be unix seconds (got {expires[:40]!r})"
    if int(expires) < now:
        return f"expires: the URL expired at {expires}"
    return None
