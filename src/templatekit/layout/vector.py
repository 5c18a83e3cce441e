"""SVG images as Scene paths, for vector output: the SVG is read by svglib, and its
shapes become paths and its text glyph runs of the bundled fonts, placed in the box the
image covers. Raster output keeps the resvg bitmap; a PDF draws these paths instead.

Text is drawn as resvg draws it for the bitmap: in Inter whatever family it names, in
the face nearest its weight and style, turned and scaled by its transforms. svglib finds
fonts through ReportLab by name, so each Inter face is known to ReportLab under a name
of its own, measuring as Inter does (svglib places a text's pieces by those widths).

What svglib cannot give as plain shapes (clip paths, embedded images, text that is
skewed, stretched or mirrored, gradients other than two colours along a CSS angle of
their shape) leaves the image without a vector version, and vector output then embeds
its bitmap.
"""

from __future__ import annotations

import io
import logging
import math
from collections.abc import Iterator
from typing import Any, ClassVar

from attrs import frozen
from reportlab.graphics import shapes
from reportlab.lib.colors import Color as RLColor
from reportlab.pdfbase import pdfmetrics

from templatekit.model.values import Color, Gradient
from templatekit.scene import Clip, Group, Item, LineCap, LineJoin, Path
from templatekit.scene.geometry import KAPPA, Transform
from templatekit.text.fonts import DEFAULT_FAMILY, Face, FontBook
from templatekit.text.shaping import shape
from templatekit.text.typeset import TextStyle, place, typeset

Matrix = tuple[float, float, float, float, float, float]
Command = tuple[Any, ...]  # ("M", x, y), ("L", x, y), ("C", x1, y1, x2, y2, x, y) or ("Z",)
Box = tuple[float, float, float, float]
_CAPS: tuple[LineCap, ...] = ("butt", "round", "square")
_JOINS: tuple[LineJoin, ...] = ("miter", "round", "bevel")
_ANCHOR_SHARE = {"start": 0.0, "middle": 0.5, "end": 1.0}
_WEIGHTS = {"normal": 400, "bold": 700, "bolder": 700, "lighter": 100}  # the relative ones from a normal parent
_SIMILAR = 0.02  # how far (relative to its scale) a text's transform may be from a turn and a uniform scale


class _Unsupported(Exception):
    """The drawing holds something that is not a plain shape."""


def svg_vector(data: bytes, box: Box, fonts: FontBook) -> Group | None:
    """The SVG drawn into ``box`` (x, y, width, height: where its whole viewport lands)
    as Scene items, or None when it cannot be given as plain shapes."""
    from svglib.svglib import svg2rlg  # loaded only when a PDF has an SVG in it

    logging.getLogger("svglib.svglib").setLevel(logging.ERROR)
    try:
        drawing = svg2rlg(io.BytesIO(data), font_map=_FONT_MAP)
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
    elif isinstance(node, tuple):
        yield from _text(node, matrix, fonts)
    elif type(node) in _OUTLINES or isinstance(node, shapes.Path):
        commands = _commands(node, matrix)
        if commands:
            yield _path(node, commands, matrix)
    elif type(node).__name__ == "LinearGradientShape":
        yield _gradient_fill(node, matrix)
    else:
        raise _Unsupported(type(node).__name__)


def _gradient_fill(node: Any, m: Matrix) -> Path:
    """svglib's linear gradient, filling its clip shape: a path with a gradient fill when
    the gradient is what a CSS angle gives over the shape's box (two stops, at its ends;
    the axis centred on the box, as long as the box is across at that angle), as a
    logo's corner-to-corner or side-to-side gradient is. Other gradients keep the bitmap."""
    try:  # svglib's own attributes, not a published API: another version keeps the bitmap
        shape, stops, positions = node._clip_shape, list(node._rl_colors), list(node._positions)
        (x0, y0), (x1, y1) = _apply(m, node._x0, node._y0), _apply(m, node._x1, node._y1)
    except AttributeError:
        raise _Unsupported("a gradient this svglib keeps otherwise") from None
    if len(stops) != 2 or positions != [0.0, 1.0]:
        raise _Unsupported("a gradient other than two stops at its ends")
    start, end = (_color(colour, None) for colour in stops)
    commands = _commands(shape, m) if type(shape) in _OUTLINES or isinstance(shape, shapes.Path) else ()
    if not commands or start is None or end is None:
        raise _Unsupported("a gradient over a shape or in colours that are not plain")
    points = [point for command in commands for point in zip(command[1::2], command[2::2], strict=True)]
    left, top = min(x for x, _ in points), min(y for _, y in points)
    right, bottom = max(x for x, _ in points), max(y for _, y in points)
    angle = math.degrees(math.atan2(x1 - x0, y0 - y1)) % 360  # CSS: 0 up, 90 right (scene y runs down)
    turn = math.radians(angle)
    across = abs((right - left) * math.sin(turn)) + abs((bottom - top) * math.cos(turn))
    # how far the axis's middle is from the box's centre along the axis (across it, the
    # colours do not change)
    off_centre = abs(((x0 + x1 - left - right) * math.sin(turn) - (y0 + y1 - top - bottom) * math.cos(turn)) / 2)
    if abs(math.hypot(x1 - x0, y1 - y0) - across) > 0.01 * across or off_centre > 0.01 * across:
        raise _Unsupported("a gradient whose axis is not a CSS angle's over its shape")
    return Path(commands, fill=Gradient(start, end, angle))


