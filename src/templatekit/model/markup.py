"""Rich text written as a small, safe subset of HTML: ``b``/``strong``, ``i``/``em``,
``u``, ``s``, ``br`` and ``span style="…"`` with the properties of a span.

Tags and properties outside the subset are never interpreted: a tag that is not in it
is shown as the text it is written with, and a ``style`` property that is not in it is
an error, as are tags closed out of order, tags left open and attributes other than a
span's ``style``; every error names its position (the character offset in the text).
"""

from __future__ import annotations

import re

from attrs import frozen

from templatekit.model.values import Color

#: Tags the subset has, and what each sets.
TAG_STYLES = {
    "b": {"weight": 700},
    "strong": {"weight": 700},
    "i": {"italic": True},
    "em": {"italic": True},
    "u": {"underline": True},
    "s": {"strike": True},
    "span": {},
}
PROPERTIES = (
    "color",
    "background-color",
    "font-weight",
    "font-style",
    "font-size",
    "font-family",
    "letter-spacing",
    "text-decoration",
)
_LENGTH = re.compile(r"^(-?\d+(?:\.\d+)?)(px)?$")
_WEIGHTS = {"normal": 400, "bold": 700}
MAX_SIZE = 1000.0


class MarkupError(ValueError):
    """Markup outside the subset, or written wrong; the message names the position."""


@frozen
class SpanStyle:
    """What a span changes of its layer's text style; None keeps the layer's."""

    weight: int | None = None
    italic: bool | None = None
    color: Color | None = None
    size: float | None = None
    family: str | None = None
    letter_spacing: float | None = None
    underline: bool | None = None
    strike: bool | None = None
    highlight: Color | None = None


@frozen
class Span:
    text: str
    style: SpanStyle = SpanStyle()


def span_property(name: str, value: str) -> dict[str, object]:
    """The span fields a CSS property sets; ValueError naming the value when it is wrong."""
    lowered = value.lower()
    if name == "color":
        return {"color": Color.parse(value)}
    if name == "background-color":
        return {"highlight": None if lowered in ("none", "transparent") else Color.parse(value)}
    if name == "font-weight":
        weight = _WEIGHTS.get(lowered) or (int(value) if value.isdigit() else 0)
        if not 100 <= weight <= 900:
            raise ValueError(f"{value!r} is not normal, bold or a weight from 100 to 900")
        return {"weight": weight}
    if name == "font-style":
        if lowered not in ("normal", "italic", "oblique"):
            raise ValueError(f"{value!r} is not normal or italic")
        return {"italic": lowered != "normal"}
    if name == "font-family":
        family = value.split(",")[0].strip().strip("'\"")
        if not family:
            raise ValueError(f"{value!r} names no family")
        return {"family": family}
    if name == "text-decoration":
        words = set(lowered.split())
        if not words <= {"underline", "line-through", "none"} or ("none" in words and len(words) > 1):
            raise ValueError(f"{value!r} is not none, underline, line-through or both")
        return {"underline": "underline" in words, "strike": "line-through" in words}
    length = _LENGTH.match(lowered)
    if length is None:
        raise ValueError(f"{value!r} is not a length in px")
    number = float(length.group(1))
    if name == "font-size":
        if not 0 < number <= MAX_SIZE:
            raise ValueError(f"{value!r} must be more than 0 and at most {MAX_SIZE:g}px")
        return {"size": number}
    if abs(number) > MAX_SIZE:
        raise ValueError(f"{value!r} must be within ±{MAX_SIZE:g}px")
    return {"letter_spacing": number}
