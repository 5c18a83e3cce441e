"""Text inside SVG images: drawn in the bundled Inter at its weight and style, turned by
its transforms, alike in the PNG (resvg draws it) and the PDF (glyph runs placed over
svglib's reading of the SVG), and selectable in the PDF. Opacities and dashes alike in
both; what the PDF cannot draw as vectors exactly keeps the bitmap."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

import templatekit as tk
from templatekit.model.values import Color
from templatekit.render import prepare
from templatekit.scene import GlyphRun, Group, Image, Item
from tests import pdf_readers
from tests.conftest import decode, layer, needs_chrome, template

Affine = tuple[float, float, float, float, float, float]
IDENTITY: Affine = (1.0, 0.0, 0.0, 1.0, 0.0, 0.0)
# The PDF rasterised against the PNG, as tests/templatekit/paint/pdf/test_painter.py measures pages.
MEAN_LIMIT = 5.0
LOCAL_LIMIT = 40

TURNED = """<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240" viewBox="0 0 400 240"
 font-family="Inter">
<text x="20" y="40" font-size="28" font-weight="700">Weight 700</text>
<text x="20" y="80" font-size="28" style="font-weight:600">Style 600</text>
<text x="20" y="120" font-size="28" font-weight="300" font-style="italic">Light italic</text>
<text x="200" y="40" font-size="24" transform="rotate(60 200 40)">Rotated</text>
<g transform="translate(300 150) rotate(-30)"><text font-size="20" font-weight="900">Nested</text></g>
<text x="20" y="200" font-size="20" font-weight="bold" transform="matrix(0.866 -0.5 0.5 0.866 0 0)">Matrix</text>
<text x="250" y="100" font-size="11" text-anchor="end" transform="scale(1.5) rotate(-90 250 100)">Scaled</text>
</svg>"""


def svg_template(svg: str, width: int = 400, height: int = 240) -> tuple[dict, tk.MemoryAssetLoader]:
    spec = layer("image", "drawing", width=width, height=height, src="drawing.svg")
    source = template(spec, width=width, height=height, background="#ffffff")
    return source, tk.MemoryAssetLoader({"drawing.svg": svg.encode()})


def vector_of(svg: str) -> Group | None:
    source, assets = svg_template(svg)
    (item,) = prepare(source, assets=assets, vector=True).scene.items
    while isinstance(item, Group):
        (item,) = item.items
    assert isinstance(item, Image)
    return item.vector


def _turned(outer: Affine, group: Group) -> Affine:
    """``outer`` followed inwards by the group's transform."""
    t = group.transform
    return _compose(outer, (t.a, t.b, t.c, t.d, t.e, t.f))


def _compose(m: Affine, n: Affine) -> Affine:
    a, b, c, d, e, f = m
    p, q, r, s, t, u = n
    return (a * p + c * q, b * p + d * q, a * r + c * s, b * r + d * s, a * t + c * u + e, b * t + d * u + f)


def placed_runs(items: tuple[Item, ...], m: Affine = IDENTITY) -> Iterator[tuple[GlyphRun, Affine]]:
    """Each glyph run with the affine from its coordinates to the page."""
    for item in items:
        if isinstance(item, Group):
            yield from placed_runs(item.items, _turned(m, item))
        elif isinstance(item, GlyphRun):
            yield item, m


def lines(vector: Group) -> dict[str, tuple[str, float, float, tuple[float, float]]]:
    """Each line of text: its font file, size on the page, direction (degrees clockwise
    from the x axis) and the page point where its baseline starts."""
    found: dict[str, list[tuple[GlyphRun, Affine]]] = {}
    for run, m in placed_runs(vector.items):
        found.setdefault(run.text, []).append((run, m))
    described = {}
    for text, runs in found.items():
        run, (a, b, c, d, e, f) = runs[0]
        start = (a * run.x + c * run.y + e, b * run.x + d * run.y + f)
        described[text] = (Path(run.font.path).stem, run.size * math.hypot(a, b), math.degrees(math.atan2(b, a)), start)
    return described


