"""The error envelope and codes of the /v1 interface, in one place.

Every failure answers ``{"error": {"code", "docs", "message", "requestId"}}`` with the
status of its code; an invalid template adds ``problems``, one ``"path: message"`` each,
so that an editor can show each at its field. Library exceptions map to codes here, and nowhere else.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from templatekit.errors import (
    AssetError,
    LimitError,
    ModificationError,
    RenderError,
    StorageError,
    TemplateError,
    TemplatekitError,
)

log = logging.getLogger("templatekit.server")

DATABASE_UNAVAILABLE = "the server's database is unavailable; try again shortly"

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
