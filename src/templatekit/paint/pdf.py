"""The PDF painter: Scenes become the pages of a vector PDF (ReportLab).

One function per primitive, one dispatch table, as in the raster painter. Each page is
``width × 0.75`` by ``height × 0.75`` points (96 px per inch); a transform maps scene px,
y pointing down, onto it, so every primitive is drawn in the same coordinates as in
the raster painter.

- Text is real text in the same font files, embedded as subsets: each run is shaped
  by HarfBuzz (ReportLab's ``shapeStr``) exactly as the layout measured it, so glyphs
  land where they do in the PNG and joined scripts stay joined.
- Shapes, bars and polygons are paths; gradients are PDF shadings clipped to the shape.
- Images are embedded at their own resolution; a JPEG goes in as it came (no
  re-encoding), cropped by a clip when only part of it shows. SVG images and charts
  become vector drawings (svglib), in the bundled fonts; one that does not convert
  falls back to its bitmap.
- A group's opacity applies to each item it holds (PDF constant alpha), which differs
  from the raster painter only where items of one semi-transparent layer overlap.

Output is deterministic: the same Scenes give the same bytes, unless a creation date
is given.
"""

from __future__ import annotations

import copy
import hashlib
import io
import math
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import lru_cache
from typing import Any

from attrs import frozen
from PIL import Image as PILImage
from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing
from reportlab.lib.colors import Color as RLColor
from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import ShapedStr, TTFError, TTFont, shapeStr
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.pathobject import PDFPathObject
from reportlab.pdfgen.textobject import PDFTextObject
from svglib.fonts import get_global_font_map
from svglib.svglib import svg2rlg

from templatekit.errors import RenderError
from templatekit.fontconv import truetype_bytes
from templatekit.layout.fonts import FontBook
from templatekit.layout.scene import (
    Bars,
    Clip,
    Ellipse,
    FontFile,
    Group,
    Image,
    Item,
    Line,
    Paint,
    Polygon,
    Rect,
    Scene,
    TextRun,
)
from templatekit.model.values import Color, Gradient
from templatekit.paint.gradient import gradient_image

POINTS_PER_PX = 0.75
GRADIENT_DENSITY = 2.0  # pixels per px of a translucent gradient, embedded as an image
# Families that SVG images name, drawn with the bundled face FontBook matches for them
# (generic and common web families fall back to Inter, "cursive" to Dancing Script).
SVG_FAMILIES = (
    "Inter",
    "Dancing Script",
    "sans-serif",
    "serif",
    "monospace",
    "cursive",
    "fantasy",
    "system-ui",
    "Arial",
    "Verdana",
    "Tahoma",
    "Segoe UI",
    "Roboto",
    "Open Sans",
    "Georgia",
    "Times New Roman",
    "Courier New",
    "DejaVu Sans",
)


@frozen
class DocumentInfo:
    """PDF metadata. Without ``created`` no date is recorded but a fixed one, so that the
    output is byte-for-byte reproducible."""

    title: str = ""
    author: str = ""
    creator: str = "templatekit"
    subject: str = ""
    created: datetime | None = None


class _Page:
    """The canvas and the opacity of the groups being drawn."""

    def __init__(self, canvas: Canvas) -> None:
        self.canvas = canvas
        self.opacity = 1.0


def paint_pdf(pages: Sequence[Scene], info: DocumentInfo = DocumentInfo()) -> bytes:
    """A PDF with one page per Scene."""
    out = io.BytesIO()
    first = pages[0]
    canvas = Canvas(
        out,
        pagesize=(first.width * POINTS_PER_PX, first.height * POINTS_PER_PX),
        invariant=True,  # document ids from the content: the same input, the same bytes
        pageCompression=1,
        initialFontName=_font_name(FontBook.bundled().match("Inter").file),  # not the unembedded Helvetica
    )
    canvas.setTitle(info.title)
    canvas.setAuthor(info.author)
    canvas.setCreator(info.creator)
    canvas.setSubject(info.subject)
    if info.created is not None:
        date = _pdf_date(info.created)
        canvas.setDateFormatter(lambda *_: date)
    for scene in pages:
        canvas.setPageSize((scene.width * POINTS_PER_PX, scene.height * POINTS_PER_PX))
        canvas.saveState()
        canvas.translate(0, scene.height * POINTS_PER_PX)
        canvas.scale(POINTS_PER_PX, -POINTS_PER_PX)
        page = _Page(canvas)
        if scene.background is not None and scene.background.a:
            _set_fill(page, scene.background)
            canvas.rect(0, 0, scene.width, scene.height, stroke=0, fill=1)
        _paint_items(page, scene.items)
        canvas.restoreState()
        canvas.showPage()
    canvas.save()
    return out.getvalue()


