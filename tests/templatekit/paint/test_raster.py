"""The raster painter, checked on real pixels."""

from __future__ import annotations

import math

import pytest
from PIL import Image as PILImage
from PIL import ImageChops, ImageStat

import templatekit as tk
from templatekit.model.values import Color, Gradient
from templatekit.paint import canvas
from templatekit.scene import Bars, Clip, Ellipse, GlyphRun, Group, Line, Path, Polygon, Rect, Scene
from templatekit.scene.geometry import Transform
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, place, typeset
from tests.conftest import decode

RED, BLUE, WHITE, BLACK = Color(255, 0, 0), Color(0, 0, 255), Color(255, 255, 255), Color(0, 0, 0)
BOOK = FontBook.bundled()


def draw(*items, width=100, height=100, background=WHITE, scale=1.0) -> PILImage.Image:
    return canvas.paint(Scene(width, height, background, tuple(items)), scale)


def grid(image: PILImage.Image) -> list[str]:
    """Rows of '#' (dark) and '.' (light): small drawings compared as ASCII art."""
    grey = image.convert("L")
    return ["".join("#" if grey.getpixel((x, y)) < 128 else "." for x in range(grey.width)) for y in range(grey.height)]


def test_pixel_aligned_rect_is_exact():
    assert grid(draw(Rect(1, 1, 2, 3, BLACK), width=5, height=5)) == [
        ".....",
        ".##..",
        ".##..",
        ".##..",
        ".....",
    ]


def test_rounded_corners_and_ellipses_are_antialiased_and_clear_outside():
    image = draw(Rect(10, 10, 80, 80, RED, radius=30))
    assert image.getpixel((50, 50)) == (255, 0, 0, 255)
    assert image.getpixel((11, 11)) == (255, 255, 255, 255)  # cut corner
    diagonal = [image.getpixel((i, i)) for i in range(15, 22)]
    assert any(p not in ((255, 0, 0, 255), (255, 255, 255, 255)) for p in diagonal)  # anti-aliased, not jagged
    ellipse = draw(Ellipse(0, 0, 100, 50, BLUE))
    assert ellipse.getpixel((50, 25))[:3] == (0, 0, 255)
    assert ellipse.getpixel((2, 2))[:3] == (255, 255, 255)


def test_stroke_is_drawn_inside_the_box():
    image = draw(Rect(10, 10, 50, 50, None, stroke=BLACK, stroke_width=4))
    assert image.getpixel((10, 30))[:3] == (0, 0, 0)
    assert image.getpixel((13, 30))[:3] == (0, 0, 0)
    assert image.getpixel((9, 30))[:3] == (255, 255, 255)
    assert image.getpixel((14, 30))[:3] == (255, 255, 255)


@pytest.mark.parametrize(
    ("angle", "first", "last"), [(90, (0, 50), (99, 50)), (180, (50, 0), (50, 99)), (0, (50, 99), (50, 0))]
)
def test_gradient_runs_along_its_angle(angle, first, last):
    image = draw(Rect(0, 0, 100, 100, Gradient(RED, BLUE, angle)))
    start, end = image.getpixel(first), image.getpixel(last)
    assert start[0] > 240 and start[2] < 15
    assert end[2] > 240 and end[0] < 15
    middle = image.getpixel((50, 50))
    assert 100 < middle[0] < 155 and 100 < middle[2] < 155


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_opaque_colours_blend_through_a_mask_as_pillows_composite_of_two_images(seed):
    """The end colour filled through the mask gives, pixel for pixel, what Pillow's
    composite of two whole images of the colours gives, for every level of the mask."""
    import random

    from templatekit.paint.gradient import _blended

    rng = random.Random(seed)
    start, end = (Color(*(rng.randrange(256) for _ in range(3))) for _ in range(2))
    size = (256, 157)
    mask = PILImage.frombytes("L", size, rng.randbytes(size[0] * size[1]))
    whole = PILImage.composite(PILImage.new("RGBA", size, end.rgba), PILImage.new("RGBA", size, start.rgba), mask)
    assert _blended(Gradient(start, end, 90), mask).tobytes() == whole.tobytes()
    assert len(mask.getcolors()) == 256  # every level of the mask is met


