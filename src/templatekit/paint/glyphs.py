"""Glyph runs as pixels, by HarfBuzz's rasteriser: outlines become one coverage mask per
run, colour glyphs (COLR v0/v1 emoji) become RGBA images painted from their layers and
gradients, and colour bitmaps (CBDT) are scaled from their strike.

Each glyph is drawn across at the nearest quarter pixel, as Chromium (Skia) places
glyphs: at most an eighth of a pixel from its place, and a letter that repeats on a line
is then drawn alike each time it falls on the same quarter, which a PNG stores as a
repeat (the flat card's file is 5% smaller than with every glyph where it fell). Masks are
cached by what they show, with the run's position within its first pixel rounded to a
quarter pixel too: the same text at the same size paints once.
"""

from __future__ import annotations

import io
import math

import uharfbuzz as hb
from PIL import Image as PILImage

from templatekit.cache import BoundedCache
from templatekit.font_file import HbFont, hb_font
from templatekit.scene import GlyphRun

PHASES = 4  # sub-pixel positions of a run's origin, per pixel
#: HarfBuzz's rasteriser sizes its image to what was drawn, but to at most this many
#: pixels a side: a run that may be larger is given its extents, measured here
AUTO_EXTENT = 4096

Placed = tuple[PILImage.Image, int, int]  # image, and its top-left pixel from the run's origin pixel

# by the whole run: a line of new text is kept only when it is drawn again
_MASKS: BoundedCache[tuple[object, ...], Placed] = BoundedCache(4096, name="glyphs.masks", second_use=True)
_COLOR: BoundedCache[tuple[object, ...], Placed] = BoundedCache(1024, name="glyphs.color", second_use=True)


def glyph_image(run: GlyphRun, scale: float, phase: tuple[float, float]) -> tuple[Placed | None, bool]:
    """The run drawn with its origin ``phase`` (0 ≤ x, y < 1) into its first pixel at
    ``scale`` pixels per px: a coverage mask (L) to fill with the run's colour, or for
    a colour font an RGBA image (the second value is True)."""
    font = hb_font(run.font)
    steps = (round(phase[0] * PHASES) / PHASES, round(phase[1] * PHASES) / PHASES)
    key = (run.font, run.size * scale, run.glyphs, run.positions, steps)
    cache, draw = (_COLOR, _color_image) if font.color else (_MASKS, _outline_mask)
    placed = cache.get(key)
    if placed is None:
        placed = draw(run, font, scale, steps)
        if placed is not None:
            cache.put(key, placed, placed[0].width * placed[0].height * len(placed[0].getbands()))
    return placed, font.color


def _transform(font: HbFont, run: GlyphRun, scale: float, phase: tuple[float, float], index: int) -> tuple[float, ...]:
    """Font units (y up) to the run's pixel grid (y up too; flipped when read out), the
    glyph moved across to the nearest ``1 / PHASES`` pixel."""
    units = run.size * scale / font.upem
    x, y = run.positions[index]
    across = round((phase[0] + x * scale) * PHASES) / PHASES
    return (units, 0.0, 0.0, units, across, -(phase[1] + y * scale))


def _outline_mask(run: GlyphRun, font: HbFont, scale: float, phase: tuple[float, float]) -> Placed | None:
    draw = hb.RasterDraw()
    transforms = [_transform(font, run, scale, phase, index) for index in range(len(run.glyphs))]
    for glyph, transform in zip(run.glyphs, transforms, strict=True):
        draw.transform = transform
        draw.draw_glyph(font.font, glyph)
    if _may_exceed_auto_extent(run, scale):
        extents = _drawn_extents(font, run.glyphs, transforms)
        if extents is None:
            return None
        draw.extents = extents
    image = draw.render()
    return None if image is None else _read(image, "L", "L")


def _may_exceed_auto_extent(run: GlyphRun, scale: float) -> bool:
    """Whether the run's box, with room for glyphs that reach past it, nears ``AUTO_EXTENT``."""
    box = run.bounds()
    if box is None:
        return False
    return max(box[2] - box[0], box[3] - box[1]) * scale + 2 * run.size * scale >= AUTO_EXTENT


