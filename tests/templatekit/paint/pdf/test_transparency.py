"""Alpha in PDF as four readers draw it: each colour keeps its own alpha. Every test
rasterises the PDF with poppler, MuPDF, Ghostscript and PDFium and compares the colour
at a few points, inside what is drawn there, with the PNG's at the same place."""

from __future__ import annotations

from typing import Any

import pytest
from PIL import Image

import templatekit as tk
from tests import pdf_readers
from tests.conftest import layer, template

RENDERERS = list(pdf_readers.RENDERERS)
TOLERANCE = 4  # levels out of 255: the readers round colours and alpha a little differently


def page_and_png(source: dict[str, Any], renderer: str) -> tuple[Image.Image, Image.Image]:
    """The first page as ``renderer`` draws it, and the PNG flattened onto white."""
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    (page, *_) = pdf_readers.rasterise(tk.render_pdf(source).data, renderer)
    return page, pdf_readers.flatten(tk.render_image(source).data)


def assert_same_colours(page: Image.Image, png: Image.Image, points: dict[str, tuple[int, int]]) -> None:
    wrong = {
        label: (page.getpixel(point), png.getpixel(point))
        for label, point in points.items()
        if any(abs(a - b) > TOLERANCE for a, b in zip(page.getpixel(point), png.getpixel(point), strict=True))
    }
    assert not wrong, "PDF, PNG: " + ", ".join(f"{label} {pdf} {png}" for label, (pdf, png) in wrong.items())


# ------------------------------------------------------------------ fills and strokes

OUTLINED = template(
    layer(
        "shape", "triangle", x=20, y=20, width=180, height=180, shape="polygon",
        points=[[0.5, 0], [1, 1], [0, 1]], fill="#2563eb40", stroke="#000000", strokeWidth=10,
    ),
    layer(
        "shape", "corners", x=220, y=20, width=180, height=180, fill="#16a34a40",
        stroke="#000000", strokeWidth=10, radii=[0, 30, 0, 30],
    ),
    layer("shape", "faint", x=20, y=20, width=60, height=40, fill="#dc2626", stroke="#00000040", strokeWidth=8),
    width=420, height=220, background="#ffffff",
)  # fmt: skip


@pytest.mark.parametrize("renderer", RENDERERS)
def test_an_opaque_outline_stays_opaque_over_a_see_through_fill(renderer):
    """A polygon and a box with corners of their own are paths, filled then stroked: the
    stroke took the fill's alpha (black came out 191 grey over white). A faint stroke
    over an opaque fill keeps its own alpha too."""
    page, png = page_and_png(OUTLINED, renderer)
    assert png.getpixel((110, 197)) == (0, 0, 0)  # the point is inside the stroke
    points = {
        "triangle's stroke": (110, 197),
        "triangle's fill": (110, 150),
        "box's stroke": (224, 110),
        "box's fill": (310, 110),
        "faint stroke": (50, 22),
        "opaque fill": (50, 40),
    }
    assert_same_colours(page, png, points)


@pytest.mark.parametrize("renderer", RENDERERS)
def test_a_see_through_page_background_does_not_fade_the_layers(renderer):
    veiled = template(
        layer("shape", "box", x=20, y=20, width=80, height=60, fill="#0000ff"),
        width=200, height=100, background="#ff000080",
    )  # fmt: skip
    page, png = page_and_png(veiled, renderer)
    assert_same_colours(page, png, {"box": (60, 50), "background": (150, 90)})