def test_numeric_and_keyword_weights_and_italics_pick_the_nearest_inter_face():
    rows = [
        ('font-weight="100"', "Inter-Thin"),
        ('font-weight="200"', "Inter-ExtraLight"),
        ('font-weight="300"', "Inter-Light"),
        ('font-weight="normal"', "Inter-Regular"),
        ('font-weight="500"', "Inter-Medium"),
        ('style="font-weight:600"', "Inter-SemiBold"),
        ('font-weight="bold"', "Inter-Bold"),
        ('style="font-weight: 800"', "Inter-ExtraBold"),
        ('font-weight="900"', "Inter-Black"),
        ('font-weight="650"', "Inter-Bold"),
        ('font-style="italic"', "Inter-Italic"),
        ('style="font-style:italic;font-weight:600"', "Inter-SemiBoldItalic"),
        ('font-weight="700" font-style="oblique"', "Inter-BoldItalic"),
    ]
    texts = "".join(f'<text x="5" y="{20 + 20 * i}" {style}>row{i}</text>' for i, (style, _) in enumerate(rows))
    inherited = '<g font-weight="800" font-style="italic"><text x="5" y="300">inherited</text></g>'
    tspan = '<text x="5" y="320">plain <tspan font-weight="900">black</tspan></text>'
    svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="340">{texts}{inherited}{tspan}</svg>'
    vector = vector_of(svg)
    assert vector is not None
    found = {text.strip(): font for text, (font, *_) in lines(vector).items()}
    assert {f"row{i}": font for i, (_, font) in enumerate(rows)} == {k: v for k, v in found.items() if "row" in k}
    assert found["inherited"] == "Inter-ExtraBoldItalic"
    assert (found["plain"], found["black"]) == ("Inter-Regular", "Inter-Black")


def test_text_keeps_its_transforms():
    vector = vector_of(TURNED)
    assert vector is not None
    found = lines(vector)
    rotated, nested, matrix, scaled = found["Rotated"], found["Nested"], found["Matrix"], found["Scaled"]
    assert rotated[2] == pytest.approx(60) and rotated[3] == pytest.approx((200, 40), abs=0.01)
    assert nested[0] == "Inter-Black" and nested[2] == pytest.approx(-30) and nested[3] == pytest.approx((300, 150))
    corner = (0.866 * 20 + 0.5 * 200, -0.5 * 20 + 0.866 * 200)
    assert matrix[0] == "Inter-Bold" and matrix[2] == pytest.approx(-30, abs=0.01)
    assert matrix[3] == pytest.approx(corner, abs=0.01)
    # anchored at its end: the line runs up from its start to (375, 150), scaled 1.5 times
    assert scaled[1] == pytest.approx(16.5) and scaled[2] == pytest.approx(-90)
    assert scaled[3][0] == pytest.approx(375, abs=0.01) and scaled[3][1] > 150 + 2 * 16.5
    assert found["Weight 700"][:3] == ("Inter-Bold", pytest.approx(28), pytest.approx(0))


