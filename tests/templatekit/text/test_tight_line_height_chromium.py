"""A line height below the font's ascent less its descent (about 0.73 for Inter: tight
headlines in capitals) keeps lines ``lineHeight`` apart, as CSS's ``line-height`` does:
each line's baseline where Chromium puts it, aligned top, middle or bottom."""

from __future__ import annotations

import pytest

import templatekit as tk
from templatekit.font_file import hb_font
from templatekit.scene import GlyphRun, Group
from templatekit.text.fonts import FontBook
from tests.conftest import layer, template
from tests.templatekit.paint.test_effects_chromium import font_faces

pytestmark = pytest.mark.slow

SIZE = (460, 400)
BOX = {"x": 20, "y": 20, "width": 400, "height": 340}
TEXT = "TIGHT HEADLINE TEXT IN CAPS WRAPS"
#: px a baseline may be from Chromium's: Chromium rounds the ascent and the descent.
OFF = 1.0


def our_baselines(fields: dict[str, object]) -> list[float]:
    """The baseline (y) of each line templatekit draws."""
    found: set[float] = set()

    def walk(items: tuple[object, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                walk(item.items)
            elif isinstance(item, GlyphRun):
                found.add(round(item.y, 3))

    card = template(layer("text", "t", **BOX, text=TEXT, **fields), width=SIZE[0], height=SIZE[1])
    walk(tk.prepare(card).scene.items)
    return sorted(found)


def chromium_baselines(page, css: str) -> list[float]:
    """The baseline of each line Chromium lays the text out in: a character's box is its
    font's ascent and descent, so the baseline is that far down it."""
    face = hb_font(FontBook.bundled().match("Inter", 400, False).file)
    share = face.ascender / (face.ascender + face.descender)
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    page.set_content(
        f"<!doctype html><html><head><style>{font_faces()} html,body{{margin:0}}"
        f" #box{{position:absolute;left:{BOX['x']}px;top:{BOX['y']}px;width:{BOX['width']}px;"
        f"height:{BOX['height']}px;display:flex;flex-direction:column;{css}}}</style></head>"
        f"<body><div id=box><div id=t style='font-family:Inter'>{TEXT}</div></div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    boxes = page.evaluate(
        """() => { const node = document.querySelector('#t').firstChild, tops = new Set();
            for (let i = 0; i < node.length; i++) {
                if (node.data[i] === ' ') continue;
                const range = document.createRange(); range.setStart(node, i); range.setEnd(node, i + 1);
                const box = range.getBoundingClientRect(); tops.add(JSON.stringify([box.top, box.bottom]));
            }
            return [...tops].map(JSON.parse); }"""
    )
    return sorted({round(top + (bottom - top) * share, 3) for top, bottom in boxes})


@pytest.mark.parametrize("line_height", [0.5, 0.6, 0.7])
@pytest.mark.parametrize(("vertical", "justify"), [("top", "flex-start"), ("middle", "center"), ("bottom", "flex-end")])
def test_tight_lines_are_line_height_apart_as_in_chromium(page, line_height, vertical, justify):
    """Measured before the fix, at 60 px: lines 36.8 px apart instead of 30 at 0.5 (the
    first line of a bottom-aligned text 27 px too high), 39.9 instead of 36 at 0.6."""
    css = f"justify-content:{justify};font-size:60px;line-height:{line_height}"
    theirs = chromium_baselines(page, css)
    mine = our_baselines({"size": 60, "lineHeight": line_height, "verticalAlign": vertical})
    assert len(mine) == len(theirs) == 4
    assert mine == pytest.approx(theirs, abs=OFF)
    steps = [b - a for a, b in zip(mine, mine[1:], strict=False)]
    assert steps == pytest.approx([60 * line_height] * 3, abs=0.01)
