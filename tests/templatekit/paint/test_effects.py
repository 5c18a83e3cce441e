"""Layer effects on every layer kind: drop shadows, blur and the CSS blend modes, in PNG
(pixels against the formulas of CSS) and in PDF (blend modes native, shadows and blur as
pictures at print resolution under or instead of the vector drawing)."""

from __future__ import annotations

import io

import pytest

import templatekit as tk
from templatekit.cache import cache_limit
from templatekit.errors import LimitError, TemplateError
from templatekit.model.values import Color
from templatekit.scene import Clip, Ellipse, Rect
from tests.conftest import decode, layer, template
from tests.pdf_readers import pdf_objects
from tests.templatekit.paint.pdf.test_painter import pdf_and_png


def square(**fields: object) -> dict[str, object]:
    return layer("shape", "box", x=40, y=40, width=60, height=60, fill="#000000", **fields)


def render(*layers: dict[str, object], background: str = "#ffffff") -> list[list[tuple[int, int, int]]]:
    image = decode(tk.render_image(template(*layers, width=200, height=200, background=background)).data)
    rgb = image.convert("RGB")
    return [[rgb.getpixel((x, y)) for x in range(200)] for y in range(200)]


def grey(pixel: tuple[int, int, int]) -> int:
    return pixel[0]


def test_a_hard_shadow_is_the_shape_moved_in_its_colour():
    pixels = render(square(shadows=[{"x": 20, "y": 10, "blur": 0, "color": "#ff0000"}]))
    assert pixels[70][70] == (0, 0, 0)  # the square itself is on top
    assert pixels[75][110] == (255, 0, 0)  # right of it: the shadow, 20 px over
    assert pixels[105][70] == (255, 0, 0)  # under it: 10 px down
    assert pixels[45][105] == (255, 255, 255)  # above the shadow's top edge (y 50)
    assert pixels[112][70] == (255, 255, 255)  # below it


def test_blur_softens_a_shadow_and_spread_grows_it():
    soft = render(square(shadows=[{"x": 0, "y": 0, "blur": 20, "color": "#000000"}]))
    edge = [grey(soft[70][x]) for x in range(100, 125)]  # from the square's edge outwards
    assert edge == sorted(edge) and edge[0] < 160 and edge[-1] > 240  # dark to light, gradually
    assert len(set(edge)) > 10
    grown = render(square(shadows=[{"x": 0, "y": 0, "blur": 0, "spread": 8, "color": "#0000ff"}]))
    assert grown[70][105] == (0, 0, 255) and grown[70][110] == (255, 255, 255)
    assert grown[35][70] == (0, 0, 255)  # the spread grows on every side


def test_a_spread_grows_a_box_and_its_corners_as_css_does():
    card = Rect(100, 60, 120, 80, fill=Color(255, 255, 255), radius=16)
    assert card.spread(24) == Rect(76, 36, 168, 128, fill=Color(255, 255, 255), radius=pytest.approx(39.11, abs=0.01))
    assert Rect(0, 0, 10, 10).spread(20).radius == 0  # a sharp corner stays sharp
    assert card.spread(-12).radius == 4 and card.spread(-20).radius == 0
    assert card.spread(-50).width == 20 and card.spread(-50).height == 0
    assert Ellipse(0, 0, 120, 80).spread(16) == Ellipse(-16, -16, 152, 112)  # each axis grown
    assert Clip(0, 0, 50, 50, radius=10).spread(5) == Clip(-5, -5, 60, 60, radius=15)


def test_a_spread_shadow_has_the_grown_corners_in_png_and_pdf():
    shadow = {"x": 10, "y": 8, "blur": 0, "spread": 24, "color": "#1e3a8a"}
    card = layer("shape", "card", x=100, y=60, width=120, height=80, fill="#ffffff", radius=16, shadows=[shadow])
    page, png = pdf_and_png(template(card, width=320, height=200, background="#ffffff"))
    navy, white = pytest.approx((30, 58, 138), abs=2), (255, 255, 255)
    for image in (png, page):  # the shadow's box: 86..254 by 44..172, its corners 39 px round
        assert image.getpixel((92, 50)) == white  # outside the grown corner
        assert image.getpixel((88, 110)) == navy and image.getpixel((140, 46)) == navy
        assert image.getpixel((83, 110)) == white


