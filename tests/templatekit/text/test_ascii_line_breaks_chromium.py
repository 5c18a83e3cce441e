"""Between two printable ASCII characters browsers break lines by a table of their own,
not by UAX #14 (Chromium's ``kAsciiLineBreakTable``): "A/B", "and/or", URL paths,
"Yes!!No" and "a|b" stay whole, "ABCD-1234" may break after its hyphen and "-5" may not.
A text wraps where Chromium wraps it."""

from __future__ import annotations

import html

import pytest

from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, typeset
from tests.templatekit.paint.test_effects_chromium import font_faces

SIZE = 20
WIDTH = 115


def our_lines(text: str, width: float = WIDTH) -> list[str]:
    return typeset(text, TextStyle(size=SIZE), FontBook.bundled(), width).text


@pytest.mark.parametrize(
    ("text", "lines"),
    [
        ("x aaaa/bbbb", ["x", "aaaa/bbbb"]),  # measured before: ["x aaaa/", "bbbb"]
        ("x aaaa/1234", ["x", "aaaa/1234"]),
        ("x aaaa!bbbb", ["x", "aaaa!bbbb"]),
        ("x aaaa|bbbb", ["x", "aaaa|bbbb"]),
        ("x aaaa}bbbb", ["x", "aaaa}bbbb"]),
        ("x aaaa-1234", ["x aaaa-", "1234"]),  # measured before: ["x", "aaaa-1234"]
        ("x aaaa-bbbb", ["x aaaa-", "bbbb"]),  # as before
    ],
)
def test_ascii_punctuation_breaks_as_browsers_break_it(text: str, lines: list[str]) -> None:
    assert our_lines(text) == lines


def test_a_url_stays_whole_after_its_slashes() -> None:
    """Chromium moves the URL to a line of its own rather than break it after a "/"."""
    lines = our_lines("Visit https://www.example.com/products/summer-sale today", 300)
    assert lines[0] == "Visit"


def chromium_lines(page, text: str) -> list[str]:
    """The text of each line Chromium makes of ``text`` in Inter, ``WIDTH`` px wide."""
    page.set_content(
        f"<!doctype html><html><head><meta charset=utf-8><style>{font_faces()} html,body{{margin:0}}"
        f" div{{width:{WIDTH}px;font:{SIZE}px/1.2 Inter;white-space:pre-wrap;overflow-wrap:break-word}}"
        f"</style></head><body><div>{html.escape(text)}</div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    tops = page.evaluate(
        """() => { const node = document.querySelector('div').firstChild, tops = [];
            for (let i = 0; i < node.length; i++) {
                const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
                tops.push(Math.round(range.getBoundingClientRect().top));
            }
            return tops; }"""
    )
    lines: dict[int, str] = {}
    for char, top in zip(text, tops, strict=True):
        lines[top] = lines.get(top, "") + char
    return [line.rstrip() for _, line in sorted(lines.items())]


@pytest.mark.slow
@pytest.mark.parametrize(
    "text",
    ["x aaaa/bbbb", "x aaaa/1234", "x aaaa!bbbb", "x aaaa|bbbb", "x aaaa}bbbb", "x aaaa-1234", "x a.(b) c?d e,[f]"],
)
def test_ascii_punctuation_breaks_as_in_chromium(page, text: str) -> None:
    assert our_lines(text) == chromium_lines(page, text)


def test_a_line_may_break_at_the_space_before_a_slash() -> None:
    """UAX #14 keeps " /" together (no break before a slash, even after a space); Chromium
    breaks at any space: the path starts a line of its own. Measured before:
    ["See docs/template-format.md", "or /usr/share/fonts/truetype/not", "o/NotoSans.ttf now"]."""
    text = "See docs/template-format.md or /usr/share/fonts/truetype/noto/NotoSans.ttf now"
    assert typeset(text, TextStyle(size=26), FontBook.bundled(), 400).text[1] == "or"
