"""The PDF painter: Scenes become the pages of a vector PDF.

One function per primitive, one dispatch table, as in the raster painter. Each page is
``width × 0.75`` by ``height × 0.75`` points (96 px per inch); the page's first operator
maps scene px, y pointing down, onto it, so every primitive is drawn in the same
coordinates as in the raster painter.

- Glyph runs are text in embedded subsets of their fonts, each glyph at the position
  the layout gave it (see ``fonts``); colour glyphs (emoji) are vector drawings of their
  colour layers (see ``color_glyphs``; a bitmap colour font's glyphs are images at four
  times their size), under the same glyphs as invisible text.
- Shapes, bars, polygons and paths are paths; opaque gradients are shadings clipped to
  the shape, translucent ones images (a shading has no alpha of its own).
- Images are embedded at their own resolution; a JPEG goes in as it came, cropped by a
  clip when only part of it shows; an image with a vector version (SVG) is drawn as it.
- A translucent group whose items may overlap, or whose one item paints over itself (a
  shape's stroke over its fill, text over its outline, glyphs that touch), is a
  transparency group (a form XObject) faded as a whole, as the raster painter fades a
  layer.

All pages share one resource dictionary. Output is deterministic: the same Scenes give
the same bytes, unless a creation date is given.
"""

from __future__ import annotations

import io
import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from attrs import evolve, frozen
from PIL import Image as PILImage

from templatekit.cache import memoized
from templatekit.font_file import hb_font
from templatekit.model.values import Color, Gradient
from templatekit.paint.glyphs import glyph_image
from templatekit.paint.gradient import gradient_image, gradient_line
from templatekit.paint.needs import effects_needs
from templatekit.paint.paths import dashed
from templatekit.paint.pdf.color_glyphs import ColorGlyphs, OutlinePen, painted
from templatekit.paint.pdf.fonts import EmbeddedFonts, glyph_width
from templatekit.paint.pdf.glyph_text import actual_texts, any_unspoken, glyph_texts, unspoken
from templatekit.paint.pdf.objects import Document, Name, Raw, Ref, number, serialise, text_string
from templatekit.paint.raster import effects_alone, is_plain_group
from templatekit.scene import (
    Bars,
    Clip,
    Ellipse,
    FontFile,
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
    Scene,
)
from templatekit.scene.geometry import IDENTITY, KAPPA, Box, Transform, grown, union
from templatekit.scene.memory import Need

POINTS_PER_PX = 0.75
GRADIENT_DENSITY = 2.0  # pixels per px of a translucent gradient, embedded as an image
EMOJI_DENSITY = 4.0  # pixels per px of colour glyphs
EMOJI_MAX_PIXELS = 1024  # per em: a very large emoji is drawn at no more than this
_PICTURES = itertools.count()  # names of what effects draw as pictures
PRINT_SCALE = 300 / 96  # pixels per px of what PDF cannot draw (blur, shadows): 300 dpi


@frozen
class DocumentInfo:
    """PDF metadata. Without ``created`` no date is recorded, so that the output is
    byte-for-byte reproducible."""

    title: str = ""
    author: str = ""
    creator: str = "templatekit"
    subject: str = ""
    created: datetime | None = None


class _Resources:
    """Fonts, images, forms, graphics states and shadings, named once for all pages."""

    def __init__(self, document: Document) -> None:
        self.document = document
        self.fonts = EmbeddedFonts(document)
        self.color_glyphs = ColorGlyphs(document, self)
        self.ref = document.reserve()
        self.xobjects: dict[str, Ref] = {}
        self.states: dict[str, Ref] = {}
        self.shadings: dict[str, Ref] = {}
        self._names: dict[object, str] = {}

    def named(self, table: dict[str, Ref], prefix: str, key: object, make: Callable[[], Ref]) -> str:
        name = self._names.get((prefix, key))
        if name is None:
            name = self._names[(prefix, key)] = f"{prefix}{len(table) + 1}"
            table[name] = make()
        return name

    def alpha(self, value: float, stroking: bool = False) -> str:
        """A graphics state that sets only the alpha of fills (and images, shadings,
        forms), or only that of strokes: what one operation sets cannot fade the other
        kind that follows it."""
        return self.state({"Type": Name("ExtGState"), "CA" if stroking else "ca": round(value, 4)})

    def state(self, entries: dict[str, object]) -> str:
        """The name of a graphics state with these entries (written once)."""
        key = serialise(entries)
        return self.named(self.states, "GS", key, lambda: self.document.add(entries))

    def xobject(self, ref: Ref) -> str:
        return self.named(self.xobjects, "Fm", ref, lambda: ref)

    def shading(self, ref: Ref) -> str:
        return self.named(self.shadings, "Sh", ref, lambda: ref)

    def write(self) -> None:
        named = {
            "Font": self.fonts.write(),
            "XObject": self.xobjects,
            "ExtGState": self.states,
            "Shading": self.shadings,
        }
        self.document.set(self.ref, {kind: table for kind, table in named.items() if table})


class _Canvas:
    """A content stream being written, with the opacity of the groups around it."""

    def __init__(
        self, resources: _Resources, matrix: Transform = IDENTITY, grouped: bool = False, unread: bool = False
    ) -> None:
        self.resources = resources
        # a soft mask's drawing: its text is outlines, as no reader should read it
        self.unread = unread
        # drawn into a form XObject: its lines end with a space (see _close_line)
        self.grouped = grouped
        self.last_text: GlyphRun | None = None
        self.parts: list[str] = []
        self.opacity = 1.0
        # from this canvas's space to the page's (points, y up): forms are drawn from it
        self.matrix = matrix

    def op(self, text: str) -> None:
        self.parts.append(text)

    def data(self) -> bytes:
        return "\n".join(self.parts).encode("latin-1")


