"""What an uploaded file is, read from its bytes (``filetype`` for the binary formats;
SVG, SubRip and WebVTT are text and told apart here), and whether the type the client
named agrees. Only the kinds a template can use are taken: images, fonts, clips, audio
and subtitles."""

from __future__ import annotations

import io
import re
from typing import Any

from attrs import frozen

from templatekit.service import Problem, check_svg, extras, is_svg
from templatekit_server.errors import bad_request

#: filetype's name of a format -> (media type, kind); the formats taken.
BINARY = {
    "png": ("image/png", "image"),
    "jpg": ("image/jpeg", "image"),
    "webp": ("image/webp", "image"),
    "gif": ("image/gif", "image"),
    "ttf": ("font/ttf", "font"),
    "otf": ("font/otf", "font"),
    "woff": ("font/woff", "font"),
    "woff2": ("font/woff2", "font"),
    "mp4": ("video/mp4", "clip"),
    "m4v": ("video/mp4", "clip"),
    "webm": ("video/webm", "clip"),
    "mp3": ("audio/mpeg", "audio"),
    "aac": ("audio/aac", "audio"),
    "m4a": ("audio/mp4", "audio"),
    "wav": ("audio/wav", "audio"),
    "ogg": ("audio/ogg", "audio"),
}
#: The first part of the media types a client may name for each kind.
NAMED_AS = {
    "image": ("image",),
    "font": ("font", "application"),
    "clip": ("video", "application"),
    "audio": ("audio", "application"),
    "subtitles": ("text", "application"),
}
#: The names an image's own media type goes by: for pictures the client's Content-Type
#: must be one of them (another kind's type names are too varied to hold them to it:
#: font/otf for a TrueType file, audio/x-wav, text/plain for subtitles).
IMAGE_NAMES = {
    "image/png": ("image/png", "image/x-png", "image/apng"),
    "image/jpeg": ("image/jpeg", "image/jpg", "image/pjpeg"),
    "image/webp": ("image/webp",),
    "image/gif": ("image/gif",),
    "image/svg+xml": ("image/svg+xml", "image/svg"),
}
#: The pixels an SVG's embedded images may have (the server's render limit).
SVG_MAX_PIXELS = 50_000_000
_SRT_START = re.compile(rb"\A\s*\d+\s*\r?\n\s*\d{1,2}:\d{2}:\d{2}[,.]\d{3}\s*-->")


@frozen
class Sniffed:
    media_type: str
    kind: str  # image, font, clip, audio or subtitles


def sniffed(data: bytes, named: str | None) -> Sniffed:
    """What ``data`` is; BAD_REQUEST naming what was found when it is no kind a template
    uses, or when ``named`` (the request's Content-Type) says another kind."""
    found = _sniff(data)
    given = (named or "").split(";")[0].strip().lower()
    told = given and given not in ("application/octet-stream", "multipart/form-data")
    if told and found is not None and not _agrees(given, found):
        raise bad_request(f"Content-Type: {given} does not agree with the file, which is {found.media_type}")
    if found is None:
        raise bad_request(f"file: {_described(data)}; an asset must be an image, a font, a clip, audio or subtitles")
    if found.media_type == "image/svg+xml":
        try:
            check_svg(data, SVG_MAX_PIXELS)
        except Problem as problem:
            raise bad_request(f"file: {problem}") from None
    return found


def _agrees(given: str, found: Sniffed) -> bool:
    """Whether the type a client named fits the file: a picture's own type (by any of
    its names), or for other kinds a type of theirs."""
    if found.media_type in IMAGE_NAMES:
        return given in IMAGE_NAMES[found.media_type]
    return given == found.media_type or given.split("/")[0] in NAMED_AS[found.kind]


def _sniff(data: bytes) -> Sniffed | None:
    import filetype  # on the first upload

    kind = filetype.guess(data[:8192])
    if kind is not None:
        taken = BINARY.get(kind.extension)
        return None if taken is None else Sniffed(*taken)
    if is_svg(data):
        return Sniffed("image/svg+xml", "image")
    head = data[:4096].lstrip(b"\xef\xbb\xbf")
    if head.startswith(b"WEBVTT"):
        return Sniffed("text/vtt", "subtitles")
    if _SRT_START.match(head):
        return Sniffed("application/x-subrip", "subtitles")
    return None