def test_opacity_blends_and_rotation_turns_about_the_origin():
    half = draw(Group((Rect(0, 0, 100, 100, BLACK),), opacity=0.5))
    assert half.getpixel((50, 50))[0] == pytest.approx(128, abs=2)
    bar = Rect(10, 45, 80, 10, BLACK)
    turned = draw(Group((bar,), transform=Transform.turn(90, (50, 50))))
    assert turned.getpixel((50, 15))[:3] == (0, 0, 0)  # now vertical
    assert turned.getpixel((15, 50))[:3] == (255, 255, 255)


def test_clips_cut_children():
    image = draw(Group((Rect(0, 0, 100, 100, RED),), clip=Clip(0, 0, 100, 100, ellipse=True)))
    assert image.getpixel((50, 50))[:3] == (255, 0, 0)
    assert image.getpixel((3, 3))[:3] == (255, 255, 255)


def test_bars_snap_to_whole_pixels_with_two_colours_only():
    image = draw(Bars(((10.4, 10, 3, 50), (20.6, 10, 2, 50)), BLACK), width=40, height=70)
    colours = {image.getpixel((x, 30))[:3] for x in range(40)}
    assert colours == {(0, 0, 0), (255, 255, 255)}
    assert [image.getpixel((x, 30))[0] for x in range(9, 24)] == [
        255,
        0,
        0,
        0,
        255,
        255,
        255,
        255,
        255,
        255,
        255,
        255,
        0,
        0,
        255,
    ]


def test_lines_and_polygons_fill_their_shape():
    image = draw(Line((0, 50), (100, 50), BLACK, 4), Polygon((((50, 0), (60, 20), (40, 20)),), RED))
    assert image.getpixel((30, 50))[:3] == (0, 0, 0)
    assert image.getpixel((30, 55))[:3] == (255, 255, 255)
    assert image.getpixel((50, 15))[:3] == (255, 0, 0)
    assert image.getpixel((42, 2))[:3] == (255, 255, 255)


def square(x0: float, y0: float, x1: float, y1: float, clockwise: bool = True) -> list[tuple]:
    corners = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]
    corners = corners if clockwise else corners[::-1]
    return [("M", *corners[0]), *(("L", *c) for c in corners[1:]), ("Z",)]


@pytest.mark.parametrize(
    ("inner_clockwise", "even_odd", "hole"),
    [(False, False, True), (True, False, False), (True, True, True), (False, True, True)],
)
def test_paths_follow_their_fill_rule(inner_clockwise, even_odd, hole):
    commands = square(10, 10, 90, 90) + square(30, 30, 70, 70, inner_clockwise)
    image = draw(Path(tuple(commands), fill=BLACK, even_odd=even_odd))
    assert image.getpixel((20, 20))[:3] == (0, 0, 0)
    assert image.getpixel((50, 50))[:3] == ((255, 255, 255) if hole else (0, 0, 0))
    assert image.getpixel((95, 95))[:3] == (255, 255, 255)


def test_path_curves_are_smooth_and_cover_their_area():
    k = 0.5523 * 40  # a circle of radius 40 about (50, 50) in four cubic arcs
    circle = (
        ("M", 90, 50), ("C", 90, 50 + k, 50 + k, 90, 50, 90), ("C", 50 - k, 90, 10, 50 + k, 10, 50),
        ("C", 10, 50 - k, 50 - k, 10, 50, 10), ("C", 50 + k, 10, 90, 50 - k, 90, 50), ("Z",),
    )  # fmt: skip
    grey = draw(Path(circle, fill=BLACK)).convert("L")
    covered = sum(255 - v for v in grey.tobytes()) / 255
    assert covered == pytest.approx(3.14159 * 40 * 40, rel=0.01)
    edge = {grey.getpixel((50 + round(40 * math.cos(a / 10)), 50 + round(40 * math.sin(a / 10)))) for a in range(63)}
    assert any(0 < v < 255 for v in edge)  # anti-aliased rim


def test_path_strokes_have_their_width_caps_and_joins():
    line = (("M", 20, 50), ("L", 80, 50))
    butt = draw(Path(line, fill=None, stroke=BLACK, stroke_width=10, line_cap="butt")).convert("L")
    round_ = draw(Path(line, fill=None, stroke=BLACK, stroke_width=10, line_cap="round")).convert("L")
    assert butt.getpixel((50, 46)) == 0 and butt.getpixel((50, 56)) == 255
    assert butt.getpixel((17, 50)) == 255 and round_.getpixel((17, 50)) == 0
    corner = (("M", 20, 80), ("L", 50, 20), ("L", 80, 80))
    joined = draw(Path(corner, fill=None, stroke=BLACK, stroke_width=8, line_join="round")).convert("L")
    assert joined.getpixel((50, 17)) == 0  # the round join covers the apex
    assert joined.getpixel((50, 50)) == 255  # open path: nothing filled


