"""The request and response bodies of /v1 as attrs classes: the routes read requests
through the library's one converter into them, and the OpenAPI document describes them
with the model's schema generator, so that what is published is what is read.

Values the interface reads its own way (flags that also come as text, an image format
with aliases, text that must be text, values a later step reads whole) are NewTypes with
a converter hook and a schema each (``VALUE_SCHEMAS``); the hooks' messages name the
value, and the reader (``inputs.read_as``) puts the field's name before them.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Literal, NewType

from attrs import frozen

from templatekit.service import MOTION_FORMATS, converter, field, shown_value
from templatekit_server.errors import STATUS

Json = dict[str, Any]

ID_PATTERN = "^[A-Za-z0-9_-]{1,200}$"
IMAGE_FORMATS = ("png", "jpeg", "webp")
FORMAT_ALIASES = {"jpg": "jpeg"}
THUMBNAIL = "Render a small preview (longest side 320 px, lower quality), not billed"
FLAG_NOTE = " (`true` or `false`; the text forms `1` and `0` are accepted too)."

#: A yes or no: a boolean, or its text form (``true``, ``false``, ``1``, ``0``).
Flag = NewType("Flag", bool)
#: Text that must come as a JSON string.
Text = NewType("Text", str)
#: A number that must come as a JSON number.
Number = NewType("Number", float)
#: A template's version number, 1 or more.
Version = NewType("Version", int)
MAX_VERSION = 2**31 - 1
#: An image format, any case, ``jpg`` for ``jpeg``.
ImageFormat = NewType("ImageFormat", str)
#: What a video is written as, any case.
VideoFormat = NewType("VideoFormat", str)
#: Values read whole by a later step, which names what is wrong with them.
Modifications = NewType("Modifications", object)
S3ConfigValue = NewType("S3ConfigValue", object)
WebhookUrl = NewType("WebhookUrl", object)
TemplateValue = NewType("TemplateValue", dict[str, Any])
#: An answer's URL (``format: uri``).
Url = NewType("Url", str)
#: A moment as ISO 8601 text (``format: date-time``).
Moment = NewType("Moment", str)


def _ref(name: str) -> Json:
    return {"$ref": f"#/components/schemas/{name}"}


VALUE_SCHEMAS: dict[Any, Json] = {
    Flag: {"type": "boolean"},
    Text: {"type": "string"},
    Number: {"type": "number"},
    Version: {"type": "integer", "minimum": 1},
    ImageFormat: _ref("ImageFormat"),
    VideoFormat: {
        "type": "string",
        "enum": list(MOTION_FORMATS),
        "description": "mp4 (H.264), webm (VP9, transparent where the template is), gif or webp (animated,"
        " looping, without sound).",
    },
    Modifications: _ref("Modifications"),
    S3ConfigValue: _ref("S3ConfigValue"),
    WebhookUrl: _ref("WebhookUrl"),
    TemplateValue: _ref("Template"),
    Url: {"type": "string", "format": "uri"},
    Moment: {"type": "string", "format": "date-time"},
}


def _flag(value: Any, _: Any) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false", "1", "0"):
        return value.lower() in ("true", "1")
    raise ValueError(f"must be true or false (got {shown_value(value)})")


def _text(value: Any, _: Any) -> str:
    if not isinstance(value, str):
        raise ValueError(f"must be a string (got {shown_value(value)})")
    return value


def _number(value: Any, _: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"must be a number (got {shown_value(value)})")
    return float(value)


def _version(value: Any, _: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_VERSION:
        raise ValueError(f"must be a version number, 1 or more (got {str(value)[:40]})")
    return value


def _image_format(value: Any, _: Any) -> str:
    text = _text(value, None).lower()
    text = FORMAT_ALIASES.get(text, text)
    if text not in IMAGE_FORMATS:
        raise ValueError(f"must be one of {', '.join(IMAGE_FORMATS)} (got {shown_value(value)})")
    return text


def _video_format(value: Any, _: Any) -> str:
    text = _text(value, None).lower()
    if text not in MOTION_FORMATS:
        raise ValueError(f"must be one of {', '.join(MOTION_FORMATS)} (got {shown_value(value)})")
    return text


def _template(value: Any, _: Any) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise ValueError(f"must be a template object (got {type(value).__name__})")
    return value


converter.register_structure_hook(Flag, _flag)
converter.register_structure_hook(Text, _text)
converter.register_structure_hook(Number, _number)
converter.register_structure_hook(Version, _version)
converter.register_structure_hook(ImageFormat, _image_format)
converter.register_structure_hook(VideoFormat, _video_format)
converter.register_structure_hook(TemplateValue, _template)
for _whole in (Modifications, S3ConfigValue, WebhookUrl):
    converter.register_structure_hook(_whole, lambda value, _: value)


def _described(text: str, **more: Any) -> Json:
    return {"schema": {"description": text, **more}}


def _flag_field(text: str, default: bool = False) -> Any:
    return field(default, schema={"description": f"{text}{FLAG_NOTE}"})


def _key() -> Any:
    return field(
        None,
        schema={
            "description": "The API key (or send it as query `apiKey` or `Authorization: Bearer`;"
            " all that are sent must agree).",
        },
    )


def _template_id(text: str = "The template to render.") -> Any:
    return field(schema={"description": text, "pattern": ID_PATTERN})


# ------------------------------------------------------------------ requests


@frozen(kw_only=True)
class PdfRequest:
    EXTRA_FIELDS_IGNORED: ClassVar[bool] = True

    api_key: Text | None = _key()
    template_id: Text = _template_id()
    modifications: Modifications = Modifications(None)
    _debug: Flag = _flag_field("Draw each layer's box and name on top")

    @property
    def debug(self) -> bool:
        """``_debug``: each layer's box and name drawn on top."""
        return self._debug


