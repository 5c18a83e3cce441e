"""Barcode layers: bars centred in the box with the quiet zones their standard asks
for, the human-readable text under them.

python-barcode computes the module pattern only (UPC-E is encoded here); the bars are
whole pixels wide and laid out here, so that the painters draw them crisply. Values are
checked before encoding, because the library silently trims or pads some of them (an
EAN-13 with a wrong check digit, an odd ITF length), which would print a code that
scans as something else than what the user asked for.

EAN and UPC codes are printed as GS1 specifies: their guard bars run down into the line
of digits, and the digits stand in groups under the halves of the code, with the first
(and for UPC the last) outside the bars.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from attrs import evolve, field, frozen

from templatekit.cache import memoized
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import BarcodeLayer
from templatekit.scene import Bars, Item, Rect
from templatekit.text.typeset import TextStyle, VAlign, fit, place, typeset

QUIET_ZONE = 10  # modules of background on each side, unless the symbology's geometry says otherwise
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
    "upce": (
        "UPC-E takes 6 digits (number system 0), 7 starting with the number system 0 or 1, "
        "or 8 with a correct check digit"
    ),
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
    modules: str | None = None  # the pattern, when it is made here rather than by the library


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


def _upce(value: str) -> Encoding:
    """Zero-suppressed UPC: the number system, six digits and the check digit of the
    UPC-A it stands for, the six in odd and even parity as the check digit says."""
    digits = "0" + value if _digits(value) and len(value) == 6 else value
    if not _digits(digits) or len(digits) not in (7, 8) or digits[0] not in "01":
        raise _InvalidValue
    check = _check_digit(_upce_as_upca(digits[:7]))
    if len(digits) == 8 and int(digits[7]) != check:
        raise _InvalidValue(f"the check digit of {digits[:7]} is {check}, not {digits[7]}")
    parities = _UPCE_PARITY[check] if digits[0] == "0" else _UPCE_PARITY[check].translate(_SWAP_PARITY)
    characters = "".join(
        (_EAN_ODD if parity == "O" else _EAN_EVEN)[int(digit)]
        for digit, parity in zip(digits[1:7], parities, strict=True)
    )
    return Encoding(digits[:7] + str(check), modules="101" + characters + "010101")


def _upce_as_upca(digits: str) -> str:
    """The 11 digits (without check digit) of the UPC-A that a UPC-E stands for."""
    system, body = digits[0], digits[1:7]
    last = body[5]
    if last in "012":
        return system + body[:2] + last + "0000" + body[2:5]
    if last == "3":
        return system + body[:3] + "00000" + body[3:5]
    if last == "4":
        return system + body[:4] + "00000" + body[4]
    return system + body[:5] + "0000" + last


# EAN/UPC symbol characters: odd parity (set A) and even parity (set B)
_EAN_ODD = (
    "0001101",
    "0011001",
    "0010011",
    "0111101",
    "0100011",
    "0110001",
    "0101111",
    "0111011",
    "0110111",
    "0001011",
)
_EAN_EVEN = (
    "0100111",
    "0110011",
    "0011011",
    "0100001",
    "0011101",
    "0111001",
    "0000101",
    "0010001",
    "0001001",
    "0010111",
)
# UPC-E with number system 0: the parity of the six digits, by check digit
_UPCE_PARITY = ("EEEOOO", "EEOEOO", "EEOOEO", "EEOOOE", "EOEEOO", "EOOEEO", "EOOOEE", "EOEOEO", "EOEOOE", "EOOEOE")
_SWAP_PARITY = str.maketrans("EO", "OE")


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
    "upce": _upce,
    "isbn13": _isbn13,
    "issn": _issn,
    "itf": _itf,
    "gs1_128": _gs1_128,
}


@memoized("barcode.patterns", 1024, lambda pattern: 200 + len(pattern.modules) + len(pattern.text), second_use=True)
def barcode_pattern(symbology: str, value: str) -> BarcodePattern:
    """The modules and printed text of a value; raises ``_InvalidValue``."""
    encoding = _ENCODINGS[symbology](value)
    if encoding.modules is not None:
        return BarcodePattern(encoding.modules, encoding.text or encoding.code)
    import barcode  # python-barcode is imported on first use (start-up time)
    from barcode.errors import BarcodeError

    try:
        kind = barcode.get_barcode_class(encoding.library or symbology)
        symbol = kind(encoding.code, writer=None, **encoding.options)
        modules = symbol.build()[0]
    except BarcodeError as error:
        raise _InvalidValue(str(error)) from None
    return BarcodePattern(modules, encoding.text or symbol.get_fullcode())


@frozen
class Geometry:
    """Where a symbology wants its quiet zones (modules left and right), which bars run
    down into the text (module ranges: guards, and UPC-A's first and last characters),
    and its digits: (index in the printed text, the module at their centre) under the
    bars, and the index of those printed left and right of the bars."""

    quiet: tuple[int, int] = (QUIET_ZONE, QUIET_ZONE)
    long_bars: tuple[tuple[int, int], ...] = ()
    digits: tuple[tuple[int, float], ...] = ()
    left: int | None = None
    right: int | None = None
    small_outside: bool = False  # UPC prints its outside digits smaller


def _under(first: int, count: int, start: int) -> tuple[tuple[int, float], ...]:
    """``count`` digits from text index ``first``, one under each 7-module character
    from module ``start``."""
    return tuple((first + k, start + 7 * k + 3.5) for k in range(count))


_EAN13 = Geometry((11, 7), ((0, 3), (45, 50), (92, 95)), _under(1, 6, 3) + _under(7, 6, 50), left=0)
GEOMETRY: dict[str, Geometry] = {
    "ean13": _EAN13,
    "isbn13": _EAN13,
    "issn": _EAN13,
    "ean8": Geometry((7, 7), ((0, 3), (31, 36), (64, 67)), _under(0, 4, 3) + _under(4, 4, 36)),
    "upca": Geometry(
        (9, 9), ((0, 10), (45, 50), (85, 95)), _under(1, 5, 10) + _under(6, 5, 50), 0, 11, small_outside=True
    ),
    "upce": Geometry((9, 7), ((0, 3), (45, 51)), _under(1, 6, 3), 0, 7, small_outside=True),
}


def layout(layer: BarcodeLayer, ctx: LayoutContext) -> list[Item]:
    pattern = _pattern(layer, ctx)
    geometry = GEOMETRY.get(layer.symbology, Geometry())
    total = geometry.quiet[0] + len(pattern.modules) + geometry.quiet[1]
    module = int(layer.width // total)
    if module < 1:
        raise ctx.layer_error(
            layer.name,
            f"layer {layer.name!r}: the {layer.symbology} barcode of {layer.barcode!r} is {total} modules "
            f"wide with its quiet zones, and needs at least 1 px per module; the box is {layer.width:g} px "
            f"wide, make it at least {total} px wide",
        )
    ctx.scan_warning(layer.name, layer.scan_problem())
    top, bottom = round(layer.y), round(layer.y + layer.height)
    text_height = round(layer.height * TEXT_SIZE * _LINE_HEIGHT) if layer.show_text else 0
    left = round(layer.x + (layer.width - total * module) / 2) + geometry.quiet[0] * module
    bar_height = bottom - top - text_height
    long_height = bar_height + text_height // 2 if geometry.digits else bar_height
    rects = tuple(
        (
            left + run.start() * module,
            top,
            (run.end() - run.start()) * module,
            long_height if _within(run.start(), geometry.long_bars) else bar_height,
        )
        for run in _DARK.finditer(pattern.modules)
    )
    items: list[Item] = [
        Rect(layer.x, layer.y, layer.width, layer.height, fill=layer.background),
        Bars(rects, layer.color),
    ]
    if layer.show_text and geometry.digits:
        items.extend(_gs1_digits(pattern.text, geometry, layer, ctx, (left, module, len(pattern.modules)), text_height))
    elif layer.show_text:
        items.extend(_text(pattern.text, layer, ctx, bottom - text_height, text_height))
    return items


def _within(module: int, ranges: tuple[tuple[int, int], ...]) -> bool:
    return any(start <= module < end for start, end in ranges)


def _pattern(layer: BarcodeLayer, ctx: LayoutContext) -> BarcodePattern:
    try:
        return barcode_pattern(layer.symbology, layer.barcode)
    except _InvalidValue as invalid:
        rule = RULES[layer.symbology] + (f"; {invalid.detail}" if invalid.detail else "")
        raise ctx.layer_error(
            layer.name, f"layer {layer.name!r}: {layer.barcode!r} is not a valid {layer.symbology} value: {rule}"
        ) from None


def _text(text: str, layer: BarcodeLayer, ctx: LayoutContext, top: float, height: float) -> list[Item]:
    """The human-readable line, made smaller if it is wider than the box."""
    size = height / _LINE_HEIGHT
    style = TextStyle(family=TEXT_FONT, size=size, color=layer.color, line_height=_LINE_HEIGHT)
    block = fit(text, style, ctx.fonts, layer.width, height, min_size=1, max_lines=1)
    return place(block, layer.x, top, layer.width, height, "center", "middle")


def _gs1_digits(
    text: str,
    geometry: Geometry,
    layer: BarcodeLayer,
    ctx: LayoutContext,
    bars: tuple[int, int, int],
    height: int,
) -> list[Item]:
    """EAN and UPC digits: each centred under its 7-module character, as large as the
    line's height allows and no wider than 6 modules; the outside ones in the quiet
    zones, a module away from the bars."""
    left, module, length = bars
    top = round(layer.y + layer.height) - height
    style = TextStyle(family=TEXT_FONT, size=height / _LINE_HEIGHT, color=layer.color, line_height=_LINE_HEIGHT)
    width = typeset("0", style, ctx.fonts, 1e6).width
    size = min(style.size, style.size * 6 * module / width)
    outside = evolve(style, size=size * (0.75 if geometry.small_outside else 1.0))
    settle: VAlign = "bottom" if geometry.small_outside else "middle"
    items: list[Item] = []
    if geometry.left is not None:  # drawn in reading order, so that PDF text comes out in it
        block = typeset(text[geometry.left], outside, ctx.fonts, 1e6)
        items.extend(place(block, left - module - block.width, top, block.width, height, "left", settle))
    for index, centre in geometry.digits:
        block = typeset(text[index], evolve(style, size=size), ctx.fonts, 1e6)
        x = left + centre * module - block.width / 2
        items.extend(place(block, x, top, block.width, height, "left", "middle"))
    if geometry.right is not None:
        block = typeset(text[geometry.right], outside, ctx.fonts, 1e6)
        items.extend(place(block, left + length * module + module, top, block.width, height, "left", settle))
    return items