def ink_box(image: PILImage.Image, threshold: int = 128) -> tuple[int, int, int, int] | None:
    dark = image.convert("L").point(lambda v: 255 if v < threshold else 0)
    return dark.getbbox()


def test_text_is_drawn_where_the_layout_put_it():
    block = typeset("Hello", TextStyle(size=40), BOOK, 300)
    items = place(block, 20, 10, 300, 60)
    box = ink_box(draw(*items, width=340, height=80))
    run = items[0]
    assert box is not None
    assert abs(box[0] - run.x) <= 4 and abs(box[2] - (run.x + run.width)) <= 4
    assert box[3] <= run.y + 1 < box[3] + 2  # no descenders in "Hello": ink ends on the baseline


def test_arabic_is_shaped_and_emoji_are_in_colour():
    arabic = place(typeset("مرحبا", TextStyle(size=40), BOOK, 300), 10, 10, 300, 60)
    shaped = draw(*arabic, width=320, height=80)
    box = ink_box(shaped)
    run = arabic[0]
    assert isinstance(run, GlyphRun) and box is not None
    # joined letters: the ink is about as wide as the shaped advance (isolated forms are far wider)
    assert abs((box[2] - box[0]) - run.width) < run.width * 0.15
    emoji = place(typeset("😀", TextStyle(size=60), BOOK, 300), 0, 0, 100, 100)
    image = draw(*emoji)
    saturated = [p for p in image.get_flattened_data() if p[0] > 200 and p[1] > 150 and p[2] < 90]  # the yellow face
    assert len(saturated) > 300


def test_scale_multiplies_the_pixel_size():
    image = draw(Rect(10, 10, 20, 20, BLACK), scale=2)
    assert image.size == (200, 200)
    assert image.getpixel((21, 21))[:3] == (0, 0, 0)
    assert image.getpixel((61, 61))[:3] == (255, 255, 255)


def test_a_gradient_to_transparent_fades_without_going_grey():
    """Premultiplied, as in CSS: halfway from red to transparent is half-transparent red."""
    card = {
        "name": "fade",
        "width": 300,
        "height": 60,
        "background": "#ffffff",
        "layers": [
            {
                "type": "shape",
                "name": "fade",
                "x": 0,
                "y": 0,
                "width": 300,
                "height": 60,
                "fill": {"from": "#f43f5e", "to": "transparent", "angle": 90},
            }
        ],
    }
    middle = decode(tk.render_image(card).data).convert("RGB").getpixel((150, 30))
    assert all(abs(got - want) <= 3 for got, want in zip(middle, (250, 159, 175), strict=True)), middle


def test_level_and_upright_hairlines_are_crisp_whole_pixels():
    image = draw(Line((10, 20.4), (90, 20.4), BLACK), Line((50.3, 30), (50.3, 90), BLACK, width=2))
    column = [image.getpixel((30, y))[0] for y in range(17, 24)]
    assert column == [255, 255, 255, 0, 255, 255, 255]  # one row, solid
    row = [image.getpixel((x, 60))[0] for x in range(47, 54)]
    assert row == [255, 255, 0, 0, 255, 255, 255]  # two columns for a 2 px line (49.3 to 51.3)


def test_a_large_rounded_rectangle_is_the_same_on_opaque_and_transparent_canvases():
    card = Rect(10.3, 12.6, 170.2, 140.5, Color(30, 64, 175), radius=18)
    on_white = draw(card, width=200, height=170)
    alone = draw(card, width=200, height=170, background=None)
    composed = PILImage.new("RGBA", alone.size, WHITE.rgba)
    composed.alpha_composite(alone)
    assert max(ImageStat.Stat(ImageChops.difference(on_white, composed)).extrema[0]) <= 1
    assert on_white.getpixel((100, 80))[:3] == (30, 64, 175)
    assert on_white.getpixel((11, 13))[:3] == (255, 255, 255)  # the corner cut
    edge = on_white.getpixel((100, 12))[:3]
    assert edge not in ((30, 64, 175), (255, 255, 255))  # anti-aliased top edge
