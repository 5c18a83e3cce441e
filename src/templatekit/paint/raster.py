"""The raster painter: a Scene becomes an RGBA Pillow image.

One function per primitive, one dispatch table. Curved and slanted edges are drawn
through masks supersampled 4x (Pillow's own shapes are not anti-aliased); bars and
axis-aligned rectangles on whole pixels are drawn directly, which keeps QR codes and
barcodes crisp. A group is drawn on its own layer only when it needs opacity,
rotation or a clip, and only on the part of it that can show: a layer far larger
than the canvas costs what the canvas does. The buffers it makes are described before
it paints (``templatekit.paint.needs``), from the same geometry, so that the render's
budget is asked for them while refusing is still allowed.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

from PIL import Image as PILImage
from PIL import ImageChops, ImageDraw

from templatekit.cache import BoundedCache
from templatekit.model.values import Color
from templatekit.paint import effects
from templatekit.paint.boxes import box_mask, rounded_box
from templatekit.paint.glyphs import glyph_image
from templatekit.paint.gradient import gradient_image
from templatekit.paint.paths import path_mask
from templatekit.paint.placing import Placement, pixels_to_scene, placement
from templatekit.scene import (
    Bars,
    Clip,
    Ellipse,
    GlyphRun,
    Group,
    Image,
    Item,
    Line,
    Mask,
    Outline,
    Paint,
    Path,
    Polygon,
    Rect,
)
from templatekit.scene.geometry import Box, Corners, grown, overlap

SUPERSAMPLE = 4


class Area:
    """Pixels that cover part of the canvas: canvas point (x, y) in scene px lands on
    pixel (x * scale - left, y * scale - top) of an image of ``size``."""

    def __init__(self, left: int, top: int, scale: float, size: tuple[int, int]) -> None:
        self.left = left
        self.top = top
        self.scale = scale
        self.size = size

    def px(self, x: float, y: float) -> tuple[float, float]:
        return x * self.scale - self.left, y * self.scale - self.top

    def view(self) -> Box:
        """The part of the scene this area covers, in scene px."""
        width, height = self.size
        return (
            self.left / self.scale,
            self.top / self.scale,
            (self.left + width) / self.scale,
            (self.top + height) / self.scale,
        )


class Surface(Area):
    """An RGBA image that covers an area of the canvas."""

    def __init__(self, image: PILImage.Image, left: int, top: int, scale: float, opaque: bool = False) -> None:
        super().__init__(left, top, scale, image.size)
        self.image = image
        self.opaque = opaque  # every pixel is opaque, and stays so: painting over it never lowers alpha
        self.draw = ImageDraw.Draw(image, "RGBA")


def covering(box: Box | None, scale: float) -> Area | None:
    """The whole pixels at ``scale`` that hold ``box``; None without a box."""
    if box is None:
        return None
    left, top = math.floor(box[0] * scale), math.floor(box[1] * scale)
    size = (max(1, math.ceil(box[2] * scale) - left), max(1, math.ceil(box[3] * scale) - top))
    return Area(left, top, scale, size)


def sprite_area(items: Sequence[Item], scale: float) -> Area | None:
    """Where ``paint_sprite`` paints ``items``."""
    return covering(Group(tuple(items)).content_bounds(), scale)


def paint_sprite(items: Sequence[Item], scale: float = 1.0) -> tuple[PILImage.Image, int, int] | None:
    """Items painted on a transparent image just large enough to hold them, with the
    pixel position of its top-left corner on a canvas at ``scale``: the pieces a video
    moves and fades frame by frame. None when the items paint nothing."""
    area = sprite_area(items, scale)
    if area is None:
        return None
    surface = Surface(PILImage.new("RGBA", area.size), area.left, area.top, scale)
    paint_items(surface, items)
    return surface.image, area.left, area.top


def paint_items(surface: Surface, items: Sequence[Item]) -> None:
    for item in items:
        PAINTERS[type(item)](surface, item)


# ------------------------------------------------------------------ fills and masks


def _opaque_paint(paint: Paint) -> bool:
    return paint.a == 255 if isinstance(paint, Color) else paint.from_.a == 255 and paint.to.a == 255


def _fill_patch(paint: Paint, size: tuple[int, int]) -> PILImage.Image:
    if isinstance(paint, Color):
        return PILImage.new("RGBA", size, paint.rgba)
    return gradient_image(paint, size)


def _fill_through(
    surface: Surface, paint: Paint, size: tuple[int, int], mask: PILImage.Image | None, left: int, top: int
) -> None:
    """Fill a ``size`` box at surface pixel (left, top) with ``paint`` through ``mask``."""
    if isinstance(paint, Color) and paint.a == 255 and mask is not None and surface.opaque:
        # on opaque pixels, blending by the mask is compositing "over", in one step
        surface.image.paste(paint.rgba, (left, top, left + size[0], top + size[1]), mask)
        return
    if isinstance(paint, Color) and paint.a == 255 and mask is not None:
        patch = PILImage.new("RGBA", size, paint.rgba[:3])
        patch.putalpha(mask)  # an opaque colour's alpha is the mask itself
        _blend(surface.image, patch, left, top)
        return
    _composite(surface, _fill_patch(paint, size), mask, left, top)


def _composite(surface: Surface, patch: PILImage.Image, mask: PILImage.Image | None, left: int, top: int) -> None:
    """Draw ``patch`` (RGBA) through ``mask`` with its top-left at surface pixel (left, top)."""
    if mask is not None:
        alpha = ImageChops.multiply(patch.getchannel("A"), mask)
        patch = patch.copy()
        patch.putalpha(alpha)
    _blend(surface.image, patch, left, top)


def _blend(target: PILImage.Image, patch: PILImage.Image, left: int, top: int) -> None:
    """alpha_composite that tolerates patches reaching outside the target."""
    x0, y0 = max(left, 0), max(top, 0)
    x1, y1 = min(left + patch.width, target.width), min(top + patch.height, target.height)
    if x0 >= x1 or y0 >= y1:
        return
    if (x0, y0, x1, y1) != (left, top, left + patch.width, top + patch.height):
        patch = patch.crop((x0 - left, y0 - top, x1 - left, y1 - top))
    if patch.mode != "RGBA":
        patch = patch.convert("RGBA")
    target.alpha_composite(patch, (x0, y0))


def pixel_box(area: Area, x: float, y: float, width: float, height: float) -> tuple[int, int, int, int, float, float]:
    """Whole-pixel bounds of a box and the fractional offset of its origin in them."""
    left, top = area.px(x, y)
    right, bottom = area.px(x + width, y + height)
    x0, y0 = math.floor(left), math.floor(top)
    x1, y1 = math.ceil(right), math.ceil(bottom)
    return x0, y0, max(x1 - x0, 1), max(y1 - y0, 1), left - x0, top - y0


Drawer = Callable[[ImageDraw.ImageDraw, float], None]


def _mask(size: tuple[int, int], draw: Drawer) -> PILImage.Image:
    """An anti-aliased 8-bit mask: ``draw`` paints white at SUPERSAMPLE x scale."""
    big = PILImage.new("L", (size[0] * SUPERSAMPLE, size[1] * SUPERSAMPLE))
    draw(ImageDraw.Draw(big), SUPERSAMPLE)
    return big.reduce(SUPERSAMPLE)


_BOX_MASKS: BoundedCache[tuple[Any, ...], PILImage.Image] = BoundedCache(256, name="raster.box_masks")


def _box_mask(size: tuple[int, int], box: Box, radius: float, ellipse: bool, inset: float) -> PILImage.Image:
    """Mask of a (rounded) rectangle or ellipse; with ``inset`` > 0, only its outline
    of that thickness (strokes are drawn inside the box). Cards and badges repeat
    across renders: masks are kept, up to 64 MB."""
    key = (size, box, radius, ellipse, inset)
    mask = _BOX_MASKS.get(key)
    if mask is None:
        mask = _drawn_box_mask(size, box, radius, ellipse, inset)
        _BOX_MASKS.put(key, mask, size[0] * size[1])
    return mask


def _drawn_box_mask(size: tuple[int, int], box: Box, radius: float, ellipse: bool, inset: float) -> PILImage.Image:

    def shape(d: ImageDraw.ImageDraw, k: float, grow: float, fill: int) -> None:
        x0, y0, x1, y1 = ((v + s * grow) * k for v, s in zip(box, (1, 1, -1, -1), strict=True))
        if x1 <= x0 or y1 <= y0:
            return
        if ellipse:
            d.ellipse((x0, y0, x1, y1), fill=fill)
        elif radius - grow > 0:
            d.rounded_rectangle((x0, y0, x1, y1), radius=(radius - grow) * k, fill=fill)
        else:
            d.rectangle((x0, y0, x1, y1), fill=fill)

    def draw(d: ImageDraw.ImageDraw, k: float) -> None:
        shape(d, k, 0.0, 255)
        if inset > 0:
            shape(d, k, inset, 0)

    return _mask(size, draw)


def _is_pixel_aligned(values: Sequence[float]) -> bool:
    return all(abs(v - round(v)) < 1e-6 for v in values)


# ------------------------------------------------------------------ primitives


def visible_part(
    area: Area, x0: int, y0: int, width: int, height: int, paints: Sequence[Paint | None]
) -> tuple[int, int, int, int] | None:
    """The part of a pixel box on the area (None when none is), or the whole box
    when a gradient paints it (a gradient spans the whole box, so it is not cut)."""
    if any(p is not None and not isinstance(p, Color) for p in paints):
        return x0, y0, width, height
    left, top = max(x0, 0), max(y0, 0)
    right, bottom = min(x0 + width, area.size[0]), min(y0 + height, area.size[1])
    if right <= left or bottom <= top:
        return None
    return left, top, right - left, bottom - top


def box_pixels(area: Area, item: Rect | Ellipse, radius: float) -> tuple[int, int, int, int, Box, float] | None:
    """The visible pixels of a box shape (left, top, width, height), the shape's box in
    them and its radius in pixels; None when none of it is on the area."""
    x0, y0, pw, ph, fx, fy = pixel_box(area, item.x, item.y, item.width, item.height)
    visible = visible_part(area, x0, y0, pw, ph, (item.fill, item.stroke))
    if visible is None:
        return None
    fx, fy = fx + x0 - visible[0], fy + y0 - visible[1]
    box = (fx, fy, fx + item.width * area.scale, fy + item.height * area.scale)
    return (*visible, box, radius * area.scale)


def is_plain_box(box: Box, radius: float, ellipse: bool) -> bool:
    """A sharp rectangle on whole pixels: filled without a mask."""
    return not ellipse and radius == 0 and _is_pixel_aligned(box)


def _paint_box(surface: Surface, item: Rect | Ellipse, radius: float, ellipse: bool) -> None:
    fill, stroke, stroke_width = item.fill, item.stroke, item.stroke_width
    placed = box_pixels(surface, item, radius)
    if placed is None:
        return
    x0, y0, pw, ph, box, r = placed
    if fill is not None:
        plain = is_plain_box(box, r, ellipse)
        if plain and isinstance(fill, Color) and fill.a == 255:
            surface.draw.rectangle((x0, y0, x0 + pw - 1, y0 + ph - 1), fill=fill.rgba)
        elif plain and _opaque_paint(fill):
            surface.image.paste(_fill_patch(fill, (pw, ph)), (x0, y0))
        elif isinstance(fill, Color) and fill.a == 255 and not ellipse:
            _fill_rounded(surface, fill, _box_mask((pw, ph), box, r, False, 0.0), x0, y0, box, r)
        else:
            mask = None if plain else _box_mask((pw, ph), box, r, ellipse, 0.0)
            _fill_through(surface, fill, (pw, ph), mask, x0, y0)
    if stroke is not None and stroke_width > 0:
        mask = _box_mask((pw, ph), box, r, ellipse, stroke_width * surface.scale)
        _fill_through(surface, stroke, (pw, ph), mask, x0, y0)


def _fill_rounded(
    surface: Surface,
    fill: Color,
    mask: PILImage.Image,
    x0: int,
    y0: int,
    box: Box,
    radius: float,
    corners: Corners = (True, True, True, True),
) -> None:
    """A (rounded) rectangle of opaque colour: its core, clear of the corners and the
    anti-aliased edges, filled as whole pixels, and only the frame around it through
    the mask: bands across the top and bottom as deep as their corners, and a column of
    edge pixels down each side between them. Cards and bars are large: the mask then
    touches a fraction of their pixels."""
    width, height = mask.size
    top = math.ceil(box[1] + (radius if corners[0] or corners[1] else 0.0))
    bottom = math.floor(box[3] - (radius if corners[2] or corners[3] else 0.0))
    left, right = math.ceil(box[0]), math.floor(box[2])
    if right - left < 8 or bottom - top < 8:
        _fill_through(surface, fill, (width, height), mask, x0, y0)
        return
    surface.draw.rectangle((x0 + left, y0 + top, x0 + right - 1, y0 + bottom - 1), fill=fill.rgba)
    for strip in ((0, 0, width, top), (0, bottom, width, height), (0, top, left, bottom), (right, top, width, bottom)):
        size = (strip[2] - strip[0], strip[3] - strip[1])
        if size[0] > 0 and size[1] > 0:
            _fill_through(surface, fill, size, mask.crop(strip), x0 + strip[0], y0 + strip[1])


def _paint_rect(surface: Surface, item: Rect) -> None:
    _paint_box(surface, item, item.radius, ellipse=False)


def _paint_ellipse(surface: Surface, item: Ellipse) -> None:
    _paint_box(surface, item, 0.0, ellipse=True)


def polygon_pixels(area: Area, item: Polygon) -> tuple[int, int, int, int, float, float] | None:
    """The visible pixels of a polygon (left, top, width, height) and where the corner of
    its box falls in them; None when none of it is on the area."""
    points = [p for contour in item.contours for p in contour]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    x0, y0, pw, ph, fx, fy = pixel_box(area, min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))
    visible = visible_part(area, x0, y0, pw + 1, ph + 1, (item.fill,))
    if visible is None:
        return None
    return (*visible, fx + x0 - visible[0], fy + y0 - visible[1])


def _paint_polygon(surface: Surface, item: Polygon) -> None:
    placed = polygon_pixels(surface, item)
    if placed is None:
        return
    x0, y0, pw, ph, fx, fy = placed
    origin = (min(p[0] for c in item.contours for p in c), min(p[1] for c in item.contours for p in c))

    def draw(d: ImageDraw.ImageDraw, k: float) -> None:
        for contour in item.contours:
            d.polygon(
                [
                    ((px - origin[0]) * surface.scale * k + fx * k, (py - origin[1]) * surface.scale * k + fy * k)
                    for px, py in contour
                ],
                fill=255,
            )

    _fill_through(surface, item.fill, (pw, ph), _mask((pw, ph), draw), x0, y0)


def path_pixels(area: Area, item: Path) -> tuple[int, int, int, int] | None:
    """The visible pixels a path can paint (left, top, width, height), mitres included;
    None when none."""
    x0, y0, x1, y1 = grown(item.bounds() or item.hull(), 1)
    left, top, pw, ph, _, _ = pixel_box(area, x0, y0, x1 - x0, y1 - y0)
    return visible_part(area, left, top, pw, ph, (item.fill, item.stroke))


def _paint_path(surface: Surface, item: Path) -> None:
    visible = path_pixels(surface, item)
    if visible is None:
        return
    left, top, pw, ph = visible
    origin = ((left + surface.left) / surface.scale, (top + surface.top) / surface.scale)
    as_box = isinstance(item.fill, Color) and item.fill.a == 255 and _filled_as_box(surface, item.fill, item)
    if item.fill is not None and not as_box:
        mask = path_mask(item, surface.scale, origin, (pw, ph), stroke=False)
        _fill_through(surface, item.fill, (pw, ph), mask, left, top)
    if item.stroke is not None and item.stroke_width > 0:
        mask = path_mask(item, surface.scale, origin, (pw, ph), stroke=True)
        _fill_through(surface, item.stroke, (pw, ph), mask, left, top)


def _filled_as_box(surface: Surface, fill: Color, item: Path) -> bool:
    """A path that is a box with some corners rounded (a chart's bar), filled with an
    opaque colour as a box is: its core as whole pixels, the frame through an exact
    mask. False, having drawn nothing, for any other path."""
    shape = rounded_box(item)
    if shape is None:
        return False
    (left, top, right, bottom), radius, corners = shape
    placed = box_pixels(surface, Rect(left, top, right - left, bottom - top, fill), radius)
    if placed is None:
        return True  # none of it on this surface
    x0, y0, pw, ph, pixels, r = placed
    mask = box_mask((pw, ph), pixels, r, corners)
    if mask is None:
        return False
    _fill_rounded(surface, fill, mask, x0, y0, pixels, r, corners)
    return True


def _paint_line(surface: Surface, item: Line) -> None:
    """Level and upright lines of opaque colour are snapped to whole pixels (hairlines
    such as gridlines and rules stay crisp); others are anti-aliased polygons."""
    if is_snapped(item):
        _paint_straight(surface, item)
    else:
        _paint_polygon(surface, line_polygon(item))


def is_snapped(item: Line) -> bool:
    """A level or upright line of opaque colour: drawn on whole pixels."""
    (ax, ay), (bx, by) = item.start, item.end
    return (ax == bx or ay == by) and item.color.a == 255


def line_polygon(item: Line) -> Polygon:
    """The quad a slanted or translucent line is drawn as."""
    (ax, ay), (bx, by) = item.start, item.end
    length = math.hypot(bx - ax, by - ay) or 1.0
    nx, ny = -(by - ay) / length * item.width / 2, (bx - ax) / length * item.width / 2
    return Polygon((((ax + nx, ay + ny), (bx + nx, by + ny), (bx - nx, by - ny), (ax - nx, ay - ny)),), item.color)


def _paint_straight(surface: Surface, item: Line) -> None:
    (ax, ay), (bx, by) = (surface.px(*item.start), surface.px(*item.end))
    thickness = max(1, round(item.width * surface.scale))
    if ay == by:
        top = math.floor(ay - thickness / 2 + 0.5)
        box = (round(min(ax, bx)), top, round(max(ax, bx)) - 1, top + thickness - 1)
    else:
        left = math.floor(ax - thickness / 2 + 0.5)
        box = (left, round(min(ay, by)), left + thickness - 1, round(max(ay, by)) - 1)
    if box[2] >= box[0] and box[3] >= box[1]:
        surface.draw.rectangle(box, fill=item.color.rgba)


def _paint_bars(surface: Surface, item: Bars) -> None:
    """Bars snap to whole pixels: crisp edges matter more than sub-pixel position."""
    if item.color.a == 255:
        target, draw = surface.image, surface.draw
    else:
        target = PILImage.new("L", surface.image.size)
        draw = ImageDraw.Draw(target)
    fill = item.color.rgba if target is surface.image else 255
    for x, y, w, h in item.rects:
        left, top = surface.px(x, y)
        right, bottom = surface.px(x + w, y + h)
        x0, y0, x1, y1 = round(left), round(top), round(right), round(bottom)
        if x1 > x0 and y1 > y0:
            draw.rectangle((x0, y0, x1 - 1, y1 - 1), fill=fill)
    if target is not surface.image:
        _fill_through(surface, item.color, target.size, target, 0, 0)


def _paint_glyph_run(surface: Surface, item: GlyphRun) -> None:
    """Glyph outlines as a coverage mask filled with the run's colour (so that
    translucent text blends), colour glyphs as they are painted."""
    if run_extent(surface, item) is None:
        return
    x, y = surface.px(item.x, item.y)
    left, top = math.floor(x), math.floor(y)
    placed, colored = glyph_image(item, surface.scale, (x - left, y - top))
    if placed is None:
        return
    image, dx, dy = placed
    if colored:
        if item.color.a < 255:
            image = image.copy()
            image.putalpha(image.getchannel("A").point(lambda a: a * item.color.a // 255))
        _blend(surface.image, image, left + dx, top + dy)
    else:
        if item.outline is not None:
            _paint_outline(surface, item.outline, image, left + dx, top + dy, outside_only=item.color.a < 255)
        _fill_through(surface, item.color, image.size, image, left + dx, top + dy)


def run_extent(area: Area, item: GlyphRun) -> tuple[int, int] | None:
    """The pixels the run's glyphs are drawn in at most; None when nothing of it shows on
    the area (a huge line height can put lines a million px away)."""
    box = item.bounds()
    assert box is not None
    if overlap(box, area.view()) is None:
        return None
    return (math.ceil((box[2] - box[0]) * area.scale), math.ceil((box[3] - box[1]) * area.scale))


def _paint_outline(
    surface: Surface, outline: Outline, mask: PILImage.Image, left: int, top: int, outside_only: bool
) -> None:
    """The glyphs' coverage grown by the outline's width, in its colour, under them; with
    ``outside_only`` (under see-through text, where it would show) less the glyphs."""
    reach = max(1, round(outline.width * surface.scale))
    padded = PILImage.new("L", (mask.width + 2 * reach, mask.height + 2 * reach))
    padded.paste(mask, (reach, reach))
    ring = effects.grown(padded, reach)
    if outside_only:
        ring = ImageChops.subtract(ring, padded)
    _fill_through(surface, outline.color, ring.size, ring, left - reach, top - reach)


_RESIZED: BoundedCache[tuple[str, tuple[int, int]], PILImage.Image] = BoundedCache(128, name="raster.resized")


def _resized(item: Image, size: tuple[int, int]) -> PILImage.Image:
    """The item's pixels scaled to their drawn size, kept by content key (logos repeat
    across renders): vector art shrunk by averaging, anything else by Lanczos."""
    image = item.image
    if image.size == size:
        return image
    cached = _RESIZED.get((item.key, size))
    if cached is None:
        if item.from_vector and size[0] <= image.width and size[1] <= image.height:
            cached = image.resize(size, PILImage.Resampling.BOX)
        else:
            cached = image.resize(size, PILImage.Resampling.LANCZOS, reducing_gap=3.0)
        _RESIZED.put((item.key, size), cached, size[0] * size[1] * 4)
    return cached


def _paint_image(surface: Surface, item: Image) -> None:
    left, top = surface.px(item.x, item.y)
    right, bottom = surface.px(item.x + item.width, item.y + item.height)
    x0, y0 = round(left), round(top)
    size = (max(1, round(right) - x0), max(1, round(bottom) - y0))
    resized = _resized(item, size)
    if resized.mode in ("RGBA", "RGBa"):  # RGBa: premultiplied (a video's pictures)
        _blend(surface.image, resized, x0, y0)
    else:
        surface.image.paste(resized, (x0, y0))


# ------------------------------------------------------------------ groups


def _paint_group(surface: Surface, group: Group) -> None:
    if is_plain_group(group):
        paint_items(surface, group.items)
    elif group.opacity > 0 and group.items:
        _paint_on_own_surface(surface, group)


def is_plain_group(group: Group) -> bool:
    """A group whose items are painted straight on the surface under it."""
    plain = group.clip is None and group.mask is None and group.effects is None
    return group.opacity >= 1 and group.transform.is_identity and plain


def layer_area(area: Area, group: Group) -> Area | None:
    """The surface of its own a group is painted on, in the group's frame, as many pixels
    per px as the group is enlarged to (so that a zoom stays sharp): only the part of it
    that can land on ``area`` (with room for its blur and shadows, and, placed, for
    sampling); None when none can."""
    bounds = group.content_bounds()
    reach = group.effects.reach if group.effects is not None else 0.0
    view = grown(area.view(), reach)
    if bounds is not None:
        bounds = grown(bounds, reach)
    placed = not group.transform.is_identity
    needed = overlap(bounds, group.transform.inverse().box(view) if placed else view)
    if needed is None:
        return None
    scale, pad = area.scale * group.transform.expansion(), 2 if placed else 0  # placing samples neighbours
    left, top = math.floor(needed[0] * scale) - pad, math.floor(needed[1] * scale) - pad
    right, bottom = math.ceil(needed[2] * scale) + pad, math.ceil(needed[3] * scale) + pad
    return Area(left, top, scale, (max(1, right - left), max(1, bottom - top)))


def _paint_on_own_surface(surface: Surface, group: Group) -> None:
    """A group painted on a surface of its own, then clipped, given its effects, faded,
    rotated and blended."""
    area = layer_area(surface, group)
    if area is None:
        return
    layer = Surface(PILImage.new("RGBA", area.size), area.left, area.top, area.scale)
    _paint_cut(layer, group)
    image = layer.image
    if group.effects is not None:
        image = layer.image = effects.with_effects(image, group.effects, area.scale, _spreader(layer, group))
    if group.opacity < 1:
        image.putalpha(image.getchannel("A").point(lambda a: round(a * group.opacity)))
    mode = group.effects.blend if group.effects is not None else "normal"
    if not group.transform.is_identity:
        _blend_placed(surface, layer, group, mode)
    else:
        _composite_in_mode(surface.image, image, area.left - surface.left, area.top - surface.top, mode)


def effects_area(group: Group, scale: float) -> Area | None:
    """Where ``effects_alone`` paints a group's effects; None when it paints nothing."""
    assert group.effects is not None
    bounds = group.content_bounds()
    return None if bounds is None else covering(grown(bounds, group.effects.reach), scale)