def paint_pdf(pages: Sequence[Scene], info: DocumentInfo = DocumentInfo()) -> bytes:
    """A PDF with one page per Scene."""
    document = Document()
    catalog, tree = document.reserve(), document.reserve()
    resources = _Resources(document)
    kids = []
    for scene in pages:
        height = scene.height * POINTS_PER_PX
        canvas = _Canvas(resources, Transform(POINTS_PER_PX, 0.0, 0.0, -POINTS_PER_PX, 0.0, height))
        canvas.op(f"{number(POINTS_PER_PX)} 0 0 {number(-POINTS_PER_PX)} 0 {number(height)} cm")
        if scene.background is not None and scene.background.a:
            canvas.op("q")
            _set_fill(canvas, scene.background)
            canvas.op(f"0 0 {number(scene.width)} {number(scene.height)} re f Q")
        _paint_items(canvas, scene.items)
        contents = document.add_stream({}, canvas.data())
        kids.append(
            document.add(
                {
                    "Type": Name("Page"),
                    "Parent": tree,
                    "MediaBox": [0, 0, scene.width * POINTS_PER_PX, height],
                    "Contents": contents,
                    "Resources": resources.ref,
                    "Group": {"S": Name("Transparency"), "CS": Name("DeviceRGB")},
                }
            )
        )
    resources.write()
    document.set(tree, {"Type": Name("Pages"), "Kids": kids, "Count": len(kids)})
    document.set(catalog, {"Type": Name("Catalog"), "Pages": tree})
    entries: dict[str, Any] = {"Producer": "templatekit"}
    for key, value in (("Title", info.title), ("Author", info.author), ("Creator", info.creator)):
        if value:
            entries[key] = value
    if info.subject:
        entries["Subject"] = info.subject
    if info.created is not None:
        entries["CreationDate"] = Raw(text_string(_pdf_date(info.created)))
    return document.write(catalog, document.add(entries))


def _pdf_date(moment: datetime) -> str:
    """A PDF date string; a datetime without a time zone is taken as UTC."""
    offset = moment.utcoffset()
    if offset is None or not offset:
        return moment.strftime("D:%Y%m%d%H%M%SZ")
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return moment.strftime("D:%Y%m%d%H%M%S") + f"{sign}{abs(minutes) // 60:02d}'{abs(minutes) % 60:02d}'"


def _paint_items(canvas: _Canvas, items: Sequence[Item]) -> None:
    for item in items:
        PAINTERS[type(item)](canvas, item)


# ------------------------------------------------------------------ colours and paths


@lru_cache(maxsize=4096)
def _rgb(color: Color) -> str:
    """A colour's operands; the few colours of a design are written many times."""
    return " ".join(number(round(channel / 255, 4)) for channel in (color.r, color.g, color.b))


def _alpha(canvas: _Canvas, alpha: float, stroking: bool = False) -> None:
    """The alpha of the fills (or strokes) that follow; nothing when they are opaque,
    since each sits in a ``q``...``Q`` of its own that no other alpha of its kind reaches."""
    if alpha < 1:
        canvas.op(f"/{canvas.resources.alpha(alpha, stroking)} gs")


def _set_fill(canvas: _Canvas, color: Color) -> None:
    _alpha(canvas, color.a / 255 * canvas.opacity)
    canvas.op(f"{_rgb(color)} rg")


def _box_path(x: float, y: float, w: float, h: float, radius: float = 0.0, ellipse: bool = False) -> str:
    if ellipse:
        rx, ry = w / 2, h / 2
        return _rounded(x, y, w, h, rx, ry)
    if radius > 0:
        r = min(radius, w / 2, h / 2)
        return _rounded(x, y, w, h, r, r)
    return f"{number(x)} {number(y)} {number(w)} {number(h)} re"


def _rounded(x: float, y: float, w: float, h: float, rx: float, ry: float) -> str:
    """A rectangle with elliptical corners of radii rx, ry (an ellipse when they are half
    the sides), as four lines and four quarter arcs."""
    kx, ky = rx * KAPPA, ry * KAPPA
    right, bottom = x + w, y + h
    points = [
        ("m", x + rx, y),
        ("l", right - rx, y),
        ("c", right - rx + kx, y, right, y + ry - ky, right, y + ry),
        ("l", right, bottom - ry),
        ("c", right, bottom - ry + ky, right - rx + kx, bottom, right - rx, bottom),
        ("l", x + rx, bottom),
        ("c", x + rx - kx, bottom, x, bottom - ry + ky, x, bottom - ry),
        ("l", x, y + ry),
        ("c", x, y + ry - ky, x + rx - kx, y, x + rx, y),
    ]
    return " ".join(" ".join(number(float(v)) for v in p[1:]) + f" {p[0]}" for p in points) + " h"


def _fill_path(canvas: _Canvas, path: str, paint: Paint, bounds: tuple[float, float, float, float]) -> None:
    """Fill with a colour, or clip to the path and lay a gradient over it."""
    if isinstance(paint, Color):
        _set_fill(canvas, paint)
        canvas.op(f"{path} f")
        return
    canvas.op(f"q {path} W n")
    if paint.from_.a == paint.to.a == 255:
        _alpha(canvas, canvas.opacity)
        if paint.kind == "radial":  # the unit square's circle, stretched over the box
            x, y, width, height = bounds
            canvas.op(f"{number(width)} 0 0 {number(height)} {number(x)} {number(y)} cm")
        canvas.op(f"/{_shading(canvas, paint, bounds)} sh")
    else:
        _, _, width, height = bounds
        size = (max(1, math.ceil(width * GRADIENT_DENSITY)), max(1, math.ceil(height * GRADIENT_DENSITY)))
        image = gradient_image(paint, size)
        _draw_image(canvas, ("gradient", paint, size), lambda document: _pixels_object(document, image), bounds)
    canvas.op("Q")


