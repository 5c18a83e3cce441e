"""Fonts of a PDF: subsets embedded by glyph id, with the text each glyph stands for.

Each font file becomes a Type 0 font with the Identity-H encoding whose character ids
are the glyph ids the layout chose (the subset keeps glyph ids, so the page content can
be written before the subset is made), a TrueType (FontFile2) or CFF (FontFile3,
OpenType) program cut by HarfBuzz's subsetter to the glyphs used (a CID-keyed CFF's
charset made the identity, so that every reader finds the glyph a code names), a /W array of their
advances, and a ToUnicode map from each glyph to the characters of its cluster, so that
the text is found by search and copied whole. A glyph that stands for different text in
different places (or for none of its own) is left to the ActualText of its run.

Letter-spaced runs use a variant of the font whose widths include the spacing: text
extractors then see glyphs that touch, as they look, and do not cut words apart.
"""

from __future__ import annotations

import hashlib
import io
import struct
import unicodedata
from collections.abc import Iterable, Sequence
from functools import lru_cache

import uharfbuzz as hb
from attrs import define, field, frozen

from templatekit.cache import memoized
from templatekit.font_file import HbFont, hb_font
from templatekit.paint.pdf.cff_charset import identity_charset
from templatekit.paint.pdf.objects import Document, Name, Raw, Ref, compressed, number
from templatekit.scene import FontFile

MARK_WIDTH = 100.0  # thousandths of an em, the /W width of a glyph that advances nothing
_DROPPED = ("GSUB", "GPOS", "GDEF", "BASE", "JSTF", "MATH", "kern", "vhea", "vmtx", "VORG", "DSIG", "COLR", "CPAL")


@define
class _Font:
    """One font file of the document: its variants (by extra width), glyphs and text."""

    number: int
    descendants: dict[float, tuple[str, Ref]] = field(factory=dict)  # extra width -> (resource name, Type0 ref)
    glyphs: set[int] = field(factory=lambda: {0})
    text: dict[int, str] = field(factory=dict)


class EmbeddedFonts:
    def __init__(self, document: Document) -> None:
        self.document = document
        self._fonts: dict[FontFile, _Font] = {}
        self._count = 0

    def resource(self, file: FontFile, extra: float = 0.0) -> tuple[str, Ref]:
        """The page resource name and object of ``file`` with ``extra`` (thousandths of
        an em) added to every glyph's width."""
        font = self._fonts.get(file)
        if font is None:
            font = self._fonts[file] = _Font(len(self._fonts))
        extra = round(extra, 1)
        found = font.descendants.get(extra)
        if found is None:
            self._count += 1
            found = font.descendants[extra] = (f"F{self._count}", self.document.reserve())
        return found

    def map_text(self, file: FontFile, glyphs: Iterable[int], texts: Iterable[str]) -> list[bool]:
        """Record what each glyph stands for; for each glyph, whether the ToUnicode map
        says it (not when it stands for other text elsewhere in the document). Text of
        format characters only (a soft hyphen, a joiner) does not claim the glyph it is
        drawn with: the space glyph that HarfBuzz gives an invisible soft hyphen stays a
        space in the map, and the soft hyphen goes to ActualText."""
        font = self._fonts[file]
        said = []
        for glyph, text in zip(glyphs, texts, strict=True):
            font.glyphs.add(glyph)
            if text and _format_characters(text):
                text_of_glyph = font.text.setdefault(glyph, hb_font(file).characters.get(glyph, text))
            else:
                text_of_glyph = font.text.setdefault(glyph, text) if text else text
            said.append(text_of_glyph == text)
        return said

    def write(self) -> dict[str, Ref]:
        """Write every font; their resource names and objects."""
        names: dict[str, Ref] = {}
        for file, font in self._fonts.items():
            _write_font(self.document, file, font)
            names.update(font.descendants.values())
        return names


@frozen
class _Tables:
    """What a font's objects say that depends on its glyphs and their text alone."""

    name: str  # the subset's tag and the font's PostScript name
    to_unicode: bytes  # the ToUnicode map, compressed
    widths: dict[float, Raw]  # the /W array of each variant, by its extra width


@memoized(
    "pdf.font_tables",
    256,
    lambda tables: 200 + len(tables.to_unicode) + sum(len(widths.text) for widths in tables.widths.values()),
    second_use=True,
)
def _tables(
    file: FontFile,
    program: bytes,
    postscript_name: str,
    glyphs: tuple[int, ...],
    text: tuple[tuple[int, str], ...],
    extras: tuple[float, ...],
) -> _Tables:
    """A font's tables for ``glyphs`` (sorted) of ``program``, standing for ``text`` (by
    glyph, sorted): kept, as a template's documents embed the same subsets standing for
    the same text (the program is the subset's kept bytes, whose hash Python keeps)."""
    return _Tables(
        f"{_subset_tag(program, postscript_name, glyphs)}+{postscript_name}",
        compressed(_to_unicode(text)),
        {extra: _widths(file, glyphs, extra) for extra in extras},
    )