def effects_alone(group: Group, scale: float) -> tuple[PILImage.Image, float, float] | None:
    """What the effects of ``group`` draw, painted alone at ``scale`` (a vector painter's
    picture of what it cannot draw): its shadows, or, when it is blurred, the whole group
    blurred; and where the picture's top-left corner lies in canvas px. None when the
    group paints nothing."""
    assert group.effects is not None
    area = effects_area(group, scale)
    if area is None:
        return None
    layer = Surface(PILImage.new("RGBA", area.size), area.left, area.top, scale)
    _paint_cut(layer, group)
    spread = _spreader(layer, group)
    if group.effects.blur:
        picture = effects.with_effects(layer.image, group.effects, scale, spread)
    else:
        picture = effects.shadows_of(layer.image, group.effects.shadows, scale, spread)
    return picture, area.left / scale, area.top / scale


def _spreader(layer: Surface, group: Group) -> effects.Spreader:
    """The coverage of ``group`` (painted on ``layer``) grown by a shadow's spread, drawn
    from its grown geometry on an image like the layer's."""

    def coverage(spread: float) -> PILImage.Image | None:
        grown = group.spread(spread)
        if grown is None:
            return None
        surface = Surface(PILImage.new("RGBA", layer.image.size), layer.left, layer.top, layer.scale)
        _paint_cut(surface, grown)
        return surface.image.getchannel("A")

    return coverage