@frozen(kw_only=True)
class ImageRequest(PdfRequest):
    format: ImageFormat = ImageFormat("png")
    thumbnail: Flag = _flag_field(THUMBNAIL)
    s3_config: S3ConfigValue = S3ConfigValue(None)


@frozen(kw_only=True)
class SignedQuery(ImageRequest):
    """The query of a signed URL: createImage's fields as text, and ``nocache``."""

    nocache: Flag = _flag_field("Render afresh instead of answering the kept image")


@frozen(kw_only=True)
class StoredImageRequest(ImageRequest):
    webhook_url: WebhookUrl = WebhookUrl(None)


@frozen(kw_only=True)
class VideoRequest:
    EXTRA_FIELDS_IGNORED: ClassVar[bool] = True

    api_key: Text | None = _key()
    template_id: Text = _template_id("The video template to render.")
    modifications: Modifications = Modifications(None)
    webhook_url: WebhookUrl = WebhookUrl(None)
    format: VideoFormat = VideoFormat("mp4")


@frozen(kw_only=True)
class PreviewRequest:
    EXTRA_FIELDS_IGNORED: ClassVar[bool] = True

    api_key: Text | None = _key()
    template: TemplateValue
    modifications: Modifications = Modifications(None)
    format: ImageFormat = ImageFormat("png")
    thumbnail: Flag = _flag_field(THUMBNAIL)
    scale: Number = field(
        1.0,
        schema={
            "exclusiveMinimum": 0,
            "maximum": 1,
            "description": "Draws the image smaller: at the size a screen shows it, while dragging.",
        },
    )
    time: Number | None = field(None, schema={"minimum": 0, "description": "A video template's moment to show, in s."})


@frozen(kw_only=True)
class RevertRequest:
    EXTRA_FIELDS_IGNORED: ClassVar[bool] = True

    version: Version


@frozen(kw_only=True)
class S3Config:
    """The caller's S3 bucket (any S3-compatible service); pro and scale plans only. An
    upload failure is `INTERNAL_SERVER_ERROR`, and nothing is billed."""

    bucket: str = field(schema={"description": "The bucket.", "maxLength": 2048})
    region: str | None = field(None, schema={"description": "The bucket's region.", "maxLength": 2048})
    endpoint: str | None = field(
        None,
        schema={
            "description": "An S3-compatible service's URL (public addresses only).",
            "format": "uri",
            "maxLength": 2048,
        },
    )
    access_key_id: str = field(schema={"description": "The access key's id.", "maxLength": 2048})
    secret_access_key: str = field(schema={"description": "The access key's secret.", "maxLength": 2048})
    prefix: str | None = field(
        None, schema={"description": "A relative key prefix for the file, e.g. `renders/`.", "maxLength": 2048}
    )
    public_url: str | None = field(
        None,
        schema={
            "description": "The bucket's public base URL: the answer is this plus the key, else a presigned URL.",
            "format": "uri",
            "maxLength": 2048,
        },
    )


