"""PDF objects and the file around them (ISO 32000): values written as PDF syntax,
numbered indirect objects, and the cross-reference table.

Objects may be reserved before they are written (a font is named on a page before its
subset is known), and every number is written the same way each time, so that the
same document gives the same bytes.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from functools import lru_cache

from attrs import frozen
from zlib_ng import zlib_ng

COMPRESSION = 6  # zlib level of streams


@frozen
class Name:
    value: str

    def __str__(self) -> str:
        return _name(self.value)


@lru_cache(maxsize=1024)
def _name(value: str) -> str:
    """A name as PDF writes it; a document writes its few dozen names over and over."""
    escaped = "".join(c if c.isalnum() or c in "-_.+" else f"#{ord(c):02X}" for c in value)
    return f"/{escaped}"


@frozen
class Ref:
    number: int


@frozen
class Raw:
    """Text written as it is (an already formatted value)."""

    text: str


def number(value: float) -> str:
    """A number in as few characters as exactness to 1/10,000 allows."""
    if isinstance(value, int):
        return str(value)
    text = f"{value:.4f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


def literal(data: bytes) -> str:
    """A byte string as a PDF literal string."""
    out = data.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    out = out.replace(b"\r", b"\\r").replace(b"\n", b"\\n")
    return "(" + out.decode("latin-1") + ")"


def text_string(text: str) -> str:
    """A text string (metadata, ActualText): ASCII as it is, anything else as UTF-16BE."""
    if text.isascii() and text.isprintable():
        return literal(text.encode("ascii"))
    return "<FEFF" + text.encode("utf-16-be").hex().upper() + ">"


# None, bool, int, float, str, Name, Ref, Raw, and sequences and string-keyed mappings of them
Value = object


def serialise(value: Value) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return number(value)
    if isinstance(value, (Name, Raw)):
        return str(value) if isinstance(value, Name) else value.text
    if isinstance(value, Ref):
        return f"{value.number} 0 R"
    if isinstance(value, str):
        return text_string(value)
    if isinstance(value, Mapping):
        return "<<" + "".join(f"{Name(k)} {serialise(v)}" for k, v in value.items()) + ">>"
    if isinstance(value, Sequence):
        return "[" + " ".join(serialise(item) for item in value) + "]"
    raise TypeError(f"not a PDF value: {value!r}")


class Document:
    """Indirect objects, numbered in the order they are reserved."""

    def __init__(self) -> None:
        self._objects: list[bytes | None] = []

    def reserve(self) -> Ref:
        self._objects.append(None)
        return Ref(len(self._objects))

    def set(self, ref: Ref, value: Value) -> Ref:
        self._objects[ref.number - 1] = serialise(value).encode("latin-1")
        return ref

    def add(self, value: Value) -> Ref:
        return self.set(self.reserve(), value)

    def set_stream(self, ref: Ref, entries: Mapping[str, Value], data: bytes, compress: bool = True) -> Ref:
        """A stream object; compressed with Flate unless ``compress`` is False (data
        that is compressed already, such as a JPEG)."""
        if compress:
            data = zlib_ng.compress(data, COMPRESSION)
            entries = {**entries, "Filter": Name("FlateDecode")}
        head = serialise({**entries, "Length": len(data)}).encode("latin-1")
        self._objects[ref.number - 1] = head + b"\nstream\n" + data + b"\nendstream"
        return ref

    def add_stream(self, entries: Mapping[str, Value], data: bytes, compress: bool = True) -> Ref:
        return self.set_stream(self.reserve(), entries, data, compress)

    def write(self, root: Ref, info: Ref) -> bytes:
        """The file: header, objects, cross-reference table and trailer. The file id
        is a hash of the content, so that the same document gives the same bytes."""
        parts = [b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n"]
        offsets = []
        position = len(parts[0])
        for number, body in enumerate(self._objects, start=1):
            if body is None:
                raise ValueError(f"PDF object {number} was reserved and never written")
            chunk = b"%d 0 obj\n%s\nendobj\n" % (number, body)
            offsets.append(position)
            parts.append(chunk)
            position += len(chunk)
        digest = hashlib.md5(b"".join(parts), usedforsecurity=False).hexdigest().upper()
        table = [f"xref\n0 {len(offsets) + 1}\n0000000000 65535 f \n"]
        table += [f"{offset:010d} 00000 n \n" for offset in offsets]
        trailer = serialise(
            {"Size": len(offsets) + 1, "Root": root, "Info": info, "ID": [Raw(f"<{digest}>"), Raw(f"<{digest}>")]}
        )
        parts.append("".join(table).encode("ascii"))
        parts.append(f"trailer\n{trailer}\nstartxref\n{position}\n%%EOF\n".encode("ascii"))
        return b"".join(parts)
