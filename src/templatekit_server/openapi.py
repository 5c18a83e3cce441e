"""The OpenAPI 3.1 document of the /v1 interface, served at ``GET /v1/openapi.json``.

The paths table (operations, parameters, answers and error codes) is written here from
the contract (design/HTTP-API.md); every body's schema is made from the classes the
routes read and answer with (``bodies``) and from the template model, by the model's
schema generator, so that it cannot drift from what the server reads.
tests/server/test_openapi.py keeps it valid and equal, operation for operation, to the
routes of the app.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import Any

from templatekit.service import LAYER_KINDS, MAX_MODIFICATIONS, ModelSchema, modification_fields, template_schema
from templatekit_server import webhooks
from templatekit_server.asset_types import EXTENSIONS as ASSET_TYPES
from templatekit_server.bodies import (
    FLAG_NOTE,
    ID_PATTERN,
    IMAGE_FORMATS,
    NAMED,
    THUMBNAIL,
    VALUE_SCHEMAS,
    VIDEO_EVENTS,
    WEBHOOK_EVENTS,
)
from templatekit_server.errors import STATUS, envelope
from templatekit_server.files import EXTENSIONS
from templatekit_server.settings import Settings

Json = dict[str, Any]

IMAGE_TYPES = ("image/png", "image/jpeg", "image/webp")
FILE_TYPES = (*IMAGE_TYPES, "application/pdf")

#: Every error code: when it is answered, and a message it may carry.
CODES: dict[str, tuple[str, str]] = {
    "BAD_REQUEST": (
        "an invalid field or JSON body, API keys that disagree, an unknown key (renderVideo only),"
        " or a wrong or expired signature",
        "templateId: required",
    ),
    "FETCH_IMAGE_ERROR": (
        "an image `src` could not be downloaded or decoded; the message names the URL and why",
        "image https://example.com/logo.png: the server answered 404 Not Found",
    ),
    "TOO_MANY_REQUESTS": (
        "the key's rate limit is reached (createPdf and createStoredImage); `Retry-After` says when to retry",
        "the rate limit of 60 requests a minute is reached; retry in 12 s",
    ),
    "UNAUTHORIZED": (
        "no API key, an unknown or revoked key (every operation but renderVideo),"
        " or an `Authorization` header that is not `Bearer <key>`",
        "an API key is required (query apiKey, body apiKey, or Authorization: Bearer)",
    ),
    "FORBIDDEN": (
        "`s3Config` from a workspace whose plan does not include it (free, automate), "
        "or a video of another project of the workspace",
        "s3Config is not available on the free plan",
    ),
    "NOT_FOUND": (
        "the template, video or file does not exist for this key",
        "template tpl_0123456789abcdef does not exist",
    ),
    "METHOD_NOT_ALLOWED": (
        "the path exists but not with this method (HTTP's 405, with an `Allow` header); not an operation's answer",
        "DELETE is not allowed on /v1/templates",
    ),
    "CONFLICT": (
        "the template id exists already (without `overwrite`), or an `Idempotency-Key` was used with"
        " a different request or its first request is still running",
        "Idempotency-Key 'order-1234' was used with a different request",
    ),
    "INTERNAL_SERVER_ERROR": (
        "the render failed or timed out, the upload to the `s3Config` bucket failed, or an unexpected"
        " error (quote the request id); nothing is billed",
        "the render took longer than 60 s and was stopped",
    ),
    "USAGE_EXCEEDED": (
        "the workspace's daily or monthly generation limit is reached; `Retry-After` says when it resets",
        "the daily limit of 100 generations of the free plan is reached (this render needs 1);"
        " it resets at 2025-01-02 00:00 UTC",
    ),
    "RATE_LIMITED": (
        "the key's rate limit is reached (every operation but createPdf and createStoredImage);"
        " `Retry-After` says when to retry",
        "the rate limit of 60 requests a minute is reached; retry in 12 s",
    ),
}
RETRY_CODES = frozenset({"TOO_MANY_REQUESTS", "USAGE_EXCEEDED", "RATE_LIMITED"})

#: Codes that every operation identified by a key can give.
# every keyed operation: a key without the operation's scope is FORBIDDEN
KEYED = ("BAD_REQUEST", "UNAUTHORIZED", "FORBIDDEN", "INTERNAL_SERVER_ERROR", "RATE_LIMITED")
#: Codes of the billable renders, on top of the request's own.
RENDERS = ("FETCH_IMAGE_ERROR", "NOT_FOUND", "USAGE_EXCEEDED")

EVENTS_TEXT = """\
With `stream=true` the answer is a `text/event-stream` (Server-Sent Events). Each record is
`event: <type>` and `data: <JSON>`, the JSON's `type` equal to the event's name (schema
`VideoEvent`):

- `created {id}`: first, once the video is queued;
- `queued {ahead}`: while it waits, the number of queued videos that start before it in the
  fair order as the queue stands (its workspace's own earlier ones, and other workspaces'
  whose turn comes first), sent when it changes;
- `progress {frame, totalFrames, progress}`: while it renders, `progress` from 0 to 1, at least
  every 10 % and every 2 s;
- `done {url}`: last, the URL of the MP4 (it does not expire);
- `error {error: {code, docs, message, requestId}}`: last, when the render failed.

When nothing else is sent for 15 s a comment line `: keep-alive` is. The stream ends after
`done` or `error`; once it has started, a failure is an `error` event, not an error status."""
EVENTS_SCHEMA_TEXT = (
    "One record of the stream (Server-Sent Events): `event: <type>` and `data: <VideoEvent JSON>`;"
    " `: keep-alive` comment lines come between records."
)
EVENT_TYPES = ("created", "queued", "progress", "done", "error")

EVENTS_EXAMPLE = """\
event: created
data: {"type":"created","id":"vid_0123456789abcdef"}

event: queued
data: {"type":"queued","ahead":0}

event: progress
data: {"type":"progress","frame":30,"totalFrames":150,"progress":0.2}