@pytest.mark.parametrize("anchor", ["middle", "end"])
def test_a_line_of_several_styles_is_anchored_as_one(anchor):
    """svglib makes a String of each piece and anchors each alone; the line is anchored
    whole, its pieces one after another at their own widths, as resvg does."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240">'
        f'<text x="200" y="50" font-size="24" text-anchor="{anchor}">Thin <tspan font-weight="900">black</tspan>'
        ' <tspan font-style="italic" fill="#c00">red</tspan> end</text></svg>'
    )
    vector = vector_of(svg)
    assert vector is not None
    runs = [run for run, _ in placed_runs(vector.items)]
    assert "".join(run.text for run in runs) == "Thin black red end"
    for before, after in zip(runs, runs[1:], strict=False):
        assert after.x == pytest.approx(before.x + before.width)
    share = {"middle": 0.5, "end": 1.0}[anchor]
    assert runs[0].x + share * (runs[-1].x + runs[-1].width - runs[0].x) == pytest.approx(200)
    fonts = [Path(run.font.path).stem for run in runs if run.text.strip()]
    assert fonts == ["Inter-Regular", "Inter-Black", "Inter-Italic", "Inter-Regular"]


def test_the_pieces_of_a_line_anchored_at_its_start_keep_the_spaces_between_them():
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240">'
        '<text x="20" y="50" font-size="24">Thin <tspan fill="#c00">red</tspan></text></svg>'
    )
    vector = vector_of(svg)
    assert vector is not None
    thin, red = (run for run, _ in placed_runs(vector.items))
    space = red.x - (thin.x + thin.width)
    assert (thin.text.strip(), red.text) == ("Thin", "red") and space == pytest.approx(0.28 * 24, rel=0.1)


def test_skewed_or_mirrored_text_leaves_the_svg_to_its_bitmap():
    """Glyph runs turn and scale but do not shear: such an SVG is embedded as pixels."""
    for transform in ("skewX(20)", "scale(-1 1)", "scale(2 1)"):
        svg = (
            '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240">'
            f'<text x="100" y="100" transform="{transform}">Slanted</text></svg>'
        )
        assert vector_of(svg) is None, transform


@pytest.mark.parametrize("family", ['font-family="Georgia, serif"', 'font-family="monospace"', ""])
def test_the_png_draws_text_of_any_family_in_inter(family):
    """Only Inter is given to resvg: every other family falls back to it, as the PDF's
    text does."""

    def drawn(attribute: str) -> bytes:
        text = f'<text x="10" y="50" {attribute}>Any</text>'
        svg = f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240">{text}</svg>'
        source, assets = svg_template(svg)
        return decode(tk.render_image(source, assets=assets).data).tobytes()

    assert drawn(family) == drawn('font-family="Inter"')


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_the_pdf_looks_like_the_png(renderer):
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    source, assets = svg_template(TURNED)
    pdf = tk.render_pdf(source, assets=assets).data
    (page,) = pdf_readers.rasterise(pdf, renderer)
    mean, local = pdf_readers.difference(page, pdf_readers.flatten(tk.render_image(source, assets=assets).data))
    assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"mean {mean:.2f}, local {local}"


@pytest.mark.parametrize("extractor", list(pdf_readers.EXTRACTORS))
def test_the_pdf_text_stays_selectable(extractor):
    """Every line is text. pdftotext and pdfminer read characters into horizontal lines,
    so a line at another angle comes out in pieces (as a rotated text layer's does)."""
    if not pdf_readers.available(extractor):
        pytest.skip(f"{extractor} is not installed")
    source, assets = svg_template(TURNED)
    text = pdf_readers.extract(tk.render_pdf(source, assets=assets).data, extractor)
    for line in ("Weight 700", "Style 600", "Light italic"):
        assert line in text, (line, text)
    for word in ("Rotated", "Nested", "Matrix", "Scaled"):
        assert Counter(word) <= Counter(text) if extractor in ("pdftotext", "pdfminer") else word in text, (word, text)


MONTHS = ["January", "February", "March", "April", "May", "June"]
TILTED = {
    "data": [{"type": "bar", "x": MONTHS, "y": [3, 5, 2, 6, 4, 7]}],
    "layout": {
        "title": {"text": "<b>Monthly</b> sales", "font": {"weight": 700}},
        "xaxis": {"tickangle": -45, "title": {"text": "Month", "font": {"weight": 700}}},
        "yaxis": {"title": {"text": "<b>Units</b>"}},
    },
}


def chart_source() -> dict:
    spec = layer("chart", "sales", width=360, height=240, figure=TILTED)
    return template(spec, width=360, height=240, background="#ffffff")


@pytest.mark.slow  # Plotly draws the figure in Chromium
@needs_chrome
def test_a_plotly_figure_in_a_pdf_keeps_tilted_labels_and_bold_titles():
    (group,) = prepare(chart_source(), vector=True).scene.items
    (chart,) = group.items
    assert isinstance(chart, Image) and chart.vector is not None
    found = lines(chart.vector)
    for month in MONTHS:
        assert found[month][2] == pytest.approx(-45), month
    assert found["Units"][2] == pytest.approx(-90)
    assert [found[text][0] for text in ("Monthly sales", "Month", "Units")] == ["Inter-Bold"] * 3
    assert found["January"][0] == "Inter-Regular"


@pytest.mark.slow  # Plotly draws the figure in Chromium
@needs_chrome
@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_a_plotly_figure_in_a_pdf_looks_like_its_png(renderer):
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    (page,) = pdf_readers.rasterise(tk.render_pdf(chart_source()).data, renderer)
    mean, local = pdf_readers.difference(page, pdf_readers.flatten(tk.render_image(chart_source()).data))
    assert mean <= MEAN_LIMIT and local <= LOCAL_LIMIT, f"mean {mean:.2f}, local {local}"


# Each cell 100 px square: (label, its SVG, a point in it where the PNG and the PDF are compared).
PAINTED = [
    ("fill-opacity", '<rect x="10" y="10" width="80" height="80" fill="#2563eb" fill-opacity="0.5"/>', (50, 50)),
    ("rgba fill", '<rect x="110" y="10" width="80" height="80" fill="rgba(37,99,235,0.5)"/>', (150, 50)),
    ("styled", '<rect x="210" y="10" width="80" height="80" style="fill:#2563eb;fill-opacity:.5"/>', (250, 50)),
    ("opacity", '<rect x="310" y="10" width="80" height="80" fill="#2563eb" opacity="0.5"/>', (350, 50)),
    (
        "group opacity",  # faded as a whole: where they overlap, the red one over the blue one, faded
        '<g opacity="0.5"><rect x="410" y="10" width="50" height="50" fill="#2563eb"/>'
        '<rect x="440" y="40" width="50" height="50" fill="#dc2626"/></g>',
        (450, 50),
    ),
    ("opacity by class", '<rect class="faded" x="510" y="10" width="80" height="80" fill="#2563eb"/>', (550, 50)),
    (
        "rgba stroke",
        '<rect x="620" y="20" width="60" height="60" fill="none" stroke="rgba(0,0,0,0.5)" stroke-width="16"/>',
        (614, 50),
    ),
    ("inherited", '<g fill-opacity="0.5"><rect x="710" y="10" width="80" height="80" fill="#2563eb"/></g>', (750, 50)),
    (
        "dashes",
        '<line x1="10" y1="150" x2="90" y2="150" stroke="#000" stroke-width="10" stroke-dasharray="10 10"/>',
        (25, 150),  # a gap
    ),
    (
        "dash offset",
        '<line x1="110" y1="150" x2="190" y2="150" stroke="#000" stroke-width="10" '
        'stroke-dasharray="10 10" stroke-dashoffset="5"/>',
        (118, 150),  # a gap; a dash without the offset
    ),
    (
        "text fill-opacity",
        '<text x="215" y="185" font-size="90" font-weight="900" fill="#dc2626" fill-opacity="0.5">I</text>',
        (228, 150),
    ),
    (
        "gradient fill-opacity",
        '<linearGradient id="g" x1="0" y1="0" x2="1" y2="0"><stop offset="0" stop-color="#0ea5e9"/>'
        '<stop offset="1" stop-color="#f43f5e"/></linearGradient>'
        '<rect x="310" y="110" width="80" height="80" fill="url(#g)" fill-opacity="0.5"/>',
        (350, 150),
    ),
]
PAINTED_SVG = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="800" height="200" viewBox="0 0 800 200">'
    "<style>.faded { opacity: 0.5 }</style>" + "".join(cell for _, cell, _ in PAINTED) + "</svg>"
)
#: A corner resvg bevels (beyond SVG's mitre limit, 4) and PDF would mitre (within its 10).
SPIKE = (
    '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100" viewBox="0 0 100 100">'
    '<polyline points="40,90 50,10 60,90" fill="none" stroke="#000" stroke-width="4"/></svg>'
)


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_opacities_and_dashes_look_in_the_pdf_as_in_the_png(renderer):
    """fill-opacity and stroke-opacity count once (they were squared, or dropped on text),
    opacity fades an element or a group as a whole (it was left out), dashes and their
    offset are kept (the stroke was solid), all as vectors; a corner that resvg bevels
    and a PDF would mitre leaves its SVG to the bitmap (the PDF had a spike there)."""
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    painted = layer("image", "painted", width=800, height=200, src="painted.svg")
    spike = layer("image", "spike", x=0, y=200, width=100, height=100, src="spike.svg")
    source = template(painted, spike, width=800, height=300, background="#ffffff")
    assets = tk.MemoryAssetLoader({"painted.svg": PAINTED_SVG.encode(), "spike.svg": SPIKE.encode()})
    png = pdf_readers.flatten(tk.render_image(source, assets=assets).data)
    (page,) = pdf_readers.rasterise(tk.render_pdf(source, assets=assets).data, renderer)
    points = {label: point for label, _, point in PAINTED} | {"above the spike's tip": (50, 203)}
    apart = {}
    for label, point in points.items():
        want, got = png.getpixel(point), page.getpixel(point)
        if max(abs(a - b) for a, b in zip(want, got, strict=True)) > 6:
            apart[label] = (want, got)
    assert apart == {}
    assert png.getpixel(points["fill-opacity"]) == pytest.approx((146, 177, 245), abs=2)  # half #2563eb on white
    assert vector_of(PAINTED_SVG) is not None and vector_of(SPIKE) is None  # vectors, and the bitmap


