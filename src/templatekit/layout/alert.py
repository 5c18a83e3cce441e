"""Alert layers: a callout box coloured by its variant, with an icon, a title and a body.

The box is a light tint of the variant's hue with a thin border and a strong accent
bar down its left edge. The icon is built from shapes rather than taken from an icon
font, so it looks the same in every output format. Its mark is cut out in the
box's fill colour, as in solid icon sets. Colours are steps of Tailwind CSS's palette:
50 for the fill, 200 for the border, 500 for the accent and icon, 900 for the title and
800 for the body, both above 7:1 against the fill.

The content (icon beside the text column) is centred vertically in the box; text that
does not fit wraps and ends with an ellipsis, with a warning.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from attrs import frozen

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import AlertLayer
from templatekit.model.values import Color
from templatekit.scene import Clip, Ellipse, Group, Item, Point, Polygon, Rect
from templatekit.text.typeset import TextBlock, TextStyle, place, typeset

RADIUS = 8.0
BORDER = 1.0
ACCENT = 4.0  # width of the accent bar on the left edge
PADDING = 1.0  # left and right inside the box, in multiples of the layer's size
MIN_V_PADDING = 0.75  # the least above and below the content, which is centred
ICON = 1.375  # icon diameter, in multiples of the layer's size
ICON_GAP = 0.75  # between the icon and the text, in multiples of the layer's size
TITLE_SCALE = 1.1
TITLE_WEIGHT = 600
TITLE_LINE_HEIGHT = 1.3
TEXT_LINE_HEIGHT = 1.5
TITLE_GAP = 0.25  # between the title and the body, in multiples of the layer's size


@frozen
class Palette:
    fill: Color
    border: Color
    accent: Color
    title: Color
    text: Color

    @classmethod
    def of(cls, *colors: str) -> Palette:
        return cls(*(Color.parse(color) for color in colors))


PALETTES: dict[str, Palette] = {
    "info": Palette.of("#eff6ff", "#bfdbfe", "#3b82f6", "#1e3a8a", "#1e40af"),
    "success": Palette.of("#f0fdf4", "#bbf7d0", "#22c55e", "#14532d", "#166534"),
    "warning": Palette.of("#fffbeb", "#fde68a", "#f59e0b", "#78350f", "#92400e"),
    "error": Palette.of("#fef2f2", "#fecaca", "#ef4444", "#7f1d1d", "#991b1b"),
}


def layout(layer: AlertLayer, ctx: LayoutContext) -> list[Item]:
    ctx.face_warning(layer.name, layer.font)
    palette = PALETTES[layer.variant]
    size = layer.size
    pad, v_pad, icon = size * PADDING, size * MIN_V_PADDING, size * ICON
    text_x = layer.x + ACCENT + pad + icon + size * ICON_GAP
    text_width = max(1.0, layer.x + layer.width - pad - text_x)
    inner = max(1.0, layer.height - 2 * v_pad)
    blocks = _text_blocks(layer, palette, ctx, text_width, inner)
    first_line = blocks[0].line_height if blocks else icon
    text_height = sum(b.height for b in blocks) + size * TITLE_GAP * (len(blocks) - 1)
    icon_drop = first_line / 2 - icon / 2  # centres the icon on the first line
    above, below = min(0.0, icon_drop), max(text_height, icon_drop + icon)
    top = layer.y + v_pad + max(0.0, (inner - (below - above)) / 2) - above
    items = _box(layer, palette)
    items.extend(ICONS[layer.variant](layer.x + ACCENT + pad + icon / 2, top + first_line / 2, icon, palette))
    for block in blocks:
        items.extend(place(block, text_x, top, text_width, block.height))
        top += block.height + size * TITLE_GAP
    return items


def _box(layer: AlertLayer, palette: Palette) -> list[Item]:
    """The tinted, bordered box; the accent bar is clipped to its rounded corners."""
    x, y, width, height = layer.x, layer.y, layer.width, layer.height
    return [
        Rect(x, y, width, height, fill=palette.fill, stroke=palette.border, stroke_width=BORDER, radius=RADIUS),
        Group((Rect(x, y, ACCENT, height, fill=palette.accent),), clip=Clip(x, y, width, height, radius=RADIUS)),
    ]


def _text_blocks(
    layer: AlertLayer, palette: Palette, ctx: LayoutContext, width: float, height: float
) -> list[TextBlock]:
    """The title and the body that are not empty, cut to the height between them."""
    size = layer.size
    title = TextStyle(
        family=layer.font,
        weight=TITLE_WEIGHT,
        size=size * TITLE_SCALE,
        color=palette.title,
        line_height=TITLE_LINE_HEIGHT,
    )
    body = TextStyle(family=layer.font, size=size, color=palette.text, line_height=TEXT_LINE_HEIGHT)
    blocks: list[TextBlock] = []
    room = height
    for what, text, style in (("title", layer.title, title), ("body", layer.text, body)):
        if not text:
            continue
        if blocks and room < style.size * style.line_height:
            ctx.warn_hidden(layer.name, f"{what} left out: no room for a line of it under the title", text)
            break
        block = typeset(text, style, ctx.fonts, width, max_height=room)
        blocks.append(block)
        ctx.report_text(layer.name, block, what)
        room -= block.height + size * TITLE_GAP
    return blocks


# ------------------------------------------------------------------ icons


def _circle(cx: float, cy: float, diameter: float, fill: Color) -> Ellipse:
    return Ellipse(cx - diameter / 2, cy - diameter / 2, diameter, diameter, fill=fill)


def _bar(cx: float, top: float, bottom: float, width: float, fill: Color) -> Rect:
    """A vertical bar with round ends."""
    return Rect(cx - width / 2, top, width, bottom - top, fill=fill, radius=width / 2)


def _stroke(points: list[Point], width: float, fill: Color) -> list[Item]:
    """A polyline drawn ``width`` thick with mitred joins and round ends."""
    half = width / 2
    normals = [_normal(a, b) for a, b in zip(points, points[1:], strict=False)]
    left, right = [], []
    for index, (px, py) in enumerate(points):
        before, after = normals[max(index - 1, 0)], normals[min(index, len(normals) - 1)]
        mx, my = before[0] + after[0], before[1] + after[1]
        reach = half / ((mx * before[0] + my * before[1]) / math.hypot(mx, my)) / math.hypot(mx, my)
        left.append((px + mx * reach, py + my * reach))
        right.append((px - mx * reach, py - my * reach))
    caps = [_circle(px, py, width, fill) for px, py in (points[0], points[-1])]
    return [Polygon((tuple(left + right[::-1]),), fill), *caps]


def _normal(a: Point, b: Point) -> Point:
    length = math.hypot(b[0] - a[0], b[1] - a[1])
    return (-(b[1] - a[1]) / length, (b[0] - a[0]) / length)


def _rounded_polygon(corners: list[Point], radius: float, steps: int = 8) -> tuple[Point, ...]:
    """A convex polygon with each corner replaced by an arc of ``radius``."""
    points: list[Point] = []
    for index, (vx, vy) in enumerate(corners):
        a, b = corners[index - 1], corners[(index + 1) % len(corners)]
        ua, ub = _unit(vx, vy, a), _unit(vx, vy, b)
        half_angle = math.acos(max(-1.0, min(1.0, ua[0] * ub[0] + ua[1] * ub[1]))) / 2
        bisector = _unit(0, 0, (ua[0] + ub[0], ua[1] + ub[1]))
        reach = radius / math.sin(half_angle)
        cx, cy = vx + bisector[0] * reach, vy + bisector[1] * reach
        tangent = radius / math.tan(half_angle)
        start = math.atan2(vy + ua[1] * tangent - cy, vx + ua[0] * tangent - cx)
        end = math.atan2(vy + ub[1] * tangent - cy, vx + ub[0] * tangent - cx)
        sweep = (end - start + math.pi) % (2 * math.pi) - math.pi
        for step in range(steps + 1):
            angle = start + sweep * step / steps
            points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    return tuple(points)


def _unit(x: float, y: float, towards: Point) -> Point:
    dx, dy = towards[0] - x, towards[1] - y
    length = math.hypot(dx, dy)
    return (dx / length, dy / length)


def _info(cx: float, cy: float, d: float, palette: Palette) -> list[Item]:
    """A disc with an "i": a dot over a bar."""
    return [
        _circle(cx, cy, d, palette.accent),
        _circle(cx, cy - 0.22 * d, 0.13 * d, palette.fill),
        _bar(cx, cy - 0.07 * d, cy + 0.27 * d, 0.11 * d, palette.fill),
    ]


def _success(cx: float, cy: float, d: float, palette: Palette) -> list[Item]:
    """A disc with a check mark."""
    check = [(cx - 0.22 * d, cy + 0.01 * d), (cx - 0.06 * d, cy + 0.17 * d), (cx + 0.23 * d, cy - 0.14 * d)]
    return [_circle(cx, cy, d, palette.accent), *_stroke(check, 0.11 * d, palette.fill)]


def _error(cx: float, cy: float, d: float, palette: Palette) -> list[Item]:
    """A disc with a cross."""
    arm = 0.16 * d
    return [
        _circle(cx, cy, d, palette.accent),
        *_stroke([(cx - arm, cy - arm), (cx + arm, cy + arm)], 0.11 * d, palette.fill),
        *_stroke([(cx + arm, cy - arm), (cx - arm, cy + arm)], 0.11 * d, palette.fill),
    ]


def _warning(cx: float, cy: float, d: float, palette: Palette) -> list[Item]:
    """A triangle with round corners and an "!"; a little wider than the discs, which
    look bigger than a triangle of the same width."""
    width = 1.08 * d
    height = width * math.sqrt(3) / 2
    corners = [(cx, cy - height / 2), (cx + width / 2, cy + height / 2), (cx - width / 2, cy + height / 2)]
    return [
        Polygon((_rounded_polygon(corners, 0.12 * d),), palette.accent),
        _bar(cx, cy - 0.16 * d, cy + 0.14 * d, 0.1 * d, palette.fill),
        _circle(cx, cy + 0.27 * d, 0.11 * d, palette.fill),
    ]


ICONS: dict[str, Callable[[float, float, float, Palette], list[Item]]] = {
    "info": _info,
    "success": _success,
    "warning": _warning,
    "error": _error,
}
