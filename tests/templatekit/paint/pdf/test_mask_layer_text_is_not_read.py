"""A text layer used as another layer's mask is drawn only as the mask, so no extractor
reads its words: poppler and MuPDF extract the drawing of a soft mask with the page's
text, and read the mask's letters as if they were on the page. The mask's letters are
outlines; the page still looks like the PNG."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

MEAN_LIMIT = 5.0  # the limits of test_readers.py
LOCAL_LIMIT = 40


def design(mode: str) -> str:
    letters = layer(
        "text", "letters", x=10, y=10, width=380, height=120, text="HIDDEN 😀", size=72, weight=900, color="#ffffff"
    )
    box = layer(
        "shape", "box", x=10, y=10, width=380, height=120, fill="#2563eb", mask={"layer": "letters", "mode": mode}
    )
    seen = layer("text", "seen", x=10, y=150, width=380, height=40, text="seen", size=24)
    return json.dumps(template(letters, box, seen, width=400, height=200))


@pytest.mark.parametrize("mode", ["alpha", "luminance"])
@pytest.mark.parametrize("extractor", list(pdf_readers.EXTRACTORS))
def test_the_text_of_a_mask_layer_is_not_read(extractor, mode):
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")
    pdf = tk.render_pdf(tk.load_template(design(mode))).data
    assert pdf_readers.read_back(pdf, extractor) == "seen"


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_a_mask_of_letters_looks_like_the_png(renderer):
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    source = tk.load_template(design("alpha"))
    pdf, png = tk.render_pdf(source).data, tk.render_image(source).data
    mean, local = pdf_readers.difference(pdf_readers.rasterise(pdf, renderer)[0], pdf_readers.flatten(png))
    assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"{renderer}: mean {mean:.2f}, local {local}"
