"""The error envelope and codes of the /v1 interface, in one place.

Every failure answers ``{"error": {"code", "docs", "message", "requestId"}}`` with the
status of its code; an invalid template adds ``problems``, one ``"path: message"`` each,
so that an editor can show each at its field. Library exceptions map to codes here, and nowhere else.
An answer says what is wrong and where, in a few kilobytes at most: messages and problems
are cut (``bounded``), never a request echoed back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from templatekit import (
    AssetError,
    LimitError,
    ModificationError,
    RenderError,
    StorageError,
    TemplateError,
    TemplatekitError,
)
from templatekit.service import listed

log = logging.getLogger("templatekit.server")

DATABASE_UNAVAILABLE = "the server's database is unavailable; try again shortly"
#: The longest message of an error answer, and of each of its problems, in characters;
#: the most problems it lists (the library lists fifty and how many more).
MAX_MESSAGE = 4_000
MAX_PROBLEM = 500
MAX_PROBLEMS = 100

STATUS = {
    "BAD_REQUEST": 400,
    "FETCH_IMAGE_ERROR": 400,
    "TOO_MANY_REQUESTS": 400,
    "UNAUTHORIZED": 401,
    "FORBIDDEN": 403,
    "NOT_FOUND": 404,
    "METHOD_NOT_ALLOWED": 405,
    "CONFLICT": 409,
    "INTERNAL_SERVER_ERROR": 500,
    "USAGE_EXCEEDED": 500,
    "RATE_LIMITED": 500,
}


class ApiError(Exception):
    """A failure to answer with the envelope: ``code`` is one of ``STATUS``."""

    def __init__(
        self, code: str, message: str, headers: Mapping[str, str] | None = None, problems: Sequence[str] = ()
    ) -> None:
        assert code in STATUS, code
        super().__init__(message)
        self.code = code
        self.message = message
        self.headers = dict(headers or {})
        self.problems = tuple(problems)

    @property
    def status(self) -> int:
        return STATUS[self.code]


def bad_request(message: str) -> ApiError:
    return ApiError("BAD_REQUEST", message)


def from_library(exc: TemplatekitError) -> ApiError:
    """The API error for an exception of the library. A storage error's message names
    the server's paths or buckets: it is logged, and the answer says what failed."""
    if isinstance(exc, AssetError):
        return ApiError("FETCH_IMAGE_ERROR", str(exc))
    if isinstance(exc, TemplateError):
        return ApiError("BAD_REQUEST", "; ".join(exc.problems) if exc.problems else str(exc), problems=exc.problems)
    if isinstance(exc, (ModificationError, LimitError)):
        return ApiError("BAD_REQUEST", str(exc))
    if isinstance(exc, StorageError):
        log.error("storage error: %s", exc)
        return ApiError("INTERNAL_SERVER_ERROR", exc.public)
    if isinstance(exc, RenderError):
        return ApiError("INTERNAL_SERVER_ERROR", f"render failed: {exc}")
    return ApiError("INTERNAL_SERVER_ERROR", str(exc))


def bounded(message: str, problems: Sequence[str]) -> tuple[str, list[str]]:
    """The message and the problems of an answer cut to size: at most ``MAX_MESSAGE``
    and ``MAX_PROBLEM`` characters, at most ``MAX_PROBLEMS`` problems."""
    kept = listed(problems, limit=MAX_PROBLEMS)
    return shortened(message, MAX_MESSAGE), [shortened(problem, MAX_PROBLEM) for problem in kept]


def shortened(text: str, limit: int) -> str:
    """``text`` up to ``limit`` characters, cut after a whole word (so that no URL is
    cut before its credentials can be redacted), saying how much was left out."""
    if len(text) <= limit:
        return text
    cut = max(text.rfind(" ", 0, limit), 0)
    return f"{text[:cut]} … ({len(text) - cut:,} more characters)"


def envelope(
    code: str, message: str, request_id: str, docs_url: str, problems: Sequence[str] = ()
) -> dict[str, dict[str, Any]]:
    error: dict[str, Any] = {
        "code": code,
        "docs": f"{docs_url.rstrip('/')}/{code}",
        "message": message,
        "requestId": request_id,
    }
    if problems:
        error["problems"] = list(problems)
    return {"error": error}