: keep-alive

event: done
data: {"type":"done","url":"https://render.example.com/v1/files/videos/vid_0123456789abcdef-9f8e7d6c5b4a3210.mp4?sig=…"}

"""


# ------------------------------------------------------------------ small shapes


def _ref(section: str, name: str) -> Json:
    return {"$ref": f"#/components/{section}/{name}"}


def _schema(name: str) -> Json:
    return _ref("schemas", name)


def _binary(media_type: str) -> Json:
    return {"type": "string", "contentMediaType": media_type}


def _json_text(schema: Json, description: str) -> Json:
    """A string holding JSON, for values that may come as text (query strings, legacy clients)."""
    return {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": schema,
        "description": description,
    }


def _flag(description: str, default: bool = False) -> Json:
    return {"type": "boolean", "default": default, "description": f"{description}{FLAG_NOTE}"}


def _text(description: str, **more: Any) -> Json:
    return {"type": "string", "description": description, **more}


def _object(properties: Json, required: Sequence[str] = (), description: str = "", **more: Any) -> Json:
    found: Json = {"type": "object", "properties": properties}
    if required:
        found["required"] = list(required)
    if description:
        found["description"] = description
    return {**found, **more}


def _param(name: str, where: str, schema: Json, description: str, required: bool = False) -> Json:
    return {
        "name": name,
        "in": where,
        "required": required or where == "path",
        "description": description,
        "schema": schema,
    }


def _query_flag(name: str, description: str, default: bool = False) -> Json:
    return _param(name, "query", {"type": "boolean", "default": default}, f"{description}{FLAG_NOTE}")


def _json(schema: Json) -> Json:
    return {"application/json": {"schema": schema}}


def _images() -> Json:
    return {media_type: {"schema": _binary(media_type)} for media_type in IMAGE_TYPES}


def _response(description: str, content: Json | None = None, headers: Iterable[str] = ()) -> Json:
    """A response with the headers every answer carries, then ``headers``."""
    names = ("X-Request-Id", "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset", *headers)
    found: Json = {"description": description, "headers": {name: _ref("headers", name) for name in names}}
    if content is not None:
        found["content"] = content
    return found


def _body(schema: str, description: str) -> Json:
    return {"required": True, "description": description, "content": _json(_schema(schema))}


class _ErrorResponses:
    """The error responses of the operations: one per status, listing the codes that
    operation can give with it; each distinct one is defined once in components."""

    def __init__(self) -> None:
        self.defined: dict[str, Json] = {}

    def __call__(self, *codes: str) -> dict[str, Json]:
        unknown = set(codes) - set(STATUS)
        assert not unknown, unknown
        by_status: dict[int, list[str]] = {}
        for code in STATUS:
            if code in codes:
                by_status.setdefault(STATUS[code], []).append(code)
        answers = {}
        for status, group in sorted(by_status.items()):
            name = "Or".join(code.title().replace("_", "") for code in group)
            self.defined.setdefault(name, _error_response(group))
            answers[str(status)] = _ref("responses", name)
        return answers


def _error_response(codes: Sequence[str]) -> Json:
    listed = "\n".join(f"- `{code}`: {CODES[code][0]}" for code in codes)
    headers = ["Retry-After"] if RETRY_CODES.intersection(codes) else []
    content = {
        "application/json": {
            "schema": _schema("Error"),
            "examples": {code: _ref("examples", code) for code in codes},
        }
    }
    return _response(f"The error envelope, `error.code` one of:\n\n{listed}", content, headers)


def _operation(
    operation_id: str,
    tag: str,
    summary: str,
    description: str,
    responses: Json,
    *,
    parameters: Sequence[Json] = (),
    body: Json | None = None,
    keyless: bool = False,
) -> Json:
    found: Json = {"operationId": operation_id, "tags": [tag], "summary": summary, "description": description}
    if parameters:
        found["parameters"] = list(parameters)
    if body is not None:
        found["requestBody"] = body
    found["responses"] = responses
    if keyless:
        found["security"] = []
    return found


# ------------------------------------------------------------------ operations


def _render_paths(errors: _ErrorResponses) -> Json:
    idempotency = _ref("parameters", "IdempotencyKey")
    replay = ("X-Templatekit-Warnings", "Idempotent-Replayed")
    billed = "Billed one generation unless `thumbnail` is true; a repeat with the same `Idempotency-Key` is not."
    create_image = _operation(
        "createImage",
        "renders",
        "Render an image",
        "Renders the template with the modifications and answers the image itself, as PNG, JPEG or "
        f"WebP. With `s3Config` the image is also written to the caller's bucket and its URL is in "
        f"`Content-Location`. {billed}",
        {
            "200": _response("The image, of the format asked for.", _images(), (*replay, "Content-Location")),
            **errors(*KEYED, *RENDERS, "FORBIDDEN", "CONFLICT"),
        },
        parameters=[idempotency],
        body=_body("ImageRequest", "What to render."),
    )
    create_pdf = _operation(
        "createPdf",
        "renders",
        "Render a PDF",
        "Renders the template with the modifications as a vector PDF with real, searchable text. "
        "Billed one generation; a repeat with the same `Idempotency-Key` is not.",
        {
            "200": _response("The PDF.", {"application/pdf": {"schema": _binary("application/pdf")}}, replay),
            **errors("BAD_REQUEST", "UNAUTHORIZED", "INTERNAL_SERVER_ERROR", "TOO_MANY_REQUESTS", *RENDERS, "CONFLICT"),
        },
        parameters=[idempotency],
        body=_body("PdfRequest", "What to render."),
    )
    create_stored_image = _operation(
        "createStoredImage",
        "renders",
        "Render an image and store it",
        "As createImage, but the image is stored and its URL answered: a signed URL of the server's "
        "storage that expires (a day by default), or with `s3Config` the `publicUrl` of the file in "
        f"the caller's bucket, else a presigned URL of it. {billed}",
        {
            "200": _response(
                "The stored image's URL.",
                _json(_schema("StoredUrl")),
                replay,
            ),
            **errors(
                "BAD_REQUEST",
                "UNAUTHORIZED",
                "INTERNAL_SERVER_ERROR",
                "TOO_MANY_REQUESTS",
                *RENDERS,
                "FORBIDDEN",
                "CONFLICT",
            ),
        },
        parameters=[idempotency],
        body=_body("StoredImageRequest", "What to render, and where to announce it."),
    )
    signed_url = _operation(
        "signedUrl",
        "renders",
        "Render an image from a signed URL",
        "A URL that can be handed out (in an `<img>`, an e-mail) without the API key: the parameters "
        "are signed with it. Take every parameter but `sign`, sort them by name, encode each name and "
        "value as `application/x-www-form-urlencoded` exactly as WHATWG URLSearchParams does (space as "
        "`+`; letters, digits and `*-._` kept; every other byte of the UTF-8 form as upper-case "
        "`%XX`, so `~` is `%7E`), join them as `name=value` with `&`; `sign` is the lower-case hex "
        "HMAC-SHA256 of that text with the API key as the HMAC key. Unsigned and plain-hash "
        "signatures are refused.\n\nAnswers carry `Cache-Control: public, max-age=86400` and an "
        "`ETag`; the server keeps the image for a day, so a repeat is neither rendered nor billed, "
        "and a request with the `ETag` in `If-None-Match` gets 304. `nocache=true` renders afresh "
        "and answers `Cache-Control: no-store`. A render is billed one generation unless `thumbnail` "
        "is true.",
        {
            "200": _response(
                "The image.", _images(), ("ETag", "Cache-Control", "X-Templatekit-Warnings", "Content-Location")
            ),
            "304": _response(
                "The image has not changed since the `ETag` in `If-None-Match`.", None, ("ETag", "Cache-Control")
            ),
            **errors("BAD_REQUEST", "INTERNAL_SERVER_ERROR", "RATE_LIMITED", *RENDERS, "FORBIDDEN"),
        },
        parameters=_signed_url_parameters(),
        keyless=True,
    )
    return {
        "/templates/createImage": {"post": create_image},
        "/templates/createPdf": {"post": create_pdf},
        "/templates/createStoredImage": {"post": create_stored_image},
        "/templates/signedurl": {"get": signed_url},
    }


def _signed_url_parameters() -> list[Json]:
    def query(name: str, schema: Json, description: str, required: bool = False) -> Json:
        return _param(name, "query", schema, description, required)

    hex_text = {"type": "string", "pattern": "^[0-9a-fA-F]+$"}
    md5 = query("apiKeyMd5", {**hex_text, "minLength": 32, "maxLength": 32}, "Legacy: the MD5 of the API key, in hex.")
    return [
        query(
            "apiKeyHashed",
            {**hex_text, "minLength": 64, "maxLength": 64},
            "The SHA-256 of the API key, in lower-case hex (or give `apiKeyMd5`).",
        ),
        {**md5, "deprecated": True},
        query("templateId", {"type": "string", "pattern": ID_PATTERN}, "The template to render.", True),
        query("format", _schema("ImageFormat"), "The image format."),
        query("modifications", _schema("ModificationsText"), "The modifications, as JSON text."),
        _query_flag("nocache", "Render afresh instead of answering the kept image"),
        _query_flag("thumbnail", THUMBNAIL),
        _query_flag("_debug", "Draw each layer's box and name on top"),
        query("s3Config", _schema("S3ConfigText"), "Write the image to this bucket too."),
        query("expires", {"type": "integer", "minimum": 0}, "When the URL stops working, in unix seconds."),
        query("sign", {**hex_text, "minLength": 64, "maxLength": 64}, "The HMAC-SHA256 of the other parameters.", True),
        _param("If-None-Match", "header", {"type": "string"}, "The `ETag` of an earlier answer: 304 when it matches."),
    ]


def _video_paths(errors: _ErrorResponses) -> Json:
    stream = _ref("parameters", "Stream")
    record = {
        "type": "object",
        "description": EVENTS_SCHEMA_TEXT,
        "required": ["event", "data"],
        "properties": {
            "event": {"enum": list(EVENT_TYPES)},
            "data": _json_text(_schema("VideoEvent"), "The event's JSON; its `type` is the event's name."),
        },
    }
    events = {"schema": record, "example": EVENTS_EXAMPLE}
    render_video = _operation(
        "renderVideo",
        "videos",
        "Render a video (beta)",
        "Beta, as the interface's specification labels it. Queues an MP4 (H.264) video of a video "
        "template. By default the answer waits for the video; "
        "`wait=false` answers 202 at once, `stream=true` streams its events. Videos are jobs that "
        "survive a restart of the server; follow one with getVideo. Billed `ceil(duration)` "
        "generations, twice that above 30 fps, once per video. An unknown or revoked key is "
        f"`BAD_REQUEST` here.\n\n{EVENTS_TEXT}",
        {
            "200": _response(
                "The finished video (or, with `stream=true`, its events).",
                {**_json(_schema("VideoDone")), "text/event-stream": events},
                ("X-Templatekit-Warnings",),
            ),
            "202": _response(
                "With `wait=false`: the video is queued.", _json(_schema("VideoQueued")), ("X-Templatekit-Warnings",)
            ),
            **errors(*KEYED, *RENDERS, "CONFLICT"),
        },
        parameters=[
            _ref("parameters", "IdempotencyKey"),
            stream,
            _query_flag("wait", "Wait for the video to finish; `false` answers 202 at once", True),
        ],
        body=_body("VideoRequest", "What to render."),
    )
    render_video["x-beta"] = True
    get_video = _operation(
        "getVideo",
        "videos",
        "Get a video",
        "A video of the key's project: its state, progress, and URL once done. With `stream=true` "
        "its events, starting with the latest, so a client whose connection dropped resumes "
        f"without rendering again.\n\n{EVENTS_TEXT}",
        {
            "200": _response(
                "The video (or, with `stream=true`, its events).",
                {**_json(_schema("Video")), "text/event-stream": events},
            ),
            **errors(*KEYED, "NOT_FOUND", "FORBIDDEN"),
        },
        parameters=[_param("video_id", "path", {"type": "string"}, "The video's id, `vid_…`."), stream],
    )
    return {"/templates/renderVideo": {"post": render_video}, "/videos/{video_id}": {"get": get_video}}


def _template_paths(errors: _ErrorResponses) -> Json:
    get_template = _operation(
        "getTemplate",
        "templates",
        "Get a template's layers",
        "The template's name, id and layers, with what each layer suggests as input.",
        {"200": _response("The template.", _json(_schema("TemplateDetails"))), **errors(*KEYED, "NOT_FOUND")},
        parameters=[
            _param("template_id", "path", {"type": "string", "pattern": ID_PATTERN}, "The template's id."),
        ],
    )
    get_source = _operation(
        "getTemplateSource",
        "templates",
        "Get a template's JSON",
        "The template as stored, in the template format: the current version, or the one `version` names.",
        {
            "200": _response("The template.", _json(_schema("Template"))),
            **errors(*KEYED, "NOT_FOUND"),
        },
        parameters=[
            _param("template_id", "path", {"type": "string", "pattern": ID_PATTERN}, "The template's id."),
            _param(
                "version",
                "query",
                {"type": "integer", "minimum": 1, "maximum": 2**31 - 1},
                "A version (1 is the first); default: current.",
            ),
        ],
    )
    list_templates = _operation(
        "listTemplates",
        "templates",
        "List the templates",
        "The templates of the key's workspace, oldest first.",
        {
            "200": _response("The templates.", _json({"type": "array", "items": _schema("TemplateSummary")})),
            **errors(*KEYED),
        },
        parameters=[
            _query_flag("includeLayers", "Add each template's layers"),
        ],
    )
    create_template = _operation(
        "createTemplate",
        "templates",
        "Upload a template",
        "Stores a template in the key's workspace under its `id` (a new `tpl_…` id when it has "
        "none). An id that exists is `CONFLICT` unless `overwrite=true`, which stores a new version. "
        "Every `src` must be an http(s) URL or a data URI. Unknown fields are kept and reported in "
        "`X-Templatekit-Warnings`. Needs the `templates:write` scope.",
        {
            "201": _response(
                "The template is stored.",
                _json(_schema("Created")),
                ("X-Templatekit-Warnings",),
            ),
            **errors(*KEYED, "FORBIDDEN", "CONFLICT"),
        },
        parameters=[
            _ref("parameters", "IdempotencyKey"),
            _query_flag("overwrite", "Replace a template of the same id, as a new version"),
        ],
        body=_body("Template", "The template, in the template format; `apiKey` may be one of its fields."),
    )
    template_path = _param("template_id", "path", {"type": "string", "pattern": ID_PATTERN}, "The template's id.")
    writing = (*KEYED, "FORBIDDEN", "NOT_FOUND", "CONFLICT")
    new_version = _response(
        "The new version is current; renders use it at once.",
        _json(_schema("NewVersion")),
    )
    update_template = _operation(
        "updateTemplate",
        "templates",
        "Update a template",
        "Stores the body as a new version of the template (needs the `templates:write` scope). With "
        "`If-Match: <version>`, only if that is the current version: `CONFLICT` otherwise, so that two "
        "editors cannot overwrite each other's changes.",
        {"200": new_version, **errors(*writing)},
        parameters=[
            template_path,
            _ref("parameters", "IdempotencyKey"),
            _param(
                "If-Match",
                "header",
                {"type": "string", "pattern": '^("?[0-9]{1,10}"?|\\*)$'},
                "The version edited (the ETag its read gave), or `*` for any.",
            ),
        ],
        body=_body("Template", "The template, in the template format; its `id`, if any, must be the path's."),
    )
    delete_template = _operation(
        "deleteTemplate",
        "templates",
        "Delete a template",
        "Renders of it then answer `NOT_FOUND`; its versions are kept for 30 days, and storing its id "
        "again continues its version numbers (needs the `templates:write` scope).",
        {"204": _response("Deleted."), **errors(*KEYED, "FORBIDDEN", "NOT_FOUND")},
        parameters=[template_path],
    )
    revert_template = _operation(
        "revertTemplate",
        "templates",
        "Revert a template",
        "Makes an earlier version current again, as a new version noted `reverted to version N` "
        "(needs the `templates:write` scope).",
        {"200": new_version, **errors(*writing)},
        parameters=[template_path, _ref("parameters", "IdempotencyKey")],
        body={
            "required": True,
            "description": "The version to bring back.",
            "content": _json(_schema("RevertRequest")),
        },
    )
    list_versions = _operation(
        "listTemplateVersions",
        "templates",
        "List a template's versions",
        "Every version of the template, newest first, with when it was made and why.",
        {
            "200": _response("The versions.", _json({"type": "array", "items": _schema("TemplateVersion")})),
            **errors(*KEYED, "NOT_FOUND"),
        },
        parameters=[template_path],
    )
    return {
        "/templates": {"get": list_templates, "post": create_template},
        "/templates/{template_id}": {"get": get_template, "put": update_template, "delete": delete_template},
        "/templates/{template_id}/source": {"get": get_source},
        "/templates/{template_id}/versions": {"get": list_versions},
        "/templates/{template_id}/revert": {"post": revert_template},
    }


def _hook_paths(errors: _ErrorResponses) -> Json:
    call_hook = _operation(
        "callHook",
        "hooks",
        "Render through a hook",
        "A hook's secret URL renders its template without an API key: any JSON body, turned into "
        "modifications by the hook's map (or taken as the modifications when it has none). Hooks are "
        "made with `templatekit admin hook create`. A hook made with `--signature standard-webhooks` needs "
        "`webhook-id`, `webhook-timestamp` (within 5 minutes of the server's clock) and `webhook-signature: "
        "v1,<base64 HMAC-SHA256 of id.timestamp.body>`, and its signed id alone names the delivery; one made "
        "with `--secret-header NAME` needs `NAME: sha256=<hex HMAC-SHA256 of the raw body>`. Billed, "
        "rate-limited and idempotent as the same render with a key; `Idempotency-Key`, `webhook-id`, "
        "`X-Delivery-Id` or `X-GitHub-Delivery` makes a repeated delivery answer the first render. A map "
        "path giving more than 10,000 rows is BAD_REQUEST.",
        {
            "200": _response(
                "The stored file's URL (`--respond url`, the default), or the file itself (`--respond file`).",
                {
                    "application/json": {"schema": _schema("StoredUrl")},
                    **{
                        media: {"schema": {"type": "string", "contentMediaType": media}}
                        for media in (*IMAGE_TYPES, "application/pdf")
                    },
                },
                ("X-Templatekit-Warnings",),
            ),
            "202": _response(
                "A video hook: the video is queued.",
                _json(_schema("VideoQueued")),
            ),
            **errors(*KEYED, "NOT_FOUND", "CONFLICT", "USAGE_EXCEEDED", "FETCH_IMAGE_ERROR"),
        },
        parameters=[_param("token", "path", {"type": "string", "maxLength": 200}, "The hook's secret.")],
        body={"required": False, "description": "Any JSON.", "content": _json({})},
        keyless=True,
    )
    return {"/hooks/{token}": {"post": call_hook}}


#: The answer of previewTemplate with ``details=json``: its headers' values, whole.
PREVIEW_DETAILS: Json = {
    "type": "object",
    "required": ["warnings", "scans", "boxes", "textHeights", "cues"],
    "properties": {
        "warnings": {"type": "array", "items": {"type": "string"}, "description": "As `X-Templatekit-Warnings`."},
        "scans": {"type": "array", "items": {"type": "object"}, "description": "As `X-Templatekit-Scans`."},
        "boxes": {"type": "object", "description": "As `X-Templatekit-Boxes`."},
        "textHeights": {"type": "object", "description": "As `X-Templatekit-Text-Heights`."},
        "cues": {"type": "object", "description": "As `X-Templatekit-Cues`."},
        "image": {"type": "string", "format": "byte", "description": "With `image=true`: the image, in base64."},
        "mediaType": {"type": "string", "description": "With `image=true`: the image's type."},
        "omitted": {
            "type": "array",
            "items": {"type": "string"},
            "description": "With `image=true`: the details that would not fit in headers (empty when all would).",
        },
    },
}


def _editor_paths(errors: _ErrorResponses) -> Json:
    preview = _operation(
        "previewTemplate",
        "templates",
        "Render a template being designed",
        "Renders a template sent whole, not stored, as createImage renders it once saved (the same bytes): "
        "an editor's canvas. `time` shows a video template's frame at that moment. Free, so it needs the "
        "`templates:write` scope; it counts against the rate limit. A full-size PNG also says whether each "
        "code scans, in `X-Templatekit-Scans`; where layout placed the layers of frames is in "
        "`X-Templatekit-Boxes`; the height the box of cut text needs to show it all is in "
        "`X-Templatekit-Text-Heights`; an invalid template's problems are in `error.problems`. These "
        "headers hold 8 KB together: the warnings first (cut to 4 KB), then each of the others whole while it "
        "fits; one that does not is left out and named in `X-Templatekit-Omitted`. With `details=json` the "
        "answer is all of them, whole, as JSON, instead of the image; with `image=true` as well, the image "
        "too, in base64.",
        {
            "200": _response(
                "The image; with `details=json`, what its headers tell, whole.",
                {**_images(), **_json(PREVIEW_DETAILS)},
                (
                    "X-Templatekit-Warnings",
                    "X-Templatekit-Scans",
                    "X-Templatekit-Boxes",
                    "X-Templatekit-Text-Heights",
                    "X-Templatekit-Cues",
                    "X-Templatekit-Omitted",
                ),
            ),
            **errors(*KEYED, "FETCH_IMAGE_ERROR"),
        },
        parameters=[
            _param(
                "details",
                "query",
                {"type": "string", "enum": ["json"]},
                "`json`: answer what the headers tell (warnings, scans, boxes, text heights, cues) whole, as a "
                "JSON object, instead of the image: for details too large for the headers.",
            ),
            _param(
                "image",
                "query",
                {"type": "boolean"},
                "With `details=json`: the image too, in base64 in the JSON, so that one render answers both.",
            ),
        ],
        body=_body("PreviewRequest", "The template and how to render it."),
    )
    fonts = _operation(
        "listFonts",
        "templates",
        "List the bundled fonts",
        "The font families every template can use without a `fonts` entry, with their weights.",
        {"200": _response("The families.", _json({"type": "array", "items": _schema("FontFamily")})), **errors(*KEYED)},
    )
    return {"/templates/preview": {"post": preview}, "/fonts": {"get": fonts}}


_BINARY_STRING: Json = {"type": "string", "format": "binary"}


def _asset_paths(errors: _ErrorResponses) -> Json:
    asset_path = _param("asset_id", "path", {"type": "string", "pattern": "^ast_[0-9a-f]{16,64}$"}, "The asset's id.")
    kinds = (
        "images (PNG, JPEG, WebP, GIF, SVG), fonts (TTF, OTF, WOFF2), clips (MP4, WebM), "
        "audio (MP3, AAC, WAV, Ogg), subtitles (SRT, WebVTT)"
    )
    upload = _operation(
        "uploadAsset",
        "assets",
        "Upload an asset",
        "Stores a file once for the workspace: any `src` of a template or a modification may then be "
        "`asset:ID`. The body is the file itself (its `Content-Type`, or `application/octet-stream`), or a "
        f"multipart form whose field `file` holds it; up to 20 MB. Its type is read from the bytes: {kinds}; "
        "anything else, or a `Content-Type` of another kind, is `BAD_REQUEST` naming what was found. The id "
        "is the content's hash: the same bytes are the same asset. Needs the `templates:write` scope.",
        {"201": _response("The asset.", _json(_schema("Asset"))), **errors(*KEYED)},
        body={
            "required": True,
            "description": "The file.",
            # one content type: generated clients handle one well (a multipart form's field
            # `file` is taken too, as the description says)
            "content": {"application/octet-stream": {"schema": _BINARY_STRING}},
        },
    )
    list_assets = _operation(
        "listAssets",
        "assets",
        "List the assets",
        "The workspace's assets, newest first, each with the templates whose current version uses it.",
        {"200": _response("The assets.", _json({"type": "array", "items": _schema("AssetListed")})), **errors(*KEYED)},
    )
    get_asset = _operation(
        "getAsset",
        "assets",
        "Get an asset's bytes",
        "The file, with its media type; its `ETag` is its id, and it may be kept for good.",
        {
            "200": _response("The file, as its type.", {media: {"schema": _BINARY_STRING} for media in ASSET_TYPES}),
            **errors(*KEYED, "NOT_FOUND"),
        },
        parameters=[asset_path],
    )
    delete_asset = _operation(
        "deleteAsset",
        "assets",
        "Delete an asset",
        "Deletes the asset; `CONFLICT` naming the templates any of whose stored versions use it. Needs the "
        "`templates:write` scope.",
        {"204": {"description": "Deleted."}, **errors(*KEYED, "NOT_FOUND", "CONFLICT")},
        parameters=[asset_path],
    )
    return {
        "/assets": {"get": list_assets, "post": upload},
        "/assets/{asset_id}": {"get": get_asset, "delete": delete_asset},
    }


def _meta_paths(errors: _ErrorResponses) -> Json:
    internal = errors("INTERNAL_SERVER_ERROR")
    get_info = _operation(
        "getInfo",
        "meta",
        "Get the key's project",
        "The project the API key belongs to.",
        {"200": _response("The project.", _json(_schema("Project"))), **errors(*KEYED)},
    )
    liveness = _operation(
        "liveness",
        "meta",
        "Check that the server is up",
        "Answers as long as the server accepts requests; for load balancers and health checks.",
        {
            "200": _response("The server is up.", _json(_schema("Liveness"))),
            **internal,
        },
        keyless=True,
    )
    stored = {media_type: {"schema": _binary(media_type)} for media_type in (*EXTENSIONS, "application/octet-stream")}
    get_file = _operation(
        "getFile",
        "meta",
        "Download a stored file",
        "A file of the server's storage (a stored image, a video), for whoever has its URL: the URL's "
        "`sig` signs the path and `expires` with the server's secret. Video URLs do not expire.",
        {
            "200": _response(
                "The file.",
                stored,
                ("Cache-Control",),
            ),
            **errors("BAD_REQUEST", "NOT_FOUND", "INTERNAL_SERVER_ERROR"),
        },
        parameters=[
            _param("path", "path", {"type": "string"}, "The file's key in storage; it may contain `/`."),
            _param("expires", "query", {"type": "integer", "minimum": 0}, "When the URL expires, in unix seconds."),
            _param("sig", "query", {"type": "string"}, "The URL's signature.", True),
        ],
        keyless=True,
    )
    get_openapi = _operation(
        "getOpenApi",
        "meta",
        "Get this document",
        "The OpenAPI 3.1 document of the /v1 interface.",
        {"200": _response("The document.", _json({"type": "object"})), **internal},
        keyless=True,
    )
    return {
        "/info": {"get": get_info},
        "/liveness": {"get": liveness},
        "/files/{path}": {"get": get_file},
        "/openapi.json": {"get": get_openapi},
    }


# ------------------------------------------------------------------ components


def _schemas() -> Json:
    """The interface's bodies and the values they use, then the template format."""
    bodies = ModelSchema(special=VALUE_SCHEMAS)
    for cls in (*NAMED, *(message for _, message in WEBHOOK_EVENTS.values())):
        bodies.of(cls)
    for name, examples in EXAMPLES.items():
        bodies.definitions[name]["examples"] = examples
    events = {
        "description": "The `data` of one event of a video's event stream.",
        "oneOf": [bodies.of(cls) for cls in VIDEO_EVENTS],
    }
    model = ModelSchema()
    values = _values(modification_fields(model))
    template = _template(model)
    return {**bodies.definitions, **values, "VideoEvent": events, "Template": template, **_lenient(model.definitions)}


