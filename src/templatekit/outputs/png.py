"""A PNG writer for 8-bit RGB and RGBA images: files as small as Pillow's, in a fraction
of its time.

Pillow's encoder tries the five PNG row filters on every row, keeps the one whose bytes
add up smallest, and deflates with zlib at level 6: about 25 ms for a 1200x630 card. That
heuristic serves photos, not designs: flat colour, text and gradients deflate best with
no filter at all, where deflate's matches find each letter, and each row of a slanted
gradient shifted, again; photos deflate best with the "Up" filter (each byte less the
byte above it). So the writer measures, in C through Pillow, how the image changes from
one row to the next: where smooth changes (photos) outweigh sharp ones (text, edges),
every row is Up-filtered, else none is. Pillow's raw encoder packs the rows, each
ahead of its filter byte, a few dozen kilobytes at a time into a buffer kept from the
image before; then libdeflate deflates them at level 7 (``level``): on the social card
a tenth smaller than zlib-ng's level 6, in a third more time, and half the time of
Pillow's ``save``.
"""

from __future__ import annotations

import struct
import threading
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import cast

import deflate
from PIL import Image, ImageChops

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPE = {"RGB": 2, "RGBA": 6}
_NONE, _UP = 0, 2
#: A change from one row to the next of at most this many levels (but more than one,
#: which a slanted gradient makes) is smooth, as in a photo; more is an edge.
SMOOTH = 16
#: One row in this many is compared with the row above it: enough to tell a photo.
SAMPLED = 8
#: Bytes the raw encoder packs at a time: a piece that stays in the processor's cache.
PACKED = 64 << 10
#: Buffers of rows kept for the next images: this many, of at most ``REUSED`` bytes each.
SPARES = 2
REUSED = 32 << 20
_SPARES: list[bytearray] = []
_SPARES_LOCK = threading.Lock()


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


def write_png(image: Image.Image, level: int = 7, *, drop_alpha: bool = False) -> bytes:
    """PNG bytes of an RGB or RGBA image (other modes: ``ValueError``); ``drop_alpha``
    writes an RGBA image as RGB (for an opaque one: a quarter fewer bytes to deflate);
    ``level`` is libdeflate's, 1 (fastest) to 12 (smallest)."""
    if image.mode not in _COLOUR_TYPE:
        raise ValueError(f"write_png takes RGB or RGBA images, not {image.mode}")
    mode = "RGB" if drop_alpha else image.mode
    width, height = image.size
    header = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPE[mode], 0, 0, 0)
    stride = width * len(mode) + 1
    size = stride * height
    with _kept_buffer(size + 1) as buffer:
        _pack_rows(image, mode, stride, buffer)
        padded = memoryview(buffer)[1 : size + 1]
        if _smooth(padded, stride, height):
            buffer[1 : size + 1] = _up_filtered(padded, stride, height)
            buffer[0] = _UP
        else:
            buffer[0] = _NONE
        # the rows as PNG stores them: the last pad byte is no row's filter
        idat = bytes(deflate.zlib_compress(memoryview(buffer)[:size], level))
    return _SIGNATURE + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def _pack_rows(image: Image.Image, mode: str, stride: int, buffer: bytearray) -> None:
    """Each row packed as ``mode`` and followed by a zero byte, written into ``buffer``
    from its second byte on: Pillow's raw encoder pads rows to ``stride`` with zeros, so
    each zero is the filter byte (0, none) of the row after it, and the byte before the
    first row is its own. The encoder hands over ``PACKED`` bytes at a time, each piece
    copied while it is still in the processor's cache: one buffer the size of the image
    would be new memory at every image, a page fault for every 4 KiB of it."""
    image.load()  # an image opened from a file is read only now
    encoder = Image._getencoder(image.mode, "raw", (mode, stride))
    at, piece = 1, max(stride, PACKED // stride * stride)  # whole rows: the encoder writes no part of one
    try:
        encoder.setimage(image.im, (0, 0, *image.size))
        while True:
            _, status, data = encoder.encode(piece)
            buffer[at : at + len(data)] = data
            at += len(data)
            if status:
                break
    finally:
        encoder.cleanup()
    if status < 0:
        raise RuntimeError(f"Pillow's raw encoder failed ({status})")


def _smooth(padded: memoryview, stride: int, height: int) -> bool:
    """Whether more bytes change smoothly from the row above (by 2 to ``SMOOTH``) than
    sharply (by more), on every ``SAMPLED``-th row: views of the bytes, no copy."""
    count = (height - SAMPLED) // SAMPLED
    if count < 1:
        return False
    step = stride * SAMPLED
    # Pillow reads any buffer; its stubs name bytes only
    rows = Image.frombuffer("L", (stride, count), cast(bytes, padded[step:]), "raw", "L", step, 1)
    above = Image.frombuffer("L", (stride, count), cast(bytes, padded[step - stride :]), "raw", "L", step, 1)
    counts = ImageChops.difference(rows, above).histogram()
    return sum(counts[2 : SMOOTH + 1]) > sum(counts[SMOOTH + 1 :])


def _up_filtered(padded: memoryview, stride: int, height: int) -> bytes:
    """The padded rows Up-filtered (each byte less the byte above it, modulo 256), the
    pad bytes, which the subtraction leaves zero, made the Up filter's byte (2)."""
    rows = Image.frombuffer("L", (stride, height), cast(bytes, padded), "raw", "L", 0, 1)
    above = Image.new("L", rows.size, 0)
    if height > 1:
        above.paste(rows.crop((0, 0, stride, height - 1)), (0, 1))
    filtered = ImageChops.subtract_modulo(rows, above)
    filtered.paste(_UP, (stride - 1, 0, stride, height))
    return filtered.tobytes()


@contextmanager
def _kept_buffer(size: int) -> Iterator[bytearray]:
    """A buffer of at least ``size`` bytes for the rows of one image: one kept from an
    image before when one is large enough (fresh memory of that size costs a page fault
    per 4 KiB, more than writing it), given back after."""
    buffer = _spare(size)
    try:
        yield buffer
    finally:
        _keep(buffer)


def _spare(size: int) -> bytearray:
    """A kept buffer of at least ``size`` bytes, else a new one."""
    with _SPARES_LOCK:
        for index, buffer in enumerate(_SPARES):
            if len(buffer) >= size:
                return _SPARES.pop(index)
    return bytearray(size)


def _keep(rows: bytearray) -> None:
    """Keep a buffer for the next image: at most ``SPARES`` of at most ``REUSED`` bytes
    each, the largest, whatever the number of threads writing."""
    if len(rows) > REUSED:
        return
    with _SPARES_LOCK:
        _SPARES.append(rows)
        _SPARES.sort(key=len, reverse=True)
        del _SPARES[SPARES:]