def _shading(canvas: _Canvas, gradient: Gradient, bounds: tuple[float, float, float, float]) -> str:
    """A radial gradient is drawn as a circle's shading in a space squeezed to the box's
    shape (``_paint_shading`` sets it): its coordinates are the unit square's."""
    if gradient.kind == "radial":
        start = end = (0.5, 0.5)
        coords = [0.5, 0.5, 0, 0.5, 0.5, math.sqrt(0.5)]
    else:
        start, end = gradient_line(gradient, bounds)
        coords = [*start, *end]
    entries = {
        "ShadingType": 3 if gradient.kind == "radial" else 2,
        "ColorSpace": Name("DeviceRGB"),
        "Coords": coords,
        "Function": {
            "FunctionType": 2,
            "Domain": [0, 1],
            "C0": [round(c / 255, 4) for c in gradient.from_.rgba[:3]],
            "C1": [round(c / 255, 4) for c in gradient.to.rgba[:3]],
            "N": 1,
        },
        "Extend": [True, True],
    }
    resources = canvas.resources
    key = (gradient, tuple(round(v, 3) for v in (*start, *end)))
    return resources.named(resources.shadings, "Sh", key, lambda: resources.document.add(entries))


def _stroke(canvas: _Canvas, path: str, color: Color, width: float) -> None:
    _alpha(canvas, color.a / 255 * canvas.opacity, stroking=True)
    canvas.op(f"{number(width)} w {_rgb(color)} RG {path} S")


# ------------------------------------------------------------------ primitives


def _paint_box(canvas: _Canvas, item: Rect | Ellipse, radius: float, ellipse: bool) -> None:
    x, y, w, h = item.x, item.y, item.width, item.height
    if item.fill is not None:
        canvas.op("q")
        _fill_path(canvas, _box_path(x, y, w, h, radius, ellipse), item.fill, (x, y, w, h))
        canvas.op("Q")
    if item.stroke is not None and item.stroke_width > 0:
        inset = min(item.stroke_width, w, h) / 2  # strokes lie inside the box, as in the PNG
        path = _box_path(x + inset, y + inset, w - 2 * inset, h - 2 * inset, max(0.0, radius - inset), ellipse)
        canvas.op("q")
        _stroke(canvas, path, item.stroke, item.stroke_width)
        canvas.op("Q")


def _paint_rect(canvas: _Canvas, item: Rect) -> None:
    _paint_box(canvas, item, item.radius, ellipse=False)


def _paint_ellipse(canvas: _Canvas, item: Ellipse) -> None:
    _paint_box(canvas, item, 0.0, ellipse=True)


def _paint_polygon(canvas: _Canvas, item: Polygon) -> None:
    path = " ".join(
        " ".join(f"{number(px)} {number(py)} {'m' if i == 0 else 'l'}" for i, (px, py) in enumerate(contour)) + " h"
        for contour in item.contours
    )
    xs = [p[0] for contour in item.contours for p in contour]
    ys = [p[1] for contour in item.contours for p in contour]
    canvas.op("q")
    _fill_path(canvas, path, item.fill, (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))
    canvas.op("Q")


def _path_data(item: Path) -> str:
    parts = []
    for command in item.commands:
        operator, values = command[0], command[1:]
        parts.append(" ".join(number(float(v)) for v in values) + (" " if values else "") + _PATH_OPERATORS[operator])
    return " ".join(parts)


_PATH_OPERATORS = {"M": "m", "L": "l", "C": "c", "Z": "h"}


def _paint_path(canvas: _Canvas, item: Path) -> None:
    path = _path_data(item)
    canvas.op("q")
    if item.fill is not None:
        even_odd = "*" if item.even_odd else ""
        if isinstance(item.fill, Color):
            _set_fill(canvas, item.fill)
            canvas.op(f"{path} f{even_odd}")
        else:
            left, top, right, bottom = item.hull()
            _fill_path(canvas, path, item.fill, (left, top, right - left, bottom - top))
    if item.stroke is not None and item.stroke_width > 0:
        canvas.op(f"{_LINE_CAPS[item.line_cap]} J {_LINE_JOINS[item.line_join]} j")
        if item.dash and any(command[0] == "C" for command in item.commands):
            path = _dashes_data(item)
        elif item.dash:
            canvas.op(f"[{' '.join(number(length) for length in item.dash)}] {number(item.dash_offset)} d")
        _stroke(canvas, path, item.stroke, item.stroke_width)
    canvas.op("Q")


def _dashes_data(item: Path) -> str:
    """A dashed path with curves as its dashes, each a line of its own, laid where the
    PNG lays them: readers measure a curve's length each their own way, and PDFium's
    dots drifted by up to 4 px round a rounded corner and crowded where it closes."""
    parts = []
    for points, _ in dashed(item.contours(), item.dash, item.dash_offset):
        (x, y), *rest = points
        parts.append(f"{number(x)} {number(y)} m " + " ".join(f"{number(x)} {number(y)} l" for x, y in rest))
    return " ".join(parts)


