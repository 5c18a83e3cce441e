"""SVG images as Scene paths, for vector output: the SVG is read by svglib, and its
shapes become paths and its text glyph runs of the bundled fonts, placed in the box the
image covers. Raster output keeps the resvg bitmap; a PDF draws these paths instead.

What svglib cannot give as plain shapes (gradients, clip paths, embedded images) leaves
the image without a vector version, and vector output then embeds its bitmap.
"""

from __future__ import annotations

import io
import logging
import math
from collections.abc import Iterator
from typing import Any

from reportlab.graphics import shapes
from reportlab.lib.colors import Color as RLColor

from templatekit.model.values import Color
from templatekit.scene import Clip, Group, Item, LineCap, LineJoin, Path
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, place, typeset

Matrix = tuple[float, float, float, float, float, float]
Command = tuple[Any, ...]  # ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y) or ("Z",)
Box = tuple[float, float, float, float]
_CAPS: tuple[LineCap, ...] = ("butt", "round", "square")
_JOINS: tuple[LineJoin, ...] = ("miter", "round", "bevel")
_ANCHOR_SHARE = {"start": 0.0, "middle": 0.5, "end": 1.0}


class _Unsupported(Exception):
    """The drawing holds something that is not a plain shape."""


def svg_vector(data: bytes, box: Box, fonts: FontBook) -> Group | None:
    """The SVG drawn into ``box`` (x, y, width, height: where its whole viewport lands)
    as Scene items, or None when it cannot be given as plain shapes."""
    from svglib.svglib import svg2rlg  # loaded only when a PDF has an SVG in it

    logging.getLogger("svglib.svglib").setLevel(logging.ERROR)
    try:
        drawing = svg2rlg(io.BytesIO(data))
    except Exception:  # noqa: BLE001 - any failure of the reader means: use the bitmap
        return None
    if drawing is None or not drawing.width or not drawing.height:
        return None
    x, y, width, height = box
    sx, sy = width / drawing.width, height / drawing.height
    to_box: Matrix = (sx, 0.0, 0.0, -sy, x, y + height)  # drawing units, y up -> scene px, y down
    try:
        return Group(tuple(_items(drawing, to_box, fonts)))
    except _Unsupported:
        return None


def _compose(outer: Matrix, inner: Matrix) -> Matrix:
    a, b, c, d, e, f = outer
    p, q, r, s, t, u = inner
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def _apply(m: Matrix, x: float, y: float) -> tuple[float, float]:
    return (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])


def _items(node: object, matrix: Matrix, fonts: FontBook) -> Iterator[Item]:
    if isinstance(node, shapes.Group):  # a Drawing is a Group too
        inner = _compose(matrix, tuple(node.transform)) if hasattr(node, "transform") else matrix
        yield from _group_items(list(node.contents), inner, fonts)
    elif isinstance(node, shapes.String):
        yield from _text(node, matrix, fonts)
    elif type(node) in _OUTLINES or isinstance(node, shapes.Path):
        commands = _commands(node, matrix)
        if commands:
            yield _path(node, commands, matrix)
    else:
        raise _Unsupported(type(node).__name__)


def _group_items(children: list[object], matrix: Matrix, fonts: FontBook) -> Iterator[Item]:
    """A group's shapes; a clip path (svglib puts it before the shapes it clips) that is
    a rectangle clips the rest of the group."""
    for index, child in enumerate(children):
        if getattr(child, "isClipPath", 0):
            clip = _rectangle(_commands(child, matrix))
            if clip is None:
                raise _Unsupported("a clip path other than a rectangle")
            rest = tuple(item for other in children[index + 1 :] for item in _items(other, matrix, fonts))
            yield Group(rest, clip=clip)
            return
        yield from _items(child, matrix, fonts)


def _rectangle(commands: tuple[Command, ...]) -> Clip | None:
    """The axis-aligned rectangle an outline is, if it is one."""
    points = [(float(c[1]), float(c[2])) for c in commands if c[0] in ("M", "L")]
    if any(c[0] == "C" for c in commands) or len(points) < 4:
        return None
    xs, ys = sorted({round(x, 3) for x, _ in points}), sorted({round(y, 3) for _, y in points})
    if len(xs) != 2 or len(ys) != 2:
        return None
    return Clip(xs[0], ys[0], xs[1] - xs[0], ys[1] - ys[0])


def _commands(node: object, m: Matrix) -> tuple[Command, ...]:
    """The shape's outline in scene px."""
    if isinstance(node, shapes.Path):
        return _path_commands(node, m)
    return tuple(_transformed(command, m) for command in _OUTLINES[type(node)](node))


def _transformed(command: Command, m: Matrix) -> Command:
    values = command[1:]
    return (command[0], *[v for x, y in zip(values[::2], values[1::2], strict=True) for v in _apply(m, x, y)])


