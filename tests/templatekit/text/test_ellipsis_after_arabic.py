"""A line of Arabic cut by ``maxLines``: the letter before the "…" takes its final form,
wider than the medial one it was measured in, so the cut line is measured again once
shaped. It stuck out of its box by up to 24 px at 20 px (a 55 px box drew 68 px)."""

from __future__ import annotations

import numpy as np
import pytest

import templatekit as tk
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, typeset
from tests.conftest import decode, layer, template

BOOK = FontBook.bundled()
ARABIC = "مرحبا بالعالم هذا نص عربي طويل جدا يجب أن يقطع"
SPANS = {
    "plain": ((ARABIC, TextStyle(size=20)),),
    "larger span last": ((ARABIC[:10], TextStyle(size=20)), (ARABIC[10:], TextStyle(size=34))),
    "larger span first": ((ARABIC[:20], TextStyle(size=34)), (ARABIC[20:], TextStyle(size=16))),
}


@pytest.mark.parametrize("spans", SPANS.values(), ids=SPANS.keys())
def test_a_cut_line_of_arabic_is_no_wider_than_its_box(spans):
    over = {}
    for width in range(40, 300, 3):
        block = typeset(spans, TextStyle(size=20), BOOK, width, max_lines=1)
        assert block.text[0].endswith("\u2026")
        if block.lines[0].width > width + 0.01:
            over[width] = round(block.lines[0].width - width, 1)
    assert over == {}


def test_the_ellipsis_after_arabic_is_drawn_inside_the_box():
    box = {"x": 100, "y": 20, "width": 55, "height": 40}
    text = layer("text", "t", **box, text=ARABIC, size=20, maxLines=1, color="#000000", align="right")
    image = decode(tk.render_image(template(text, width=260, height=80, background="#ffffff")).data)
    ink = np.nonzero((np.asarray(image.convert("L")) < 128).any(0))[0]
    assert ink.min() >= box["x"] and ink.max() < box["x"] + box["width"]  # was 89: 11 px out