def _paint_cut(layer: Surface, group: Group) -> None:
    """The group's items painted on ``layer``, clipped and masked."""
    paint_items(layer, group.items)
    if group.clip is not None:
        layer.image.putalpha(ImageChops.multiply(layer.image.getchannel("A"), _clip_mask(layer, group.clip)))
    if group.mask is not None:
        layer.image.putalpha(ImageChops.multiply(layer.image.getchannel("A"), _mask_coverage(layer, group.mask)))


#: Rec. 709 luma, as CSS computes a luminance mask
LUMINANCE = (0.2125, 0.7154, 0.0721, 0.0)


def _mask_coverage(layer: Surface, mask: Mask) -> PILImage.Image:
    """How much of each pixel of ``layer`` the mask shows, 0 to 255."""
    drawn = Surface(PILImage.new("RGBA", layer.image.size), layer.left, layer.top, layer.scale)
    paint_items(drawn, mask.items)
    coverage = drawn.image.getchannel("A")
    if mask.luminance:
        luma = drawn.image.convert("RGB").convert("L", LUMINANCE)
        coverage = ImageChops.multiply(luma, coverage)
    return ImageChops.invert(coverage) if mask.invert else coverage


def _composite_in_mode(target: PILImage.Image, patch: PILImage.Image, left: int, top: int, mode: str) -> None:
    if mode == "normal":
        _blend(target, patch, left, top)
    else:
        from templatekit.paint.blending import blend_onto  # numpy loads only for blend modes

        blend_onto(target, patch, left, top, mode)