def test_the_paths_take_each_opacity_once():
    """A fill at half opacity with an opaque stroke: each colour at its own alpha."""
    svg = (
        '<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240" opacity="0.5">'
        '<rect x="10" y="10" width="80" height="80" style="fill:#2563eb;fill-opacity:.5;stroke:#000;stroke-width:4"/>'
        '<line x1="10" y1="150" x2="90" y2="150" stroke="#000" stroke-width="10" stroke-dasharray="10 5 3" '
        'stroke-dashoffset="-4"/></svg>'
    )
    vector = vector_of(svg)
    assert vector is not None
    (faded,) = vector.items  # the opacity of the <svg> itself
    assert isinstance(faded, Group) and faded.opacity == 0.5
    square, line = faded.items
    assert (square.fill, square.stroke) == (Color(37, 99, 235, 128), Color(0, 0, 0, 255))
    assert line.dash == (10, 5, 3) and line.dash_offset == 36 - 4  # within the period the odd pattern repeats to


@pytest.mark.parametrize(
    "body",
    [
        '<filter id="f"><feGaussianBlur stdDeviation="3"/></filter><rect width="80" height="80" filter="url(#f)"/>',
        '<mask id="m"><rect width="40" height="80" fill="#fff"/></mask><rect width="80" height="80" mask="url(#m)"/>',
        '<pattern id="p" width="10" height="10" patternUnits="userSpaceOnUse"><rect width="5" height="5"/></pattern>'
        '<rect width="80" height="80" fill="url(#p)"/>',
        '<linearGradient id="g"><stop offset="0" stop-color="#0ea5e9"/><stop offset="1" stop-color="#f43f5e"/>'
        '</linearGradient><rect x="10" y="10" width="60" height="60" fill="none" stroke="url(#g)" stroke-width="8"/>',
        '<text x="10" y="50" font-size="30" fill="#dc2626" stroke="#000">Outlined</text>',
        '<text x="10" y="50" font-size="30" letter-spacing="4">Spaced</text>',
        '<text x="10" y="50" font-size="30" text-decoration="underline">Underlined</text>',
        '<marker id="k" markerWidth="4" markerHeight="4"><circle cx="2" cy="2" r="2"/></marker>'
        '<line x1="10" y1="10" x2="90" y2="10" stroke="#000" marker-end="url(#k)"/>',
        '<rect width="80" height="80" fill="#2563eb" style="mix-blend-mode: multiply"/>',
        '<polyline points="10,90 50,10 90,90" fill="none" stroke="#000" stroke-width="4" stroke-miterlimit="1"/>',
    ],
    ids=[
        "filter",
        "mask",
        "pattern",
        "gradient-stroke",
        "outlined-text",
        "letter-spacing",
        "underline",
        "marker",
        "blend",
        "miterlimit",
    ],  # fmt: skip
)
def test_what_the_pdf_cannot_draw_as_svg_draws_it_keeps_the_bitmap(body):
    """svglib leaves these out or draws them otherwise; the PDF embeds the bitmap instead
    (it used to draw the SVG without them)."""
    assert vector_of(f'<svg xmlns="http://www.w3.org/2000/svg" width="400" height="240">{body}</svg>') is None
