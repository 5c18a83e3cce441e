"""An animated GIF with see-through pixels, put together from frames encoded one by one
(as ``webp_file`` does for WebP), as the GIF89a specification lays it out: the header
and the one palette of the animation, the ``NETSCAPE2.0`` extension that loops it, then
per frame a graphic control extension and the frame's image (its LZW data by Pillow).

FFmpeg's GIF encoder keeps each frame over the one before ("do not dispose") and uses
the transparent colour for the pixels that did not change, so that a pixel that becomes
see-through shows what was there. Here a frame is kept in the same way only when no
pixel it draws becomes see-through in the next; otherwise it is cleared after it is
shown ("restore to background", over a box that holds all that is drawn), and the next
holds all it draws. The file is written as frames come.
"""

from __future__ import annotations

import io
import os
import struct
from typing import BinaryIO

import numpy as np
from PIL import Image as PILImage

#: the palette index of see-through pixels
SEE_THROUGH = 255
NETSCAPE_LOOP = b"\x21\xff\x0bNETSCAPE2.0\x03\x01\x00\x00\x00"  # the application extension: loop for ever
# a graphic control extension's disposal methods: what becomes of a frame after it is shown
DO_NOT_DISPOSE = 1 << 2
RESTORE_TO_BACKGROUND = 2 << 2
HAS_TRANSPARENT_INDEX = 1


def image_block(indices: np.ndarray, palette: PILImage.Image, x: int, y: int) -> bytes:
    """A frame's image (descriptor, LZW code size and data sub-blocks) at (x, y), its
    palette the animation's: Pillow's still GIF of ``indices``, cut out of its file."""
    still = PILImage.fromarray(np.ascontiguousarray(indices), "P")
    still.putpalette(palette.getpalette() or [])
    encoded = io.BytesIO()
    still.save(encoded, format="GIF", optimize=False)
    data = encoded.getvalue()
    flags = data[10]
    at = 13 + (3 << ((flags & 7) + 1) if flags & 0x80 else 0)  # after the header and the global palette
    while data[at] == 0x21:  # extensions before the image: skipped
        at += 2
        while data[at]:
            at += data[at] + 1
        at += 1
    if data[at] != 0x2C:
        raise ValueError("no image in the GIF Pillow wrote")
    start = at
    local = data[at + 9]
    at += 10 + (3 << ((local & 7) + 1) if local & 0x80 else 0) + 1  # descriptor, its palette, LZW code size
    while data[at]:
        at += data[at] + 1
    block = bytearray(data[start : at + 1])
    block[1:5] = struct.pack("<HH", x, y)
    return bytes(block)


class SeeThroughGifFile:
    """Frames (see ``image_block``) each shown for a number of hundredths of a second,
    then kept or cleared to see-through, looping for ever."""

    def __init__(self, path: str | os.PathLike[str], width: int, height: int, colours: np.ndarray) -> None:
        self.file: BinaryIO = open(path, "wb")  # noqa: SIM115 - closed by close() or abort()
        table = np.zeros((256, 3), np.uint8)
        table[: len(colours)] = colours
        # a global palette of 256 colours (0xF7), the background its see-through index
        screen = b"GIF89a" + struct.pack("<HHBBB", width, height, 0xF7, SEE_THROUGH, 0)
        self.file.write(screen + table.tobytes() + NETSCAPE_LOOP)

    def add(self, block: bytes, centiseconds: int, cleared: bool) -> None:
        control = (RESTORE_TO_BACKGROUND if cleared else DO_NOT_DISPOSE) | HAS_TRANSPARENT_INDEX
        self.file.write(struct.pack("<BBBBHBB", 0x21, 0xF9, 4, control, centiseconds, SEE_THROUGH, 0) + block)

    def close(self) -> None:
        self.file.write(b"\x3b")
        self.file.close()

    def abort(self) -> None:
        self.file.close()
