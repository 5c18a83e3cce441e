"""Colour emoji whose layers leave thin gaps between them (the family emoji's white
outlines round the child) look like the PNG in every renderer. Ghostscript gives a
clip every pixel it touches and does not smooth its edge: a colour laid over everything
a glyph clip lets through filled those gaps in, so each colour fills its glyph's path."""

from __future__ import annotations

import json

import pytest

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

# the limits of test_readers.py: the corpus measures LOCAL 4 to 32 in the four renderers
MEAN_LIMIT = 5.0
LOCAL_LIMIT = 40


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
@pytest.mark.parametrize("emoji", ["👩‍👩‍👧", "👨‍👩‍👧‍👦"])
def test_emoji_with_thin_gaps_look_like_the_png(renderer, emoji):
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    design = json.dumps(
        template(
            layer("text", "e", x=10, y=10, width=180, height=50, text=emoji, size=28),
            width=200,
            height=70,
            background="#ffffff",
        )
    )
    pdf, png = tk.render_pdf(tk.load_template(design)).data, tk.render_image(tk.load_template(design)).data
    mean, local = pdf_readers.difference(pdf_readers.rasterise(pdf, renderer)[0], pdf_readers.flatten(png))
    assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"{renderer}: mean {mean:.2f}, local {local}"
