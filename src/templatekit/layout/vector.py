"""SVG images as Scene paths, for vector output: the SVG is read by svglib, and its
shapes become paths and its text glyph runs of the bundled fonts, placed in the box the
image covers. Raster output keeps the resvg bitmap; a PDF draws these paths instead.

Text is drawn as resvg draws it for the bitmap: in Inter whatever family it names, in
the face nearest its weight and style, turned and scaled by its transforms. svglib finds
fonts through ReportLab by name, so each Inter face is known to ReportLab under a name
of its own, measuring as Inter does (svglib places a text's pieces by those widths).

svglib is read through a reader of its own (``_reader``) that gives what svglib drops or
gets wrong as resvg draws it: ``fill-opacity`` and ``stroke-opacity`` applied once, to
the colour's own alpha (svglib puts the one in place of the other, or squares it, and
drops it on text); ``opacity`` on an element or a group, as a group faded as a whole; a
dash's ``stroke-dashoffset`` and the ``stroke-miterlimit``.

What cannot be given as plain shapes exactly (clip paths, embedded images, masks,
filters, markers, blend modes, patterns, gradient strokes, outlined text or text that
is skewed, stretched, mirrored, spaced or decorated, gradients other than two colours
along a CSS angle of their shape, a mitre that resvg would bevel and PDF not, or the
other way round) leaves the image without a vector version, and vector output then
embeds its bitmap.
"""

from __future__ import annotations

import functools
import io
import logging
import math
from collections.abc import Iterator
from typing import Any, ClassVar

from attrs import evolve, frozen
from reportlab.graphics import shapes
from reportlab.lib.attrmap import AttrMap, AttrMapValue
from reportlab.lib.colors import Color as RLColor
from reportlab.lib.validators import isNumber
from reportlab.pdfbase import pdfmetrics

from templatekit.model.values import Color, Gradient
from templatekit.scene import MITRE_LIMIT, Clip, Group, Item, LineCap, LineJoin, Path
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
_SVG_MITRE_LIMIT = 4.0  # SVG's default stroke-miterlimit (PDF's, which the painters keep, is 10)
#: Properties svglib leaves out, and the values of theirs that draw as if they were not
#: there; any other value leaves the SVG to its bitmap.
_DROPPED: dict[str, tuple[str, ...]] = {
    "mask": ("none",),
    "filter": ("none",),
    "marker": ("none",),
    "marker-start": ("none",),
    "marker-mid": ("none",),
    "marker-end": ("none",),
    "mix-blend-mode": ("normal",),
    "vector-effect": ("none",),
    "stroke-linejoin": ("miter", "round", "bevel", "inherit"),
    "letter-spacing": ("normal", "0", "0px"),
    "word-spacing": ("normal", "0", "0px"),
    "text-decoration": ("none",),
    "text-decoration-line": ("none",),
    "writing-mode": ("lr", "lr-tb", "horizontal-tb"),
    "font-variant": ("normal",),
    "font-stretch": ("normal", "100%"),
    "dominant-baseline": ("auto",),
    "alignment-baseline": ("auto", "baseline"),
    "textLength": (),
    "rotate": (),
    "transform-origin": (),
    "transform-box": (),
}


class _Unsupported(Exception):
    """The drawing holds something that is not a plain shape."""


def svg_vector(data: bytes, box: Box, fonts: FontBook) -> Group | None:
    """The SVG drawn into ``box`` (x, y, width, height: where its whole viewport lands)
    as Scene items, or None when it cannot be given as plain shapes."""
    from svglib.svglib import load_svg_file  # loaded only when a PDF has an SVG in it

    logging.getLogger("svglib.svglib").setLevel(logging.ERROR)
    try:
        root = load_svg_file(io.BytesIO(data))
        drawing = _reader()(io.BytesIO(data), font_map=_FONT_MAP).render(root) if root is not None else None
    except Exception:  # noqa: BLE001 - any failure of the reader, or what it cannot give: use the bitmap
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
        if isinstance(node, _Faded):
            yield Group(tuple(_group_items(list(node.contents), inner, fonts)), opacity=node.opacity)
        else:
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
    opacity = getattr(shape, "fillOpacity", 1.0)  # the reader keeps a gradient's fill-opacity there
    start, end = (_color(colour, opacity) for colour in stops)
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
    if _color(piece.fillColor) is None or _color(previous.fillColor) is None:
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