#: Sample requests, shown by documentation tools.
EXAMPLES: dict[str, list[Json]] = {
    "ImageRequest": [
        {"templateId": "tpl_social_card", "modifications": {"title": "Hello from templatekit"}},
        {"templateId": "tpl_social_card", "format": "webp", "thumbnail": True},
    ],
    "PdfRequest": [{"templateId": "tpl_invoice", "modifications": [{"name": "bill_to", "text": "Ada Lovelace"}]}],
    "VideoRequest": [{"templateId": "tpl_promo_video", "modifications": {"title": "Autumn collection"}}],
}


def _lenient(definitions: Json) -> Json:
    """The model's objects as the server reads them: a field this version does not know
    is kept (a stored template gives it back) or ignored, with a warning, not refused."""
    return {
        name: {**schema, "additionalProperties": True} if schema.get("additionalProperties") is False else schema
        for name, schema in definitions.items()
    }


def _values(fields: Json) -> Json:
    """The values request bodies read whole (``bodies.VALUE_SCHEMAS``): the forms of the
    modifications, an image format, a bucket, a webhook URL."""
    return {
        "ImageFormat": {
            "type": "string",
            "enum": list(IMAGE_FORMATS),
            "default": "png",
            "description": "The image format (`jpg` is accepted for `jpeg`; case does not matter).",
        },
        "Modification": _object(
            {"name": _text("The layer's name."), **fields},
            ["name"],
            "The fields to change on one layer, by the layer's field names; each is read as the template "
            "format reads it (docs/template-format.md), for the layer's kind. `null` means not set. A field "
            "the layer does not have is ignored, with a warning in `X-Templatekit-Warnings`.",
            additionalProperties=True,
        ),
        "LayerFields": _object(
            fields,
            description="The fields to change on the layer named by the key of a `ModificationMap`.",
            additionalProperties=True,
        ),
        "ModificationList": {"type": "array", "items": _schema("Modification"), "maxItems": MAX_MODIFICATIONS},
        "ModificationMap": {
            "type": "object",
            "maxProperties": MAX_MODIFICATIONS,
            "description": "Keyed by layer name: an object of fields, or a plain value for the layer's main field ("
            + ", ".join(f"{kind}: `{cls.MAIN_FIELD}`" for kind, cls in LAYER_KINDS.items() if cls.MAIN_FIELD)
            + ").",
            "additionalProperties": {
                "anyOf": [
                    _schema("LayerFields"),
                    {"type": "string"},
                    {"type": "number"},
                    {"type": "boolean"},
                    {"type": "null"},
                    {
                        "type": "array",
                        "items": {"type": "object", "additionalProperties": True},
                        "description": "Rows of a table, a chart or a key-value layer.",
                    },
                ]
            },
        },
        "ModificationsText": _json_text(
            {"anyOf": [_schema("ModificationList"), _schema("ModificationMap")]},
            "A list or object of modifications, as JSON text.",
        ),
        "Modifications": {
            "description": "What to change: a list of modifications, an object keyed by layer name, the JSON "
            "text of either, or null. Unknown layers and fields are ignored and listed in "
            "`X-Templatekit-Warnings`; a value that does not fit its field is `BAD_REQUEST`.",
            "oneOf": [
                _schema("ModificationList"),
                _schema("ModificationMap"),
                _schema("ModificationsText"),
                {"type": "null"},
            ],
        },
        "S3ConfigText": _json_text(_schema("S3Config"), "`S3Config` as JSON text."),
        "S3ConfigValue": {"oneOf": [_schema("S3Config"), _schema("S3ConfigText"), {"type": "null"}]},
        # no "format": "uri": a URL is checked by the server (scheme, host, addresses), and
        # the format makes fuzzers spend minutes generating URIs the check refuses anyway
        "WebhookUrl": _text(
            "Where this render's `render.done` or `video.done`/`video.failed` webhook is posted, besides the "
            "project's endpoints; signed with the project's request secret. An http(s) URL whose host "
            "resolves to public addresses only.",
            maxLength=webhooks.MAX_URL_CHARS,
        ),
    }


