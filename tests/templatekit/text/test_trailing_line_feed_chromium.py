"""A line feed that ends a text (``\\n`` from a form or a CSV cell, or ``<br>`` in
markup) ends its last line and starts none, as in CSS (a block's last forced break makes
no empty line box): bottom- and middle-aligned text sits where Chromium puts it, and a
hugging box is as tall as its lines. Blank lines inside the text stay."""

from __future__ import annotations

import html

import pytest

import templatekit as tk
from templatekit.font_file import hb_font
from templatekit.scene import GlyphRun, Group
from templatekit.text.fonts import FontBook
from tests.conftest import layer, template
from tests.templatekit.paint.test_effects_chromium import font_faces

pytestmark = pytest.mark.slow

SIZE = (460, 360)
BOX = {"x": 20, "y": 20, "width": 400, "height": 300}
#: px a baseline may be from Chromium's: Chromium rounds the ascent and the descent.
OFF = 1.0


def our_baselines(fields: dict[str, object]) -> list[float]:
    found: set[float] = set()

    def walk(items: tuple[object, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                walk(item.items)
            elif isinstance(item, GlyphRun):
                found.add(round(item.y, 3))

    walk(tk.prepare(template(layer("text", "t", **BOX, **fields), width=SIZE[0], height=SIZE[1])).scene.items)
    return sorted(found)


def chromium_baselines(page, body: str, css: str) -> list[float]:
    """The baseline of each line with a letter on it, from its letters' boxes (the font's
    ascent and descent)."""
    face = hb_font(FontBook.bundled().match("Inter", 400, False).file)
    share = face.ascender / (face.ascender + face.descender)
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    page.set_content(
        f"<!doctype html><html><head><style>{font_faces()} html,body{{margin:0}}"
        f" #box{{position:absolute;left:{BOX['x']}px;top:{BOX['y']}px;width:{BOX['width']}px;"
        f"height:{BOX['height']}px;display:flex;flex-direction:column}}"
        f" #t{{font:30px/1.2 Inter;{css}}}</style></head>"
        f"<body><div id=box><div id=t>{body}</div></div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    boxes = page.evaluate(
        """() => { const walker = document.createTreeWalker(document.querySelector('#t'), NodeFilter.SHOW_TEXT);
            const tops = new Set();
            for (let node = walker.nextNode(); node; node = walker.nextNode())
                for (let i = 0; i < node.length; i++) {
                    if (!node.data[i].trim()) continue;
                    const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
                    const box = range.getBoundingClientRect(); tops.add(JSON.stringify([box.top, box.bottom]));
                }
            return [...tops].map(JSON.parse); }"""
    )
    return sorted({round(top + (bottom - top) * share, 3) for top, bottom in boxes})


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
    theirs = chromium_baselines(page, body if "<br>" in body else html.escape(body), css)
    assert our_baselines({"size": 30, **fields}) == pytest.approx(theirs, abs=OFF)


def test_a_hugging_text_that_ends_with_a_line_feed_is_as_tall_as_its_lines():
    card = {"type": "frame", "name": "f", "x": 0, "y": 0, "width": 300, "height": "hug", "layout": "column",
            "layers": [layer("text", "t", width="fill", height="hug", text="Hello\n", size=30)]}  # fmt: skip
    frame = tk.prepare(template(card, width=300, height=200)).template.layers[0]
    assert frame.height == pytest.approx(36)
