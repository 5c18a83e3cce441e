"""Shapes beyond boxes: polygons, SVG path data, a radius per corner, dashed and dotted
strokes and arrowheads, in PNG (pixels) and PDF (vector operators)."""

from __future__ import annotations

import io
import math
import re

import pytest
from PIL import Image

import templatekit as tk
from templatekit.errors import TemplateError
from templatekit.layout.shape import shape_items
from templatekit.model.layers import ShapeLayer
from templatekit.model.values import Color
from tests import pdf_readers
from tests.conftest import decode, layer, template
from tests.templatekit.paint.pdf.test_painter import pdf_and_png

HEART = (
    "M12 21.35l-1.45-1.32C5.4 15.36 2 12.28 2 8.5 2 5.42 4.42 3 7.5 3c1.74 0 3.41.81 4.5 2.09"
    "C13.09 3.81 14.76 3 16.5 3 19.58 3 22 5.42 22 8.5c0 3.78-3.4 6.86-8.55 11.54L12 21.35z"
)


def drawn(*layers: dict[str, object]):
    return decode(tk.render_image(template(*layers, width=200, height=200, background="#ffffff")).data).convert("RGB")


def shape(**fields: object) -> dict[str, object]:
    return layer("shape", "s", x=20, y=20, width=160, height=160, **fields)


def test_a_polygon_takes_its_corners_as_fractions_of_the_box():
    image = drawn(shape(shape="polygon", fill="#ff0000", points=[[0.5, 0], [1, 1], [0, 1]]))
    assert image.getpixel((100, 150)) == (255, 0, 0)  # inside the triangle
    assert image.getpixel((30, 40)) == (255, 255, 255)  # beside its apex
    assert image.getpixel((170, 40)) == (255, 255, 255)


def test_path_data_is_fitted_from_its_view_box_into_the_box():
    image = drawn(shape(shape="path", fill="#e11d48", path=HEART, viewBox=[0, 0, 24, 24]))
    assert image.getpixel((100, 120)) == (225, 29, 72)  # the heart's middle, scaled 160/24
    assert image.getpixel((100, 36)) == (255, 255, 255)  # the notch between its lobes
    assert image.getpixel((25, 175)) == (255, 255, 255)
    even_odd = drawn(shape(shape="path", fill="#000000", fillRule="evenodd", path="M0 0H160V160H0Z M40 40H120V120H40Z"))
    assert even_odd.getpixel((100, 100)) == (255, 255, 255) and even_odd.getpixel((30, 30)) == (0, 0, 0)


def test_each_corner_takes_its_own_radius():
    image = drawn(shape(fill="#000000", radii=[60, 0, 20, 0]))
    assert image.getpixel((24, 24)) == (255, 255, 255)  # top-left: rounded by 60
    assert image.getpixel((176, 24)) == (0, 0, 0)  # top-right: square
    assert image.getpixel((24, 176)) == (0, 0, 0)  # bottom-left: square
    assert image.getpixel((178, 178)) == (255, 255, 255)  # bottom-right: rounded by 20


def test_a_dashed_stroke_follows_its_pattern():
    image = drawn(shape(fill=None, stroke="#000000", strokeWidth=4, strokeDash=[20, 10]))
    row = [image.getpixel((x, 22))[0] < 128 for x in range(20, 181)]  # along the top edge, drawn inside
    runs: list[tuple[bool, int]] = []
    for ink in row:
        if runs and runs[-1][0] == ink:
            runs[-1] = (ink, runs[-1][1] + 1)
        else:
            runs.append((ink, 1))
    inner = runs[1:-2]  # whole dashes and gaps (the pattern runs on round the corner after the last)
    assert [length for ink, length in inner if ink] and all(19 <= n <= 22 for ink, n in inner if ink)
    assert all(8 <= n <= 11 for ink, n in inner if not ink)


def blobs(image, ink) -> list[tuple[int, float, float]]:
    """Each separate run of ``ink`` pixels (4-connected): its pixel count and centre."""
    width, height = image.size
    pixels = image.load()
    seen: set[tuple[int, int]] = set()
    found = []
    for start in ((x, y) for y in range(height) for x in range(width)):
        if start in seen or not ink(pixels[start]):
            continue
        seen.add(start)
        todo, members = [start], []
        while todo:
            x, y = todo.pop()
            members.append((x, y))
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if 0 <= near[0] < width and 0 <= near[1] < height and near not in seen and ink(pixels[near]):
                    seen.add(near)
                    todo.append(near)
        count = len(members)
        found.append((count, sum(x for x, _ in members) / count, sum(y for _, y in members) / count))
    return found