def _color(color: object, opacity: float = 1.0) -> Color | None:
    """The colour at its own alpha: the reader has put the SVG's fill-opacity or
    stroke-opacity in it (a gradient's stops take the fill-opacity as ``opacity``)."""
    if not isinstance(color, RLColor):
        return None
    alpha = color.alpha * opacity
    return Color(round(color.red * 255), round(color.green * 255), round(color.blue * 255), round(alpha * 255))


def _scale(m: Matrix) -> float:
    return math.sqrt(abs(m[0] * m[3] - m[1] * m[2]))


def _path(node: object, commands: tuple[Command, ...], m: Matrix) -> Path:
    closed_shape = not isinstance(node, (shapes.Line, shapes.PolyLine))
    fill = _color(getattr(node, "fillColor", None)) if closed_shape else None
    stroke = _color(getattr(node, "strokeColor", None))
    width = (getattr(node, "strokeWidth", 0) or 0) * _scale(m) if stroke is not None and stroke.a else 0.0
    join = _JOINS[getattr(node, "strokeLineJoin", 0) or 0]
    path = Path(
        commands,
        fill=fill if fill is not None and fill.a else None,
        stroke=stroke if width > 0 else None,
        stroke_width=width,
        even_odd=getattr(node, "fillMode", shapes.FILL_NON_ZERO) == shapes.FILL_EVEN_ODD,
        line_cap=_CAPS[getattr(node, "strokeLineCap", 0) or 0],
        line_join=join,
    )
    if path.stroke is None:
        return path
    dash, offset = _dashes(getattr(node, "strokeDashArray", None), _scale(m))
    if join == "miter":
        _check_mitres(path, getattr(node, "strokeMiterLimit", _SVG_MITRE_LIMIT))
    return evolve(path, dash=dash, dash_offset=offset)


def _dashes(value: object, scale: float) -> tuple[tuple[float, ...], float]:
    """A stroke-dasharray as the reader leaves it (the lengths, or the offset and the
    lengths) in scene px: the pattern, and the offset into it where each contour starts
    (within one period, as PDF's dash phase). None, or no lengths, is a solid stroke."""
    if not value:
        return (), 0.0
    offset: object = 0.0
    if isinstance(value, tuple) and len(value) == 2 and isinstance(value[1], (list, tuple)):
        offset, value = value
    numbers = [offset, *value] if isinstance(value, (list, tuple)) else [None]
    if not all(isinstance(v, (int, float)) and math.isfinite(v) for v in numbers):
        raise _Unsupported("a dash pattern that is not a list of lengths")
    start, *lengths = (float(v) * scale for v in numbers)  # type: ignore[arg-type]  # numbers, as checked
    if any(v < 0 for v in lengths) or sum(lengths) <= 0:
        raise _Unsupported("a dash pattern that resvg does not draw as dashes")
    period = sum(lengths) * (2 if len(lengths) % 2 else 1)
    return tuple(lengths), start % period


