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
- A semi-transparent group of more than one item is drawn as a transparency group (a
  form XObject) and faded as a whole, as the raster painter fades a layer: where its
  items overlap, the one below does not show through.

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
from pathlib import Path
from typing import Any

from attrs import frozen
from fontTools.ttLib import TTLibError
from PIL import Image as PILImage
from reportlab.graphics import renderPDF
from reportlab.graphics.shapes import Drawing
from reportlab.lib.colors import Color as RLColor
from reportlab.lib.rl_accel import escapePDF, fp_str
from reportlab.lib.utils import ImageReader
from reportlab.pdfbase import pdfdoc, pdfmetrics
from reportlab.pdfbase.ttfonts import ShapedStr, TTFError, TTFont, shapeStr
from reportlab.pdfgen.canvas import Canvas
from reportlab.pdfgen.pathobject import PDFPathObject
from reportlab.pdfgen.textobject import PDFTextObject
from svglib.fonts import get_global_font_map
from svglib.svglib import svg2rlg

from templatekit.errors import RenderError
from templatekit.fontconv import embeddable_font
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
WIDTH_DECIMALS = 1  # glyph widths in the file, in thousandths of an em
SPACING_TOLERANCE = 0.5  # thousandths of an em a glyph may sit from its shaped position
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
    """The canvas, the size of the page in px, and the opacity of the groups being drawn."""

    def __init__(self, canvas: Canvas, width: float, height: float) -> None:
        self.canvas = canvas
        self.width = width
        self.height = height
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
        page = _Page(canvas, scene.width, scene.height)
        if scene.background is not None and scene.background.a:
            _set_fill(page, scene.background)
            canvas.rect(0, 0, scene.width, scene.height, stroke=0, fill=1)
        _paint_items(page, scene.items)
        canvas.restoreState()
        canvas.showPage()
        _compress_without_ascii85(canvas)
    canvas.save()
    return out.getvalue()


def _compress_without_ascii85(canvas: Canvas) -> None:
    """Give the page just shown a Flate-only content stream. ReportLab's default also
    wraps it in ASCII85, a quarter more bytes that only 7-bit channels ever needed; its
    switch (`rl_config.useA85`) is process-wide and read when the file is written."""
    page = canvas._doc.Pages.pages[-1]
    contents = pdfdoc.PDFStream(content=page.stream, filters=[pdfdoc.PDFZCompress])
    contents.__Comment__ = "page stream"
    page.Contents = contents


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
    """Each line placed by a text matrix that also turns the glyphs upright again in the
    y-down page space; a run that goes on along the line where the one before ended
    (letter-spaced text, a change of font or colour) is moved there by a TJ adjustment
    instead of a new matrix. Font and colour are set only when they change."""
    canvas = page.canvas
    text = canvas.beginText()
    font: tuple[str, float] | None = None
    color: Color | None = None
    pen: tuple[float, float] | None = None  # where the last run left the text cursor
    for run in runs:
        name = _font_name(run.font)
        if (name, run.size) != font:
            font = (name, run.size)
            text.setFont(name, run.size)
        if run.color != color:
            color = run.color
            text.setFillColor(_rl_color(run.color, page.opacity))
        shaped = _shaped(run.text, name, run.size)
        if pen is not None and pen[1] == run.y and shaped.adjustments is not None:
            lead = round((pen[0] - run.x) * 1000 / run.size, 1)
            lead = lead if abs(lead) >= SPACING_TOLERANCE else 0.0
            start = pen[0] - lead * run.size / 1000  # where the run starts, within the tolerance
        else:
            lead, start = 0.0, run.x
            text.setTextTransform(1, 0, 0, -1, run.x, run.y)
        if shaped.private:
            # Glyphs that stand for no single character: readers copy and search the
            # run's own text instead (a marked-content span with ActualText).
            text._code.append(f"/Span <</ActualText <FEFF{run.text.encode('utf-16-be').hex()}>>> BDC")
            _show(text, canvas, name, run.size, shaped, lead)
            text._code.append("EMC")
        else:
            _show(text, canvas, name, run.size, shaped, lead)
        pen = None if shaped.advance is None else (start + shaped.advance * run.size / 1000, run.y)
    canvas.drawText(text)


