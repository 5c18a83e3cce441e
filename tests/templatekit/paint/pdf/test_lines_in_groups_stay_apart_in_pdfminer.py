"""Lines of text inside a transparency group (a layer faded with its own background, a
blend mode) read back as separate words in pdfminer.six, as the same lines outside one
do. pdfminer.six does not lay out the text of a form XObject (an LTFigure): it writes
its characters one after the other, so a line break that no character stands for is
lost and the last word of a line runs into the first of the next."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

FIELDS = {
    "plain": {},
    "faded-with-background": {"opacity": 0.5, "background": "#fde68a"},
    "blend": {"blend": "multiply"},
}


@pytest.mark.parametrize("fields", FIELDS.values(), ids=FIELDS.keys())
def test_lines_in_a_group_read_back_apart_in_pdfminer(fields):
    if not pdf_readers.available("pdfminer"):
        pytest.skip("pdfminer.six is not installed")
    design = template(
        layer("text", "t", x=20, y=20, width=360, height=100, text="first line\nsecond line", size=24, **fields),
        layer("text", "u", x=20, y=140, width=360, height=40, text="another layer", size=24, **fields),
        width=400,
        height=200,
    )
    pdf = tk.render_pdf(tk.load_template(json.dumps(design))).data
    assert pdf_readers.read_back(pdf, "pdfminer") == "first line second line another layer"


@pytest.mark.parametrize("extractor", list(pdf_readers.EXTRACTORS))
def test_a_word_of_two_styles_in_a_group_stays_whole(extractor):
    """A word whose letters are in two spans is two runs on one line: no space between."""
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")
    text = layer(
        "text",
        "t",
        x=20,
        y=20,
        width=360,
        height=60,
        markup=True,
        text="Ship<b>ping</b> now",
        size=24,
        opacity=0.5,
        background="#fde68a",
    )
    pdf = tk.render_pdf(tk.load_template(json.dumps(template(text)))).data
    assert pdf_readers.read_back(pdf, extractor) == "Shipping now"
