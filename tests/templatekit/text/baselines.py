"""The baselines of a text's lines, as templatekit draws them (its Scene's glyph runs)
and as Chromium lays the same text out (its letters' boxes), for the Chromium
comparisons of text layout."""

from __future__ import annotations

from typing import Any

import templatekit as tk
from templatekit.font_file import hb_font
from templatekit.scene import GlyphRun, Group
from templatekit.text.fonts import FontBook
from tests.conftest import layer, template
from tests.templatekit.paint.test_effects_chromium import font_faces


def our_baselines(box: dict[str, float], size: tuple[int, int], fields: dict[str, Any]) -> list[float]:
    """The baseline (y) of each line of a text layer in ``box`` on a canvas of ``size``."""
    found: set[float] = set()

    def walk(items: tuple[Any, ...]) -> None:
        for item in items:
            if isinstance(item, Group):
                walk(item.items)
            elif isinstance(item, GlyphRun):
                found.add(round(item.y, 3))

    walk(tk.prepare(template(layer("text", "t", **box, **fields), width=size[0], height=size[1])).scene.items)
    return sorted(found)


def chromium_baselines(page: Any, box: dict[str, float], size: tuple[int, int], body: str, css: str) -> list[float]:
    """The baseline of each line with a letter on it of ``body`` (HTML) in Inter, in a
    column flexbox of ``box`` whose text element has the style ``css``: a letter's box is
    the font's ascent and descent, so the baseline is that far down it."""
    face = hb_font(FontBook.bundled().match("Inter", 400, False).file)
    share = face.ascender / (face.ascender + face.descender)
    page.set_viewport_size({"width": size[0], "height": size[1]})
    page.set_content(
        f"<!doctype html><html><head><style>{font_faces()} html,body{{margin:0}}"
        f" #box{{position:absolute;left:{box['x']}px;top:{box['y']}px;width:{box['width']}px;"
        f"height:{box['height']}px;display:flex;flex-direction:column}}"
        f" #t{{font-family:Inter;{css}}}</style></head>"
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