def _pdf_date(moment: datetime) -> str:
    """A PDF date string; a datetime without a time zone is taken as UTC."""
    offset = moment.utcoffset()
    if offset is None or not offset:
        return moment.strftime("D:%Y%m%d%H%M%SZ")
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    return moment.strftime("D:%Y%m%d%H%M%S") + f"{sign}{abs(minutes) // 60:02d}'{abs(minutes) % 60:02d}'"


def _paint_items(page: _Page, items: Sequence[Item]) -> None:
    """Paint in order; consecutive text runs share one PDF text object."""
    runs: list[TextRun] = []
    for item in items:
        if isinstance(item, TextRun):
            runs.append(item)
            continue
        if runs:
            _paint_text(page, runs)
            runs = []
        PAINTERS[type(item)](page, item)
    if runs:
        _paint_text(page, runs)


# ------------------------------------------------------------------ colours and paths


def _rl_color(color: Color, opacity: float) -> RLColor:
    return RLColor(color.r / 255, color.g / 255, color.b / 255, alpha=color.a / 255 * opacity)


def _set_fill(page: _Page, color: Color) -> None:
    page.canvas.setFillColor(_rl_color(color, page.opacity))


def _set_stroke(page: _Page, color: Color, width: float) -> None:
    page.canvas.setStrokeColor(_rl_color(color, page.opacity))
    page.canvas.setLineWidth(width)


def _box_path(canvas: Canvas, x: float, y: float, w: float, h: float, radius: float, ellipse: bool) -> PDFPathObject:
    path = canvas.beginPath()
    if ellipse:
        path.ellipse(x, y, w, h)
    elif radius > 0:
        path.roundRect(x, y, w, h, min(radius, w / 2, h / 2))
    else:
        path.rect(x, y, w, h)
    return path


def _fill_path(page: _Page, path: PDFPathObject, paint: Paint, bounds: tuple[float, float, float, float]) -> None:
    """Fill with a colour, or clip to the path and lay a gradient over it."""
    canvas = page.canvas
    if isinstance(paint, Color):
        _set_fill(page, paint)
        canvas.drawPath(path, stroke=0, fill=1, fillMode=0)
        return
    canvas.saveState()
    canvas.clipPath(path, stroke=0, fill=0, fillMode=0)
    if paint.from_.a == paint.to.a == 255 and page.opacity >= 1:
        start, end = _gradient_line(paint, bounds)
        canvas.linearGradient(*start, *end, (_rl_color(paint.from_, 1.0), _rl_color(paint.to, 1.0)), extend=True)
    else:
        # A shading has no alpha per stop, and viewers ignore the constant alpha on
        # shadings: a translucent gradient is an image, which both support.
        x, y, width, height = bounds
        size = (max(1, math.ceil(width * GRADIENT_DENSITY)), max(1, math.ceil(height * GRADIENT_DENSITY)))
        canvas.setFillAlpha(page.opacity)
        canvas.translate(x, y + height)
        canvas.scale(1, -1)
        canvas.drawImage(ImageReader(gradient_image(paint, size)), 0, 0, width, height, mask="auto")
    canvas.restoreState()