def _path_commands(node: shapes.Path, m: Matrix) -> tuple[Command, ...]:
    points = node.points
    commands: list[Command] = []
    index = 0
    for operator in node.operators:
        if operator in (shapes._MOVETO, shapes._LINETO):
            kind = "M" if operator == shapes._MOVETO else "L"
            commands.append((kind, *_apply(m, points[index], points[index + 1])))
            index += 2
        elif operator == shapes._CURVETO:
            coords = [v for k in range(3) for v in _apply(m, points[index + 2 * k], points[index + 2 * k + 1])]
            commands.append(("C", *coords))
            index += 6
        elif operator == shapes._CLOSEPATH:
            commands.append(("Z",))
    return tuple(commands)


def _ellipse_outline(cx: float, cy: float, rx: float, ry: float) -> list[Command]:
    k = 0.5522847498
    return [
        ("M", cx + rx, cy),
        ("C", cx + rx, cy + ry * k, cx + rx * k, cy + ry, cx, cy + ry),
        ("C", cx - rx * k, cy + ry, cx - rx, cy + ry * k, cx - rx, cy),
        ("C", cx - rx, cy - ry * k, cx - rx * k, cy - ry, cx, cy - ry),
        ("C", cx + rx * k, cy - ry, cx + rx, cy - ry * k, cx + rx, cy),
        ("Z",),
    ]


def _rect_outline(node: shapes.Rect) -> list[Command]:
    x, y, w, h = node.x, node.y, node.width, node.height
    rx, ry = min(node.rx or 0, w / 2), min(node.ry or node.rx or 0, h / 2)
    if not rx or not ry:
        return [("M", x, y), ("L", x + w, y), ("L", x + w, y + h), ("L", x, y + h), ("Z",)]
    k = 0.5522847498
    return [
        ("M", x + rx, y),
        ("L", x + w - rx, y),
        ("C", x + w - rx + rx * k, y, x + w, y + ry - ry * k, x + w, y + ry),
        ("L", x + w, y + h - ry),
        ("C", x + w, y + h - ry + ry * k, x + w - rx + rx * k, y + h, x + w - rx, y + h),
        ("L", x + rx, y + h),
        ("C", x + rx - rx * k, y + h, x, y + h - ry + ry * k, x, y + h - ry),
        ("L", x, y + ry),
        ("C", x, y + ry - ry * k, x + rx - rx * k, y, x + rx, y),
        ("Z",),
    ]


def _points_outline(node: shapes.PolyLine | shapes.Polygon, close: bool) -> list[Command]:
    points = list(zip(node.points[::2], node.points[1::2], strict=True))
    if not points:
        return []
    outline: list[Command] = [("M", *points[0]), *(("L", *point) for point in points[1:])]
    return [*outline, ("Z",)] if close else outline


_OUTLINES = {
    shapes.Rect: _rect_outline,
    shapes.Circle: lambda n: _ellipse_outline(n.cx, n.cy, n.r, n.r),
    shapes.Ellipse: lambda n: _ellipse_outline(n.cx, n.cy, n.rx, n.ry),
    shapes.Line: lambda n: [("M", n.x1, n.y1), ("L", n.x2, n.y2)],
    shapes.PolyLine: lambda n: _points_outline(n, close=False),
    shapes.Polygon: lambda n: _points_outline(n, close=True),
}


def _color(color: object, opacity: float | None) -> Color | None:
    if not isinstance(color, RLColor):
        return None
    alpha = color.alpha * (1.0 if opacity is None else opacity)
    return Color(round(color.red * 255), round(color.green * 255), round(color.blue * 255), round(alpha * 255))


def _scale(m: Matrix) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _path(node: object, commands: tuple[Command, ...], m: Matrix) -> Path:
    closed_shape = not isinstance(node, (shapes.Line, shapes.PolyLine))
    fill = _color(getattr(node, "fillColor", None), getattr(node, "fillOpacity", None)) if closed_shape else None
    stroke = _color(getattr(node, "strokeColor", None), getattr(node, "strokeOpacity", None))
    width = (getattr(node, "strokeWidth", 0) or 0) * _scale(m) if stroke is not None else 0.0
    return Path(
        commands,
        fill=fill if fill is not None and fill.a else None,
        stroke=stroke if width > 0 else None,
        stroke_width=width,
        even_odd=getattr(node, "fillMode", shapes.FILL_NON_ZERO) == shapes.FILL_EVEN_ODD,
        line_cap=_CAPS[getattr(node, "strokeLineCap", 0) or 0],
        line_join=_JOINS[getattr(node, "strokeLineJoin", 0) or 0],
    )


def _text(node: shapes.String, m: Matrix, fonts: FontBook) -> Iterator[Item]:
    """An SVG text line in the bundled fonts, at its anchor, upright in the scene."""
    color = _color(node.fillColor, getattr(node, "fillOpacity", None))
    if color is None or not node.text.strip():
        return
    name = str(node.fontName).lower()
    style = TextStyle(
        weight=700 if "bold" in name else 400,
        italic="italic" in name or "oblique" in name,
        size=node.fontSize * _scale(m),
        color=color,
        line_height=1.0,
    )
    block = typeset(node.text, style, fonts, math.inf, max_lines=1)
    x, baseline = _apply(m, node.x, node.y)
    left = x - block.width * _ANCHOR_SHARE.get(node.textAnchor, 0.0)
    yield from place(block, left, baseline - block.first_baseline, block.width, block.height)