@frozen
class _Shaped:
    """A run as a PDF shows it, worked out once per text, font and size: the same run in
    the next document needs none of it again."""

    glyphs: ShapedStr  # one character per glyph
    # Where an adjustment goes: (glyph index, thousandths of an em, as written); None
    # when a glyph is raised or lowered, which only ReportLab's writer places.
    adjustments: tuple[tuple[int, float, str], ...] | None
    advance: float | None  # how far showing the glyphs moves the text cursor, in thousandths of an em
    private: bool  # some glyphs stand for no single character


def _show(text: PDFTextObject, canvas: Canvas, font_name: str, size: float, run: _Shaped, lead: float = 0.0) -> None:
    """Show a run, moved ``lead`` thousandths of an em back first. Runs without raised
    or lowered glyphs (nearly all) are written here as ReportLab's own writer would,
    glyphs with their kerning; only the glyphs' codes in this document's font subsets
    are looked up per document."""
    if run.adjustments is None:
        text.textOut(run.glyphs)
        return
    adjustments = run.adjustments
    if lead:
        if adjustments and adjustments[0][0] == 0:
            lead += adjustments[0][1]
            adjustments = adjustments[1:]
        lead = round(lead, 1)
        adjustments = ((0, lead, fp_str(lead)), *adjustments) if lead else adjustments
    font = pdfmetrics.getFont(font_name)
    doc = canvas._doc
    parts: list[str] = []
    position = 0  # glyph index of the first code of the subset's string
    next_adjustment = 0
    for subset, codes in font.splitString(run.glyphs, doc):
        if subset != text._curSubset:
            _flush(text, parts)
            text._code.append(f"{font.getSubsetInternalName(subset, doc)} {fp_str(size)} Tf")
            text._curSubset = subset
        end = position + len(codes)
        written = position
        while next_adjustment < len(adjustments) and adjustments[next_adjustment][0] < end:
            index, _, gap = adjustments[next_adjustment]
            if index > written:
                parts.append(f"({escapePDF(codes[written - position : index - position])})")
                written = index
            parts.append(gap)
            next_adjustment += 1
        parts.append(f"({escapePDF(codes[written - position :])})")
        position = end
    _flush(text, parts)


def _flush(text: PDFTextObject, parts: list[str]) -> None:
    """Write the glyphs and adjustments gathered so far as one show operator."""
    if len(parts) == 1:
        text._code.append(f"{parts[0]} Tj")
    elif parts:
        text._code.append(f"[{' '.join(parts)}] TJ")
    parts.clear()


def _spacing(shaped: ShapedStr) -> tuple[float, ...] | None:
    """For each glyph, the TJ adjustment to write before it (thousandths of an em, the
    shaped advance and offset against the font's own width); None when a glyph is
    raised or lowered, which only ReportLab's writer handles. A difference is written
    once it reaches SPACING_TOLERANCE and the remainder carried on, so every glyph stays
    that close to where HarfBuzz put it, without an adjustment between most glyphs."""
    glyphs = shaped.__shapeData__
    if any(glyph.y_offset for glyph in glyphs):
        return None
    gaps = []
    owed = 0.0
    for glyph in glyphs:
        owed -= glyph.x_offset
        gap = round(owed, 1) if abs(owed) >= SPACING_TOLERANCE else 0.0
        gaps.append(gap)
        owed += glyph.width - glyph.x_advance + glyph.x_offset - gap
    return tuple(gaps)


