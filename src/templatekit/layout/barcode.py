"""Barcode layers: bars centred in the box, the human-readable text under them.

python-barcode computes the module pattern only; the bars are whole pixels wide and
laid out here, so that the painters draw them crisply. Values are checked before
encoding, because the library silently trims or pads some of them (an EAN-13 with
a wrong check digit, an odd ITF length), which would print a code that scans as
something else than what the user asked for.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from typing import Any

from attrs import field, frozen

from templatekit.errors import ModificationError
from templatekit.layout.context import LayoutContext
from templatekit.layout.scene import Bars, Item, Rect
from templatekit.model.layers import BarcodeLayer
from templatekit.text.typeset import TextStyle, fit, place

QUIET_ZONE = 10  # modules of background on each side
TEXT_SIZE = 0.15  # font size of the human-readable line, as a share of the box height
TEXT_FONT = "Inter"
_LINE_HEIGHT = 1.2
_DARK = re.compile("1+")

RULES: dict[str, str] = {
    "code128": "Code 128 takes ASCII characters only (no accents, no emoji)",
    "code39": "Code 39 takes digits, capital letters A-Z, space and - . $ / + %",
    "ean13": "EAN-13 takes 12 digits (the 13th, a check digit, is computed) or 13 with a correct check digit",
    "ean8": "EAN-8 takes 7 digits (the 8th, a check digit, is computed) or 8 with a correct check digit",
    "upca": "UPC-A takes 11 digits (the 12th, a check digit, is computed) or 12 with a correct check digit",
    "isbn13": (
        "ISBN-13 takes 12 digits starting with 978, 9791 or 9798 (the 13th, a check digit, is computed) "
        "or 13 with a correct check digit; hyphens are allowed"
    ),
    "issn": (
        "ISSN takes 7 digits (the 8th, a check digit, is computed) or 8 with a correct check digit "
        "(0-9 or X); a hyphen is allowed, e.g. 0317-8471"
    ),
    "itf": "ITF (Interleaved 2 of 5) takes an even number of digits",
    "gs1_128": (
        "GS1-128 takes application identifiers in parentheses, each followed by its data, "
        "e.g. (01)09501101530003(17)250101"
    ),
}

# GS1 application identifiers of predefined length: first two digits -> length of AI + data.
# Any other element string ends with FNC1 when another one follows.
_GS1_FIXED = {
    "00": 20,
    "01": 16,
    "02": 16,
    "03": 16,
    "04": 18,
    "11": 8,
    "12": 8,
    "13": 8,
    "14": 8,
    "15": 8,
    "16": 8,
    "17": 8,
    "18": 8,
    "19": 8,
    "20": 4,
    "31": 10,
    "32": 10,
    "33": 10,
    "34": 10,
    "35": 10,
    "36": 10,
    "41": 16,
}
_GS1_ELEMENT = re.compile(r"\((\d{2,4})\)([\x21-\x27\x2a-\x7e]+)")
_FNC1 = "\xf1"


class _InvalidValue(ValueError):
    """A value the symbology cannot encode; ``detail`` adds to the general rule."""

    def __init__(self, detail: str | None = None) -> None:
        super().__init__(detail)
        self.detail = detail


@frozen
class Encoding:
    """What python-barcode is given: the code, its options, the text to print (``None``:
    the library's full code), and the library's symbology when it is not the layer's."""

    code: str
    options: dict[str, Any] = field(factory=dict)
    text: str | None = None
    library: str | None = None


@frozen
class BarcodePattern:
    modules: str  # one character per module, "1" for a dark one
    text: str  # the human-readable line


def _digits(value: str) -> bool:
    return value.isascii() and value.isdigit()


def _check_digit(digits: str) -> int:
    """The GS1 mod-10 check digit (EAN, UPC, ISBN-13): weights 3, 1, 3… from the right."""
    total = sum(int(d) * (3 if i % 2 == 0 else 1) for i, d in enumerate(reversed(digits)))
    return (10 - total % 10) % 10


def _gtin(value: str, length: int) -> str:
    """The digits without the check digit, after checking a given one."""
    if not _digits(value) or len(value) not in (length, length + 1):
        raise _InvalidValue
    if len(value) == length + 1 and int(value[-1]) != _check_digit(value[:-1]):
        raise _InvalidValue(f"the check digit of {value[:-1]} is {_check_digit(value[:-1])}, not {value[-1]}")
    return value[:length]


def _code128(value: str) -> Encoding:
    if not value.isascii():
        raise _InvalidValue
    return Encoding(value)


_CODE39 = frozenset("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ-. $/+%")


def _code39(value: str) -> Encoding:
    """Without the optional mod-43 check character, so that a scan gives back the value."""
    if any(char not in _CODE39 for char in value):
        raise _InvalidValue
    return Encoding(value, {"add_checksum": False})


def _ean13(value: str) -> Encoding:
    return Encoding(_gtin(value, 12))


def _ean8(value: str) -> Encoding:
    return Encoding(_gtin(value, 7))


def _upca(value: str) -> Encoding:
    return Encoding(_gtin(value, 11))


def _isbn13(value: str) -> Encoding:
    digits = value.replace("-", "")
    if not digits.startswith(("978", "9791", "9798")):
        raise _InvalidValue
    return Encoding(_gtin(digits, 12))


def _issn_check(digits: str) -> str:
    check = (11 - sum(int(d) * w for d, w in zip(digits, range(8, 1, -1), strict=True)) % 11) % 11
    return "X" if check == 10 else str(check)


def _issn(value: str) -> Encoding:
    """An ISSN is printed as the EAN-13 977 + its 7 digits + 00 (the library's ISSN class
    builds a broken EAN-13, so the EAN is made here)."""
    issn = value.replace("-", "").upper()
    if not _digits(issn[:7]) or len(issn) not in (7, 8):
        raise _InvalidValue
    if len(issn) == 8 and issn[7] != _issn_check(issn[:7]):
        raise _InvalidValue(f"the check digit of {issn[:7]} is {_issn_check(issn[:7])}, not {issn[7]}")
    return Encoding(f"977{issn[:7]}00", library="ean13")


def _itf(value: str) -> Encoding:
    """Narrow elements one module wide (wide ones 3), so that the quiet zone of
    ``QUIET_ZONE`` modules is the ten narrow widths that ITF asks for."""
    if not _digits(value) or len(value) % 2:
        raise _InvalidValue
    return Encoding(value, {"narrow": 1, "wide": 3})


def _gs1_128(value: str) -> Encoding:
    elements = [(m.group(1), m.group(2)) for m in _GS1_ELEMENT.finditer(value)]
    if not elements or "".join(f"({ai}){data}" for ai, data in elements) != value:
        raise _InvalidValue
    code = ""
    for index, (ai, data) in enumerate(elements):
        fixed = _GS1_FIXED.get(ai[:2])
        if fixed is not None and len(ai) + len(data) != fixed:
            raise _InvalidValue(f"({ai}) must be followed by {fixed - len(ai)} characters, not {len(data)}")
        last = index == len(elements) - 1
        code += ai + data + ("" if last or fixed is not None else _FNC1)
    return Encoding(code, text=value)


_ENCODINGS: dict[str, Callable[[str], Encoding]] = {
    "code128": _code128,
    "code39": _code39,
    "ean13": _ean13,
    "ean8": _ean8,
    "upca": _upca,
    "isbn13": _isbn13,
    "issn": _issn,
    "itf": _itf,
    "gs1_128": _gs1_128,
}


@lru_cache(maxsize=1024)
def barcode_pattern(symbology: str, value: str) -> BarcodePattern:
    """The modules and printed text of a value; raises ``_InvalidValue``."""
    import barcode  # python-barcode is imported on first use (start-up time)
    from barcode.errors import BarcodeError

    encoding = _ENCODINGS[symbology](value)
    try:
        kind = barcode.get_barcode_class(encoding.library or symbology)
        symbol = kind(encoding.code, writer=None, **encoding.options)
        modules = symbol.build()[0]
    except BarcodeError as error:
        raise _InvalidValue(str(error)) from None
    return BarcodePattern(modules, encoding.text or symbol.get_fullcode())


def layout(layer: BarcodeLayer, ctx: LayoutContext) -> list[Item]:
    pattern = _pattern(layer)
    total = len(pattern.modules) + 2 * QUIET_ZONE
    module = int(layer.width // total)
    if module < 1:
        raise ModificationError(
            f"layer {layer.name!r}: the {layer.symbology} barcode of {layer.barcode!r} is {total} modules "
            f"wide with its quiet zones, and needs at least 1 px per module; the box is {layer.width:g} px "
            f"wide, make it at least {total} px wide"
        )
    top, bottom = round(layer.y), round(layer.y + layer.height)
    text_height = round(layer.height * TEXT_SIZE * _LINE_HEIGHT) if layer.show_text else 0
    left = round(layer.x + (layer.width - len(pattern.modules) * module) / 2)
    bar_height = bottom - top - text_height
    rects = tuple(
        (left + run.start() * module, top, (run.end() - run.start()) * module, bar_height)
        for run in _DARK.finditer(pattern.modules)
    )
    items: list[Item] = [
        Rect(layer.x, layer.y, layer.width, layer.height, fill=layer.background),
        Bars(rects, layer.color),
    ]
    if layer.show_text:
        items.extend(_text(pattern.text, layer, ctx, bottom - text_height, text_height))
    return items


def _pattern(layer: BarcodeLayer) -> BarcodePattern:
    try:
        return barcode_pattern(layer.symbology, layer.barcode)
    except _InvalidValue as invalid:
        rule = RULES[layer.symbology] + (f"; {invalid.detail}" if invalid.detail else "")
        raise ModificationError(
            f"layer {layer.name!r}: {layer.barcode!r} is not a valid {layer.symbology} value: {rule}"
        ) from None


def _text(text: str, layer: BarcodeLayer, ctx: LayoutContext, top: float, height: float) -> list[Item]:
    """The human-readable line, made smaller if it is wider than the box."""
    size = height / _LINE_HEIGHT
    style = TextStyle(family=TEXT_FONT, size=size, color=layer.color, line_height=_LINE_HEIGHT)
    block = fit(text, style, ctx.fonts, layer.width, height, min_size=1, max_lines=1)
    return place(block, layer.x, top, layer.width, height, "center", "middle")
