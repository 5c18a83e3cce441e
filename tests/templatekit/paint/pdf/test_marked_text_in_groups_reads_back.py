"""Text marked with ActualText (a Devanagari vowel sign drawn before its consonant) inside
a transparency group (a blend mode, a layer faded with its background, a mask) reads
back in PDFium as outside one. PDFium places ActualText characters in the form's own
space, ignoring the transformation the form is drawn with: away from the page's
corner they fell off the page, and its text lost them."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

TEXT = "नमस्ते दुनिया"
FIELDS = {
    "blend": {"blend": "multiply"},
    "faded-with-background": {"opacity": 0.6, "background": "#fde68a"},
    "masked": {"mask": {"shape": "ellipse"}},
    "turned-and-faded": {"rotation": 4, "opacity": 0.6, "background": "#fde68a"},
}


@pytest.mark.parametrize("fields", FIELDS.values(), ids=FIELDS.keys())
def test_marked_text_in_a_group_reads_back_in_pdfium(fields):
    if not pdf_readers.available("pdfium"):
        pytest.skip("pdfium is not installed")
    text = layer("text", "line", x=600, y=100, width=280, height=60, text=TEXT, size=24, **fields)
    pdf = tk.render_pdf(tk.load_template(json.dumps(template(text, width=900, height=300)))).data
    assert pdf_readers.read_back(pdf, "pdfium") == TEXT