_LINE_CAPS = {"butt": 0, "round": 1, "square": 2}
_LINE_JOINS = {"miter": 0, "round": 1, "bevel": 2}


def _paint_line(canvas: _Canvas, item: Line) -> None:
    (ax, ay), (bx, by) = item.start, item.end
    canvas.op("q 0 J")
    _stroke(canvas, f"{number(ax)} {number(ay)} m {number(bx)} {number(by)} l", item.color, item.width)
    canvas.op("Q")


def _paint_bars(canvas: _Canvas, item: Bars) -> None:
    canvas.op("q")
    _set_fill(canvas, item.color)
    canvas.op(f"{_bars_path(item.rects)} f")
    canvas.op("Q")


@memoized("pdf.bar_paths", 256, lambda path: 100 + len(path), second_use=True)
def _bars_path(rects: tuple[tuple[float, float, float, float], ...]) -> str:
    """The rectangles of a code as one path, written once: a QR code has hundreds."""
    return " ".join(f"{number(x)} {number(y)} {number(w)} {number(h)} re" for x, y, w, h in rects)


# ------------------------------------------------------------------ text


def _paint_glyph_run(canvas: _Canvas, run: GlyphRun) -> None:
    if not run.glyphs:
        return
    if hb_font(run.font).color:
        _paint_color_glyphs(canvas, run)
        return
    if run.outline is not None:
        _stroke_outlines(canvas, run, run.outline)
    if run.color.a < 255 and _letters_touch(run):
        # see-through letters that touch (Arabic's joins, a tight heading) are faded as
        # one, as the PNG draws them: each filled at the colour's alpha would darken where
        # they meet
        opaque = evolve(run, color=evolve(run.color, a=255), outline=None)
        _paint_transparency_group(canvas, [opaque], run.color.a / 255 * canvas.opacity)
        return
    _write_text(canvas, run, visible=True)


def _letters_touch(run: GlyphRun) -> bool:
    """Whether the ink boxes of two of the run's glyphs overlap (a sweep along the line):
    only then is the run faded as one, a form of its own, where most text is not."""
    font = hb_font(run.font)
    units = run.size / font.upem
    boxes = []
    for glyph, (x, y) in zip(run.glyphs, run.positions, strict=True):
        extents = font.font.get_glyph_extents(glyph)
        if extents is not None and extents.width and extents.height:
            left, top = x + extents.x_bearing * units, y - extents.y_bearing * units
            boxes.append((left, left + extents.width * units, top, top - extents.height * units))
    boxes.sort()
    reaching: list[tuple[float, float, float, float]] = []  # boxes whose right is past the next one's left
    for box in boxes:
        reaching = [other for other in reaching if other[1] > box[0] + _TOUCH]
        if any(min(box[3], other[3]) - max(box[2], other[2]) > _TOUCH for other in reaching):
            return True
        reaching.append(box)
    return False


#: px two ink boxes must share to count as touching: boxes that only meet do not
_TOUCH = 0.01


def _stroke_outlines(canvas: _Canvas, run: GlyphRun, outline: Outline) -> None:
    """The glyphs' outlines stroked twice the outline's width with round joins, under
    the text drawn next, which covers the inner half: a line outside the letters. Under
    see-through text the inner half would show, so there the letters are masked out of
    it. As paths, not text, so that search finds the text once."""
    font = hb_font(run.font)
    units = run.size / font.upem
    glyphs = []
    for glyph, (x, y) in zip(run.glyphs, run.positions, strict=True):
        pen = OutlinePen()
        font.font.draw_glyph_with_pen(glyph, pen)
        if pen.parts:
            place = f"{number(units)} 0 0 {number(-units)} {number(run.x + x)} {number(run.y + y)} cm"
            glyphs.append((place, " ".join(pen.parts)))
    masked = run.color.a < 255 and bool(glyphs)
    # masked, the strokes are one picture: Ghostscript misplaces a soft mask for paths
    # drawn under a transformation set after it (each glyph's)
    strokes = _Canvas(canvas.resources, canvas.matrix, unread=canvas.unread) if masked else canvas
    canvas.op("q")
    _alpha(strokes, outline.color.a / 255 * canvas.opacity, stroking=True)
    strokes.op(f"{_rgb(outline.color)} RG 1 j 1 J")
    for place, path in glyphs:
        strokes.op(f"q {place} {number(2 * outline.width / units)} w {path} S Q")
    if masked:
        box = _outside_letters(canvas, run, outline, glyphs)
        _show_form(canvas, strokes, box, 1.0, "normal")
    canvas.op("Q")


def _outside_letters(canvas: _Canvas, run: GlyphRun, outline: Outline, glyphs: list[tuple[str, str]]) -> Box:
    """A soft mask for what is painted next, white around the run, the letters black;
    the box it covers."""
    box = run.bounds()
    assert box is not None
    left, top, right, bottom = grown(box, 2 * outline.width + run.size)
    area = f"{_box_path(left, top, right - left, bottom - top)} f"
    letters = " ".join(f"q {place} {path} f Q" for place, path in glyphs)
    drawing = f"1 g {area} 0 g {letters}".encode()
    group = _mask_group(canvas.resources, (left, top, right, bottom), "DeviceGray", drawing)
    soft = {"Type": Name("Mask"), "S": Name("Luminosity"), "G": group}
    canvas.op(f"/{canvas.resources.state({'Type': Name('ExtGState'), 'SMask': soft})} gs")
    return (left, top, right, bottom)


