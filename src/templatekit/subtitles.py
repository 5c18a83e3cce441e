"""Subtitle files (WebVTT and SRT) as cues, read by webvtt-py; and the words of a cue's
text with the moment each is spoken.

A cue's text is WebVTT cue text: ``<b>``, ``<i>`` and ``<u>`` style it, ``<c>``, ``<v>``,
``<lang>`` and ``<ruby>`` tags are dropped (their text kept; a ruby's annotation too),
entities are read, and a timestamp tag (``<00:00:01.200>``) says when the words after it
begin, as karaoke-style WebVTT (YouTube's, Whisper's word timings) writes them. Without
timestamps, words are spread over the cue by their length.
"""

from __future__ import annotations

import html
import io
import re

import webvtt
from attrs import frozen

from templatekit.assets.common import shown
from templatekit.errors import AssetError
from templatekit.model.layers import MAX_CUES, Cue

#: a cue's timing line: two timestamps (hours optional, SRT's comma or WebVTT's point)
_TIMING = re.compile(r"\s*((\d+:)?\d{2}:\d{2}[.,]\d{3})\s+-->\s+((\d+:)?\d{2}:\d{2}[.,]\d{3})(\s|$)")
#: a line meant as a timing: it begins with a number and its first word is before an arrow
_TIMED = re.compile(r"\s*\d\S*\s*-->")
_NOT_TIMING = (
    "{!r} is not a cue timing this reader understands"
    " (00:00:01,500 --> 00:00:03,000 in SRT, 00:01.500 --> 00:03.000 in WebVTT)"
)
#: a tag of cue text: a timestamp, or an element's start or end
_TAG = re.compile(r"<(?:(\d+:)?(\d{2}):(\d{2})\.(\d{3})|(/?)([a-z]+)[^>]*)>", re.IGNORECASE)
_STYLES = {"b": "bold", "i": "italic", "u": "underline"}
#: kept out of the text: a ruby's annotation
_DROPPED = {"rt"}