def _template(model: ModelSchema) -> Json:
    """The template format, from the model, with the interface's own fields."""
    schema = template_schema(model)
    key = _text("The API key (or send it as query `apiKey` or `Authorization: Bearer`; all that are sent must agree).")
    schema["properties"] = {"apiKey": key, **schema["properties"]}
    schema["properties"]["id"] = _text("The template's id; a new `tpl_…` id when absent.", pattern=ID_PATTERN)
    schema["description"] = (
        "A template in the template format (docs/template-format.md): canvas, fonts, background, optional "
        "video and audio, and the layer stack. Fields this version does not know are kept, with a warning."
    )
    schema["additionalProperties"] = True
    return schema


def _headers() -> Json:
    def header(description: str, schema: Json, required: bool = False) -> Json:
        return {"description": description, "required": required, "schema": schema}

    integer = {"type": "integer", "minimum": 0}
    return {
        "X-Request-Id": header(
            "The request's id, as in `error.requestId`; the client's own when it sent one.", {"type": "string"}, True
        ),
        "X-RateLimit-Limit": header("The key's rate limit, in requests a minute.", integer),
        "X-RateLimit-Remaining": header("Requests left in the current minute.", integer),
        "X-RateLimit-Reset": header(
            "When the oldest request of the current window leaves it (unix seconds): one more is allowed then.",
            integer,
        ),
        "Retry-After": header(
            "Seconds until the limit resets (`TOO_MANY_REQUESTS`, `USAGE_EXCEEDED`, `RATE_LIMITED`).", integer
        ),
        "X-Templatekit-Warnings": header(
            "The modifications (or template fields) that were ignored, as a JSON array, cut to 4 KB; absent when none.",
            _json_text({"type": "array", "items": {"type": "string"}}, "A JSON array of texts."),
        ),
        "X-Templatekit-Scans": header(
            "Whether each QR code and barcode scans, read back from the rendered pixels, as a JSON array of "
            "`{layer, scans, message}` (`scans` is null when the server has no reader); absent without codes.",
            _json_text({"type": "array", "items": {"type": "object"}}, "A JSON array of objects."),
        ),
        "X-Templatekit-Boxes": header(
            "The box layout gave each frame and each layer inside one, by name: `[x, y, width, height]` in the "
            "template's pixels from the canvas's top-left corner, before rotation; absent without frames.",
            _json_text(
                {
                    "type": "object",
                    "additionalProperties": {
                        "type": "array",
                        "items": {"type": "number"},
                        "minItems": 4,
                        "maxItems": 4,
                    },
                },
                "A JSON object of boxes.",
            ),
        ),
        "X-Templatekit-Omitted": header(
            "The headers of details left out because they did not fit in the 8 KB the details' headers hold "
            "together, by their names without `X-Templatekit-`, separated by commas (`Boxes,Text-Heights`); "
            "ask again with `details=json` for them. Absent when none was left out.",
            {"type": "string"},
        ),
        "X-Templatekit-Cues": header(
            "The cues of each visible captions layer, by name, as renders read them (its subtitle file included): "
            "`[start, end, text]` in seconds, the first 300, each text cut to 24 characters; absent without "
            "captions.",
            _json_text(
                {"type": "object", "additionalProperties": {"type": "array", "items": {"type": "array"}}},
                "A JSON object of cue lists.",
            ),
        ),
        "X-Templatekit-Text-Heights": header(
            "For each visible text layer whose text is cut (set at its size, without `autoFit` or `maxLines`), "
            "by name: the height in pixels its box would need to show all of it at its width; absent when "
            "no text is cut.",
            _json_text({"type": "object", "additionalProperties": {"type": "number"}}, "A JSON object of heights."),
        ),
        "Idempotent-Replayed": header(
            "`true` when the answer is the first answer to the same `Idempotency-Key`.",
            {"type": "string", "const": "true"},
        ),
        "Content-Location": header(
            "With `s3Config`: the image's URL in the caller's bucket.", {"type": "string", "format": "uri"}
        ),
        "ETag": header("The image's entity tag, for `If-None-Match`.", {"type": "string"}),
        "Cache-Control": header("How long the answer may be kept.", {"type": "string"}),
    }


