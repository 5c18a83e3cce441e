"""An animated WebP file put together from frames encoded one by one, as the WebP
container specification lays it out: ``RIFF``/``WEBP``, a ``VP8X`` header (canvas size,
animation and alpha flags), ``ANIM`` (background and loop count), then one ``ANMF`` chunk
per frame holding that frame's own bitstream chunks (``ALPH`` and ``VP8``, or ``VP8L``).

libwebp's animation encoder (through FFmpeg or Pillow) encodes frames one after another
on one core; encoded as stills by the painting threads, the frames of a 720p video are
ready twice as fast. No Python package writes this container from encoded frames (Pillow
and FFmpeg encode the frames themselves), hence these few lines. The file is written as
frames come, its RIFF size filled in at the end.
"""

from __future__ import annotations

import os
import struct
from typing import BinaryIO

#: the chunks of a still WebP that carry its picture (``VP8X`` and metadata are left out)
PICTURE_CHUNKS = (b"ALPH", b"VP8 ", b"VP8L")
ANIMATION, ALPHA = 0x02, 0x10  # VP8X flags
NO_BLEND = 0x02  # ANMF flag: a frame replaces what it covers
VP8X_FLAGS_AT = 20  # after RIFF, its size, WEBP and the VP8X chunk's header


def picture_chunks(still: bytes) -> bytes:
    """The chunks of an encoded still WebP (``RIFF`` … ``WEBP``) that hold its picture."""
    if still[:4] != b"RIFF" or still[8:12] != b"WEBP":
        raise ValueError("not a WebP file")
    found = []
    at = 12
    while at + 8 <= len(still):
        fourcc, size = still[at : at + 4], struct.unpack("<I", still[at + 4 : at + 8])[0]
        end = at + 8 + size + (size & 1)
        if fourcc in PICTURE_CHUNKS:
            found.append(still[at:end])
        at = end
    return b"".join(found)


def _size(picture: bytes) -> tuple[int, int]:
    """The width and height a frame's picture chunks give (its VP8 or VP8L header)."""
    at = 0
    while at + 8 <= len(picture):
        fourcc, size = picture[at : at + 4], struct.unpack("<I", picture[at + 4 : at + 8])[0]
        data = picture[at + 8 : at + 8 + size]
        if fourcc == b"VP8 ":  # a key frame: start code, then 14-bit width and height
            width, height = struct.unpack("<HH", data[6:10])
            return width & 0x3FFF, height & 0x3FFF
        if fourcc == b"VP8L":  # signature byte, then 14-bit width - 1 and height - 1
            bits = int.from_bytes(data[1:5], "little")
            return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
        at += 8 + size + (size & 1)
    raise ValueError("a WebP frame without a VP8 or VP8L bitstream")


def _chunk(fourcc: bytes, data: bytes) -> bytes:
    return fourcc + struct.pack("<I", len(data)) + data + (b"\0" if len(data) & 1 else b"")


def _u24(value: int) -> bytes:
    return value.to_bytes(3, "little")


class AnimatedWebpFile:
    """Frames (their picture chunks, see ``picture_chunks``) each shown for a number of
    milliseconds at a place on the canvas (even x and y), replacing what they cover or
    laid over it, looping for ever."""

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, alpha: bool) -> None:
        self.file: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed by close() or abort()
        self.flags = ANIMATION | (ALPHA if alpha else 0)
        header = _chunk(b"VP8X", bytes([self.flags, 0, 0, 0]) + _u24(width - 1) + _u24(height - 1))
        header += _chunk(b"ANIM", bytes(4) + struct.pack("<H", 0))  # transparent background, loop for ever
        self.file.write(b"RIFF" + bytes(4) + b"WEBP" + header)

    def add(self, picture: bytes, milliseconds: int, x: int = 0, y: int = 0, blend: bool = False) -> None:
        """A frame; with ``blend`` laid over the canvas (where it is see-through the frame
        before shows), else replacing what it covers."""
        width, height = _size(picture)
        place = _u24(x // 2) + _u24(y // 2) + _u24(width - 1) + _u24(height - 1)
        self.file.write(_chunk(b"ANMF", place + _u24(milliseconds) + bytes([0 if blend else NO_BLEND]) + picture))
        if picture.startswith(b"ALPH"):
            self.flags |= ALPHA  # the container says so when any frame has an alpha

    def close(self) -> None:
        size = self.file.tell() - 8
        self.file.seek(4)
        self.file.write(struct.pack("<I", size))
        self.file.seek(VP8X_FLAGS_AT)
        self.file.write(bytes([self.flags]))
        self.file.close()

    def abort(self) -> None:
        self.file.close()
