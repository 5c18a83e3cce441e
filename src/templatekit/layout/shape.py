"""Shape layers: rectangle (each corner rounded alike or on its own), ellipse, line (with
arrowheads), polygon or SVG path, filling the layer box; strokes solid or dashed."""

from __future__ import annotations

import math

from attrs import evolve

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import ShapeLayer
from templatekit.model.path_data import Command, parse_path_data
from templatekit.model.values import Color, Gradient
from templatekit.scene import Ellipse, Item, Line, Path, Rect
from templatekit.scene.geometry import KAPPA

#: An arrowhead's length and width, as multiples of the stroke width (at least 8 px long).
ARROW_LENGTH, ARROW_WIDTH, ARROW_MIN = 4.0, 3.0, 8.0


def layout(layer: ShapeLayer, ctx: LayoutContext) -> list[Item]:
    return shape_items(layer)


def shape_items(layer: ShapeLayer) -> list[Item]:
    """The shape's items; they depend on nothing but the layer (masks draw shapes too)."""
    stroke = layer.stroke if layer.stroke_width > 0 else None
    if layer.shape == "line":
        return _line(layer)
    commands = _outline(layer)
    if commands is None:  # a plain rectangle or ellipse, solid: the painters' own shapes
        if layer.shape == "ellipse":
            return [Ellipse(layer.x, layer.y, layer.width, layer.height, layer.fill, stroke, layer.stroke_width)]
        box = (layer.x, layer.y, layer.width, layer.height)
        return [Rect(*box, layer.fill, stroke, layer.stroke_width, layer.radius)]
    path = Path(
        commands,
        fill=layer.fill,
        stroke=stroke,
        stroke_width=layer.stroke_width,
        even_odd=layer.fill_rule == "evenodd",
        line_cap=layer.line_cap,
        line_join="round" if layer.shape in ("ellipse", "path") else "miter",
    )
    if stroke is None or not layer.stroke_dash:
        return [path]
    if layer.shape == "rect" and _sharp(layer) and len(layer.stroke_dash) <= 2:
        outline = evolve(path, stroke=None, stroke_width=0.0) if layer.fill is not None else None
        return [*([outline] if outline else []), evolve(path, commands=_border(layer), fill=None)]
    return [_fitted_dashes(path, layer.stroke_dash, symmetric=layer.shape in ("rect", "ellipse"))]


def _sharp(layer: ShapeLayer) -> bool:
    return not any(layer.radii or (layer.radius,))


def _border(layer: ShapeLayer) -> tuple[Command, ...]:
    """A sharp rectangle's dotted or dashed outline as a CSS border draws it: each side
    fitted to its own length, a dot centred on every corner (``[0, gap]``), or a dash
    bent round it, half on each side, with whole dashes and even gaps between."""
    inset = min(layer.stroke_width / 2, layer.width / 2, layer.height / 2)
    left, top = layer.x + inset, layer.y + inset
    right, bottom = layer.x + layer.width - inset, layer.y + layer.height - inset
    corners = [(left, top), (right, top), (right, bottom), (left, bottom)]
    sides = [(corners[index], corners[(index + 1) % 4]) for index in range(4)]
    dash, gap = (*layer.stroke_dash, layer.stroke_dash[0])[:2]
    commands: list[Command] = []
    if dash == 0:  # dots
        for start, end in sides:
            length = math.dist(start, end)
            count = max(1, round(length / gap))
            for number in range(count):  # the side's end is the next side's first dot
                point = _along(start, end, number * length / count)
                commands += [("M", *point), ("L", *point)]
        return tuple(commands)
    ends: list[float] = []  # the half dash each side gives each of its two corners
    for start, end in sides:
        length = math.dist(start, end)
        count = max(0, round((length - dash - gap) / (dash + gap)))
        scale = length / (dash + count * dash + (count + 1) * gap)
        ends.append(dash * scale / 2)
        position = dash * scale / 2 + gap * scale
        for _ in range(count):
            commands += [("M", *_along(start, end, position)), ("L", *_along(start, end, position + dash * scale))]
            position += (dash + gap) * scale
    for index, (corner, next_corner) in enumerate(sides):  # a corner's dash: one side's end, the next's start
        previous_corner = sides[index - 1][0]
        arms = (_along(corner, previous_corner, ends[index - 1]), _along(corner, next_corner, ends[index]))
        commands += [("M", *arms[0]), ("L", *corner), ("L", *arms[1])]
    return tuple(commands)