def _write_text(canvas: _Canvas, run: GlyphRun, visible: bool) -> None:
    """The run's glyphs as text, each at its position: TJ arrays with glyph widths from
    the font's /W (letter spacing included in them), adjustments where the layout's
    positions differ, and text rise for marks set off the baseline. A cluster whose
    glyphs the ToUnicode map cannot give back in reading order (a reordered Indic vowel
    sign, a glyph standing for other text elsewhere) is marked with its ActualText."""
    if canvas.unread:
        if visible:
            _fill_outlines(canvas, run)
        return
    if canvas.grouped:
        if canvas.last_text is not None and not _same_line(canvas.last_text, run):
            _close_line(canvas, canvas.last_text)
        canvas.last_text = run
    fonts = canvas.resources.fonts
    spacing = run.letter_spacing
    name, _ = fonts.resource(run.font, spacing * 1000 / run.size)
    texts = glyph_texts(run)
    if any_unspoken(run.text):  # drawn nothing, read nothing: left out (most runs have none)
        kept = [index for index, text in enumerate(texts) if not unspoken(text)]
    else:
        kept = list(range(len(texts)))
    said = fonts.map_text(run.font, [run.glyphs[i] for i in kept], [texts[i] for i in kept])
    mapped = dict(zip(kept, said, strict=True))
    actual = actual_texts(run, texts, [mapped.get(index, True) for index in range(len(texts))])
    canvas.op("q BT")
    if visible:
        _alpha(canvas, run.color.a / 255 * canvas.opacity)
        canvas.op(f"{_rgb(run.color)} rg")
    else:
        canvas.op("3 Tr")  # invisible: found by search and copied, drawn by the image under it
    canvas.op(f"/{name} {number(run.size)} Tf")
    first_x, operators = _shown_glyphs(
        run.font, run.size, spacing, run.glyphs, run.positions, tuple(actual), frozenset(mapped)
    )
    for operator in operators:
        canvas.op(operator if operator else f"1 0 0 -1 {number(run.x + first_x)} {number(run.y)} Tm")
    canvas.op("ET Q")


@memoized("pdf.text", 2048, lambda shown: 100 + sum(len(operator) for operator in shown[1]), second_use=True)
def _shown_glyphs(
    font: FontFile,
    size: float,
    spacing: float,
    glyphs: tuple[int, ...],
    positions: tuple[tuple[float, float], ...],
    actual: tuple[str | None, ...],
    mapped: frozenset[int],
) -> tuple[float, tuple[str, ...]]:
    """The operators that show a run's glyphs (those in ``mapped``) after its font is
    set: TJ arrays, adjustments where the layout's positions differ from the widths,
    text rise, ActualText spans; an empty string where the text matrix goes, and the x
    of its first glyph. Kept per run: a document's runs repeat from render to render
    (an invoice's table), where only their place on the page may change."""
    scale = size / 1000
    pen_x: float | None = None
    first_x = 0.0
    rise = 0.0
    operators: list[str] = []
    shown: list[str] = []
    marked: str | None = None

    def flush() -> None:
        if shown:
            operators.append(f"[{''.join(shown)}] TJ")
            shown.clear()

    for index, (glyph, (x, y)) in enumerate(zip(glyphs, positions, strict=True)):
        if index not in mapped:
            continue
        if actual[index] != marked:
            flush()
            if marked is not None:
                operators.append("EMC")
            marked = actual[index]
            if marked is not None:
                operators.append(f"/Span <</ActualText {text_string(marked)}>> BDC")
        if abs(-y - rise) > 1e-3:  # a mark set above or below the baseline: text rise, same line
            flush()
            rise = -y
            operators.append(f"{number(rise)} Ts")
        if pen_x is None:
            operators.append("")  # the text matrix: the run's place on the page
            pen_x = first_x = x
        else:
            adjust = (pen_x - x) / scale
            if abs(adjust) >= 0.05:
                shown.append(f" {number(round(adjust, 2))} ")
                pen_x = x
        shown.append(f"<{glyph:04X}>")
        pen_x += (glyph_width(font, glyph) + spacing * 1000 / size) * scale
    flush()
    if marked is not None:
        operators.append("EMC")
    return first_x, tuple(operators)


def _fill_outlines(canvas: _Canvas, run: GlyphRun) -> None:
    """The run's glyphs as filled paths: in a soft mask, where poppler and MuPDF would
    read text (they extract the mask's drawing with the page's) that is not on the page."""
    font = hb_font(run.font)
    units = run.size / font.upem
    canvas.op("q")
    _alpha(canvas, run.color.a / 255 * canvas.opacity)
    canvas.op(f"{_rgb(run.color)} rg")
    for glyph, (x, y) in zip(run.glyphs, run.positions, strict=True):
        pen = OutlinePen()
        font.font.draw_glyph_with_pen(glyph, pen)
        if pen.parts:
            place = f"{number(units)} 0 0 {number(-units)} {number(run.x + x)} {number(run.y + y)} cm"
            canvas.op(f"q {place} {' '.join(pen.parts)} f Q")
    canvas.op("Q")


def _same_line(first: GlyphRun, then: GlyphRun) -> bool:
    """Whether two runs are parts of one line: on one baseline, touching."""
    touching = min(abs(first.x + first.width - then.x), abs(then.x + then.width - first.x)) < 0.5
    return abs(first.y - then.y) < 0.01 and touching