# ------------------------------------------------------------------ answers


@frozen(kw_only=True)
class ErrorDetail:
    code: str = field(schema={"enum": list(STATUS), "description": "What went wrong (see the responses)."})
    docs: Url = field(schema={"description": "Where the code is explained."})
    message: str = field(schema={"description": "What went wrong, naming the field or URL concerned."})
    request_id: str = field(schema={"description": "The request's id, also in the `X-Request-Id` header."})
    problems: tuple[str, ...] = field(
        (),
        schema={"description": "An invalid template's problems, one `path: message` each (`layers[2].size: …`)."},
    )


@frozen(kw_only=True)
class Error:
    """Every failure's body."""

    error: ErrorDetail


@frozen(kw_only=True)
class StoredUrl:
    url: Url = field(schema={"description": "The file's URL."})


@frozen(kw_only=True)
class Created:
    id: str = field(schema={"description": "The template's id."})


@frozen(kw_only=True)
class NewVersion:
    id: str = field(schema={"description": "The template's id."})
    version: int = field(schema={"minimum": 1})


@frozen(kw_only=True)
class VideoQueued:
    id: str = field(schema={"description": "The video's id."})
    status: Literal["queued"]


@frozen(kw_only=True)
class VideoDone:
    url: Url = field(schema={"description": "The MP4's URL; it does not expire."})
    id: str = field(schema={"description": "The video's id."})


@frozen(kw_only=True)
class Video:
    id: str = field(schema={"description": "The video's id, `vid_…`."})
    status: Literal["queued", "rendering", "done", "failed"]
    progress: float = field(schema={"minimum": 0, "maximum": 1, "description": "The share rendered."})
    url: Url | None = field(None, schema={"description": "When done: the MP4's URL."})
    error: ErrorDetail | None = field(None, schema={"description": "When failed: why."})
    created_at: Moment = field(schema={"description": "When it was queued."})


@frozen(kw_only=True)
class VideoCreated:
    """The video is queued."""

    type: Literal["created"]
    id: str = field(schema={"description": "The video's id."})


@frozen(kw_only=True)
class VideoWaiting:
    """It waits."""

    type: Literal["queued"]
    ahead: int = field(schema={"minimum": 0})


@frozen(kw_only=True)
class VideoProgress:
    """It renders."""

    type: Literal["progress"]
    frame: int = field(schema={"minimum": 0})
    total_frames: int = field(schema={"minimum": 0})
    progress: float = field(schema={"minimum": 0, "maximum": 1})


@frozen(kw_only=True)
class VideoFinished:
    """It is done."""

    type: Literal["done"]
    url: Url = field(schema={"description": "The MP4's URL."})


@frozen(kw_only=True)
class VideoFailed:
    """It failed."""

    type: Literal["error"]
    error: ErrorDetail


#: The `data` of each event of a video's event stream.
VIDEO_EVENTS = (VideoCreated, VideoWaiting, VideoProgress, VideoFinished, VideoFailed)


@frozen(kw_only=True)
class LayerInfo:
    name: str = field(schema={"description": "The layer's name, unique in the template."})
    id: str = field(schema={"description": "The layer's id (derived from its name when the template has none)."})
    type: str = field(
        schema={
            "description": "The layer's kind: text, image, shape, alert, signature, barcode, qrcode, star, table, …"
        }
    )
    suggest_input: str = field(schema={"description": "A sample of the layer's main field, as text."})
    path: str = field(
        "", schema={"description": "Where the layer is: `layers[2]`, or in a frame `layers[2].layers[0]`."}
    )


@frozen(kw_only=True)
class TemplateDetails:
    name: str = field(schema={"description": "The template's name."})
    id: str = field(schema={"description": "The template's id."})
    layers: tuple[LayerInfo, ...]


@frozen(kw_only=True)
class TemplateSummary:
    id: str = field(schema={"description": "The template's id."})
    name: str = field(schema={"description": "The template's name."})
    width: int = field(schema={"minimum": 1})
    height: int = field(schema={"minimum": 1})
    kind: Literal["image", "video"]
    layers: tuple[LayerInfo, ...] = field((), schema={"description": "With `includeLayers=true`."})