def spacings(found: list[tuple[int, float, float]], centre: tuple[float, float]) -> list[float]:
    """The distances between neighbouring blobs round ``centre``, the last to the first too."""
    ordered = sorted(found, key=lambda blob: math.atan2(blob[2] - centre[1], blob[1] - centre[0]))
    return [math.dist(a[1:], b[1:]) for a, b in zip(ordered, ordered[1:] + ordered[:1], strict=True)]


#: Corners of 135 degrees: dots either side of one are nearly as far apart straight across as along the outline.
OCTAGON = [[0.3, 0], [0.7, 0], [1, 0.3], [1, 0.7], [0.7, 1], [0.3, 1], [0, 0.7], [0, 0.3]]


def dark(pixel: tuple[int, ...]) -> bool:
    return pixel[0] < 128


@pytest.mark.parametrize(
    "fields",
    [
        {"radius": 24},  # dots round a rounded rectangle
        {"shape": "ellipse"},
        {"shape": "polygon", "points": OCTAGON},
    ],
)
def test_dots_close_evenly_round_a_closed_outline_in_png_and_pdf(fields):
    dotted = shape(fill=None, stroke="#000000", strokeWidth=8, strokeDash=[0, 27], lineCap="round", **fields)
    page, png = pdf_and_png(template(dotted, width=200, height=200, background="#ffffff"))
    for image in (png, page):
        found = blobs(image, dark)
        gaps = spacings(found, (100, 100))  # straight across: a little less round a corner
        assert min(gaps) > 0.85 * max(gaps), sorted(gaps)  # no two dots crowded where the outline closes
        sizes = [size for size, *_ in found]
        assert min(sizes) > 0.85 * max(sizes), sorted(sizes)  # none cut, none run into the next


def test_a_dashed_rectangle_has_whole_dashes_and_even_corners_in_png_and_pdf():
    dashed = layer("shape", "s", x=20, y=20, width=160, height=100, fill=None, stroke="#000000", strokeWidth=4,
                   strokeDash=[12, 8], radius=16)  # fmt: skip
    page, png = pdf_and_png(template(dashed, width=200, height=140, background="#ffffff"))
    for image in (png, page):
        found = blobs(image, dark)
        sizes = [size for size, *_ in found]
        assert min(sizes) > 0.85 * max(sizes), sorted(sizes)  # no stub: every dash whole, round corners too
        mirrored = {(round(200 - x), round(y)) for _, x, y in found}  # left and right alike, top and bottom
        assert all(any(math.dist(m, (x, y)) < 2 for m in mirrored) for _, x, y in found)
        flipped = {(round(x), round(140 - y)) for _, x, y in found}
        assert all(any(math.dist(f, (x, y)) < 2 for f in flipped) for _, x, y in found)


def test_a_closed_outline_takes_a_whole_number_of_its_dash_periods():
    layer_ = ShapeLayer(name="s", x=20, y=20, width=160, height=100, stroke=Color(0, 0, 0), stroke_width=4,
                        stroke_dash=(12, 8), radius=16, fill=None)  # fmt: skip
    (outline,) = shape_items(layer_)
    ((points, closed),) = outline.contours()
    assert closed
    length = sum(math.dist(a, b) for a, b in zip(points, [*points[1:], points[0]], strict=True))
    periods = length / sum(outline.dash)
    assert periods == pytest.approx(round(periods), abs=1e-6) and round(periods) % 4 == 0
    assert outline.dash[0] / outline.dash[1] == pytest.approx(12 / 8)  # the pattern scaled, not changed
    assert sum(outline.dash) == pytest.approx(20, rel=0.1)
    assert outline.dash_offset == pytest.approx(outline.dash[0] + outline.dash[1] / 2)  # a gap at the top's middle
    assert outline.commands[0][1:] == (100, 22)


@pytest.mark.parametrize(("pattern", "cap"), [([0, 16], "round"), ([16, 8], "butt")], ids=["dotted", "dashed"])
def test_a_sharp_rectangle_has_a_dot_on_each_corner_or_a_dash_round_it_in_png_and_pdf(pattern, cap):
    """As a CSS border: each side fitted on its own between its corners, so that every
    corner has a dot centred on it, or a dash bent round it and mitred, and both sides of
    a corner look alike (the outline used to be fitted whole, from the top's middle)."""
    frame = layer("shape", "s", x=20, y=20, width=160, height=100, fill=None, stroke="#000000", strokeWidth=8,
                  strokeDash=pattern, lineCap=cap)  # fmt: skip
    page, png = pdf_and_png(template(frame, width=200, height=140, background="#ffffff"))
    for image in (png, page):
        for corner in ((24, 24), (176, 24), (176, 116), (24, 116)):  # each corner's centre line point
            assert dark(image.getpixel(corner)), corner
        if cap == "butt":  # the outer corner's square is filled: a mitre, not a bevel
            assert all(dark(image.getpixel(point)) for point in ((21, 21), (178, 21), (178, 118), (21, 118)))
        found = blobs(image, dark)
        mirrored = {(round(200 - x), round(y)) for _, x, y in found}  # left and right alike, top and bottom
        assert all(any(math.dist(m, (x, y)) < 2 for m in mirrored) for _, x, y in found)
        sizes = sorted(size for size, *_ in found)
        if cap == "round":
            assert sizes[0] > 0.85 * sizes[-1], sizes  # no dots crowded or run together at a corner


