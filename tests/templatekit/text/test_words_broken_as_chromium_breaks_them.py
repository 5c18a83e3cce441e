"""A word wider than its box is broken where its letters fit, and a line fits its room
as it fits in Chromium, which measures in 1/64 px and cuts a width's remainder: "lo" at
24 px in Inter is 20.011 px wide and fits a 20 px box there (it took a line per letter)."""

from __future__ import annotations

import html

import pytest

from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, typeset
from tests.templatekit.paint.test_effects_chromium import font_faces


def our_lines(text: str, width: float, size: float = 24) -> list[str]:
    return typeset(text, TextStyle(size=size), FontBook.bundled(), width).text


def test_a_line_a_hair_wider_than_its_room_fits() -> None:
    assert our_lines("epsilon", 20) == ["e", "p", "si", "lo", "n"]  # measured before: "l", "o" apart
    assert our_lines("lolo", 19.9) == ["l", "o", "l", "o"]  # a tenth of a pixel is too much


@pytest.mark.slow
@pytest.mark.parametrize(("text", "width"), [("epsilon epsilon", 20), ("lolo", 19.9), ("lolo", 20), ("kappa zeta", 30)])
def test_words_break_in_narrow_boxes_as_in_chromium(page, text: str, width: float) -> None:
    page.set_content(
        f"<!doctype html><html><head><meta charset=utf-8><style>{font_faces()} html,body{{margin:0}}"
        f" div{{width:{width}px;font:24px/1 Inter;overflow-wrap:break-word}}</style></head>"
        f"<body><div>{html.escape(text)}</div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    lines = page.evaluate("Math.round(document.querySelector('div').getBoundingClientRect().height / 24)")
    assert len(our_lines(text, width)) == lines