def _placed(area: Area, layer: Area, group: Group) -> Placement | None:
    """Where ``layer`` (the group in its own frame), placed by the group's transform,
    lands on the pixels of ``area``; None when nowhere."""
    to_scene = pixels_to_scene(layer.left, layer.top, layer.scale).then(group.transform)
    to_area = to_scene.then(pixels_to_scene(area.left, area.top, area.scale).inverse())
    return placement(to_area, layer.size, (0.0, 0.0, float(area.size[0]), float(area.size[1])))


def placed_pixels(area: Area, layer: Area, group: Group) -> tuple[int, int, tuple[int, int]] | None:
    """The pixels of ``area`` (left, top, size) that ``layer``, placed by the group's
    transform, can cover; None when none."""
    placed = _placed(area, layer, group)
    return None if placed is None else (placed.box[0], placed.box[1], placed.size)


def _blend_placed(surface: Surface, layer: Surface, group: Group, mode: str) -> None:
    """``layer`` (the group in its own frame) placed by the group's transform and blended
    onto ``surface``: only the pixels of ``surface`` it can cover are computed."""
    placed = _placed(surface, layer, group)
    if placed is None:
        return
    from templatekit.paint.resample import sample_image  # numpy loads only for placed groups

    _composite_in_mode(surface.image, sample_image(placed, layer.image), placed.box[0], placed.box[1], mode)


def _clip_mask(layer: Surface, clip: Clip) -> PILImage.Image:
    left, top = layer.px(clip.x, clip.y)
    box = (left, top, left + clip.width * layer.scale, top + clip.height * layer.scale)
    return _box_mask(layer.image.size, box, clip.radius * layer.scale, clip.ellipse, 0.0)


PAINTERS: dict[type, Callable[[Surface, Any], None]] = {
    Rect: _paint_rect,
    Ellipse: _paint_ellipse,
    Polygon: _paint_polygon,
    Path: _paint_path,
    Line: _paint_line,
    Bars: _paint_bars,
    GlyphRun: _paint_glyph_run,
    Image: _paint_image,
    Group: _paint_group,
}