def _drawn_extents(
    font: HbFont, glyphs: tuple[int, ...], transforms: list[tuple[float, ...]]
) -> hb.RasterExtents | None:
    """The pixels the glyphs' ink covers (y up, as the rasteriser counts), a pixel more
    on each side; None when they have no ink."""
    left = bottom = math.inf
    right = top = -math.inf
    for glyph, (units, _, _, _, dx, dy) in zip(glyphs, transforms, strict=True):
        extents = font.font.get_glyph_extents(glyph)
        if extents is None or extents.width == 0 or extents.height == 0:
            continue
        x0 = dx + extents.x_bearing * units
        y1 = dy + extents.y_bearing * units
        left, right = min(left, x0), max(right, x0 + extents.width * units)
        top, bottom = max(top, y1), min(bottom, y1 + extents.height * units)
    if left == math.inf:
        return None
    x, y = math.floor(left) - 1, math.floor(bottom) - 1
    width, height = math.ceil(right) + 1 - x, math.ceil(top) + 1 - y
    return hb.RasterExtents(x_origin=x, y_origin=y, width=width, height=height, stride=(width + 3) // 4 * 4)


def _color_image(run: GlyphRun, font: HbFont, scale: float, phase: tuple[float, float]) -> Placed | None:
    """The colour glyphs composited into one image (they may overlap)."""
    layers = [
        placed
        for index, glyph in enumerate(run.glyphs)
        if (placed := _color_glyph(font, glyph, _transform(font, run, scale, phase, index))) is not None
    ]
    if not layers:
        return None
    left = min(x for _, x, _ in layers)
    top = min(y for _, _, y in layers)
    right = max(x + image.width for image, x, _ in layers)
    bottom = max(y + image.height for image, _, y in layers)
    canvas = PILImage.new("RGBA", (right - left, bottom - top))
    for image, x, y in layers:
        canvas.alpha_composite(image, (x - left, y - top))
    return canvas, left, top


def _color_glyph(font: HbFont, glyph: int, transform: tuple[float, ...]) -> Placed | None:
    if font.is_bitmap(glyph):
        return _bitmap_glyph(font, glyph, transform)
    paint = hb.RasterPaint()
    paint.transform = transform
    extents = font.font.get_glyph_extents(glyph)
    if extents is None or not paint.set_glyph_extents(extents):
        return None
    paint.paint_glyph(font.font, glyph)
    image = paint.render()
    return None if image is None else _read(image, "RGBA", "BGRa")


def _bitmap_glyph(font: HbFont, glyph: int, transform: tuple[float, ...]) -> Placed | None:
    """A glyph of a colour bitmap font (CBDT, sbix): its strike, scaled to the glyph's box
    (whose memory layout asked of the budget, ``templatekit.layout.glyph_memory``)."""
    blob = font.font.get_glyph_color_png(glyph)
    extents = font.font.get_glyph_extents(glyph)
    units, _, _, _, dx, dy = transform
    box = font.color_box(glyph, units)
    if blob is None or extents is None or box is None or not blob.data:
        return None
    _, _, width, height = box
    with PILImage.open(io.BytesIO(blob.data)) as strike:
        image = strike.convert("RGBA").resize((width, height), PILImage.Resampling.LANCZOS)
    return image, math.floor(dx + extents.x_bearing * units), math.floor(-(dy + extents.y_bearing * units))


def _read(image: hb.RasterImage, mode: str, raw: str) -> Placed | None:
    """A raster of HarfBuzz's (rows bottom to top) as a Pillow image, top row first."""
    extents = image.extents
    if extents.width <= 0 or extents.height <= 0:
        return None
    bands = len(mode)
    whole = PILImage.frombuffer(mode, (extents.stride // bands, extents.height), bytes(image.buffer), "raw", raw, 0, -1)
    cropped = whole.crop((0, 0, extents.width, extents.height))
    return cropped, extents.x_origin, -(extents.y_origin + extents.height)
