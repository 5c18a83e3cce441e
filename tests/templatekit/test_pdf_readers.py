"""PDFs as four renderers draw them: poppler, MuPDF, Ghostscript and PDFium each rasterise
the page, and each must look like the PNG of the same template."""

from __future__ import annotations

import io

import pytest
import uharfbuzz as hb
from fontTools.ttLib import TTFont

import templatekit as tk
from templatekit.paint.pdf.cff_charset import identity_charset
from templatekit.text.fonts import FONT_DIR
from tests import pdf_readers
from tests.conftest import layer, template

RENDERERS = list(pdf_readers.RENDERERS)
MEAN_LIMIT = 5.0
LOCAL_LIMIT = 40


def pages_in(renderer: str, pdf: bytes) -> list:
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    return pdf_readers.rasterise(pdf, renderer)


def assert_page_looks_like_png(renderer: str, source: object) -> None:
    page = pages_in(renderer, tk.render_pdf(source).data)[0]
    mean, local = pdf_readers.difference(page, pdf_readers.flatten(tk.render_image(source).data))
    assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"{renderer}: mean {mean:.2f}, local {local}"


@pytest.mark.parametrize("renderer", RENDERERS)
@pytest.mark.parametrize("text", ["你好，世界。中文测试", "안녕하세요 세계"])
def test_cid_keyed_cff_text_is_drawn_by_every_renderer(renderer, text):
    """The bundled Noto CJK fonts are CID-keyed CFF whose CIDs are not their glyph ids:
    readers that look codes up through the charset (MuPDF, Ghostscript) drew nothing or
    boxes until the subset's charset was made the identity."""
    assert_page_looks_like_png(
        renderer, template(layer("text", "t", x=10, y=10, width=580, height=80, text=text, size=48), width=600)
    )


def test_the_identity_charset_keeps_every_glyph_at_its_id():
    """fontTools reads the patched subset: glyph i is CID i, with the same charstring."""
    face = hb.Face(hb.Blob.from_file_path(str(FONT_DIR / "NotoSansCJKSC-Regular.otf")))
    options = hb.SubsetInput()
    for glyph in (5, 1041, 2981):
        options.glyph_set.add(glyph)
    options.flags = hb.SubsetFlags.RETAIN_GIDS
    subset = hb.subset(face, options).blob.data
    before, after = TTFont(io.BytesIO(subset)), TTFont(io.BytesIO(identity_charset(subset)))
    assert before.getGlyphOrder()[1041] != "cid01041"
    order = after.getGlyphOrder()
    assert order == [".notdef"] + [f"cid{i:05d}" for i in range(1, len(order))]
    old, new = before["CFF "].cff.topDictIndex[0].CharStrings, after["CFF "].cff.topDictIndex[0].CharStrings
    for glyph in (5, 1041, 2981):
        assert new[order[glyph]].bytecode == old[before.getGlyphOrder()[glyph]].bytecode


def test_a_font_that_is_not_cid_keyed_is_left_as_it_is():
    data = (FONT_DIR / "Inter-Regular.otf").read_bytes()
    assert identity_charset(data) is data