def _check_mitres(path: Path, limit: float) -> None:
    """Raises where a mitred corner of the path is mitred by one of SVG's limit (resvg's,
    as the bitmap shows it) and PDF's (``MITRE_LIMIT``) and bevelled by the other."""
    if abs(limit - MITRE_LIMIT) < 1e-9:
        return
    low, high = sorted((max(limit, 1.0), MITRE_LIMIT))
    for points, closed in path.contours():
        kept = [point for index, point in enumerate(points) if index == 0 or point != points[index - 1]]
        if closed and len(kept) > 2 and kept[-1] == kept[0]:
            kept.pop()
        run = [kept[-1], *kept, kept[0]] if closed else kept
        for before, at, after in zip(run, run[1:], run[2:], strict=False):
            ux, uy, vx, vy = at[0] - before[0], at[1] - before[1], after[0] - at[0], after[1] - at[1]
            lengths = math.hypot(ux, uy) * math.hypot(vx, vy)
            if not lengths:
                continue
            half = math.sqrt(max(0.0, (1 + (ux * vx + uy * vy) / lengths) / 2))  # sine of half the corner's angle
            if half and low < 1 / half <= high:
                raise _Unsupported("a corner one limit mitres and the other bevels")


def _text(pieces: tuple[shapes.String, ...], m: Matrix, fonts: FontBook) -> Iterator[Item]:
    """A line of SVG text in the bundled fonts, each piece in its own style, at the
    anchor of the first, turned and scaled by the transforms it is under."""
    first = pieces[0]
    if _color(first.fillColor) is None or not "".join(piece.text for piece in pieces).strip():
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
    color = _color(piece.fillColor)
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


class _Faded(shapes.Group):
    """A group the reader fades as a whole: an element's or a group's ``opacity``."""

    _attrMap = AttrMap(BASE=shapes.Group, opacity=AttrMapValue(isNumber, desc="how opaque the group is drawn"))

    def __init__(self, opacity: float) -> None:
        super().__init__()
        self.opacity = opacity


def _fraction(value: str) -> float:
    """An opacity as CSS writes it (a number, or a percentage), within 0 and 1."""
    text = value.strip()
    if not text:
        return 1.0
    try:
        number = float(text[:-1]) / 100 if text.endswith("%") else float(text)
    except ValueError:
        raise _Unsupported(f"the opacity {text!r}") from None
    if not math.isfinite(number):
        raise _Unsupported(f"the opacity {text!r}")
    return min(max(number, 0.0), 1.0)


