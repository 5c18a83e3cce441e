"""Value types shared by template and layers: colours, gradients, insets.

They are parsed once, when the template is loaded, so that layout and painting never
see a colour string.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal
from typing import ClassVar, Literal, NewType

from attrs import frozen
from PIL import ImageColor

from templatekit.model.checks import too_long

Source = NewType("Source", str)
"""Where a file comes from: a URL, a data URI, or a path relative to the template. Only
text is a source (a number is not coerced to text, as it is in text fields)."""

CellText = NewType("CellText", str)
"""A text that may be sent as a number, a boolean or null, written as a table's cell
writes it (a key-value row's value)."""

_HEX = re.compile(r"#([0-9a-fA-F]{3,4}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})")
#: The most characters of a colour or a length written as text: room for any CSS
#: spelling with spaces (``rgba(255, 255, 255, 0.5)``), refused unread beyond.
MAX_VALUE_TEXT = 100


@frozen
class Color:
    """An sRGB colour with alpha, each channel 0..255."""

    r: int
    g: int
    b: int
    a: int = 255

    TRANSPARENT: ClassVar[Color]

    @classmethod
    def parse(cls, text: str) -> Color:
        """Parse ``#rgb``, ``#rgba``, ``#rrggbb``, ``#rrggbbaa``, ``rgb()``, ``rgba()``,
        ``hsl()``, CSS named colours and ``transparent``. Raises ``ValueError``."""
        _within_limit(text)
        value = text.strip()
        if value.lower() == "transparent":
            return cls.TRANSPARENT
        if value.startswith("#") and not _HEX.fullmatch(value):
            raise ValueError(f"not a colour: {text!r}")
        parsed: tuple[int, ...] | None = _parse_css_function(value)
        if parsed is None:
            try:
                parsed = ImageColor.getrgb(value)
            except ValueError:
                raise ValueError(f"not a colour: {text!r}") from None
        red, green, blue, *alpha = parsed
        return cls(red, green, blue, alpha[0] if alpha else 255)

    @property
    def rgba(self) -> tuple[int, int, int, int]:
        return (self.r, self.g, self.b, self.a)

    @property
    def hex(self) -> str:
        """``#rrggbb``, or ``#rrggbbaa`` when not opaque."""
        text = f"#{self.r:02x}{self.g:02x}{self.b:02x}"
        return text if self.a == 255 else f"{text}{self.a:02x}"

    def with_alpha(self, factor: float) -> Color:
        return Color(self.r, self.g, self.b, round(self.a * factor))

    @property
    def luminance(self) -> float:
        """Relative luminance (WCAG 2), 0 for black to 1 for white; alpha ignored."""

        def linear(channel: int) -> float:
            c = channel / 255
            return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

        return 0.2126 * linear(self.r) + 0.7152 * linear(self.g) + 0.0722 * linear(self.b)

    def contrast(self, other: Color) -> float:
        """The WCAG contrast ratio of two opaque colours, 1 (none) to 21 (black on white)."""
        lighter, darker = sorted((self.luminance, other.luminance), reverse=True)
        return (lighter + 0.05) / (darker + 0.05)


Color.TRANSPARENT = Color(0, 0, 0, 0)


def number_as_text(value: float) -> str:
    """A JSON number as JavaScript's ``String(n)`` writes it, which is what a client that
    sent it expects to see: the shortest digits that read back as the same number,
    positional from 1e-6 up to 1e21 (1234567.5, not Python's "g" 1.23457e+06), integral
    floats without ".0"; an integer with all its digits."""
    if isinstance(value, int):
        return str(value)
    if not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if value == 0:
        return "0"
    if 1e-6 <= abs(value) < 1e21:
        text = format(Decimal(repr(value)), "f")  # repr's shortest digits, never binary noise
        return text.removesuffix(".0")
    mantissa, _, exponent = repr(value).partition("e")
    return f"{mantissa}e{int(exponent):+d}"  # no padded exponent: 1e-7, not 1e-07


def cell_text(value: str | float | bool | None) -> str:
    """How a table cell's value reads: null as nothing, booleans as Yes/No, numbers as
    ``number_as_text``."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    if isinstance(value, (int, float)):
        return number_as_text(value)
    return value


#: A number written as text, as JSON writes one (no "1_000", no digits of other scripts).
_NUMBER_TEXT = re.compile(r"\s*[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\s*")


def number_text(text: str) -> float:
    """The number ``text`` writes; ValueError for text that is no number as JSON writes
    one (Python's float() also reads "1_000", digits of other scripts, "inf" and "nan")."""
    if not _NUMBER_TEXT.fullmatch(text):
        raise ValueError(text)
    return float(text)


def _within_limit(text: str) -> None:
    if len(text) > MAX_VALUE_TEXT:
        raise ValueError(too_long(len(text), MAX_VALUE_TEXT))


_RGBA_FUNC = re.compile(r"rgba?\(\s*([^)]*)\)", re.IGNORECASE)


def _parse_css_function(value: str) -> tuple[int, int, int, int] | None:
    """``rgba(r, g, b, a)`` with a fractional alpha, which Pillow reads wrongly."""
    match = _RGBA_FUNC.fullmatch(value)
    if not match:
        return None
    parts = [p for p in re.split(r"[\s,/]+", match.group(1).strip()) if p]
    if len(parts) not in (3, 4):
        raise ValueError(f"not a colour: {value!r}")
    try:
        rgb = [_channel(p) for p in parts[:3]]
        alpha = _alpha(parts[3]) if len(parts) == 4 else 255
    except ValueError:
        raise ValueError(f"not a colour: {value!r}") from None
    return (rgb[0], rgb[1], rgb[2], alpha)


def _channel(part: str) -> int:
    number = float(part[:-1]) * 2.55 if part.endswith("%") else float(part)
    if not 0 <= number <= 255:
        raise ValueError(part)
    return round(number)


def _alpha(part: str) -> int:
    number = float(part[:-1]) / 100 if part.endswith("%") else float(part)
    if not 0 <= number <= 1:
        raise ValueError(part)
    return round(number * 255)


@frozen
class Gradient:
    """A gradient from one colour to another: linear, ``angle`` in degrees as in CSS
    (0 = bottom to top, 90 = left to right); or radial, from the box's centre (``from``)
    to its corners (``to``), as CSS's ``radial-gradient(ellipse farthest-corner)``."""

    from_: Color
    to: Color
    angle: float = 180
    kind: Literal["linear", "radial"] = "linear"


@frozen
class Insets:
    """Space inside a box, in px, CSS order."""

    top: float = 0
    right: float = 0
    bottom: float = 0
    left: float = 0

    @classmethod
    def parse(cls, value: float | list[float]) -> Insets:
        """A number, or a list of 1, 2 or 4 numbers as in CSS ``padding``."""
        values = value if isinstance(value, list) else [value]
        negative = next((number for number in values if number < 0), None)
        if negative is not None:
            raise ValueError(f"must be 0 or more, as in CSS (got {negative:g})")
        if len(values) == 1:
            return cls(values[0], values[0], values[0], values[0])
        if len(values) == 2:
            return cls(values[0], values[1], values[0], values[1])
        if len(values) == 4:
            return cls(*values)
        raise ValueError(f"needs 1, 2 or 4 numbers, got {len(values)}")


@frozen
class Length:
    """A length in px, or a percentage of a reference length (``"50%"``)."""

    value: float
    percent: bool = False

    @classmethod
    def parse(cls, value: float | str) -> Length:
        """A number of px, or text: px (``"12"``, ``"12px"``) or a percentage (``"50%"``);
        0 or more (a radius, a column's width)."""
        if isinstance(value, str):
            _within_limit(value)
            text = value.strip()
            percent = text.endswith("%")
            number = text[:-1] if percent else text.removesuffix("px")
            try:
                length = cls(number_text(number), percent=percent)
            except ValueError:
                raise ValueError(f'must be px or a percentage such as "50%" (got {value!r})') from None
        else:
            length = cls(float(value))
        if not length.value >= 0:
            raise ValueError(f"must be 0 or more (got {value if isinstance(value, str) else format(value, 'g')})")
        return length

    def resolve(self, reference: float) -> float:
        return self.value * reference / 100 if self.percent else self.value
