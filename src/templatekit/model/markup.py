"""Rich text written as a small, safe subset of HTML: ``b``/``strong``, ``i``/``em``,
``u``, ``s``, ``br`` and ``span style="…"`` with the properties of a span.

Tags and properties outside the subset are never interpreted: a tag that is not in it
is shown as the text it is written with, and a ``style`` property that is not in it is
an error, as are tags closed out of order, tags left open and attributes other than a
span's ``style``; every error names its position (the character offset in the text).
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from attrs import evolve, frozen

from templatekit.model.values import Color

#: Tags the subset has, and what each sets.
_TAG_STYLES = {
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


def parse_markup(text: str) -> tuple[Span, ...]:
    """The spans of ``text``, neighbours of the same style joined; ``MarkupError`` for
    markup the subset does not allow."""
    parser = _Parser(text)
    parser.feed(text)
    parser.close()
    parser.finish()
    return tuple(parser.spans)


class _Parser(HTMLParser):
    def __init__(self, text: str) -> None:
        super().__init__(convert_charrefs=True)
        self.source = text
        self.line_starts = [0] + [match.end() for match in re.finditer("\n", text)]
        self.stack: list[tuple[str, SpanStyle, int]] = []
        self.spans: list[Span] = []

    # -- where we are

    def position(self) -> int:
        line, column = self.getpos()
        return self.line_starts[line - 1] + column

    def fail(self, message: str) -> MarkupError:
        return MarkupError(f"markup at position {self.position()}: {message}")

    @property
    def style(self) -> SpanStyle:
        return self.stack[-1][1] if self.stack else SpanStyle()

    def add(self, text: str, style: SpanStyle | None = None) -> None:
        if not text:
            return
        style = self.style if style is None else style
        if self.spans and self.spans[-1].style == style:
            self.spans[-1] = Span(self.spans[-1].text + text, style)
        else:
            self.spans.append(Span(text, style))

    # -- what the parser finds

    def handle_data(self, data: str) -> None:
        self.add(data)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            if attrs:
                raise self.fail(f"<br> takes no attributes (got {attrs[0][0]!r})")
            self.add("\n")
            return
        if tag not in _TAG_STYLES:
            self.add(self.get_starttag_text() or f"<{tag}>")  # shown, not interpreted
            return
        style = evolve(self.style, **_TAG_STYLES[tag])  # type: ignore[arg-type]
        for name, value in attrs:
            if tag != "span" or name != "style":
                raise self.fail(f"<{tag}> does not take the attribute {name!r} (only <span> takes style)")
            style = self.declarations(value or "", style)
        self.stack.append((tag, style, self.position()))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.handle_starttag(tag, attrs)
        elif tag in _TAG_STYLES:
            raise self.fail(f"<{tag}/> is empty: write <{tag}>text</{tag}>")
        else:
            self.add(self.get_starttag_text() or f"<{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":
            self.add("\n")  # </br>, as browsers read it
            return
        if tag not in _TAG_STYLES:
            self.add(f"</{tag}>")
            return
        if not self.stack:
            raise self.fail(f"</{tag}> closes nothing")
        open_tag, _, _ = self.stack[-1]
        if open_tag != tag:
            raise self.fail(f"</{tag}> closes <{open_tag}>, which must be closed first")
        self.stack.pop()

    def handle_comment(self, data: str) -> None:
        self.add(f"<!--{data}-->")

    def handle_decl(self, decl: str) -> None:
        self.add(f"<!{decl}>")

    def handle_pi(self, data: str) -> None:
        self.add(f"<?{data}>")

    def unknown_decl(self, data: str) -> None:
        self.add(f"<![{data}]>")

    def finish(self) -> None:
        if self.rawdata:  # what the parser held back: a "<" that starts no tag
            self.add(self.rawdata)
            self.rawdata = ""
        if self.stack:
            tag, _, at = self.stack[-1]
            raise MarkupError(f"markup at position {at}: <{tag}> is not closed")

    # -- style attributes

    def declarations(self, css: str, style: SpanStyle) -> SpanStyle:
        for declaration in css.split(";"):
            if not declaration.strip():
                continue
            name, colon, value = declaration.partition(":")
            name, value = name.strip().lower(), value.strip()
            if not colon or not value:
                raise self.fail(f"style {declaration.strip()!r}: write property: value")
            if name not in PROPERTIES:
                raise self.fail(f"style property {name!r} is not one of {', '.join(PROPERTIES)}")
            try:
                style = evolve(style, **_property(name, value))  # type: ignore[arg-type]
            except ValueError as exc:
                raise self.fail(f"style {name}: {exc}") from None
        return style


def _property(name: str, value: str) -> dict[str, object]:
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
