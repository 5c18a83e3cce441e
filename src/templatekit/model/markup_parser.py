"""The reader of rich-text markup (``templatekit.model.markup`` says what it allows), in a
module of its own, imported where a text has markup: the HTML parser costs every new
process some milliseconds that a card without markup need not spend."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from attrs import evolve

from templatekit.model.markup import PROPERTIES, TAG_STYLES, MarkupError, Span, SpanStyle, span_property


def parse_markup(text: str) -> tuple[Span, ...]:
    """The spans of ``text``, neighbours of the same style joined; ``MarkupError`` for
    markup the subset does not allow."""
    parser = MarkupParser(text)
    parser.feed(text)
    parser.close()
    parser.finish()
    return tuple(parser.spans)


class MarkupParser(HTMLParser):
    """Reads markup into spans, refusing what the subset does not allow."""

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
        if tag not in TAG_STYLES:
            self.add(self.get_starttag_text() or f"<{tag}>")  # shown, not interpreted
            return
        style = evolve(self.style, **TAG_STYLES[tag])  # type: ignore[arg-type]
        for name, value in attrs:
            if tag != "span" or name != "style":
                raise self.fail(f"<{tag}> does not take the attribute {name!r} (only <span> takes style)")
            style = self.declarations(value or "", style)
        self.stack.append((tag, style, self.position()))

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "br":
            self.handle_starttag(tag, attrs)
        elif tag in TAG_STYLES:
            raise self.fail(f"<{tag}/> is empty: write <{tag}>text</{tag}>")
        else:
            self.add(self.get_starttag_text() or f"<{tag}/>")

    def handle_endtag(self, tag: str) -> None:
        if tag == "br":
            self.add("\n")  # </br>, as browsers read it
            return
        if tag not in TAG_STYLES:
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
                style = evolve(style, **span_property(name, value))  # type: ignore[arg-type]
            except ValueError as exc:
                raise self.fail(f"style {name}: {exc}") from None
        return style