def _write_font(document: Document, file: FontFile, font: _Font) -> None:
    source = hb_font(file)
    glyphs = tuple(sorted(font.glyphs))
    program, length, cff = _box_font() if source.color else _subset(file, glyphs)
    postscript_name = _postscript_name(source, font.number)
    text = tuple(sorted(font.text.items()))
    tables = _tables(file, program, postscript_name, glyphs, text, tuple(font.descendants))
    name = tables.name
    kind: dict[str, object] = {"Subtype": Name("OpenType")} if cff else {"Length1": length}
    entries = {**kind, "Filter": Name("FlateDecode")}
    program_ref = document.add_stream(entries, program, compress=False)
    to_glyphs: object = Name("Identity")
    if source.color:
        to_glyphs = document.add_stream({}, _all_to_box(glyphs))
    descriptor = document.add(_descriptor(source, name, program_ref, cff))
    to_unicode = document.add_stream({"Filter": Name("FlateDecode")}, tables.to_unicode, compress=False)
    for extra, (_, ref) in font.descendants.items():
        cid_font = {
            "Type": Name("Font"),
            "Subtype": Name("CIDFontType0" if cff else "CIDFontType2"),
            "BaseFont": Name(name),
            "CIDSystemInfo": {"Registry": "Adobe", "Ordering": "Identity", "Supplement": 0},
            "FontDescriptor": descriptor,
            "W": tables.widths[extra],
        }
        if not cff:
            cid_font["CIDToGIDMap"] = to_glyphs
        document.set(
            ref,
            {
                "Type": Name("Font"),
                "Subtype": Name("Type0"),
                "BaseFont": Name(name),
                "Encoding": Name("Identity-H"),
                "DescendantFonts": [document.add(cid_font)],
                "ToUnicode": to_unicode,
            },
        )


@lru_cache(maxsize=4096)
def _format_characters(text: str) -> bool:
    """Whether ``text`` is only invisible format characters (Unicode category Cf); asked
    of every glyph's text, which are a few letters over and over."""
    return all(unicodedata.category(char) == "Cf" for char in text)


@lru_cache(maxsize=1)
def _box_font() -> tuple[bytes, int, bool]:
    """A TrueType font of one glyph, a box of one em, compressed; its length; not CFF.

    Colour glyphs are drawn as pictures, under the same glyphs as invisible text, so
    that they are found and copied. That text needs no outlines of its own, but PDFium
    leaves out of its text any glyph whose outline is empty (a colour font's glyphs
    have none): it is set in this box instead, every glyph id mapped to it."""
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    pen = TTGlyphPen(None)
    for point in ((0, -200), (0, 800), (1000, 800), (1000, -200)):
        (pen.lineTo if pen.points else pen.moveTo)(point)
    pen.closePath()
    builder = FontBuilder(1000, isTTF=True)
    builder.setupGlyphOrder([".notdef", "box"])
    builder.setupCharacterMap({})
    builder.setupGlyf({".notdef": TTGlyphPen(None).glyph(), "box": pen.glyph()})
    builder.setupHorizontalMetrics({".notdef": (0, 0), "box": (1000, 0)})
    builder.setupHorizontalHeader(ascent=800, descent=-200)
    builder.setupNameTable({"familyName": "Box", "styleName": "Regular"})
    builder.setupOS2()
    builder.setupPost()
    builder.updateHead(created=0, modified=0)  # not the time of building: PDFs stay reproducible
    out = io.BytesIO()
    builder.save(out)
    data = out.getvalue()
    return compressed(data), len(data), False


def _all_to_box(glyphs: Sequence[int]) -> bytes:
    """A CIDToGIDMap that sets every glyph in ``glyphs`` in the box font's one glyph."""
    table = bytearray(2 * (max(glyphs) + 1))
    for glyph in glyphs:
        if glyph:
            table[2 * glyph + 1] = 1
    return bytes(table)


@lru_cache(maxsize=65536)
def glyph_width(file: FontFile, glyph: int) -> float:
    """A glyph's advance in thousandths of an em; a mark that advances nothing is given
    a tenth of an em. Text is placed by its positions, not by these widths, but extractors
    that measure glyphs by them (pdfminer.six) take two stacked marks of no width for the
    end of a line."""
    font = hb_font(file)
    advance = round(font.font.get_glyph_h_advance(glyph) * 1000 / font.upem, 1)
    return advance or MARK_WIDTH


@lru_cache(maxsize=65536)
def _width_text(file: FontFile, glyph: int, extra: float) -> str:
    """A glyph's width with ``extra`` as the /W array writes it: every document that
    embeds the font writes the same widths again."""
    return number(glyph_width(file, glyph) + extra)