def _examples() -> Json:
    docs = Settings().docs_url
    return {
        code: {"summary": when, "value": envelope(code, message, "req_0123456789abcdef01234567", docs)}
        for code, (when, message) in CODES.items()
    }


def _parameters() -> Json:
    return {
        "IdempotencyKey": _param(
            "Idempotency-Key",
            "header",
            {"type": "string", "minLength": 1, "maxLength": 255},
            "Makes the request safe to retry: a repeat with the same key within 24 h gets the first answer "
            "(images, PDFs and template writes marked `Idempotent-Replayed: true`; a video's repeat follows the "
            "same video) and is not rendered, stored or billed again. The same key with a different request, "
            "or while the first is still running past the render time limit, is `CONFLICT`. 1 to 255 "
            "printable ASCII characters.",
        ),
        "Stream": _query_flag("stream", "Answer the video's events as a `text/event-stream`"),
    }


INFO_TEXT = """\
Renders design templates (named layers, changed by modifications) into PNG, JPEG, WebP, PDF and MP4.

**Keys.** Send the API key as query `apiKey`, as body field `apiKey`, or as
`Authorization: Bearer <key>`; when several are sent they must agree. A body over 64 KB is read
further only once its key is known: send that key in the header or the query, or as one of the
body's first fields. A key sees the templates of its workspace, and the videos and files of its
own project.

**Errors.** Every failure answers `{"error": {"code", "docs", "message", "requestId"}}` (schema
`Error`) with the status of its code; several codes share a status, so look at `code`. The
request id is also in `X-Request-Id`.

**Limits.** Answers to requests with a key carry `X-RateLimit-Limit`, `X-RateLimit-Remaining`
and `X-RateLimit-Reset` (the key's limit a minute, a moving window); rate-limit and usage errors
carry `Retry-After`. A generation is one billable render;
thumbnails, cache hits and failed renders are not billed."""


