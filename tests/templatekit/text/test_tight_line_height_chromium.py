"""A line height below the font's ascent less its descent (about 0.73 for Inter: tight
headlines in capitals) keeps lines ``lineHeight`` apart, as CSS's ``line-height`` does:
each line's baseline where Chromium puts it, aligned top, middle or bottom."""

from __future__ import annotations

import pytest

from tests.templatekit.text.baselines import chromium_baselines, our_baselines

pytestmark = pytest.mark.slow

SIZE = (460, 400)
BOX = {"x": 20, "y": 20, "width": 400, "height": 340}
TEXT = "TIGHT HEADLINE TEXT IN CAPS WRAPS"
#: px a baseline may be from Chromium's: Chromium rounds the ascent and the descent.
OFF = 1.0


@pytest.mark.parametrize("line_height", [0.5, 0.6, 0.7])
@pytest.mark.parametrize(("vertical", "margin"), [("top", "0"), ("middle", "auto 0"), ("bottom", "auto 0 0")])
def test_tight_lines_are_line_height_apart_as_in_chromium(page, line_height, vertical, margin):
    """Measured before the fix, at 60 px: lines 36.8 px apart instead of 30 at 0.5 (the
    first line of a bottom-aligned text 27 px too high), 39.9 instead of 36 at 0.6."""
    css = f"margin:{margin};font-size:60px;line-height:{line_height}"
    theirs = chromium_baselines(page, BOX, SIZE, TEXT, css)
    mine = our_baselines(BOX, SIZE, {"text": TEXT, "size": 60, "lineHeight": line_height, "verticalAlign": vertical})
    assert len(mine) == len(theirs) == 4
    assert mine == pytest.approx(theirs, abs=OFF)
    steps = [b - a for a, b in zip(mine, mine[1:], strict=False)]
    assert steps == pytest.approx([60 * line_height] * 3, abs=0.01)