@pytest.mark.parametrize("blend", ["normal", "multiply"])
def test_a_translucent_layer_and_its_shadow_fade_and_blend_as_one_picture_in_png_and_pdf(blend):
    """As CSS's opacity and mix-blend-mode do with a box shadow: where the layer covers its
    shadow, the shadow does not show through (the PDF faded them one by one)."""
    shadow = {"x": 20, "y": 0, "blur": 0, "color": "#000000"}
    card = layer("shape", "card", x=60, y=40, width=120, height=80, fill="#ffffff", opacity=0.5, shadows=[shadow],
                 blend=blend)  # fmt: skip
    page, png = pdf_and_png(template(card, width=240, height=160, background="#ff0000"))
    for image in (png, page):
        # over the shadow's covered part: half white over red, as where there is no shadow under it
        assert image.getpixel((150, 80)) == pytest.approx(image.getpixel((70, 80)), abs=3)
        assert image.getpixel((190, 80)) == pytest.approx((128, 0, 0), abs=3)  # the shadow alone, faded


@pytest.mark.parametrize(
    "source",
    [
        layer("shape", "dot", x=60, y=60, width=80, height=80, shape="ellipse", fill="#000"),  # its geometry grown
        layer("text", "word", x=40, y=50, width=140, height=100, text="O", size=90, color="#000"),  # its pixels
    ],
)
def test_a_wide_spread_keeps_smooth_edges(source):
    pixels = render({**source, "shadows": [{"x": 0, "y": 0, "blur": 0, "spread": 30, "color": "#ff0000"}]})
    greens = {pixel[1] for row in pixels for pixel in row if pixel[0] == 255}  # red over white: green is 255 - cover
    assert len(greens - {0, 255}) > 10  # levels between shadow and background along the curved edge


def test_several_shadows_stack_the_first_on_top():
    pixels = render(
        square(
            shadows=[
                {"x": 10, "y": 0, "blur": 0, "color": "#ff0000"},
                {"x": 20, "y": 0, "blur": 0, "color": "#00ff00"},
            ]
        )
    )
    assert pixels[70][105] == (255, 0, 0)  # both shadows reach here: the first wins
    assert pixels[70][115] == (0, 255, 0)  # only the second reaches here


def test_layer_blur_spreads_an_edge_and_text_layers_take_shadows_too():
    pixels = render(square(blur=6))
    ramp = [grey(pixels[70][x]) for x in range(88, 114)]
    assert ramp[0] < 60 and ramp[-1] > 230 and len(set(ramp)) > 12
    text = layer("text", "word", x=20, y=60, width=160, height=80, text="Hi", size=60, color="#ffffff")
    shadowed = render({**text, "shadows": [{"x": 4, "y": 4, "blur": 0, "color": "#000000"}]})
    assert any(p == (0, 0, 0) for row in shadowed for p in row)  # the white text's black shadow
    assert all(p == (255, 255, 255) for row in render(text) for p in row)


def deviation(levels: list[int]) -> float:
    """The standard deviation of the Gaussian that blurred a dark-to-light edge whose grey
    ``levels`` (one per px, dark first) are given: half the distance between where it is
    16% and 84% of the way up (one deviation either side of the edge)."""
    dark, light = levels[0], levels[-1]
    fractions = [(level - dark) / (light - dark) for level in levels]

    def crossing(share: float) -> float:
        at = next(i for i, f in enumerate(fractions) if f >= share)
        before = fractions[at - 1]
        return at - 1 + (share - before) / (fractions[at] - before)

    return (crossing(0.8413) - crossing(0.1587)) / 2


#: A black layer whose right edge (at x 100) is the only one near row 100 of a 200 px canvas.
EDGE = layer("shape", "edge", x=-300, y=-300, width=400, height=800, fill="#000000")