WEBHOOK_TEXT = """Posted to the project's endpoints (`templatekit admin webhook add`) that
want the event, and to the `webhookUrl` of the request, per Standard Webhooks: headers
`webhook-id` (the same on every retry), `webhook-timestamp` (Unix seconds) and
`webhook-signature` (`v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed by the decoded
`whsec_` secret). Answer 2xx within 10 s; anything else is retried after 5 s, 30 s, 2 min,
15 min, 1 h and 6 h."""


def _webhooks() -> Json:
    """The events the server posts (OpenAPI 3.1 ``webhooks``)."""
    signed = [
        _param("webhook-id", "header", {"type": "string"}, "The message's id; deduplicate by it.", True),
        _param("webhook-timestamp", "header", {"type": "string"}, "When it was signed, Unix seconds.", True),
        _param("webhook-signature", "header", {"type": "string"}, "`v1,<base64 signature>`.", True),
    ]
    summaries = {
        "video.done": "A video is rendered.",
        "video.failed": "A video failed.",
        "render.done": "An image or PDF is stored (createStoredImage, or a hook answering its URL).",
    }
    return {
        event: {
            "post": {
                "operationId": event.replace(".", "_"),
                "summary": summaries[event],
                "description": WEBHOOK_TEXT,
                "parameters": signed,
                "requestBody": {
                    "required": True,
                    "content": {"application/json": {"schema": _schema(message.__name__)}},
                },
                "responses": {"200": {"description": "Received (any 2xx)."}},
            }
        }
        for event, (_, message) in WEBHOOK_EVENTS.items()
    }


