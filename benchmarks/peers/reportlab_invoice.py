"""The example invoice written by hand with ReportLab and segno, as a developer would without templatekit.

Fonts are registered (with ``asciiReadable=0``: each font subset holds the glyphs the
page uses, not all of ASCII as ReportLab's default does), the payment terms wrapped and
the QR code made once by ``load_assets`` (the payment link does not change);
``render_invoice`` draws the page for one client with plain ``reportlab.pdfgen.canvas``
calls: ``drawString``/``drawRightString`` (no shaping), rectangles and lines for the
rules, and the logo as vectors like its SVG (a rounded square filled with a linear
gradient, two rounded bars and a circle at 85% opacity). Coordinates
are the design's px, y down, as in ``examples/templates/invoice.json``; the canvas is
scaled to points. Run as a script, it renders one invoice cold:
``python benchmarks/peers/reportlab_invoice.py out.pdf ["client name"]``.
"""

from __future__ import annotations

import io
import re
import sys
from dataclasses import dataclass
from pathlib import Path

import segno
from reportlab.lib.colors import HexColor
from reportlab.lib.utils import simpleSplit
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen.canvas import Canvas

ROOT = Path(__file__).resolve().parents[2]
CONVERTED = Path(__file__).resolve().parent / ".fonts"
FONTS = ROOT / "src" / "templatekit" / "fonts"

WIDTH, HEIGHT = 794, 1123  # px; 0.75 pt each
POINTS_PER_PX = 0.75
QR_URL = "https://pay.example/inv/INV-2026-0142"
QR_MODULE = 2  # px
DEFAULT_CLIENT = "Acme Robotics Ltd"

SLATE_900, SLATE_800, SLATE_700 = HexColor("#0f172a"), HexColor("#1e293b"), HexColor("#334155")
SLATE_600, SLATE_500, SLATE_200 = HexColor("#475569"), HexColor("#64748b"), HexColor("#e2e8f0")
INDIGO_500, INDIGO_600, PINK_500 = HexColor("#6366f1"), HexColor("#4f46e5"), HexColor("#ec4899")
INDIGO_400 = HexColor("#818cf8")

META = [("Invoice no.", "INV-2026-0142"), ("Issued", "22 Nov 2026"), ("Due", "22 Dec 2026")]
# header, x (the left edge of a left-aligned column, the right edge of the others), alignment
COLUMNS = [("Description", 66, "left"), ("Qty", 435, "right"), ("Unit price", 581, "right"), ("Amount", 728, "right")]
ITEMS = [
    ("Brand identity workshop (2 days)", "1", "£2,400.00", "£2,400.00"),
    ("Logo and wordmark design", "1", "£1,800.00", "£1,800.00"),
    ("Social media template set", "12", "£85.00", "£1,020.00"),
    ("Product photography, half day", "1", "£650.00", "£650.00"),
    ("Print-ready brochure, 8 pages", "1", "£1,150.00", "£1,150.00"),
]
TERMS = (
    "Bank transfer to Northwind Studio Ltd, sort code 20-45-77, account 41882910, within 30 days. "
    "Thank you for your business!"
)


@dataclass
class Assets:
    qr_runs: list[tuple[int, int, int]]  # row, first column, length of each run of dark modules
    terms: list[str]  # the payment terms in lines


