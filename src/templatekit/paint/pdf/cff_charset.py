"""CID-keyed CFF subsets whose CIDs are their glyph ids.

A PDF's Identity-H codes are CIDs. For a CID-keyed CFF program, readers that follow
ISO 32000 §9.7.4.2 (MuPDF, Ghostscript) find a code's glyph through the program's
charset, others (poppler, PDFium) take the code for the glyph id. The page content
writes glyph ids, so the charset of the embedded subset is rewritten to map each CID
to the glyph of the same id: every reader then finds the same glyph. Done in place on
the subset's bytes (the charset of n glyphs always has room for the identity in one of
the three formats), without parsing or compiling the charstrings.
"""

from __future__ import annotations

import struct

_ROS = (12, 30)  # the Top DICT operator that makes a CFF program CID-keyed
_CHARSET = (15,)
_CHARSTRINGS = (17,)


def identity_charset(font: bytes) -> bytes:
    """``font`` (an OpenType file with CFF outlines) with the CFF's charset made the
    identity when the program is CID-keyed; the same bytes otherwise."""
    found = _cff_table(font)
    if found is None:
        return font
    start, length, record = found
    cff = bytearray(font[start : start + length])
    if not _patch(cff):
        return font
    patched = bytearray(font)
    patched[start : start + length] = cff
    struct.pack_into(">I", patched, record + 4, _checksum(bytes(cff)))
    return bytes(patched)


def _cff_table(font: bytes) -> tuple[int, int, int] | None:
    """(offset, length, directory record offset) of the 'CFF ' table."""
    if len(font) < 12:
        return None
    (count,) = struct.unpack_from(">H", font, 4)
    for index in range(count):
        record = 12 + 16 * index
        if record + 16 > len(font):
            return None
        tag, _, offset, length = struct.unpack_from(">4sIII", font, record)
        if tag == b"CFF ":
            return (offset, length, record) if offset + length <= len(font) else None
    return None


def _patch(cff: bytearray) -> bool:
    """Rewrite the charset of a CID-keyed CFF in place; whether it was one."""
    try:
        position = cff[2]  # header size
        _, position = _index(cff, position)  # Name INDEX
        top_dicts, position = _index(cff, position)
        if not top_dicts:
            return False
        start, end = top_dicts[0]
        top = _dict(cff, start, end)
        if _ROS not in top or _CHARSET not in top or _CHARSTRINGS not in top:
            return False
        glyphs = struct.unpack_from(">H", cff, int(top[_CHARSTRINGS][0]))[0]
        _write_identity(cff, int(top[_CHARSET][0]), glyphs)
    except (IndexError, struct.error, ValueError):
        return False
    return True


def _index(data: bytearray, position: int) -> tuple[list[tuple[int, int]], int]:
    """The (start, end) of each item of the INDEX at ``position``, and the offset after it."""
    (count,) = struct.unpack_from(">H", data, position)
    if count == 0:
        return [], position + 2
    size = data[position + 2]
    base = position + 3
    offsets = [int.from_bytes(data[base + i * size : base + (i + 1) * size], "big") for i in range(count + 1)]
    origin = base + (count + 1) * size - 1
    items = [(origin + offsets[i], origin + offsets[i + 1]) for i in range(count)]
    return items, origin + offsets[-1]


def _dict(data: bytearray, position: int, end: int) -> dict[tuple[int, ...], list[float]]:
    """A DICT's operators and their operands (real operands are skipped as 0)."""
    entries: dict[tuple[int, ...], list[float]] = {}
    operands: list[float] = []
    while position < end:
        byte = data[position]
        if byte <= 21:
            operator = (12, data[position + 1]) if byte == 12 else (byte,)
            position += 2 if byte == 12 else 1
            entries[operator] = operands
            operands = []
        elif byte == 28:
            operands.append(struct.unpack_from(">h", data, position + 1)[0])
            position += 3
        elif byte == 29:
            operands.append(struct.unpack_from(">i", data, position + 1)[0])
            position += 5
        elif byte == 30:
            position += 1
            while not (data[position] & 0x0F == 0x0F or data[position] >> 4 == 0x0F):
                position += 1
            position += 1
            operands.append(0)
        elif 32 <= byte <= 246:
            operands.append(byte - 139)
            position += 1
        elif 247 <= byte <= 250:
            operands.append((byte - 247) * 256 + data[position + 1] + 108)
            position += 2
        elif 251 <= byte <= 254:
            operands.append(-(byte - 251) * 256 - data[position + 1] - 108)
            position += 2
        else:
            raise ValueError(f"a DICT byte {byte} is reserved")
    return entries


def _charset_length(data: bytearray, position: int, glyphs: int) -> int:
    """How many bytes the charset at ``position`` takes for ``glyphs`` glyphs."""
    kind = data[position]
    if kind == 0:
        return 1 + 2 * (glyphs - 1)
    if kind not in (1, 2):
        raise ValueError(f"charset format {kind}")
    size = 1 if kind == 1 else 2
    covered, cursor = 1, position + 1
    while covered < glyphs:
        left = int.from_bytes(data[cursor + 2 : cursor + 2 + size], "big")
        covered += left + 1
        cursor += 2 + size
    return cursor - position


def _write_identity(data: bytearray, position: int, glyphs: int) -> None:
    """The identity charset (glyph i is CID i) over the charset at ``position``, in the
    format that fits its room: format 0 has as much room as its own identity, a one
    range format 1 covers at most 256 glyphs, for which a one range format 1 fits."""
    if glyphs < 2:
        return
    room = _charset_length(data, position, glyphs)
    if data[position] == 0:
        identity = bytes([0]) + b"".join(struct.pack(">H", cid) for cid in range(1, glyphs))
    elif room >= 5:
        identity = struct.pack(">BHH", 2, 1, glyphs - 2)
    else:
        identity = struct.pack(">BHB", 1, 1, glyphs - 2)
    data[position : position + len(identity)] = identity


def _checksum(table: bytes) -> int:
    padded = table + b"\0" * (-len(table) % 4)
    return sum(struct.unpack(f">{len(padded) // 4}I", padded)) & 0xFFFFFFFF