@cache
def document() -> dict[str, Any]:
    """The document; built once, as it is the same for every request."""
    errors = _ErrorResponses()
    paths = {
        **_render_paths(errors),
        **_video_paths(errors),
        **_editor_paths(errors),
        **_template_paths(errors),
        **_asset_paths(errors),
        **_hook_paths(errors),
        **_meta_paths(errors),
    }
    return {
        "openapi": "3.1.0",
        "info": {"title": "templatekit", "version": "0.0.0", "description": INFO_TEXT},
        "servers": [{"url": "/v1"}],
        "security": [{"bearer": []}, {"apiKey": []}],
        "tags": [
            {"name": "renders", "description": "Images and PDFs."},
            {"name": "videos", "description": "Video jobs and their events."},
            {"name": "templates", "description": "The workspace's templates."},
            {"name": "assets", "description": "Files uploaded once, named by templates as `asset:ID`."},
            {"name": "hooks", "description": "Renders requested through secret URLs, without a key."},
            {"name": "meta", "description": "The project, the server, stored files and this document."},
        ],
        "paths": paths,
        "webhooks": _webhooks(),
        "components": {
            "schemas": _schemas(),
            "parameters": _parameters(),
            "headers": _headers(),
            "responses": errors.defined,
            "examples": _examples(),
            "securitySchemes": {
                "bearer": {"type": "http", "scheme": "bearer", "description": "`Authorization: Bearer <API key>`."},
                "apiKey": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "apiKey",
                    "description": "The API key as query `apiKey`.",
                },
            },
        },
    }