def test_sharp_corners_are_mitred_in_png_as_in_pdf():
    """A polygon's corner sharper than a right angle reaches its mitre's point in the PNG
    as PDF draws it (PNG strokes used to bevel every corner)."""
    triangle = shape(shape="polygon", points=[[0, 0], [1, 0.5], [0, 1]], fill=None, stroke="#000000", strokeWidth=10)
    page, png = pdf_and_png(template(triangle, width=200, height=200, background="#ffffff"))
    # the tip at (180, 100); its mitre reaches 5 / sin(atan(80 / 160)) = 11.2 px beyond it
    for image in (png, page):
        assert dark(image.getpixel((189, 100))) and not dark(image.getpixel((194, 100)))


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_a_corner_of_no_length_is_mitred_in_png_as_in_every_pdf_reader(renderer):
    """A corner of radius 0 among rounded ones, and a polygon whose last point repeats its
    first, are mitred in the PNG as every reader draws the PDF. The PNG used to leave the
    outer square of such a corner white: the segment of no length there (a curve of
    radius 0, the closing line) had no direction to join by."""
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    # radius 10 is 0 on the outline, which is inset by half the stroke
    card = layer("shape", "card", x=20, y=20, width=200, height=200, fill="#bbf7d0", stroke="#000000",
                 strokeWidth=20, radii=[0, 60, 10, 0])  # fmt: skip
    square = layer("shape", "square", x=280, y=30, width=180, height=180, shape="polygon", fill=None,
                   stroke="#000000", strokeWidth=20, points=[[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]])  # fmt: skip
    source = template(card, square, width=480, height=240, background="#ffffff")
    png = pdf_readers.flatten(tk.render_image(source).data)
    (page,) = pdf_readers.rasterise(tk.render_pdf(source).data, renderer)
    corners = [(21, 21), (218, 218), (21, 218), (271, 21), (468, 21), (468, 218), (271, 218)]
    for image in (png, page):
        assert [point for point in corners if not dark(image.getpixel(point))] == []
        assert not dark(image.getpixel((218, 21)))  # the corner of radius 60 stays round
    mean, local = pdf_readers.difference(page, png)
    assert mean <= 1.0 and local <= 8, (mean, local)


def dot_starts(image: Image.Image, x: int, rows: range) -> list[int]:
    """Where each dot down column ``x`` begins."""
    inked = [y for y in rows if sum(image.getpixel((x, y))[:3]) < 480]
    return [y for n, y in enumerate(inked) if n == 0 or y - inked[n - 1] > 1]


@pytest.mark.parametrize("renderer", list(pdf_readers.RENDERERS))
def test_dots_round_a_rounded_box_are_where_the_png_has_them_in_every_pdf_reader(renderer):
    """A dotted outline with curves: readers measure a curve's length each their own way,
    and PDFium's dots drifted by up to 4 px round the corners and crowded where the
    outline closes. The PDF lays the dots where the PNG does."""
    if not pdf_readers.available(renderer):
        pytest.skip(f"{renderer} is not installed")
    box = layer("shape", "dots", x=20, y=20, width=200, height=120, fill=None, stroke="#be123c", strokeWidth=6,
                strokeDash=[0, 12], lineCap="round", radius=30)  # fmt: skip
    source = template(box, width=240, height=160, background="#ffffff")
    png = pdf_readers.flatten(tk.render_image(source).data)
    (page,) = pdf_readers.rasterise(tk.render_pdf(source).data, renderer)
    down, across = (
        dot_starts(png, 24, range(20, 140)),
        dot_starts(png.transpose(Image.Transpose.TRANSPOSE), 24, range(20, 220)),
    )
    assert len(down) == 8 and len(across) == 14
    page_down = dot_starts(page, 24, range(20, 140))
    page_across = dot_starts(page.transpose(Image.Transpose.TRANSPOSE), 24, range(20, 220))
    assert max(abs(a - b) for a, b in zip(down + across, page_down + page_across, strict=True)) <= 1