def truetype(name: str) -> Path:
    """The bundled font ``name`` with TrueType outlines, as ReportLab embeds only those:
    converted once from its CFF outlines (the same glyphs, as quadratic curves) into
    ``benchmarks/peers/.fonts``."""
    converted = CONVERTED / f"{name}.ttf"
    if not converted.exists():
        from fontTools.pens.cu2quPen import Cu2QuPen
        from fontTools.pens.ttGlyphPen import TTGlyphPen
        from fontTools.ttLib import TTFont as FontFile
        from fontTools.ttLib import newTable

        font = FontFile(FONTS / f"{name}.otf")
        glyph_set = font.getGlyphSet()
        glyphs = {}
        for glyph_name in font.getGlyphOrder():
            pen = TTGlyphPen(glyph_set)
            glyph_set[glyph_name].draw(Cu2QuPen(pen, max_err=1.0, reverse_direction=True))
            glyphs[glyph_name] = pen.glyph()
        font["loca"] = newTable("loca")
        font["glyf"] = glyf = newTable("glyf")
        glyf.glyphOrder = font.getGlyphOrder()
        glyf.glyphs = glyphs
        del font["CFF "]
        font["maxp"] = maxp = newTable("maxp")
        maxp.tableVersion = 0x00010000
        limits = ("maxTwilightPoints", "maxStorage", "maxFunctionDefs", "maxInstructionDefs", "maxStackElements")
        for field in (*limits, "maxSizeOfInstructions", "maxComponentElements"):
            setattr(maxp, field, 0)
        maxp.maxZones = 1
        font["head"].glyphDataFormat = 0
        font["post"].formatType = 2.0
        font["post"].extraNames = []
        font["post"].mapping = {}
        font.sfntVersion = "\x00\x01\x00\x00"
        CONVERTED.mkdir(exist_ok=True)
        font.save(converted)
    return converted


def load_assets() -> Assets:
    """Everything that does not change between invoices."""
    for name in ("Regular", "Medium", "Bold", "ExtraBold"):
        pdfmetrics.registerFont(TTFont(f"Inter-{name}", str(truetype(f"Inter-{name}")), asciiReadable=0))
    code = segno.make(QR_URL, error="m", micro=False, boost_error=False)
    runs = [
        (y, run.start(), run.end() - run.start())
        for y, row in enumerate(code.matrix_iter(scale=1, border=0))
        for run in re.finditer("1+", "".join(map(str, row)))
    ]
    return Assets(runs, simpleSplit(TERMS, "Inter-Regular", 12, 460))


def logo(canvas: Canvas, x: float, y: float, side: float) -> None:
    """``logo.svg`` (a 64-unit viewBox) with its top left corner at (x, y), ``side`` px wide."""
    canvas.saveState()
    canvas.translate(x, up(y))
    canvas.scale(side / 64, -side / 64)  # the SVG's units, y down
    square = canvas.beginPath()
    square.roundRect(2, 2, 60, 60, 16)
    canvas.clipPath(square, stroke=0, fill=0)
    canvas.linearGradient(2, 2, 62, 62, (INDIGO_400, PINK_500))
    canvas.restoreState()
    canvas.saveState()
    canvas.translate(x, up(y))
    canvas.scale(side / 64, -side / 64)
    canvas.setFillColor(HexColor("#ffffff"))
    canvas.roundRect(14, 16, 36, 8, 4, stroke=0, fill=1)
    canvas.roundRect(28, 16, 8, 34, 4, stroke=0, fill=1)
    canvas.setFillAlpha(0.85)
    canvas.circle(46, 46, 5, stroke=0, fill=1)
    canvas.restoreState()


def up(y: float) -> float:
    """A y measured down from the top of the design, as the canvas's y up from the bottom."""
    return HEIGHT - y


def text(canvas: Canvas, x: float, baseline: float, value: str, font: str, size: float, color: HexColor) -> None:
    canvas.setFont(font, size)
    canvas.setFillColor(color)
    canvas.drawString(x, up(baseline), value)


def right(canvas: Canvas, x: float, baseline: float, value: str, font: str, size: float, color: HexColor) -> None:
    canvas.setFont(font, size)
    canvas.setFillColor(color)
    canvas.drawRightString(x, up(baseline), value)


def rule(canvas: Canvas, x: float, y: float, width: float, height: float, color: HexColor) -> None:
    canvas.setFillColor(color)
    canvas.rect(x, up(y + height), width, height, stroke=0, fill=1)


