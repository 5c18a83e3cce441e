"""A zero-width non-joiner (Persian writes one in most sentences: می‌خواهم, کتاب‌ها) parts
the letters around it: it is a unit of its own, not one with both its neighbours. As one
unit of three right-to-left glyphs its ActualText (in reading order, over glyphs drawn
in visual order) was turned round again by the readers that reorder right-to-left
text: poppler and MuPDF gave مخ‌یواهم and کتاه‌با, PDFium یم‌خواهم and باتک‌ها, while the
same line with spaces read back exactly."""

from __future__ import annotations

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

LINES = ["می‌خواهم کتاب‌ها را بخوانم", "שלו‌ם עולם", "Auf‌lage"]
EXTRACTORS = ["pdftotext", "pymupdf", "pdfium"]  # the readers of ActualText


@pytest.mark.parametrize("extractor", EXTRACTORS)
@pytest.mark.parametrize("text", LINES)
def test_a_zero_width_non_joiner_keeps_the_letters_around_it_in_order(text, extractor):
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")
    line = template(layer("text", "t", x=10, y=10, width=580, height=60, text=text, size=32, align="right"), width=600)
    read = pdf_readers.read_back(tk.render_pdf(line).data, extractor)
    # PDFium leaves zero-width characters out of what it gives back
    assert read.replace("\u200c", "") == text.replace("\u200c", "")
    if extractor != "pdfium":
        assert read == text