def _subset_tag(program: bytes, postscript_name: str, glyphs: tuple[int, ...]) -> str:
    """Six capital letters from the embedded program, the font's name and the glyphs
    kept: distinct subsets get distinct tags, the same subset the same one wherever the
    font file lies (so a template gives the same PDF from any installation)."""
    digest = hashlib.sha256(b"%s:%s:%r" % (program, postscript_name.encode(), list(glyphs))).digest()
    return "".join(chr(ord("A") + byte % 26) for byte in digest[:6])


def _postscript_name(font: HbFont, index: int) -> str:
    """The font's PostScript name, else its full name without spaces (PDF names allow
    no spaces), else a made-up one."""
    names = hb.OTNameIdPredefined
    for name_id in (names.POSTSCRIPT_NAME, names.FULL_NAME, names.FONT_FAMILY):
        raw = font.face.get_name(name_id) or ""
        cleaned = "".join(c for c in raw if c.isascii() and c.isalnum() or c in "-_")
        if cleaned:
            return cleaned
    return f"Font{index}"


@memoized("pdf.subsets", 64, lambda subset: 200 + len(subset[0]))
def _subset(file: FontFile, glyphs: tuple[int, ...]) -> tuple[bytes, int, bool]:
    """The font program with only ``glyphs`` (at their own ids), compressed; its length
    before compression, and whether its outlines are CFF. Kept for repeats: renders of a
    template mostly use the same glyphs."""
    font = hb_font(file)
    options = hb.SubsetInput()
    for glyph in glyphs:
        options.glyph_set.add(glyph)
    # CFF subroutines inlined: deflate packs the plain charstrings better (1.3 KB of an invoice)
    flags = hb.SubsetFlags.RETAIN_GIDS | hb.SubsetFlags.NOTDEF_OUTLINE | hb.SubsetFlags.NO_HINTING
    options.flags = flags | hb.SubsetFlags.DESUBROUTINIZE
    for tag in _DROPPED:
        options.drop_table_tag_set.add(int.from_bytes(tag.encode("ascii").ljust(4), "big"))
    subset = hb.subset(font.face, options)
    if subset is None:
        raise RuntimeError("the font could not be subset")
    cff = "CFF " in font.face.table_tags
    data = identity_charset(subset.blob.data) if cff else subset.blob.data
    return compressed(data), len(data), cff


def _table(font: HbFont, tag: str) -> bytes:
    return font.face.reference_table(tag).data


def _descriptor(font: HbFont, name: str, program: Ref, cff: bool) -> dict[str, object]:
    scale = 1000 / font.upem
    head = _table(font, "head")
    x_min, y_min, x_max, y_max = struct.unpack(">4h", head[36:44]) if len(head) >= 44 else (0, -200, 1000, 900)
    post = _table(font, "post")
    italic = struct.unpack(">i", post[4:8])[0] / 65536 if len(post) >= 8 else 0.0
    os2 = _table(font, "OS/2")
    cap = struct.unpack(">h", os2[88:90])[0] if len(os2) >= 90 else round(font.ascender * font.upem)
    return {
        "Type": Name("FontDescriptor"),
        "FontName": Name(name),
        "Flags": 4 | (64 if italic else 0),
        "FontBBox": [round(v * scale) for v in (x_min, y_min, x_max, y_max)],
        "ItalicAngle": round(italic, 2),
        "Ascent": round(font.ascender * 1000),
        "Descent": round(-font.descender * 1000),
        "CapHeight": round(cap * scale),
        "StemV": 80,
        "FontFile3" if cff else "FontFile2": program,
    }


def _widths(file: FontFile, glyphs: Sequence[int], extra: float) -> Raw:
    """The /W array of ``glyphs`` (sorted), ``extra`` added to each width: runs of
    consecutive glyph ids with their widths."""
    parts: list[str] = []
    run: list[str] = []
    previous = -2
    for glyph in glyphs:
        if glyph != previous + 1 and run:
            parts.append(f"[{' '.join(run)}]")
            run = []
        if not run:
            parts.append(str(glyph))
        run.append(_width_text(file, glyph, extra))
        previous = glyph
    if run:
        parts.append(f"[{' '.join(run)}]")
    return Raw(f"[{' '.join(parts)}]")


def _to_unicode(text: Sequence[tuple[int, str]]) -> bytes:
    """The ToUnicode CMap of ``text``, (glyph, characters) sorted by glyph."""
    entries = [f"<{glyph:04X}> <{value.encode('utf-16-be').hex().upper()}>" for glyph, value in text]
    blocks = []
    for start in range(0, len(entries), 100):
        chunk = entries[start : start + 100]
        blocks.append(f"{len(chunk)} beginbfchar\n" + "\n".join(chunk) + "\nendbfchar")
    body = "\n".join(blocks)
    return (
        "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n"
        f"{body}\nendcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n"
    ).encode("ascii")
