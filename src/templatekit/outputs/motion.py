"""The files a video template is written as: chosen by ``format`` or by the file's
extension, each with what it can carry (sound, transparency)."""

from __future__ import annotations

import os
from pathlib import Path

from attrs import frozen

from templatekit.model.template import VideoSettings


@frozen
class MotionFormat:
    name: str
    media_type: str
    sound: bool  # the soundtrack is kept (else dropped, with a warning)
    alpha: bool  # transparent where the template is, when its background is
    even_sides: bool  # frames as wide and high as even numbers (yuv420p), else the canvas's size


MOTION_FORMATS = {
    "mp4": MotionFormat("mp4", "video/mp4", sound=True, alpha=False, even_sides=True),
    "webm": MotionFormat("webm", "video/webm", sound=True, alpha=True, even_sides=True),
    "gif": MotionFormat("gif", "image/gif", sound=False, alpha=True, even_sides=False),
    "webp": MotionFormat("webp", "image/webp", sound=False, alpha=True, even_sides=False),
}
_NAMES = ", ".join(MOTION_FORMATS)
_EXTENSIONS = ", ".join(f".{name}" for name in MOTION_FORMATS)


def motion_format(path: str | os.PathLike[str] | None = None, format: str | None = None) -> MotionFormat:
    """The format ``format`` names, else the one ``path``'s extension names (MP4 without
    either); ``ValueError`` naming the supported ones for any other, or when the two
    disagree. With ``format`` given, a path whose extension names no format is written
    as that format (a scratch file's name)."""
    chosen = None
    if format is not None:
        chosen = MOTION_FORMATS.get(format.lower())
        if chosen is None:
            raise ValueError(f"format: a video is written as one of {_NAMES} (got {format!r})")
    if path is None:
        return chosen or MOTION_FORMATS["mp4"]
    suffix = Path(path).suffix.lower().lstrip(".")
    named = MOTION_FORMATS.get(suffix)
    if chosen is None:
        if named is None:
            raise ValueError(
                f"path: {os.fspath(path)}: a video is written as {_EXTENSIONS}, or give format"
                f" (got {suffix or 'no extension'!r})"
            )
        return named
    if named is not None and named is not chosen:
        raise ValueError(f"format: {format!r} differs from the extension of {os.fspath(path)}")
    return chosen


def frame_rate(video: VideoSettings, output: MotionFormat) -> int:
    """Frames a second of the file: the template's, at most what its format's settings
    allow (GIF and WebP)."""
    most = {"gif": video.gif.fps, "webp": video.webp.fps}.get(output.name, video.fps)
    return min(video.fps, most)