@functools.cache
def _reader() -> Any:
    """svglib's SvgRenderer, reading what svglib alone drops or gets wrong (see the
    module's docstring); it raises ``_Unsupported`` at what it cannot give exactly."""
    from svglib.svglib import Svg2RlgAttributeConverter, Svg2RlgShapeConverter, SvgRenderer, node_name

    class Attributes(Svg2RlgAttributeConverter):
        reading = False  # whether found() is asking

        def findAttr(self, svgNode: Any, name: str) -> str:
            if name in ("fill-opacity", "stroke-opacity") and not self.reading:
                return ""  # svglib then keeps the colour's own alpha; Shapes applies these once
            return str(super().findAttr(svgNode, name))

        def found(self, node: Any, name: str) -> str:
            """The value of ``name`` for the node, its own or inherited."""
            self.reading = True
            try:
                return str(super().findAttr(node, name))
            finally:
                self.reading = False

        def own(self, node: Any, name: str) -> str:
            """The node's own value of ``name``, its style attribute and the style sheet
            applied."""
            if not node.attrib.get("__rules_applied"):  # svglib's mark that they are there
                super().findAttr(node, name)  # puts them among the node's attributes
            return str(node.attrib.get(name, "")).strip()

        def check(self, node: Any) -> None:
            """Raises where the node has a property svglib leaves out."""
            self.own(node, "opacity")  # the style attribute and the style sheet among the attributes
            attributes = node.etree_element.attrib
            for name in _DROPPED.keys() & set(attributes.keys()):
                value = str(attributes[name]).strip()
                if value and value not in _DROPPED[name]:
                    raise _Unsupported(f"{name}: {value}")
            order = str(attributes.get("paint-order", "")).split()
            if order and order[0] not in ("normal", "fill"):
                raise _Unsupported("a stroke under its fill")

    class Shapes(Svg2RlgShapeConverter):
        attrConverter: Attributes

        def applyStyleOnShape(self, shape: Any, node: Any, only_explicit: bool = False) -> None:
            if only_explicit:
                raise _Unsupported("a style svglib applies in part")
            before = {name: getattr(shape, name, None) for name in ("fillColor", "strokeColor")}
            super().applyStyleOnShape(shape, node, only_explicit)
            if shape.__class__ is shapes.Group:
                return  # its shapes were styled one by one
            found = self.attrConverter.found
            self.attrConverter.check(node)
            fill, stroke = found(node, "fill"), found(node, "stroke")
            if stroke.startswith("url("):
                raise _Unsupported("a gradient or pattern stroke")
            if isinstance(shape, shapes.String) and (fill.startswith("url(") or stroke not in ("", "none")):
                raise _Unsupported("text filled with a gradient or pattern, or outlined")
            for name, opacity in (("fillColor", "fill-opacity"), ("strokeColor", "stroke-opacity")):
                colour, share = getattr(shape, name, None), _fraction(found(node, opacity))
                if isinstance(colour, RLColor) and colour is not before[name] and share < 1:
                    setattr(shape, name, colour.clone(alpha=colour.alpha * share))
            if fill.startswith("url(") and hasattr(shape, "fillOpacity"):  # a gradient: _gradient_fill applies it
                shape.fillOpacity = _fraction(found(node, "fill-opacity"))
            if getattr(shape, "strokeDashArray", None) and found(node, "stroke-dashoffset"):
                offset = self.attrConverter.convertLength(found(node, "stroke-dashoffset"))
                shape.strokeDashArray = (offset, list(shape.strokeDashArray))
            if hasattr(shape, "strokeMiterLimit"):
                limit = found(node, "stroke-miterlimit")
                shape.strokeMiterLimit = float(limit) if limit else _SVG_MITRE_LIMIT

    class Renderer(SvgRenderer):
        def __init__(self, path: Any, **options: Any) -> None:
            super().__init__(path, **options)
            attributes = Attributes(font_map=options.get("font_map"))
            attributes.css_rules = self.attrConverter.css_rules
            self.attrConverter = self.attributes = attributes
            self.shape_converter = Shapes(path, attributes)
            self.handled_shapes = self.shape_converter.get_handled_shapes()

        def renderNode(self, node: Any, parent: Any = None) -> None:
            if parent is None or node_name(node) is None:
                super().renderNode(node, parent)
                return
            self.attributes.check(node)
            if node_name(node) == "text" and any(node_name(e) == "textPath" for e in node.etree_element.iter()):
                raise _Unsupported("text on a path")
            opacity = _fraction(self.attributes.own(node, "opacity"))
            if opacity >= 1:
                super().renderNode(node, parent)
                return
            faded = _Faded(opacity)
            super().renderNode(node, parent=faded)
            parent.add(faded)

        def renderSvg(self, node: Any, outermost: bool = False) -> Any:
            group = super().renderSvg(node, outermost)
            if not outermost:
                return group  # an inner <svg> is faded by renderNode
            self.attributes.check(node)
            opacity = _fraction(self.attributes.own(node, "opacity"))
            if opacity >= 1:
                return group
            faded = _Faded(opacity)  # in the group's place: the drawing is moved by its transform
            faded.transform, group.transform = group.transform, (1, 0, 0, 1, 0, 0)
            faded.add(group)
            return faded

        def _resolve_gradient(self, grad_id: str) -> Any:
            found = super()._resolve_gradient(grad_id)
            if found is None:
                raise _Unsupported("a fill that is not a gradient (a pattern), or not there")
            return found

        def _apply_gradient_fill(self, item: Any, grad_def: Any) -> Any:
            filled = super()._apply_gradient_fill(item, grad_def)
            if filled is item:
                raise _Unsupported("a gradient svglib does not draw")
            return filled

    return Renderer


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
