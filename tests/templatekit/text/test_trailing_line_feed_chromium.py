"""A line feed that ends a text (``\\n`` from a form or a CSV cell, or ``<br>`` in
markup) ends its last line and starts none, as in CSS (a block's last forced break makes
no empty line box): bottom- and middle-aligned text sits where Chromium puts it, and a
hugging box is as tall as its lines. Blank lines inside the text stay."""

from __future__ import annotations

import html

import pytest

import templatekit as tk
from tests.conftest import layer, template
from tests.templatekit.text.baselines import chromium_baselines, our_baselines

pytestmark = pytest.mark.slow

SIZE = (460, 360)
BOX = {"x": 20, "y": 20, "width": 400, "height": 300}
#: px a baseline may be from Chromium's: Chromium rounds the ascent and the descent.
OFF = 1.0


@pytest.mark.parametrize(
    ("fields", "body", "css"),
    [
        ({"text": "Bottom line\n", "verticalAlign": "bottom"}, "Bottom line\n", "white-space:pre-wrap;margin-top:auto"),
        ({"text": "Middle\n", "verticalAlign": "middle"}, "Middle\n", "white-space:pre-wrap;margin:auto 0"),
        ({"text": "Two\nlines\n", "verticalAlign": "bottom"}, "Two\nlines\n", "white-space:pre-wrap;margin-top:auto"),
        ({"text": "Bottom<br>", "markup": True, "verticalAlign": "bottom"}, "Bottom<br>", "margin-top:auto"),
        # a blank line inside the text, and one of two line feeds at the end, stay
        (
            {"text": "One\n\nThree\n\n", "verticalAlign": "bottom"},
            "One\n\nThree\n\n",
            "white-space:pre-wrap;margin-top:auto",
        ),
    ],
)
def test_a_line_feed_at_the_end_makes_no_line_as_in_chromium(page, fields, body, css):
    """Measured before the fix: every such text drawn a line (36 px) higher than in
    Chromium when bottom-aligned, half a line when centred."""
    markup = body if "<br>" in body else html.escape(body)
    theirs = chromium_baselines(page, BOX, SIZE, markup, f"font-size:30px;line-height:1.2;{css}")
    assert our_baselines(BOX, SIZE, {"size": 30, **fields}) == pytest.approx(theirs, abs=OFF)


def test_a_hugging_text_that_ends_with_a_line_feed_is_as_tall_as_its_lines():
    card = {"type": "frame", "name": "f", "x": 0, "y": 0, "width": 300, "height": "hug", "layout": "column",
            "layers": [layer("text", "t", width="fill", height="hug", text="Hello\n", size=30)]}  # fmt: skip
    frame = tk.prepare(template(card, width=300, height=200)).template.layers[0]
    assert frame.height == pytest.approx(36)