def test_dots_and_arrowheads_on_lines():
    image = drawn(
        layer("shape", "dots", x=20, y=40, width=160, height=20, shape="line", stroke="#0000ff", strokeWidth=8,
              strokeDash=[0, 20], lineCap="round"),
        layer("shape", "arrow", x=20, y=120, width=160, height=40, shape="line", stroke="#000000", strokeWidth=4,
              arrowEnd=True),
    )  # fmt: skip
    dots = [image.getpixel((x, 50))[2] > 200 and image.getpixel((x, 50))[0] < 80 for x in range(16, 185)]
    starts = sum(1 for before, now in zip(dots, dots[1:], strict=False) if now and not before)
    assert starts >= 7  # round dots every 20 px along 160 px
    shaft = sum(1 for y in range(120, 160) if image.getpixel((60, y))[0] < 128)
    head = sum(1 for y in range(120, 160) if image.getpixel((166, y))[0] < 128)  # near its base
    assert 3 <= shaft <= 6 and head > 2 * shaft  # the head is wider than the shaft
    assert image.getpixel((177, 140))[0] < 128 and image.getpixel((182, 140))[0] > 240  # its point ends there


def test_shapes_are_vector_in_pdf_with_dashes_as_the_png_lays_them():
    pypdf = pytest.importorskip("pypdf")
    pdf = tk.render_pdf(
        template(
            shape(shape="path", fill="#e11d48", path=HEART, viewBox=[0, 0, 24, 24]),
            layer("shape", "frame", x=10, y=10, width=180, height=180, fill=None, stroke="#000", strokeWidth=2,
                  strokeDash=[6, 3], radius=12),
            layer("shape", "triangle", x=40, y=40, width=120, height=120, fill=None, stroke="#000", strokeWidth=2,
                  strokeDash=[6, 3], shape="polygon", points=[[0.5, 0], [1, 1], [0, 1]]),
            width=200,
            height=200,
        )
    ).data  # fmt: skip
    page = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]
    content = page.get_contents().get_data().decode("latin-1")
    dash_patterns = re.findall(r"\[[\d. ]+\] [\d.]+ d", content)
    assert len(dash_patterns) == 1  # the triangle's, PDF's own (fitted round it); the rounded frame's are lines
    assert content.count(" m ") > 60  # the rounded frame's dashes, each a line of its own
    assert any(line.endswith(" c") for line in content.replace(" c ", " c\n").splitlines())  # the heart's curves
    assert not list(page.images)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"shape": "polygon", "points": [[0, 0], [1, 1]]}, r"points: a polygon needs at least 3 points \(got 2\)"),
        ({"shape": "path"}, r"path: a path shape needs SVG path data"),
        ({"shape": "path", "path": "M 10 x"}, r"path: not SVG path data"),
        ({"strokeDash": [4, -1]}, r"strokeDash: lengths must be 0 or more"),
        ({"radii": [1, 2, -3, 4]}, r"radii: corners cannot be negative"),
        ({"shape": "path", "path": "M0 0L1 1", "viewBox": [0, 0, 0, 10]}, r"viewBox: width and height"),
    ],
)
def test_shape_mistakes_are_named(fields, message):
    with pytest.raises(TemplateError, match=r"layers\[0\]\." + message):
        tk.load_template(template(shape(**fields)))


def test_a_radial_gradient_runs_from_the_centre_to_the_corners_in_png_and_pdf():
    fill = {"from": "#ffffff", "to": "#000000", "kind": "radial"}
    image = drawn(shape(fill=fill))
    centre, edge, corner = image.getpixel((100, 100)), image.getpixel((100, 21)), image.getpixel((21, 21))
    assert centre[0] > 250 and corner[0] < 12 and 60 < edge[0] < 100  # an edge's middle: 1/√2 of the way
    pypdf = pytest.importorskip("pypdf")
    pdf = tk.render_pdf(template(shape(fill=fill), width=200, height=200)).data
    shadings = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]["/Resources"]["/Shading"]
    assert [shadings[name].get_object()["/ShadingType"] for name in shadings] == [3]


@pytest.mark.parametrize("pattern", [[1e-9, 1e-9], [0.2, 0.2], [0.3]])
def test_a_dash_pattern_finer_than_a_pixel_is_refused_in_a_template_and_a_modification(pattern):
    """Such dashes look like a solid line and would number millions on a large outline."""
    box = {"type": "shape", "name": "box", "x": 10, "y": 10, "width": 100, "height": 100, "stroke": "#000000"}
    message = (
        f"strokeDash: the pattern repeats every {sum(pattern) * (2 if len(pattern) % 2 else 1):g} px: at least 1 px"
    )
    with pytest.raises(tk.TemplateError, match=re.escape(message)):
        tk.load_template(template({**box, "strokeDash": pattern}))
    with pytest.raises(tk.ModificationError, match=re.escape(message)):
        tk.render_image(template({**box, "strokeDash": [4, 2]}), {"box": {"strokeDash": pattern}})