def _along(start: tuple[float, float], end: tuple[float, float], distance: float) -> tuple[float, float]:
    length = math.dist(start, end) or 1.0
    return (start[0] + (end[0] - start[0]) * distance / length, start[1] + (end[1] - start[1]) * distance / length)


def _fitted_dashes(path: Path, pattern: tuple[float, ...], symmetric: bool) -> Path:
    """The path dashed with ``pattern`` scaled so that a whole number of its periods fits
    a closed outline, as browsers fit dotted and dashed borders: the pattern closes where
    it started, with no stub or crowded dot there. A rectangle's or an ellipse's outline
    (started at the middle of a side) takes a multiple of four periods, with a gap at
    that middle, so that each quarter, and each corner, looks like the others. An open
    outline, or one of several contours, keeps the pattern as it is."""
    lines = path.contours()
    if len(lines) != 1 or not lines[0][1]:
        return evolve(path, dash=pattern)
    points = [*lines[0][0], lines[0][0][0]]
    length = sum(math.dist(a, b) for a, b in zip(points, points[1:], strict=False))
    period = sum(pattern) * (2 if len(pattern) % 2 else 1)
    if symmetric:
        count = 4 * max(1, round(length / period / 4))
    else:
        count = max(1, round(length / period))
    dash = tuple(value * length / (count * period) for value in pattern)
    offset = dash[0] + dash[1 % len(dash)] / 2 if symmetric else 0.0
    return evolve(path, dash=dash, dash_offset=offset)


def _outline(layer: ShapeLayer) -> tuple[Command, ...] | None:
    """The shape as path commands, or None where a Rect or an Ellipse draws it."""
    x, y, width, height = layer.x, layer.y, layer.width, layer.height
    if layer.shape == "polygon":
        corners = [(x + fx * width, y + fy * height) for fx, fy in layer.points]
        return (("M", *corners[0]), *(("L", *corner) for corner in corners[1:]), ("Z",))
    if layer.shape == "path":
        return _fitted(parse_path_data(layer.path or ""), layer)
    stroked = layer.stroke is not None and layer.stroke_width > 0
    dashed = bool(layer.stroke_dash) and stroked
    if layer.shape == "ellipse" and not dashed or layer.shape == "rect" and layer.radii is None and not dashed:
        return None
    # the outline inside the box, as the painters draw a Rect's or an Ellipse's
    inset = min(layer.stroke_width / 2, width / 2, height / 2) if stroked else 0.0
    x, y, width, height = x + inset, y + inset, width - 2 * inset, height - 2 * inset
    if layer.shape == "ellipse":
        return _ellipse(x, y, width, height)
    tl, tr, br, bl = (max(0.0, r - inset) for r in layer.radii or (layer.radius,) * 4)
    return _rounded_rect(x, y, width, height, (tl, tr, br, bl))


def _fitted(commands: tuple[Command, ...], layer: ShapeLayer) -> tuple[Command, ...]:
    """Path data scaled from its view box into the layer box, uniformly and centred
    (SVG's default, xMidYMid meet); without a view box its units are px in the box."""
    vx, vy, vw, vh = layer.view_box or (0.0, 0.0, layer.width, layer.height)
    scale = min(layer.width / vw, layer.height / vh)
    dx = layer.x + (layer.width - vw * scale) / 2 - vx * scale
    dy = layer.y + (layer.height - vh * scale) / 2 - vy * scale
    return tuple(
        (command[0], *(value * scale + (dx if index % 2 == 0 else dy) for index, value in enumerate(command[1:])))
        for command in commands
    )