def _gradient_line(
    gradient: Gradient, bounds: tuple[float, float, float, float]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The CSS gradient line of a box: through its centre at ``angle``, long enough that
    the corners get the end colours (the raster painter's definition)."""
    x, y, width, height = bounds
    angle = math.radians(gradient.angle)
    dx, dy = math.sin(angle), -math.cos(angle)
    half = (abs(width * dx) + abs(height * dy)) / 2
    cx, cy = x + width / 2, y + height / 2
    return (cx - dx * half, cy - dy * half), (cx + dx * half, cy + dy * half)


# ------------------------------------------------------------------ primitives


def _paint_box(page: _Page, item: Rect | Ellipse, radius: float, ellipse: bool) -> None:
    canvas = page.canvas
    x, y, w, h = item.x, item.y, item.width, item.height
    fill, stroke, stroke_width = item.fill, item.stroke, item.stroke_width
    if fill is not None:
        _fill_path(page, _box_path(canvas, x, y, w, h, radius, ellipse), fill, (x, y, w, h))
    if stroke is not None and stroke_width > 0:
        inset = min(stroke_width, w, h) / 2  # strokes lie inside the box, as in the PNG
        path = _box_path(canvas, x + inset, y + inset, w - 2 * inset, h - 2 * inset, max(0.0, radius - inset), ellipse)
        _set_stroke(page, stroke, stroke_width)
        canvas.drawPath(path, stroke=1, fill=0)


def _paint_rect(page: _Page, item: Rect) -> None:
    _paint_box(page, item, item.radius, ellipse=False)


def _paint_ellipse(page: _Page, item: Ellipse) -> None:
    _paint_box(page, item, 0.0, ellipse=True)


def _paint_polygon(page: _Page, item: Polygon) -> None:
    path = page.canvas.beginPath()
    for contour in item.contours:
        path.moveTo(*contour[0])
        for point in contour[1:]:
            path.lineTo(*point)
        path.close()
    xs = [p[0] for contour in item.contours for p in contour]
    ys = [p[1] for contour in item.contours for p in contour]
    _fill_path(page, path, item.fill, (min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys)))


def _paint_line(page: _Page, item: Line) -> None:
    _set_stroke(page, item.color, item.width)
    page.canvas.setLineCap(0)
    page.canvas.line(*item.start, *item.end)


def _paint_bars(page: _Page, item: Bars) -> None:
    _set_fill(page, item.color)
    page.canvas.drawPath(_bars_path(item.rects), stroke=0, fill=1, fillMode=0)


@lru_cache(maxsize=256)
def _bars_path(rects: tuple[tuple[float, float, float, float], ...]) -> PDFPathObject:
    """The rectangles of a code as one path, written once: a QR code has hundreds."""
    path = PDFPathObject()
    for x, y, w, h in rects:
        path.rect(x, y, w, h)
    return path


def _paint_text(page: _Page, runs: Sequence[TextRun]) -> None:
    """Each run placed by a text matrix that also turns the glyphs upright again in the
    y-down page space; font and colour are set only when they change."""
    canvas = page.canvas
    text = canvas.beginText()
    font: tuple[str, float] | None = None
    color: Color | None = None
    for run in runs:
        name = _font_name(run.font)
        if (name, run.size) != font:
            font = (name, run.size)
            text.setFont(name, run.size)
        if run.color != color:
            color = run.color
            text.setFillColor(_rl_color(run.color, page.opacity))
        text.setTextTransform(1, 0, 0, -1, run.x, run.y)
        shaped, spacing = _shaped(run.text, name, run.size)
        if _has_private_glyphs(shaped):
            # Glyphs that stand for no single character: readers copy and search the
            # run's own text instead (a marked-content span with ActualText).
            text._code.append(f"/Span <</ActualText <FEFF{run.text.encode('utf-16-be').hex()}>>> BDC")
            _show(text, canvas, name, run.size, shaped, spacing)
            text._code.append("EMC")
        else:
            _show(text, canvas, name, run.size, shaped, spacing)
    canvas.drawText(text)


def _show(
    text: PDFTextObject, canvas: Canvas, font_name: str, size: float, shaped: str, spacing: tuple[float, ...] | None
) -> None:
    """Show a run. Shaped runs without vertical offsets (nearly all) are written here as
    glyphs with their kerning, as ReportLab's own writer would, but with the spacing
    worked out once per run instead of once per glyph and page."""
    if spacing is None:
        text.textOut(shaped)
        return
    font = pdfmetrics.getFont(font_name)
    start = 0
    for subset, codes in font.splitString(shaped, canvas._doc):
        if subset != text._curSubset:
            text._code.append(f"{font.getSubsetInternalName(subset, canvas._doc)} {fp_str(size)} Tf")
            text._curSubset = subset
        parts = []
        chunk = bytearray()
        for offset, code in enumerate(codes):
            gap = spacing[start + offset]
            if gap:
                if chunk:
                    parts.append(f"({escapePDF(bytes(chunk))})")
                    chunk = bytearray()
                parts.append(fp_str(gap))
            chunk.append(code)
        start += len(codes)
        parts.append(f"({escapePDF(bytes(chunk))})")
        text._code.append(f"[{' '.join(parts)}] TJ")


def _spacing(shaped: ShapedStr) -> tuple[float, ...] | None:
    """For each glyph, the TJ adjustment to write before it (thousandths of an em, the
    shaped advance and offset against the font's own width); None when a glyph is
    raised or lowered, which only ReportLab's writer handles."""
    glyphs = shaped.__shapeData__
    if any(glyph.y_offset for glyph in glyphs):
        return None
    gaps = []
    carry = 0.0
    for glyph in glyphs:
        gaps.append(round(carry - glyph.x_offset, 3))
        carry = glyph.width - glyph.x_advance + glyph.x_offset
    return tuple(gaps)


def _has_private_glyphs(text: str) -> bool:
    return any("\ue000" <= char <= "\uf8ff" for char in text)


@lru_cache(maxsize=4096)
def _shaped(text: str, font_name: str, size: float) -> tuple[str, tuple[float, ...] | None]:
    """The run shaped by HarfBuzz (glyphs and positions) and the spacing to write between
    its glyphs; the same run in the next document needs neither again. A run that
    shaping leaves as it is (no kerning, ligature or offset) is plain text."""
    shaped = shapeStr(text, font_name, size, force=True)
    glyphs = shaped.__shapeData__
    unchanged = str(shaped) == text and all(
        glyph.x_offset == 0 and glyph.y_offset == 0 and glyph.width == glyph.x_advance for glyph in glyphs
    )
    return (text, None) if unchanged else (shaped, _spacing(shaped))


def _font_name(file: FontFile) -> str:
    """The font registered with ReportLab under a name derived from the file, so that
    one process registers each font once."""
    name = "tk-" + hashlib.sha256(f"{file.path}#{file.index}".encode()).hexdigest()[:16]
    if name not in pdfmetrics.getRegisteredFontNames():
        # Template fonts may have CFF outlines, which ReportLab cannot embed.
        source: Any = io.BytesIO(truetype_bytes(file.data, file.index)) if file.data is not None else file.path
        try:
            font = TTFont(name, source, subfontIndex=file.index, shapable=True, asciiReadable=False)
        except TTFError as exc:
            raise RenderError(f"the font {file.path} cannot be embedded in a PDF: {exc}") from None
        _number_unmapped_glyphs(font)
        pdfmetrics.registerFont(font)
    return name


def _number_unmapped_glyphs(font: TTFont) -> None:
    """Give every glyph without a character (alternates, ligatures, joined forms) its
    private-use code point now, in glyph order. ReportLab numbers them as shaping meets
    them, shared by all the documents of the process, which would make a PDF's bytes
    depend on what the process drew before."""
    hb_font = font.hbFont()
    mapped = font.face.glyphToChar
    for gid in range(font.face.numGlyphs):
        if gid not in mapped:
            font.hbAddPrivate(hb_font.glyph_to_string(gid), gid, hb_font.get_glyph_h_advance(gid))


def _paint_image(page: _Page, item: Image) -> None:
    canvas = page.canvas
    canvas.saveState()
    canvas.setFillAlpha(page.opacity)
    source = item.source
    drawing = _svg_drawing(source.data, page.opacity) if source is not None and source.format == "SVG" else None
    jpeg = source is not None and source.format == "JPEG" and _upright(source.data)
    if source is not None and (drawing is not None or jpeg):
        # The whole source, scaled so that its crop fills the box, clipped to the box.
        left, top, right, bottom = source.crop
        scale_x, scale_y = item.width / (right - left), item.height / (bottom - top)
        canvas.clipPath(_box_path(canvas, item.x, item.y, item.width, item.height, 0, False), stroke=0, fill=0)
        x, y = item.x - left * scale_x, item.y - top * scale_y
        width, height = source.size[0] * scale_x, source.size[1] * scale_y
    else:
        x, y, width, height = item.x, item.y, item.width, item.height
    canvas.translate(x, y + height)
    canvas.scale(1, -1)
    if drawing is not None:
        canvas.scale(width / drawing.width, height / drawing.height)
        renderPDF.draw(drawing, canvas, 0, 0)
    else:
        reader = ImageReader(io.BytesIO(source.data) if jpeg and source is not None else item.image)
        canvas.drawImage(reader, 0, 0, width, height, mask="auto" if item.image.mode == "RGBA" else None)
    canvas.restoreState()


@lru_cache(maxsize=64)
def _svg_drawing(svg: bytes, opacity: float = 1.0) -> Drawing | None:
    """The SVG as a ReportLab drawing, or None when svglib cannot convert it (the
    image is then embedded as a bitmap). Its text uses the bundled fonts. Its shapes
    set their own alpha, so a layer's opacity is multiplied into each of them."""
    if opacity < 1:
        drawing = _svg_drawing(svg)
        if drawing is None or _has_gradients(drawing):  # shadings would stay opaque
            return None
        return _faded(drawing, opacity)
    _map_svg_fonts()
    try:
        drawing = svg2rlg(io.BytesIO(svg))
    except Exception:  # noqa: BLE001 - any failure of the converter means: use the bitmap
        return None
    if drawing is not None:
        drawing.initialFontName = _font_name(FontBook.bundled().match("Inter").file)  # not Helvetica
    return drawing


def _has_gradients(drawing: Drawing) -> bool:
    nodes = [drawing]
    while nodes:
        node = nodes.pop()
        if "Gradient" in type(node).__name__:
            return True
        nodes.extend(getattr(node, "contents", ()))
    return False


def _faded(drawing: Drawing, opacity: float) -> Drawing:
    faded = copy.deepcopy(drawing)
    nodes = [faded]
    while nodes:
        node = nodes.pop()
        for name in ("fillOpacity", "strokeOpacity"):
            if hasattr(node, name):
                value = getattr(node, name)
                setattr(node, name, (1.0 if value is None else value) * opacity)
        nodes.extend(getattr(node, "contents", ()))
    return faded


@lru_cache(maxsize=1)
def _map_svg_fonts() -> None:
    """Map the font families SVGs commonly name to the bundled faces (registered once,
    shared with the text of the page): text in an SVG is drawn, as in the PNG, in the
    bundled fonts, never in a system font or an unembedded standard one."""
    book = FontBook.bundled()
    fonts = get_global_font_map()
    weights = {"normal": 400, "bold": 700, **{str(w): w for w in range(100, 1000, 100)}}
    for family in SVG_FAMILIES:
        for weight, number in weights.items():
            for style in ("normal", "italic"):
                face = book.match(family, number, style == "italic")
                name = _font_name(face.file)
                fonts.register_font(family, face.file.path, weight=weight, style=style, rlgFontName=name)


def _upright(jpeg: bytes) -> bool:
    """A JPEG can go in as it is only if no EXIF orientation turns it."""
    with PILImage.open(io.BytesIO(jpeg)) as image:
        return image.getexif().get(0x0112, 1) == 1


def _paint_group(page: _Page, group: Group) -> None:
    canvas = page.canvas
    canvas.saveState()
    outer = page.opacity
    page.opacity = outer * group.opacity
    if group.rotation:
        ox, oy = group.origin
        canvas.translate(ox, oy)
        canvas.rotate(group.rotation)  # y points down: a positive angle turns clockwise
        canvas.translate(-ox, -oy)
    if group.clip is not None:
        _clip(canvas, group.clip)
    if page.opacity > 0:
        _paint_items(page, group.items)
    page.opacity = outer
    canvas.restoreState()


def _clip(canvas: Canvas, clip: Clip) -> None:
    path = _box_path(canvas, clip.x, clip.y, clip.width, clip.height, clip.radius, clip.ellipse)
    canvas.clipPath(path, stroke=0, fill=0)


PAINTERS: dict[type, Callable[[_Page, Any], None]] = {
    Rect: _paint_rect,
    Ellipse: _paint_ellipse,
    Polygon: _paint_polygon,
    Line: _paint_line,
    Bars: _paint_bars,
    Image: _paint_image,
    Group: _paint_group,
}  # text runs are painted in batches by _paint_items