def _group_items(children: list[object], matrix: Matrix, fonts: FontBook) -> Iterator[Item]:
    """A group's shapes; a clip path (svglib puts it before the shapes it clips) that is
    a rectangle clips the rest of the group."""
    children = _lines(children)
    for index, child in enumerate(children):
        if getattr(child, "isClipPath", 0):
            clip = _rectangle(_commands(child, matrix))
            if clip is None:
                raise _Unsupported("a clip path other than a rectangle")
            rest = tuple(item for other in children[index + 1 :] for item in _items(other, matrix, fonts))
            yield Group(rest, clip=clip)
            return
        yield from _items(child, matrix, fonts)


def _lines(children: list[object]) -> list[object]:
    """The children with their Strings gathered into lines: tuples of the pieces of one
    line (svglib makes a String of each tspan) that are anchored together."""
    gathered: list[object] = []
    for child in children:
        last = gathered[-1] if gathered else None
        if isinstance(child, shapes.String) and isinstance(last, tuple) and _continues(last[-1], child):
            gathered[-1] = (*last, child)
        else:
            gathered.append((child,) if isinstance(child, shapes.String) else child)
    return gathered


def _continues(previous: shapes.String, piece: shapes.String) -> bool:
    """Whether ``piece`` follows ``previous`` on a centred or end-anchored line: svglib
    puts it after it (by the width of the text's own font, which the piece's may not
    be), and would anchor each piece alone. A start-anchored piece is where it should
    be already; one placed apart from the previous starts a line of its own."""
    if piece.textAnchor == "start" or piece.textAnchor != previous.textAnchor or piece.y != previous.y:
        return False
    if _color(piece.fillColor, None) is None or _color(previous.fillColor, None) is None:
        return False
    width = pdfmetrics.stringWidth(previous.text, previous.fontName, previous.fontSize)
    return 0.75 * width <= piece.x - previous.x <= 1.25 * width


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
    k = KAPPA
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
    k = KAPPA
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


def _text(pieces: tuple[shapes.String, ...], m: Matrix, fonts: FontBook) -> Iterator[Item]:
    """A line of SVG text in the bundled fonts, each piece in its own style, at the
    anchor of the first, turned and scaled by the transforms it is under."""
    first = pieces[0]
    if _color(first.fillColor, None) is None or not "".join(piece.text for piece in pieces).strip():
        return
    # The line's own frame: x along the baseline from its anchor, y down (svglib's are up).
    a, b, c, d, x, y = _compose(m, (1.0, 0.0, 0.0, -1.0, first.x, first.y))
    scale = math.sqrt(max(a * d - b * c, 0.0))
    if not scale or abs(a - d) > _SIMILAR * scale or abs(b + c) > _SIMILAR * scale:
        raise _Unsupported("text that is skewed, stretched or mirrored")
    spans = tuple((piece.text, _style(piece, scale)) for piece in pieces)
    block = typeset(spans, spans[0][1], fonts, math.inf, max_lines=1)
    left = x - block.width * _ANCHOR_SHARE.get(first.textAnchor, 0.0)
    items = tuple(place(block, left, y - block.first_baseline, block.width, block.height))
    rotation = math.degrees(math.atan2(b, a))
    if rotation:
        yield Group(items, transform=Transform.turn(rotation, (x, y)))
    else:
        yield from items


def _style(piece: shapes.String, scale: float) -> TextStyle:
    face = _FACES.get(str(piece.fontName)) or FontBook.bundled().match(DEFAULT_FAMILY)
    color = _color(piece.fillColor, getattr(piece, "fillOpacity", None))
    assert color is not None  # a line's pieces all have a fill
    return TextStyle(weight=face.weight, italic=face.italic, size=piece.fontSize * scale, color=color, line_height=1.0)


def _css_weight(value: str) -> int:
    """A CSS font-weight as a number from 1 to 1000."""
    keyword = _WEIGHTS.get(value.strip().lower())
    if keyword is not None:
        return keyword
    try:
        number = float(value)
    except ValueError:
        return 400
    return round(min(max(number, 1.0), 1000.0)) if math.isfinite(number) else 400


@frozen
class _Metrics:
    """An Inter face as ReportLab knows a font, for svglib: a name, and widths."""

    fontName: str
    face: Face
    _dynamicFont: ClassVar[bool] = False  # read by ReportLab's registerFont
    _multiByte: ClassVar[bool] = False

    def stringWidth(self, text: str, size: float, encoding: str = "utf8") -> float:
        """The advance of ``text``, its trailing spaces included: a line's last spaces
        hang out of it when it is set, but here the next piece follows them."""
        style = TextStyle(weight=self.face.weight, italic=self.face.italic, size=size, line_height=1.0)
        line = text.rstrip()
        spaces = shape(text, len(line), len(text), self.face.file, False, "Zyyy")
        return typeset(line, style, FontBook.bundled(), math.inf, max_lines=1).width + spaces.width * size / spaces.upem


_FACES: dict[str, Face] = {}  # by the name ReportLab knows them by


def _registered(face: Face) -> str:
    name = f"templatekit-svg-{face.weight}{'-italic' if face.italic else ''}"
    if name not in _FACES:
        pdfmetrics.registerFont(_Metrics(name, face))
        _FACES[name] = face
    return name


class _FontMap:
    """svglib's font lookup: every family is Inter, as resvg draws it for the bitmap, in
    the face nearest the weight and style asked for."""

    def find_font(self, font_name: str, weight: str = "normal", style: str = "normal") -> tuple[str, bool]:
        italic = str(style).strip().lower() in ("italic", "oblique")
        return _registered(FontBook.bundled().match(DEFAULT_FAMILY, _css_weight(str(weight)), italic)), True


_FONT_MAP = _FontMap()
