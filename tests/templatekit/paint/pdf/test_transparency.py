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


Colour = tuple[int, int, int]


def assert_same_colours(
    page: Image.Image, png: Image.Image, points: dict[str, tuple[int, int]], **more: tuple[Colour, Colour]
) -> None:
    """The page has the PNG's colour at each point (and each of ``more`` is a pair of
    colours, the page's and the PNG's, that must agree); all that differ are named."""
    found = {label: (page.getpixel(point), png.getpixel(point)) for label, point in points.items()} | more
    wrong = {
        label: (pdf, drawn)
        for label, (pdf, drawn) in found.items()
        if any(abs(a - b) > TOLERANCE for a, b in zip(pdf, drawn, strict=True))
    }
    assert not wrong, "PDF, PNG: " + ", ".join(f"{label} {pdf} {drawn}" for label, (pdf, drawn) in wrong.items())


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


# ------------------------------------------------------------------ layer opacity

FADED = template(
    layer(
        "shape", "box", x=20, y=20, width=200, height=200, fill="#facc15",
        stroke="#1d4ed8", strokeWidth=20, opacity=0.5,
    ),
    layer(
        "text", "tight", x=240, y=40, width=440, height=130, text="OVERLAP", size=96, weight=900,
        letterSpacing=-22, color="#1d4ed8", opacity=0.5,
    ),
    layer(
        "text", "outlined", x=240, y=200, width=200, height=130, text="I", size=120, weight=900,
        color="#facc15", outline={"width": 8, "color": "#1d4ed8"}, opacity=0.5,
    ),
    width=700, height=360, background="#ffffff",
)  # fmt: skip
TIGHT = (240, 40, 680, 170)


def darkest(image: Image.Image, box: tuple[int, int, int, int]) -> Colour:
    """The darkest colour in the box: where glyphs faded one by one overlap, if they do."""
    return min(image.crop(box).get_flattened_data(), key=sum)


@pytest.mark.parametrize("renderer", RENDERERS)
def test_a_faded_layer_of_one_item_that_paints_twice_is_faded_as_a_whole(renderer):
    """A box's stroke over its fill, letters over their outline and letters that overlap
    each other, in a layer at 50 %: the PNG fades the layer as one picture, so the
    stroke is half blue over white, not half blue over half yellow, and where two
    letters overlap they are no darker than one."""
    page, png = page_and_png(FADED, renderer)
    assert png.getpixel((28, 120)) != png.getpixel((120, 120))  # the stroke, then the fill
    points = {
        "box's stroke": (28, 120),
        "box's fill": (120, 120),
        "letter over its outline": (249, 270),
        "outline": (240, 270),
    }
    assert_same_colours(page, png, points, where_letters_overlap=(darkest(page, TIGHT), darkest(png, TIGHT)))


SEE_THROUGH_TEXT = template(
    layer(
        "text", "tight", x=20, y=20, width=440, height=130, text="OVERLAP", size=96, weight=900,
        letterSpacing=-22, color="#1d4ed880",
    ),
    layer("text", "joined", x=20, y=170, width=440, height=100, text="مرحبا بالعالم", size=64, color="#1d4ed880"),
    width=480, height=290, background="#ffffff",
)  # fmt: skip


@pytest.mark.parametrize("renderer", RENDERERS)
def test_see_through_letters_that_touch_are_no_darker_where_they_meet(renderer):
    """A colour at half alpha on letters that overlap, and on Arabic's joined letters:
    the PNG fills the run's letters as one shape, so where two meet is as light as one."""
    page, png = page_and_png(SEE_THROUGH_TEXT, renderer)
    tight, joined = (20, 20, 460, 150), (20, 170, 460, 270)
    assert_same_colours(
        page,
        png,
        {},
        where_letters_overlap=(darkest(page, tight), darkest(png, tight)),
        where_letters_join=(darkest(page, joined), darkest(png, joined)),
    )


def test_a_faded_layer_of_one_fill_stays_a_plain_fill():
    """Fading a single fill is exact without a transparency group, and smaller."""
    veil = template(layer("shape", "veil", x=20, y=20, width=200, height=100, fill="#1d4ed8", opacity=0.4))
    assert b"/Form" not in pdf_readers.pdf_objects(tk.render_pdf(veil).data)


def test_see_through_letters_apart_stay_plain_text():
    """Only letters whose ink boxes meet are faded as one: most text is drawn as it was,
    a form each would make such a PDF seven times as large."""
    apart = template(layer("text", "note", x=20, y=20, width=300, height=40, text="Item 1 value", color="#11223380"))
    assert b"/Form" not in pdf_readers.pdf_objects(tk.render_pdf(apart).data)
    assert b"/Form" in pdf_readers.pdf_objects(tk.render_pdf(SEE_THROUGH_TEXT).data)


# ------------------------------------------------------------------ inverted masks

RED = "#ff0000"
INVERTED = template(
    layer("shape", "holed", x=20, y=20, width=100, height=100, fill=RED, mask={"shape": "ellipse", "invert": True}),
    layer("shape", "veil", x=140, y=20, width=100, height=100, fill="#00000040"),
    layer("shape", "faded", x=140, y=20, width=100, height=100, fill=RED, mask={"layer": "veil", "invert": True}),
    layer("shape", "grey", x=260, y=20, width=50, height=100, fill="#404040"),
    layer(
        "shape", "dimmed", x=260, y=20, width=100, height=100, fill=RED,
        mask={"layer": "grey", "mode": "luminance", "invert": True},
    ),
    layer("shape", "light", x=20, y=140, width=50, height=100, fill="#ffffff40"),
    layer(
        "shape", "halved", x=20, y=140, width=100, height=100, fill=RED,
        mask={"layer": "light", "mode": "luminance", "invert": True},
    ),
    width=400, height=260, background="#ffffff",
)  # fmt: skip


@pytest.mark.parametrize("renderer", [*RENDERERS, *pdf_readers.OLDER_RENDERERS])
def test_an_inverted_mask_shows_what_the_mask_hides_in_every_reader(renderer):
    """Alpha and luminance masks inverted, of a shape and of other layers, opaque and
    see-through: the layer shows 1 minus the mask. The inversion is drawn in the mask
    itself: MuPDF 1.21 (mutool) ignored the transfer function that inverted it and showed
    the hole filled and the rest empty."""
    page, png = page_and_png(INVERTED, renderer)
    assert png.getpixel((70, 70)) == (255, 255, 255) and png.getpixel((24, 24)) == (255, 0, 0)
    points = {
        "hole": (70, 70),
        "around the hole": (24, 24),
        "under a quarter veil": (190, 70),
        "under dark grey": (285, 70),
        "beside dark grey": (335, 70),
        "under faint white": (45, 190),
        "beside faint white": (95, 190),
    }
    assert_same_colours(page, png, points)


def test_an_inverted_mask_needs_no_transfer_function():
    assert b"/TR" not in pdf_readers.pdf_objects(tk.render_pdf(INVERTED).data)