def _rounded_rect(
    x: float, y: float, width: float, height: float, radii: tuple[float, float, float, float]
) -> tuple[Command, ...]:
    """A rectangle whose corners (top-left, top-right, bottom-right, bottom-left) are
    quarter circles, scaled down together where two would overlap (as CSS does); a
    corner of radius 0 is a plain corner, which a stroke mitres."""
    tl, tr, br, bl = radii
    shrink = min([1.0, *(side / pair for side, pair in _sides(width, height, radii) if pair > 0)])
    tl, tr, br, bl = (r * shrink for r in (tl, tr, br, bl))
    k = 1 - KAPPA

    def corner(radius: float, start: tuple[float, float], *curve: float) -> tuple[Command, ...]:
        return (("L", *start), ("C", *curve)) if radius > 0 else (("L", *curve[4:]),)

    right, bottom = x + width, y + height
    return (
        ("M", x + width / 2, y),  # from the middle of the top: where dashes are fitted from
        *corner(tr, (right - tr, y), right - tr * k, y, right, y + tr * k, right, y + tr),
        *corner(br, (right, bottom - br), right, bottom - br * k, right - br * k, bottom, right - br, bottom),
        *corner(bl, (x + bl, bottom), x + bl * k, bottom, x, bottom - bl * k, x, bottom - bl),
        *corner(tl, (x, y + tl), x, y + tl * k, x + tl * k, y, x + tl, y),
        ("Z",),  # back along the top
    )


def _sides(width: float, height: float, radii: tuple[float, float, float, float]) -> list[tuple[float, float]]:
    tl, tr, br, bl = radii
    return [(width, tl + tr), (height, tr + br), (width, br + bl), (height, bl + tl)]


def _ellipse(x: float, y: float, width: float, height: float) -> tuple[Command, ...]:
    rx, ry = width / 2, height / 2
    cx, cy = x + rx, y + ry
    ox, oy = rx * KAPPA, ry * KAPPA
    return (
        ("M", cx + rx, cy),
        ("C", cx + rx, cy + oy, cx + ox, cy + ry, cx, cy + ry),
        ("C", cx - ox, cy + ry, cx - rx, cy + oy, cx - rx, cy),
        ("C", cx - rx, cy - oy, cx - ox, cy - ry, cx, cy - ry),
        ("C", cx + ox, cy - ry, cx + rx, cy - oy, cx + rx, cy),
        ("Z",),
    )


def _line(layer: ShapeLayer) -> list[Item]:
    """A level line through the middle of the box (rotate the layer for others), with
    arrowheads that end exactly at its ends."""
    color = layer.stroke or _solid(layer.fill) or Color(0, 0, 0)
    width = max(layer.stroke_width, 1.0)
    middle = layer.y + layer.height / 2
    start, end = layer.x, layer.x + layer.width
    length = max(ARROW_MIN, ARROW_LENGTH * width)
    half = max(ARROW_MIN * ARROW_WIDTH / ARROW_LENGTH, ARROW_WIDTH * width) / 2
    heads: list[Item] = []
    if layer.arrow_start:
        heads.append(_head(start, middle, +1, length, half, color))
        start += length * 0.8  # the shaft stops inside the head, whose point is the end
    if layer.arrow_end:
        heads.append(_head(end, middle, -1, length, half, color))
        end -= length * 0.8
    if not layer.stroke_dash and layer.line_cap == "butt":
        return [Line((start, middle), (end, middle), color, width), *heads]
    shaft = Path(
        (("M", start, middle), ("L", end, middle)),
        stroke=color,
        stroke_width=width,
        line_cap=layer.line_cap,
        dash=layer.stroke_dash,
    )
    return [shaft, *heads]


def _head(tip: float, middle: float, direction: int, length: float, half: float, color: Color) -> Path:
    """A filled triangle pointing to ``tip``, its base ``length`` behind it."""
    base = tip + direction * length
    corners = ((tip, middle), (base, middle - half), (base, middle + half))
    return Path((("M", *corners[0]), ("L", *corners[1]), ("L", *corners[2]), ("Z",)), fill=color)


def _solid(fill: Color | Gradient | None) -> Color | None:
    return fill if isinstance(fill, Color) else fill.from_ if fill is not None else None