def render_invoice(assets: Assets, client: str = DEFAULT_CLIENT) -> bytes:
    """The invoice for ``client`` as PDF bytes; the same client gives the same bytes (``invariant``)."""
    out = io.BytesIO()
    canvas = Canvas(out, pagesize=(WIDTH * POINTS_PER_PX, HEIGHT * POINTS_PER_PX), invariant=1, pageCompression=1)
    canvas.setTitle("Invoice")
    canvas.scale(POINTS_PER_PX, POINTS_PER_PX)

    canvas.saveState()
    bar = canvas.beginPath()
    bar.rect(0, up(8), WIDTH, 8)
    canvas.clipPath(bar, stroke=0, fill=0)
    canvas.linearGradient(0, up(4), WIDTH, up(4), (INDIGO_500, PINK_500))
    canvas.restoreState()

    logo(canvas, 56, 56, 44)
    text(canvas, 112, 86, "Northwind Studio", "Inter-Bold", 22, SLATE_900)
    text(canvas, 56, 125.4, "12 Harbour Street, Bristol BS1 4QA", "Inter-Regular", 12, SLATE_500)
    text(canvas, 56, 143.4, "hello@northwind.studio · VAT GB 123 4567 89", "Inter-Regular", 12, SLATE_500)

    canvas.setFont("Inter-ExtraBold", 30)
    canvas.setFillColor(SLATE_900)
    canvas.drawRightString(734, up(80.9), "INVOICE", charSpace=4)  # the design keeps 4 px after the last letter
    for row, (key, value) in enumerate(META):
        baseline = 120.5 + 23.4 * row
        text(canvas, 478, baseline, key, "Inter-Regular", 12, SLATE_500)
        right(canvas, 738, baseline, value, "Inter-Medium", 12, SLATE_900)

    canvas.setFont("Inter-Bold", 11)
    canvas.setFillColor(INDIGO_500)
    canvas.drawString(56, up(222.6), "BILL TO", charSpace=1.5)
    for line, value in enumerate((client, "Attn. Grace Hopper", "4 Innovation Way, Cambridge CB4 0WS")):
        text(canvas, 56, 250.5 + 19.5 * line, value, "Inter-Regular", 13, SLATE_800)

    for column, (header, x, align) in enumerate(COLUMNS):
        draw = text if align == "left" else right
        draw(canvas, x, 360.2, header, "Inter-Bold", 13, SLATE_900)
        for row, item in enumerate(ITEMS):
            draw(canvas, x, 391.2 + 31 * row, item[column], "Inter-Regular", 13, SLATE_700)
    rule(canvas, 56, 370, 682, 2, SLATE_900)
    for row in range(len(ITEMS)):
        rule(canvas, 56, 401 + 31 * row, 682, 1, SLATE_200)

    for key, value, baseline, divider in [("Subtotal", "£7,020.00", 794.5, 807), ("VAT 20%", "£1,404.00", 830.9, 843)]:
        text(canvas, 438, baseline, key, "Inter-Regular", 14, SLATE_500)
        right(canvas, 738, baseline, value, "Inter-Medium", 14, SLATE_900)
        rule(canvas, 438, divider, 300, 1, SLATE_200)
    text(canvas, 438, 871.1, "Total due", "Inter-Bold", 14, SLATE_900)
    right(canvas, 738, 871.1, "£8,424.00", "Inter-ExtraBold", 18, INDIGO_600)

    canvas.setFont("Inter-Bold", 11)
    canvas.setFillColor(INDIGO_500)
    canvas.drawString(56, up(970.6), "PAYMENT", charSpace=1.5)
    for line, value in enumerate(assets.terms):
        text(canvas, 56, 997.4 + 18 * line, value, "Inter-Regular", 12, SLATE_600)

    qr = canvas.beginPath()
    for y, x, length in assets.qr_runs:
        qr.rect(665 + x * QR_MODULE, up(965 + (y + 1) * QR_MODULE), length * QR_MODULE, QR_MODULE)
    canvas.setFillColor(HexColor("#000000"))
    canvas.drawPath(qr, stroke=0, fill=1)

    canvas.showPage()
    canvas.save()
    return out.getvalue()


if __name__ == "__main__":
    Path(sys.argv[1]).write_bytes(render_invoice(load_assets(), *sys.argv[2:3]))