@lru_cache(maxsize=4096)
def _shaped(text: str, font_name: str, size: float) -> _Shaped:
    """The run shaped by HarfBuzz, with the adjustments to write between its glyphs."""
    shaped = shapeStr(text, font_name, size, force=True)
    private = any("\ue000" <= char <= "\uf8ff" for char in shaped)
    spacing = _spacing(shaped)
    if spacing is None:
        return _Shaped(shaped, None, None, private)
    adjustments = tuple((index, gap, fp_str(gap)) for index, gap in enumerate(spacing) if gap)
    advance = sum(glyph.width for glyph in shaped.__shapeData__) - sum(spacing)
    return _Shaped(shaped, adjustments, advance, private)


@lru_cache(maxsize=1024)
def _font_name(file: FontFile) -> str:
    """The font registered with ReportLab under a name derived from the file, so that
    one process registers each font once."""
    name = "tk-" + hashlib.sha256(f"{file.path}#{file.index}".encode()).hexdigest()[:16]
    if name not in pdfmetrics.getRegisteredFontNames():
        try:
            data = file.data if file.data is not None else Path(file.path).read_bytes()
            source = io.BytesIO(embeddable_font(data, file.index))
            font = TTFont(name, source, shapable=True, asciiReadable=False)
        except (TTFError, TTLibError, OSError) as exc:
            raise RenderError(f"the font {file.path} cannot be embedded in a PDF: {exc}") from None
        _number_unmapped_glyphs(font)
        _round_widths(font)
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


def _round_widths(font: TTFont) -> None:
    """Round the glyph widths that go into the file's `/Widths` arrays to a tenth of a
    thousandth of an em; an em of 2816 units (Inter's) would print four decimals each.
    The spacing written between glyphs is worked out from these same widths, so glyphs
    stay where HarfBuzz put them."""
    face = font.face
    widths = face.charWidths
    for char, width in widths.items():
        widths[char] = round(width, WIDTH_DECIMALS)
    face.defaultWidth = round(face.defaultWidth, WIDTH_DECIMALS)


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
    if page.opacity >= 1 or (page.opacity > 0 and not _may_overlap(group.items)):
        _paint_items(page, group.items)
    elif page.opacity > 0:
        _paint_transparency_group(page, group.items)
    page.opacity = outer
    canvas.restoreState()


def _may_overlap(items: Sequence[Item]) -> bool:
    return len(items) > 1 or any(isinstance(item, Group) for item in items)


def _paint_transparency_group(page: _Page, items: Sequence[Item]) -> None:
    """Draw items into a form XObject marked as a transparency group, and show it at the
    page's opacity: PDF then composites the items with each other first and fades the
    result as a whole. ReportLab's forms carry no group entry and no shadings, so the
    form's stream and resources are set here."""
    canvas = page.canvas
    opacity = page.opacity
    name = f"tkgroup{len(canvas._doc.idToObject)}"  # objects so far: unique, and the same for the same input
    width, height = page.width, page.height
    canvas.beginForm(name, -width, -height, 2 * width, 2 * height)  # room for items that stick out
    page.opacity = 1.0
    _paint_items(page, items)
    shadings = canvas._shadingUsed
    canvas.endForm()
    page.opacity = opacity
    form = canvas._doc.idToObject[pdfdoc.xObjectName(name)]
    contents = pdfdoc.PDFStream(content=form.stream, filters=[pdfdoc.PDFZCompress])
    contents.dictionary["Group"] = pdfdoc.PDFDictionary({"S": pdfdoc.PDFName("Transparency")})
    form.Contents = contents
    form.compression = 0  # the stream above is compressed already
    resources = pdfdoc.PDFResourceDictionary()
    resources.basicFonts()
    resources.allProcs()
    if form.XObjects:
        resources.XObject = form.XObjects
    if form.ExtGState:
        resources.ExtGState = form.ExtGState
    resources.setShading(shadings)
    resources.setColorSpace(form._colorsUsed)
    form.Resources = resources
    canvas.setFillAlpha(opacity)
    canvas.setStrokeAlpha(opacity)
    canvas.doForm(name)


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
