"""The memory a Scene's colour glyphs take drawn, asked of the render's budget before
anything is painted.

A colour font's glyphs are pictures: a CBDT or sbix strike scaled to the glyph's box, or
COLR layers rasterised into it. The box is what the font states, whatever the text's
size: a font of 788 bytes may state a glyph 255 em wide, 15,300 px at size 60, a
gigabyte drawn. Each run's bitmaps are measured from the font's extents and its
strikes' PNG headers (nothing is decoded) at the scale the run will be drawn at, and
asked of the budget in the name of its layer, so that painting, which cannot fail,
never meets them unasked.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator

from templatekit import budget
from templatekit.font_file import HbFont, hb_font
from templatekit.scene import GlyphRun, Group, Item

#: The pixels per px at which a run is drawn, or None where it is drawn as vectors.
ScaleOf = Callable[[GlyphRun], float | None]


def at_scale(scale: float) -> ScaleOf:
    """Every run drawn at ``scale`` pixels per px, as a raster painter draws them."""
    return lambda _: scale


def check_glyphs_fit(items: Iterable[Item], scale_of: ScaleOf) -> None:
    """Refuse, with a ``LimitError`` naming the layer, items whose colour glyphs would
    not fit the memory budget drawn at the scale ``scale_of`` gives each run."""
    for label, run in _glyph_runs(items):
        scale = scale_of(run)
        font = hb_font(run.font)
        if scale is None or not font.color:
            continue
        needed, size = run_bitmaps(font, run, scale)
        with budget.layer(label):
            budget.current().check(needed, f"drawing the text's colour glyphs ({budget.pixels(size)})")


def run_bitmaps(font: HbFont, run: GlyphRun, scale: float) -> tuple[int, tuple[int, int]]:
    """The bytes that drawing ``run`` at ``scale`` holds at once (each glyph's bitmap,
    the run's image they are put together in, and the largest strike decoded) and the
    size of the run's image."""
    units = run.size * scale / font.upem
    needed, strike = 0, 0
    left = top = math.inf
    right = bottom = -math.inf
    for glyph, (x, y) in zip(run.glyphs, run.positions, strict=True):
        box = font.color_box(glyph, units)
        if box is None:
            continue
        dx, dy, width, height = box
        needed += budget.image_bytes("RGBA", (width, height))
        left, top = min(left, x * scale + dx), min(top, y * scale + dy)
        right, bottom = max(right, x * scale + dx + width), max(bottom, y * scale + dy + height)
        decoded = font.strike_size(glyph) if font.is_bitmap(glyph) else None
        strike = max(strike, budget.image_bytes("RGBA", decoded) if decoded else 0)
    if right < left:
        return 0, (0, 0)
    size = (math.ceil(right - left), math.ceil(bottom - top))
    return needed + budget.image_bytes("RGBA", size) + strike, size


def _glyph_runs(items: Iterable[Item]) -> Iterator[tuple[str | None, GlyphRun]]:
    """Every glyph run among ``items``, in groups and masks at any depth, with the label
    of the layer it belongs to (a loop, not a recursion)."""
    pending: list[tuple[str | None, Item]] = [(None, item) for item in items]
    while pending:
        label, item = pending.pop()
        if isinstance(item, GlyphRun):
            yield label, item
        elif isinstance(item, Group):
            inner = item.label or label
            masks = item.mask.items if item.mask is not None else ()
            pending.extend((inner, child) for child in (*item.items, *masks))