def test_a_layer_blur_is_css_filter_blur_its_value_the_deviation_in_png_and_pdf():
    page, png = pdf_and_png(template({**EDGE, "blur": 10}, width=200, height=200, background="#ffffff"))
    for image in (png, page):
        levels = [image.convert("L").getpixel((x, 100)) for x in range(50, 150)]
        assert deviation(levels) == pytest.approx(10, abs=0.5)
        assert levels[72] < 254  # 2.2 deviations out (1.4% dark): the picture has room for the blur


@pytest.mark.parametrize(
    ("mode", "expected"),
    [
        ("multiply", (51, 102, 0)),  # 0.2x1, 0.4x1, 0.6x0
        ("screen", (255, 255, 153)),  # a + b - ab
        ("darken", (51, 102, 0)),
        ("lighten", (255, 255, 153)),
        ("difference", (204, 153, 153)),
        ("exclusion", (204, 153, 153)),  # a + b - 2ab
        ("overlay", (102, 204, 51)),  # hard-light with the layers swapped: backdrop <= 0.5 multiplies
        ("hard-light", (255, 255, 0)),  # source 1 screens, source 0 multiplies
        ("color-dodge", (255, 255, 153)),
        ("color-burn", (51, 102, 0)),
    ],
)
def test_separable_blend_modes_follow_the_css_formulas(mode, expected):
    backdrop = layer("shape", "under", x=0, y=0, width=200, height=200, fill="#336699")
    source = layer("shape", "over", x=50, y=50, width=100, height=100, fill="#ffff00", blend=mode)
    pixel = render(backdrop, source)[100][100]
    assert all(abs(a - b) <= 1 for a, b in zip(pixel, expected, strict=True)), pixel


def test_non_separable_blend_modes_keep_what_they_promise():
    backdrop = layer("shape", "under", x=0, y=0, width=200, height=200, fill="#808080")  # grey: no hue
    for mode in ("color", "hue"):
        source = layer("shape", "over", x=50, y=50, width=100, height=100, fill="#ff0000", blend=mode)
        r, g, b = render(backdrop, source)[100][100]
        if mode == "color":  # the source's hue and saturation at the backdrop's luminosity
            assert r > g == b and abs((0.3 * r + 0.59 * g + 0.11 * b) - 128) <= 2
        else:  # the backdrop has no saturation to give the hue: grey stays grey
            assert r == g == b == 128
    source = layer("shape", "over", x=50, y=50, width=100, height=100, fill="#ffffff", blend="luminosity")
    coloured = layer("shape", "under", x=0, y=0, width=200, height=200, fill="#204080")
    r, g, b = render(coloured, source)[100][100]
    assert (r, g, b) == (255, 255, 255)  # full luminosity is white whatever the hue


def test_a_blend_mode_leaves_pixels_outside_the_layer_alone():
    backdrop = layer("shape", "under", x=0, y=0, width=200, height=200, fill="#336699")
    source = layer("shape", "over", x=50, y=50, width=100, height=100, fill="#ffff00", blend="multiply")
    assert render(backdrop, source)[10][10] == (51, 102, 153)


def test_an_effect_moved_between_renders_leaves_nothing_behind():
    card = tk.load_template(
        template(square(shadows=[{"x": 16, "y": 16, "blur": 10, "color": "#ff0000"}]), width=200, height=200)
    )
    tk.render_image(card)
    moved = tk.render_image(card, {"box": {"x": 90, "y": 90}}).data  # drawn over the last render
    limit = cache_limit()
    try:
        tk.set_cache_limit(0)  # from nothing
        fresh = tk.render_image(card, {"box": {"x": 90, "y": 90}}).data
    finally:
        tk.set_cache_limit(limit / 1_000_000)
    assert decode(moved).tobytes() == decode(fresh).tobytes()


def test_effects_are_checked_and_counted():
    with pytest.raises(TemplateError, match=r"layers\[0\]\.blend"):
        tk.load_template(template(square(blend="dissolve")))
    with pytest.raises(TemplateError, match=r"layers\[0\]\.shadows\[0\]\.blur"):
        tk.load_template(template(square(shadows=[{"blur": -1}])))
    huge = template(
        layer("shape", "big", x=0, y=0, width=4000, height=4000, fill="#000", shadows=[{"blur": 200}]),
        width=4000,
        height=4000,
    )
    with pytest.raises(LimitError, match="layer 'big': the blur and shadows of the layer"):
        tk.render_image(huge, memory_limit=250_000_000)