def read_subtitles(data: bytes, source: str) -> tuple[Cue, ...]:
    """The cues of a WebVTT file (it starts with ``WEBVTT``) or else of an SRT file;
    ``AssetError`` naming ``source`` (as errors show a source) when it is neither."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise AssetError(f"{source}: a subtitle file must be UTF-8 text", url=source) from None
    kind = "vtt" if text.lstrip().startswith("WEBVTT") else "srt"
    timings = _timing_lines(text, source)  # before reading: the reader passes over what it cannot read
    try:
        captions = webvtt.from_buffer(io.StringIO(text), format=kind)
    except (webvtt.errors.MalformedFileError, webvtt.errors.MalformedCaptionError, ValueError) as exc:
        raise AssetError(f"{source}: not a WebVTT or SRT file this reader understands ({exc})", url=source) from None
    cues = []
    read = iter(captions.captions)
    lines = text.splitlines()
    for number, line in timings:
        caption = next(read, None)
        start, end = _timing(line)
        if caption is None or (_seconds(caption.start_time), _seconds(caption.end_time)) != (start, end):
            # the reader passed over this cue: no text under it, or a timing it reads otherwise
            if number >= len(lines) or not lines[number].strip():
                raise AssetError(f"{source}: line {number}: a cue without text under its timing", url=source)
            raise AssetError(f"{source}: line {number}: {_NOT_TIMING.format(shown(line.strip()))}", url=source)
        if not caption.raw_text.strip():
            raise AssetError(f"{source}: line {number}: a cue without text under its timing", url=source)
        if end <= start:
            raise AssetError(f"{source}: line {number}: a cue must end after it starts ({line.strip()})", url=source)
        cues.append(Cue(start=start, end=end, text=caption.raw_text))
    return tuple(cues)


def _timing_lines(text: str, source: str) -> list[tuple[int, str]]:
    """The lines of the file that time a cue (a number, then ``-->``: cue text may hold
    an arrow of its own), numbered from 1; an ``AssetError`` naming the first that is not
    a timing, and for more than MAX_CUES."""
    found = [(number, line) for number, line in enumerate(text.splitlines(), start=1) if _TIMED.match(line)]
    if len(found) > MAX_CUES:
        raise AssetError(f"{source}: {len(found)} cues; a subtitle file has at most {MAX_CUES}", url=source)
    for number, line in found:
        if not _TIMING.match(line):
            raise AssetError(f"{source}: line {number}: {_NOT_TIMING.format(shown(line.strip()))}", url=source)
    return found


def _timing(line: str) -> tuple[float, float]:
    """The start and end a timing line gives, in seconds."""
    found = _TIMING.match(line)
    assert found is not None
    start, end = ([int(part) for part in re.split("[:.,]", stamp)] for stamp in found.group(1, 3))
    return _from_parts(start), _from_parts(end)


def _from_parts(parts: list[int]) -> float:
    *hours, minutes, seconds, millis = parts
    return (hours[0] if hours else 0) * 3600 + minutes * 60 + seconds + millis / 1000


def _seconds(stamp: webvtt.models.Timestamp) -> float:
    return stamp.hours * 3600 + stamp.minutes * 60 + stamp.seconds + stamp.milliseconds / 1000


@frozen
class Word:
    """A word of a cue (with the space before it, if any), its style, when it is spoken."""

    text: str
    space_before: bool
    bold: bool
    italic: bool
    underline: bool
    start: float


def words(cue: Cue) -> tuple[Word, ...]:
    """The words of the cue's text, each with the moment it begins: the timestamp before
    it, else its share of the cue by length."""
    found: list[tuple[str, bool, frozenset[str], float | None]] = []
    styles: list[str] = []
    stamp: float | None = None
    space = False
    for piece, tag in _pieces(cue.text):
        if tag is not None:
            closing, name, moment = tag
            if moment is not None:
                stamp = moment
            elif name in _STYLES or name in _DROPPED:
                if closing and name in styles:
                    styles.remove(name)
                elif not closing:
                    styles.append(name)
            continue
        if "rt" in styles:
            continue
        for part in re.split(r"(\s+)", html.unescape(piece)):
            if not part:
                continue
            if part.isspace():
                space = True
                continue
            found.append((part, space and bool(found), frozenset(styles), stamp))
            space, stamp = False, None
    return tuple(_timed(found, cue))


def _pieces(text: str) -> list[tuple[str, tuple[bool, str, float | None] | None]]:
    """The text between tags, and the tags: (closing, name, timestamp)."""
    pieces: list[tuple[str, tuple[bool, str, float | None] | None]] = []
    at = 0
    for match in _TAG.finditer(text):
        pieces.append((text[at : match.start()], None))
        hours, minutes, seconds, millis, slash, name = match.groups()
        if minutes is not None:
            moment = int((hours or "0:")[:-1]) * 3600 + int(minutes) * 60 + int(seconds) + int(millis) / 1000
            pieces.append(("", (False, "", moment)))
        else:
            pieces.append(("", (bool(slash), name.lower(), None)))
        at = match.end()
    pieces.append((text[at:], None))
    return pieces


def _timed(found: list[tuple[str, bool, frozenset[str], float | None]], cue: Cue) -> list[Word]:
    """Each word's start: its timestamp (kept within the cue), else the moment its share
    of the characters from the last timed word (or the cue's start) gives."""
    total = sum(len(text) for text, *_ in found) or 1
    spoken = 0
    result: list[Word] = []
    for text, space, styles, stamp in found:
        share = cue.start + (cue.end - cue.start) * spoken / total
        start = min(max(stamp, cue.start), cue.end) if stamp is not None else share
        if result and start < result[-1].start:
            start = result[-1].start
        result.append(Word(text, space, "b" in styles, "i" in styles, "u" in styles, start))
        spoken += len(text)
    return result


def plain_text(cue: Cue) -> str:
    """The cue's words without tags, as a person reads them."""
    return "".join((" " if word.space_before else "") + word.text for word in words(cue))