def _close_line(canvas: _Canvas, run: GlyphRun) -> None:
    """An invisible space after the line that ``run`` ends, in a form XObject: pdfminer.six
    does not lay out a form's text (an LTFigure) but writes its characters one after
    another, so without it the last word of a line ran into the first of the next."""
    if not run.text or run.text[-1].isspace():
        return
    fonts = canvas.resources.fonts
    glyph = hb_font(run.font).font.get_nominal_glyph(ord(" "))
    if not glyph or not fonts.map_text(run.font, [glyph], [" "])[0]:
        return
    name, _ = fonts.resource(run.font, run.letter_spacing * 1000 / run.size)
    at = f"{number(run.x + run.width)} {number(run.y)}"
    canvas.op(f"q BT 3 Tr /{name} {number(run.size)} Tf 1 0 0 -1 {at} Tm <{glyph:04X}> Tj ET Q")


def _paint_color_glyphs(canvas: _Canvas, run: GlyphRun) -> None:
    """Colour glyphs (emoji) drawn as vectors from the font's colour layers (or, from a
    bitmap font, as an image), with the same glyphs as invisible text over them, so
    that they are found and copied like any text."""
    font = hb_font(run.font)
    resources = canvas.resources
    forms = [resources.color_glyphs.form(font, run.font, glyph) for glyph in run.glyphs]
    if all(form is not None for form in forms):
        units = run.size / font.upem
        canvas.op("q")
        _alpha(canvas, run.color.a / 255 * canvas.opacity)
        for form, (x, y) in zip(forms, run.positions, strict=True):
            assert form is not None
            canvas.op(f"q {number(units)} 0 0 {number(-units)} {number(run.x + x)} {number(run.y + y)} cm")
            canvas.op(f"/{resources.xobject(form)} Do Q")
        canvas.op("Q")
    else:
        _paint_glyph_image(canvas, run)
    _write_text(canvas, run, visible=False)


def bitmap_density(run: GlyphRun) -> float | None:
    """The pixels per px at which a run's colour glyphs are drawn as an image (bitmap
    glyphs, from the font's largest strike at four times their size); None when they are
    all drawn as vectors, or the run is not in a colour font."""
    font = hb_font(run.font)
    if not font.color or all(painted(font, glyph) for glyph in run.glyphs):
        return None
    return _density(run)


def _density(run: GlyphRun) -> float:
    return min(EMOJI_DENSITY, EMOJI_MAX_PIXELS / run.size)


