"""Font conversion: CFF (PostScript) outlines to TrueType outlines.

The PDF writer (ReportLab) embeds TrueType outlines only; a font with CFF outlines
(most .otf files) is converted before it is embedded, and the bundled fonts were
converted the same way when they were vendored.
"""

from __future__ import annotations

import io

from fontTools.pens.cu2quPen import Cu2QuPen
from fontTools.pens.ttGlyphPen import TTGlyphPen
from fontTools.ttLib import TTFont, newTable

MAX_ERROR = 1.0  # font units: quadratic curves within one unit of the cubic ones


def has_cff_outlines(data: bytes) -> bool:
    return data[:4] == b"OTTO"


def truetype_outlines(font: TTFont, max_error: float = MAX_ERROR) -> TTFont:
    """Replace a font's CFF outlines by TrueType (quadratic) ones, in place."""
    glyph_order = font.getGlyphOrder()
    glyph_set = font.getGlyphSet()
    glyf = newTable("glyf")
    glyf.glyphOrder = glyph_order
    glyf.glyphs = {}
    for name in glyph_order:
        pen = TTGlyphPen(glyph_set)
        glyph_set[name].draw(Cu2QuPen(pen, max_error, reverse_direction=True))
        glyf[name] = pen.glyph()
    font["glyf"] = glyf
    font["loca"] = newTable("loca")
    maxp = font["maxp"]
    maxp.tableVersion = 0x00010000
    for attribute in (
        "maxZones",
        "maxTwilightPoints",
        "maxStorage",
        "maxFunctionDefs",
        "maxInstructionDefs",
        "maxStackElements",
        "maxSizeOfInstructions",
        "maxComponentElements",
    ):
        setattr(maxp, attribute, 0)
    maxp.maxZones = 1
    font["head"].glyphDataFormat = 0
    post = font["post"]
    post.formatType = 2.0
    post.extraNames = []
    post.mapping = {}
    post.glyphOrder = glyph_order
    del font["CFF "]
    if "VORG" in font:
        del font["VORG"]
    font.sfntVersion = "\x00\x01\x00\x00"
    return font


EMBEDDED_NAME_IDS = range(7)  # copyright, family, style, unique id, full name, version, PostScript name


def embeddable_font(data: bytes, index: int = 0) -> bytes:
    """The font file as a PDF embeds it: TrueType outlines, and of its names only those
    that identify it. ReportLab copies the whole `name` table into every subset, where a
    font's licence text, descriptions and style names would cost a kilobyte per font;
    the licences ship beside the fonts."""
    font = TTFont(io.BytesIO(data), fontNumber=index, lazy=True, recalcTimestamp=False)  # same input, same bytes
    if "CFF " in font:
        truetype_outlines(font)
    names = font["name"]
    identifying = [record for record in names.names if record.nameID in EMBEDDED_NAME_IDS]
    windows = [record for record in identifying if record.platformID == 3]
    names.names = windows or identifying
    out = io.BytesIO()
    font.save(out)
    return out.getvalue()
