"""Rich text cut by ``maxLines`` after a span larger than the layer's own size: the "…",
drawn in the style of the text it follows, is measured in that style too, so that the
cut line stays inside the box ("Text stays inside its box"), as Chromium's clamped line
(``-webkit-line-clamp``) does."""

from __future__ import annotations

import io

import numpy as np
import pytest
from PIL import Image

import templatekit as tk
from templatekit.scene import GlyphRun, Group
from tests.conftest import decode, layer, template
from tests.templatekit.paint.test_effects_chromium import font_faces

pytestmark = pytest.mark.slow

SIZE = (460, 240)
BOX = {"x": 20, "y": 20, "width": 400, "height": 200}
MARKUP = 'Small words then <span style="font-size: 56px">HUGE WORDS THAT GET CUT OFF HERE AND THERE</span>'


def card(markup: str, size: float) -> dict[str, object]:
    text = layer("text", "t", **BOX, text=markup, markup=True, size=size, maxLines=2, color="#111827")
    return template(text, width=SIZE[0], height=SIZE[1], background="#ffffff")


def runs(items: tuple[object, ...]) -> list[GlyphRun]:
    found: list[GlyphRun] = []
    for item in items:
        if isinstance(item, Group):
            found += runs(item.items)
        elif isinstance(item, GlyphRun):
            found.append(item)
    return found


def ink_right(image: Image.Image) -> int:
    columns = np.nonzero((np.asarray(image.convert("L")) < 128).any(0))[0]
    return int(columns.max())


def chromium_clamped(page, markup: str, size: float) -> Image.Image:
    page.set_viewport_size({"width": SIZE[0], "height": SIZE[1]})
    page.set_content(
        f"<!doctype html><html><head><style>{font_faces()} html,body{{margin:0;background:#fff}}"
        f" div{{position:absolute;left:{BOX['x']}px;top:{BOX['y']}px;width:{BOX['width']}px;"
        f"font:{size}px/1.2 Inter;color:#111827;display:-webkit-box;-webkit-box-orient:vertical;"
        "-webkit-line-clamp:2;overflow:hidden}</style></head>"
        f"<body><div>{markup.replace('; ', ';')}</div></body></html>"
    )
    page.evaluate("document.fonts.ready")
    return Image.open(io.BytesIO(page.screenshot(type="png"))).convert("RGB")


@pytest.mark.parametrize("size", [24, 32])
def test_the_ellipsis_after_a_larger_span_stays_inside_the_box(page, size):
    """Measured before the fix at 24 px: the 56 px "…" ended 9 px past the box's right
    edge (it was measured at 24 px)."""
    right = BOX["x"] + BOX["width"]
    assert ink_right(chromium_clamped(page, MARKUP, size)) <= right  # Chromium keeps it in
    prepared = tk.prepare(card(MARKUP, size))
    last = max(runs(prepared.scene.items), key=lambda run: (run.y, run.x))
    assert last.text.endswith("\u2026") and last.size == 56
    assert all(run.x + run.width <= right + 0.01 for run in runs(prepared.scene.items))
    assert ink_right(decode(tk.render_image(card(MARKUP, size)).data)) <= right