def _paint_glyph_image(canvas: _Canvas, run: GlyphRun) -> None:
    """Bitmap colour glyphs, at ``bitmap_density``."""
    density = _density(run)
    placed, _ = glyph_image(run, density, (0.0, 0.0))
    if placed is None:
        return
    image, dx, dy = placed
    if run.color.a < 255:
        image = image.copy()
        image.putalpha(image.getchannel("A").point(lambda a: a * run.color.a // 255))
    box = (run.x + dx / density, run.y + dy / density, image.width / density, image.height / density)
    key = ("glyphs", run.font, run.glyphs, run.positions, run.size, run.color.a)
    _draw_image(canvas, key, lambda document: _pixels_object(document, image), box)


# ------------------------------------------------------------------ images


def _draw_image(
    canvas: _Canvas, key: object, make: Callable[[Document], Ref], box: tuple[float, float, float, float]
) -> None:
    """The image XObject ``make`` writes (once per ``key``) stretched over ``box``."""
    resources = canvas.resources
    name = resources.named(resources.xobjects, "Im", key, lambda: make(resources.document))
    x, y, width, height = box
    canvas.op("q")
    _alpha(canvas, canvas.opacity)
    canvas.op(f"{number(width)} 0 0 {number(-height)} {number(x)} {number(y + height)} cm /{name} Do Q")


def _image_entries(size: tuple[int, int], gray: bool) -> dict[str, Any]:
    return {
        "Type": Name("XObject"),
        "Subtype": Name("Image"),
        "Width": size[0],
        "Height": size[1],
        "ColorSpace": Name("DeviceGray" if gray else "DeviceRGB"),
        "BitsPerComponent": 8,
    }


def _jpeg_object(document: Document, data: bytes, size: tuple[int, int], gray: bool) -> Ref:
    entries = {**_image_entries(size, gray), "Filter": Name("DCTDecode")}
    return document.add_stream(entries, data, compress=False)


def _pixels_object(document: Document, image: PILImage.Image) -> Ref:
    """RGB (or grey) pixels, with their alpha as a soft mask when not opaque."""
    entries = _image_entries(image.size, image.mode in ("L", "LA"))
    if image.mode in ("RGBA", "LA") and _translucent(image):
        entries["SMask"] = document.add_stream(_image_entries(image.size, True), image.getchannel("A").tobytes())
    pixels = image.convert("L" if image.mode in ("L", "LA") else "RGB").tobytes()
    return document.add_stream(entries, pixels)


def _translucent(image: PILImage.Image) -> bool:
    lowest = image.getchannel("A").getextrema()[0]
    return isinstance(lowest, (int, float)) and lowest < 255


def _paint_image(canvas: _Canvas, item: Image) -> None:
    if item.vector is not None:
        canvas.op("q")
        canvas.op(f"{_box_path(item.x, item.y, item.width, item.height)} W n")
        _paint_group(canvas, item.vector)
        canvas.op("Q")
        return
    source = item.source
    jpeg = _embeddable_jpeg(source.data) if source is not None and source.format == "JPEG" else None
    canvas.op("q")
    if source is not None and jpeg is not None:
        # The whole source, scaled so that its crop fills the box, clipped to the box.
        left, top, right, bottom = source.crop
        scale_x, scale_y = item.width / (right - left), item.height / (bottom - top)
        canvas.op(f"{_box_path(item.x, item.y, item.width, item.height)} W n")
        box = (item.x - left * scale_x, item.y - top * scale_y, source.size[0] * scale_x, source.size[1] * scale_y)
        data, size, gray = source.data, source.size, jpeg
        _draw_image(canvas, ("jpeg", item.key), lambda document: _jpeg_object(document, data, size, gray), box)
    else:
        image = item.image
        _draw_image(canvas, ("image", item.key), lambda document: _pixels_object(document, image), _box(item))
    canvas.op("Q")


def _box(item: Image) -> tuple[float, float, float, float]:
    return (item.x, item.y, item.width, item.height)


def _embeddable_jpeg(data: bytes) -> bool | None:
    """Whether a JPEG that can go in as it is (RGB or grey, no EXIF orientation that
    turns it) is grey; None when it cannot."""
    with PILImage.open(io.BytesIO(data)) as image:
        if image.mode not in ("RGB", "L") or image.getexif().get(0x0112, 1) != 1:
            return None
        return image.mode == "L"


# ------------------------------------------------------------------ groups


def _paint_group(canvas: _Canvas, group: Group) -> None:
    outer = canvas.opacity
    opacity = outer * group.opacity
    if opacity <= 0:
        return
    canvas.op("q")
    placed = group.transform
    page_matrix = canvas.matrix
    if not placed.is_identity:
        written = [number(v) for v in (placed.a, placed.b, placed.c, placed.d, placed.e, placed.f)]
        canvas.op(" ".join(written) + " cm")
        canvas.matrix = Transform(*(float(v) for v in written)).then(page_matrix)  # as written
    effects = group.effects
    blend = effects.blend if effects is not None else "normal"
    if effects is not None and effects.shadows and not effects.blur and (opacity < 1 or blend != "normal"):
        # CSS fades and blends a layer with its shadows as one picture: where the layer
        # covers its shadow, the shadow does not show through it
        inner = _Canvas(canvas.resources, canvas.matrix, grouped=True, unread=canvas.unread)
        _paint_layer(inner, group, 1.0, "normal")
        box = group.content_bounds()
        bounds = _bounds(group.items) if box is None else grown(box, effects.reach + 4.0)
        _show_form(canvas, inner, bounds, opacity, blend)
    else:
        _paint_layer(canvas, group, opacity, blend)
    canvas.opacity = outer
    canvas.matrix = page_matrix
    canvas.op("Q")


def _paint_layer(canvas: _Canvas, group: Group, opacity: float, blend: str) -> None:
    """A group in its own frame: the pictures of its effects, then its items, clipped,
    masked, faded to ``opacity`` and blended."""
    effects = group.effects
    if effects is not None and (effects.blur or effects.shadows):
        _effects_picture(canvas, group, opacity)  # PDF has no blur: these are pixels
        if effects.blur:  # the whole layer is blurred: nothing of it stays vector
            return
    if group.clip is not None:
        _clip(canvas, group.clip)
    if group.mask is not None:
        _soft_mask(canvas, group.mask, _bounds(group.items))
    # a mask covers the items as one; a group that the PNG paints on a surface of its own
    # (turned, clipped, with effects) keeps the blend modes inside it to its own items
    isolated = not is_plain_group(group) and _blends_inside(group.items)
    if blend != "normal" or group.mask is not None or isolated:
        _paint_transparency_group(canvas, group.items, opacity, blend)
    elif opacity >= 1 or not _may_overlap(group.items):
        canvas.opacity = opacity
        _paint_items(canvas, group.items)
    else:
        _paint_transparency_group(canvas, group.items, opacity)


def _blends_inside(items: Sequence[Item]) -> bool:
    """Whether any of the items, or of the items inside them, blends other than normally."""
    return any(
        isinstance(item, Group)
        and ((item.effects is not None and item.effects.blend != "normal") or _blends_inside(item.items))
        for item in items
    )


def needs(pages: Sequence[Scene]) -> Iterator[Need]:
    """What painting ``pages`` makes in pixels: the pictures of the effects PDF cannot
    draw (``_effects_picture``), in the order they are drawn."""
    for page in pages:
        yield from _pictures_needs(page.items)


def _pictures_needs(items: Sequence[Item]) -> Iterator[Need]:
    for item in items:
        if isinstance(item, Image) and item.vector is not None:
            yield from _pictures_needs((item.vector,))
        if not isinstance(item, Group) or item.opacity <= 0:
            continue
        effects = item.effects
        if effects is not None and (effects.blur or effects.shadows):
            yield from effects_needs(item, PRINT_SCALE)
            if effects.blur:  # the whole group is in the picture
                continue
        yield from _pictures_needs(item.mask.items if item.mask is not None else ())
        yield from _pictures_needs(item.items)


def _effects_picture(canvas: _Canvas, group: Group, opacity: float) -> None:
    """What a group's effects draw, as an image at print resolution: its shadows (under
    the vector drawing that follows), or, when it is blurred, the whole group."""
    drawn = effects_alone(group, PRINT_SCALE)
    if drawn is None:
        return
    picture, left, top = drawn
    box = (left, top, picture.width / PRINT_SCALE, picture.height / PRINT_SCALE)
    saved = canvas.opacity
    canvas.opacity = opacity
    # each picture is its own: an id() could be taken again by the next once this one is freed
    key = ("effects", next(_PICTURES))
    _draw_image(canvas, key, lambda document: _pixels_object(document, picture), box)
    canvas.opacity = saved


def _soft_mask(canvas: _Canvas, mask: Mask, bounds: tuple[float, float, float, float]) -> None:
    """Set a soft mask (PDF's own, vector) for what is painted next: the mask's items in a
    transparency group, their alpha or luminosity. Its box covers what it masks, so that
    an inverted mask also shows there.

    An inverted mask is a luminosity mask of its own: white over the box, then black
    through the mask, which leaves 1 minus the mask, exactly, for alpha and luminance
    alike. (A transfer function, /TR, would say the same in fewer bytes, but MuPDF 1.21
    ignores it and shows the mask uninverted.)"""
    inner = _Canvas(canvas.resources, canvas.matrix, unread=True)
    _paint_items(inner, mask.items)
    drawn = _bounds(mask.items)
    box = (min(bounds[0], drawn[0]), min(bounds[1], drawn[1]), max(bounds[2], drawn[2]), max(bounds[3], drawn[3]))
    resources = canvas.resources
    kind = "Luminosity" if mask.luminance else "Alpha"
    soft = {"Type": Name("Mask"), "S": Name(kind), "G": _mask_group(resources, box, "DeviceRGB", inner.data())}
    if mask.invert:
        through = resources.state({"Type": Name("ExtGState"), "SMask": soft})
        left, top, right, bottom = box
        area = f"{_box_path(left, top, right - left, bottom - top)} f"
        inverse = f"1 g {area} /{through} gs 0 g {area}".encode("latin-1")
        soft = {"Type": Name("Mask"), "S": Name("Luminosity"), "G": _mask_group(resources, box, "DeviceGray", inverse)}
    canvas.op(f"/{resources.state({'Type': Name('ExtGState'), 'SMask': soft})} gs")


def _mask_group(resources: _Resources, box: Box, space: str, data: bytes) -> Ref:
    """A soft mask's drawing: a form XObject marked as a transparency group in ``space``."""
    return resources.document.add_stream(
        {
            "Type": Name("XObject"),
            "Subtype": Name("Form"),
            "BBox": list(box),
            "Group": {"S": Name("Transparency"), "CS": Name(space)},
            "Resources": resources.ref,
        },
        data,
    )


def _may_overlap(items: Sequence[Item]) -> bool:
    """Whether fading the items one paint at a time differs from fading them as a whole:
    two of them may overlap, or one paints over itself (a fill and its stroke, glyphs
    that touch). A single fill faded is exact, and smaller than a group."""
    return len(items) > 1 or any(item.overlaps_itself() for item in items)


def _paint_transparency_group(canvas: _Canvas, items: Sequence[Item], opacity: float, blend: str = "normal") -> None:
    """Items drawn into a form XObject marked as a transparency group, shown at
    ``opacity`` and with a CSS blend mode (PDF has them all, by other names): PDF
    composites the items with each other first, then fades and blends the result."""
    inner = _Canvas(canvas.resources, canvas.matrix, grouped=True, unread=canvas.unread)
    _paint_items(inner, items)
    _show_form(canvas, inner, _bounds(items), opacity, blend)


def _show_form(canvas: _Canvas, inner: _Canvas, bounds: Box, opacity: float, blend: str) -> None:
    """What ``inner`` drew, as a form XObject marked as a transparency group, shown at
    ``opacity`` and blended.

    The form is drawn in the page's own space (the transformation undone before it, and
    set again inside it): PDFium places the characters of ActualText in the space of the
    form, whatever transformation it is drawn with, and its text then lost them."""
    resources = canvas.resources
    matrix = canvas.matrix
    if inner.last_text is not None:
        _close_line(inner, inner.last_text)
        inner.last_text = None
    data = inner.data()
    if not matrix.is_identity:
        data = f"{_matrix(matrix)} cm\n".encode("latin-1") + data
        bounds = matrix.box(bounds)
    form = resources.document.add_stream(
        {
            "Type": Name("XObject"),
            "Subtype": Name("Form"),
            "BBox": list(bounds),
            # isolated: blend modes inside mix with the group's own layers only, as a
            # CSS stacking context (opacity, transform, clip, mask) and the PNG mix them
            "Group": {"S": Name("Transparency"), "I": True},
            "Resources": resources.ref,
        },
        data,
    )
    state = {"Type": Name("ExtGState"), "ca": round(opacity, 4), "CA": round(opacity, 4)}
    if blend != "normal":
        state["BM"] = Name("".join(word.capitalize() for word in blend.split("-")))
    show = f"/{resources.xobject(form)} Do"
    if not matrix.is_identity:
        show = f"q {_matrix(matrix.inverse())} cm {show} Q"
    canvas.op(f"/{resources.state(state)} gs {show}")


def _matrix(matrix: Transform) -> str:
    """A ``cm`` operand to a billionth: undone and set again, the page's scale must
    come back exact, and a ten-thousandth (``number``) would move a glyph far out."""
    texts = (
        f"{value:.9f}".rstrip("0").rstrip(".") for value in (matrix.a, matrix.b, matrix.c, matrix.d, matrix.e, matrix.f)
    )
    return " ".join("0" if text in ("-0", "") else text for text in texts)


def _bounds(items: Sequence[Item]) -> Box:
    """A box around the items, generous: a form shows nothing outside its box."""
    box = union(item.bounds() for item in items)
    return (0.0, 0.0, 0.0, 0.0) if box is None else grown(box, 4.0)


def _clip(canvas: _Canvas, clip: Clip) -> None:
    canvas.op(f"{_box_path(clip.x, clip.y, clip.width, clip.height, clip.radius, clip.ellipse)} W n")


PAINTERS: dict[type, Callable[[_Canvas, Any], None]] = {
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