def test_pdf_blends_natively_and_draws_shadows_and_blur_as_pictures():
    pypdf = pytest.importorskip("pypdf")
    backdrop = layer("shape", "under", x=0, y=0, width=200, height=200, fill="#336699")
    words = layer("text", "words", x=20, y=20, width=160, height=60, text="Shadowed words", size=20)
    pdf = tk.render_pdf(
        template(
            backdrop,
            {**words, "shadows": [{"x": 2, "y": 2, "blur": 4}]},
            layer("shape", "over", x=50, y=100, width=100, height=60, fill="#ffff00", blend="multiply"),
            layer("text", "hazy", x=20, y=160, width=160, height=30, text="Blurred", size=20, blur=3),
            layer("shape", "dot", x=160, y=20, width=20, height=20, fill="#fff", shadows=[{"color": "#f00"}]),
            width=200,
            height=200,
        )
    ).data
    assert b"/BM /Multiply" in pdf_objects(pdf)
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    text = " ".join(reader.pages[0].extract_text().split())
    assert "Shadowed words" in text  # the shadowed text stays text
    assert "Blurred" not in text  # the blurred one is a picture of itself
    images = list(reader.pages[0].images)
    assert len({image.name for image in images}) == 3  # two shadows and the blurred layer, each its own
    extrema = [image.image.convert("RGB").getextrema() for image in images]
    assert any(red[1] > 200 and green[1] < 50 for red, green, _ in extrema)  # the red shadow, not the black one
    assert max(image.image.width for image in images) > 2 * 160  # more pixels than the 160 px layer: print resolution


# ------------------------------------------------------------------ text outline


def test_a_text_outline_is_drawn_outside_the_letters():
    word = layer("text", "word", x=20, y=40, width=170, height=120, text="Hi", size=90, weight=800, color="#ffffff")
    plain = decode(tk.render_image(template(word, width=200, height=200, background="#ffffff")).data).convert("L")
    assert plain.getextrema() == (255, 255)  # white on white: nothing to see
    outlined = template({**word, "outline": {"width": 4, "color": "#000000"}}, width=200, height=200, background="#fff")
    image = decode(tk.render_image(outlined).data).convert("L")
    dark = image.point(lambda v: 255 if v < 80 else 0).getbbox()
    letters = decode(
        tk.render_image(template({**word, "color": "#000000"}, width=200, height=200, background="#fff")).data
    ).convert("L")
    inked = letters.point(lambda v: 255 if v < 80 else 0).getbbox()
    assert dark is not None and inked is not None
    assert dark[0] <= inked[0] - 3 and dark[2] >= inked[2] + 3  # about 4 px outside on each side
    assert dark[1] <= inked[1] - 3 and dark[3] >= inked[3] + 3
    stem = next(
        (x, y)
        for y in range(inked[1], inked[3])
        for x in range(inked[0], inked[2])
        if all(letters.getpixel((x + dx, y + dy)) < 40 for dx in range(-6, 7) for dy in range(-6, 7))
    )  # a point well inside a letter
    assert image.getpixel(stem) > 240  # stays the text's white: the outline is outside


def test_a_text_outline_in_pdf_is_a_stroked_path_and_the_text_is_found_once():
    pypdf = pytest.importorskip("pypdf")
    word = layer("text", "word", x=20, y=40, width=170, height=120, text="Hi", size=90, outline={"width": 3})
    pdf = tk.render_pdf(template(word, width=200, height=200)).data
    page = pypdf.PdfReader(io.BytesIO(pdf)).pages[0]
    assert page.extract_text().count("Hi") == 1
    content = page.get_contents().get_data().decode("latin-1")
    assert "1 j 1 J" in content and content.count(" S Q") == 2  # H and i stroked, round joins