def _described(data: bytes) -> str:
    """What an unaccepted file seems to be, for the error."""
    import filetype

    kind = filetype.guess(data[:8192])
    if kind is not None:
        return f"it is {kind.mime} (.{kind.extension})"
    if not data:
        return "it is empty"
    try:
        head = data[:4096].decode("utf-8")
    except UnicodeDecodeError:
        return "its type is not one known"
    if any(char < " " and char not in "\t\n\r" for char in head):  # control bytes: not text
        return "its type is not one known"
    return "it is text, but not SVG, SubRip or WebVTT"


def measured(data: bytes, found: Sniffed) -> dict[str, Any]:
    """What the answer says besides the type: an image's pixel size, a font's family."""
    if found.kind == "image" and found.media_type != "image/svg+xml":
        return _raster_size(data, found.media_type)
    if found.kind == "font":
        return _font_family(data, found.media_type)
    if found.kind in ("clip", "audio"):
        _check_media(data, found)
    return {}


def _font_family(data: bytes, media_type: str) -> dict[str, Any]:
    """A font's family name; BAD_REQUEST for a font that cannot be read or draws no
    character (a file with only a font's first bytes), as a render would refuse it."""
    from fontTools.ttLib import TTFont

    try:
        with TTFont(io.BytesIO(data), lazy=True) as font:
            characters = font.getBestCmap()
            family = font["name"].getBestFamilyName() if "name" in font else None
    except Exception as exc:  # noqa: BLE001 - fontTools fails in many ways on a damaged file
        raise bad_request(f"file: the {media_type} font cannot be read ({exc or type(exc).__name__})") from None
    if not characters:
        raise bad_request(f"file: the {media_type} font has no characters to draw")
    return {"family": family} if family else {}


def _check_media(data: bytes, found: Sniffed) -> None:
    """BAD_REQUEST for a file that only begins as a clip or a sound, or that holds
    nothing a video could use: pictures or sound in a clip (an MP4 of sound alone is a
    soundtrack), sound in audio. (Without the video extra, as under ``templatekit
    edit``, nothing plays it, and it is not read.)"""
    if extras.EXTRAS["video"].missing():
        return
    import av  # on the first clip or sound

    wanted = "pictures or sound" if found.kind == "clip" else "sound"
    try:
        with av.open(io.BytesIO(data), mode="r") as container:
            streams = [*container.streams.video, *container.streams.audio] if found.kind == "clip" else []
            streams = streams or list(container.streams.audio)
            usable = any(next(container.decode(stream), None) is not None for stream in streams)
    except (av.FFmpegError, OSError, ValueError) as exc:
        raise bad_request(f"file: the {found.media_type} file cannot be read ({exc})") from None
    if not usable:
        raise bad_request(f"file: the {found.media_type} file has no {wanted} to use")


def _raster_size(data: bytes, media_type: str) -> dict[str, Any]:
    """An image's pixel size; BAD_REQUEST for one that cannot be read (cut short, say)
    or that declares more pixels than a decoder is let make (a decompression bomb)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            width, height = image.size
            image.verify()  # the file's whole structure (a PNG's chunks and their checksums), without decoding
    except Image.DecompressionBombError as exc:
        raise bad_request(f"file: the {media_type} image is too large to decode ({exc})") from None
    except Image.UnidentifiedImageError:
        raise bad_request(f"file: it begins as {media_type} but cannot be read: cut short or damaged") from None
    except (OSError, SyntaxError, ValueError) as exc:  # Pillow's ways of saying the file is broken
        raise bad_request(f"file: the {media_type} image cannot be read ({exc or type(exc).__name__})") from None
    return {"width": width, "height": height}


#: The file name extension of each media type taken (for files kept beside a template).
EXTENSIONS = {
    "image/png": "png",
    "image/jpeg": "jpg",
    "image/webp": "webp",
    "image/gif": "gif",
    "image/svg+xml": "svg",
    "font/ttf": "ttf",
    "font/otf": "otf",
    "font/woff": "woff",
    "font/woff2": "woff2",
    "video/mp4": "mp4",
    "video/webm": "webm",
    "audio/mpeg": "mp3",
    "audio/aac": "aac",
    "audio/mp4": "m4a",
    "audio/wav": "wav",
    "audio/ogg": "ogg",
    "text/vtt": "vtt",
    "application/x-subrip": "srt",
}