@frozen(kw_only=True)
class TemplateVersion:
    version: int = field(schema={"minimum": 1})
    created_at: Moment = field(schema={"description": "When it was stored."})
    note: str | None = field(schema={"description": "What made it, e.g. `reverted to version 2`."})


@frozen(kw_only=True)
class Project:
    id: str = field(schema={"description": "The project's id."})
    name: str = field(schema={"description": "The project's name."})
    created_at: Moment = field(schema={"description": "When it was created."})
    avatar: Url | None = field(schema={"description": "The avatar's URL, if any."})


@frozen(kw_only=True)
class FontFamily:
    family: str = field(schema={"description": "The family's name, as a layer's `font`."})
    weights: tuple[int, ...] = field(schema={"description": "Its weights."})
    italic: bool = field(schema={"description": "Whether it has italic faces."})


@frozen(kw_only=True)
class Liveness:
    status: Literal["ok"]


# ------------------------------------------------------------------ webhook messages


@frozen(kw_only=True)
class VideoDoneData:
    id: str = field(schema={"description": "The video's id."})
    url: Url = field(schema={"description": "The MP4's URL; it does not expire."})
    template_id: str = field(schema={"description": "The template's id."})
    duration: float = field(schema={"description": "Seconds."})


@frozen(kw_only=True)
class VideoFailedData:
    id: str = field(schema={"description": "The video's id."})
    error: ErrorDetail


@frozen(kw_only=True)
class RenderDoneData:
    url: Url = field(schema={"description": "The file's URL."})
    template_id: str = field(schema={"description": "The template's id."})
    format: Literal["png", "jpeg", "webp", "pdf"]


@frozen(kw_only=True)
class VideoDoneMessage:
    """The body of the `video.done` webhook."""

    type: Literal["video.done"]
    timestamp: Moment = field(schema={"description": "When the event happened."})
    data: VideoDoneData


@frozen(kw_only=True)
class VideoFailedMessage:
    """The body of the `video.failed` webhook."""

    type: Literal["video.failed"]
    timestamp: Moment = field(schema={"description": "When the event happened."})
    data: VideoFailedData


@frozen(kw_only=True)
class RenderDoneMessage:
    """The body of the `render.done` webhook."""

    type: Literal["render.done"]
    timestamp: Moment = field(schema={"description": "When the event happened."})
    data: RenderDoneData


WebhookData = VideoDoneData | VideoFailedData | RenderDoneData
WebhookMessage = VideoDoneMessage | VideoFailedMessage | RenderDoneMessage
#: Each event the server posts: its data and its message, by the event's name.
WEBHOOK_EVENTS: dict[str, tuple[type[WebhookData], type[WebhookMessage]]] = {
    "video.done": (VideoDoneData, VideoDoneMessage),
    "video.failed": (VideoFailedData, VideoFailedMessage),
    "render.done": (RenderDoneData, RenderDoneMessage),
}


#: The bodies published by name in the document's components.
@frozen(kw_only=True)
class Asset:
    """An uploaded file: what a template's ``src`` names as ``asset:ID``."""

    id: str = field(schema={"description": "`ast_` and the content's hash: the same bytes are one asset."})
    media_type: str = field(schema={"description": "Read from the bytes, e.g. `image/png`, `font/otf`."})
    size: int = field(schema={"minimum": 0, "description": "In bytes."})
    width: int | None = field(None, schema={"description": "An image's width in px."})
    height: int | None = field(None, schema={"description": "An image's height in px."})
    family: str | None = field(None, schema={"description": "A font's family name."})
    src: str = field(schema={"description": "What a template's `src` takes to use it: `asset:ID`."})


@frozen(kw_only=True)
class AssetListed:
    id: str
    media_type: str
    size: int = field(schema={"minimum": 0})
    width: int | None = None
    height: int | None = None
    family: str | None = None
    created_at: Moment
    used_by: tuple[str, ...] = field(schema={"description": "The templates whose current version uses it."})


NAMED = (
    Error,
    ErrorDetail,
    ImageRequest,
    StoredImageRequest,
    PdfRequest,
    VideoRequest,
    PreviewRequest,
    S3Config,
    VideoQueued,
    VideoDone,
    Video,
    LayerInfo,
    TemplateVersion,
    TemplateDetails,
    TemplateSummary,
    Project,
    FontFamily,
    StoredUrl,
    Created,
    NewVersion,
    RevertRequest,
    Liveness,
    Asset,
    AssetListed,
)
