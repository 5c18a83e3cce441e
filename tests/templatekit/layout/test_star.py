"""Star ratings: a centred row of ``max`` stars, filled to the nearest half star."""

from __future__ import annotations

import math

import pytest

import templatekit as tk
from templatekit.layout import star
from templatekit.layout.compose import layout_template
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import StarLayer
from templatekit.model.values import Color
from templatekit.paint.canvas import paint
from templatekit.scene import Group, Polygon
from templatekit.text.fonts import FontBook
from tests.conftest import layer, template

CTX = LayoutContext(fonts=FontBook.bundled(), assets=None)
GOLD, GREY = Color(250, 204, 21), Color(226, 232, 240)


def stars(**fields) -> list:
    spec = {"name": "rating", "x": 0, "y": 0, "width": 300, "height": 60, **fields}
    return star.layout(StarLayer(**spec), CTX)


def kinds(items) -> str:
    """One letter per star: F(ull), H(alf), E(mpty)."""
    letters = []
    for item in items:
        if isinstance(item, Group):
            letters[-1] = "H"
        else:
            letters.append("F" if item.fill == GOLD else "E")
    return "".join(letters)


def points(items) -> list[tuple[tuple[float, float], ...]]:
    return [item.contours[0] for item in items if isinstance(item, Polygon)]


def bounds(pts) -> tuple[float, float, float, float]:
    xs, ys = [x for x, _ in pts], [y for _, y in pts]
    return min(xs), min(ys), max(xs), max(ys)


@pytest.mark.parametrize(
    ("rating", "expected"),
    [
        (0, "EEEEE"),
        (1, "FEEEE"),
        (3.24, "FFFEE"),
        (3.25, "FFFHE"),
        (3.5, "FFFHE"),
        (3.74, "FFFHE"),
        (3.75, "FFFFE"),
        (0.5, "HEEEE"),
        (5, "FFFFF"),
    ],
)
def test_rating_is_shown_to_the_nearest_half_star(rating, expected):
    assert kinds(stars(star=rating)) == expected


def test_max_sets_the_number_of_stars():
    assert kinds(stars(star=7, max=10, width=600)) == "FFFFFFFEEE"
    assert kinds(stars(star=1, max=1)) == "F"


def test_each_star_is_a_regular_five_pointed_star_point_up():
    (first, *_) = points(stars(star=5))
    assert len(first) == 10
    cx = (bounds(first)[0] + bounds(first)[2]) / 2
    top_x, top_y = first[0]
    assert top_x == pytest.approx(cx) and top_y == pytest.approx(bounds(first)[1])
    centre = (sum(x for x, _ in first[::2]) / 5, sum(y for _, y in first[::2]) / 5)
    outer = [math.dist(centre, p) for p in first[::2]]
    inner = [math.dist(centre, p) for p in first[1::2]]
    assert centre[0] == pytest.approx(cx)
    assert max(outer) == pytest.approx(min(outer)) and max(inner) == pytest.approx(min(inner))
    assert inner[0] / outer[0] == pytest.approx(0.382, abs=0.001)


@pytest.mark.parametrize(("width", "height"), [(300, 40), (200, 90), (1000, 50)])
def test_row_is_centred_and_fills_the_limiting_side(width, height):
    x, y = 12, 34
    shapes = points(stars(x=x, y=y, width=width, height=height))
    left, top, _, _ = bounds(shapes[0])
    _, _, right, bottom = bounds(shapes[-1])
    assert (left - x) == pytest.approx(x + width - right)
    assert (top - y) == pytest.approx(y + height - bottom)
    row_width = right - left
    star_width = bounds(shapes[0])[2] - left
    assert row_width == pytest.approx(width) or star_width == pytest.approx(height)
    assert row_width <= width + 1e-9 and bottom - top <= height + 1e-9


def test_stars_are_spaced_by_a_fraction_of_their_size():
    shapes = points(stars(width=1000, height=50))
    first, second = bounds(shapes[0]), bounds(shapes[1])
    star_width = first[2] - first[0]
    assert second[0] - first[2] == pytest.approx(star.GAP * star_width)


def test_half_star_is_an_empty_star_under_the_full_one_clipped_to_its_left_half():
    items = stars(star=2.5, x=10, y=20)
    empty, group = items[2], items[3]
    assert isinstance(empty, Polygon) and empty.fill == GREY
    assert isinstance(group, Group)
    (full,) = group.items
    assert full == Polygon(empty.contours, GOLD)
    left, _, right, _ = bounds(empty.contours[0])
    assert group.clip.x == pytest.approx(left)
    assert group.clip.width == pytest.approx((right - left) / 2)
    assert group.clip.y <= bounds(empty.contours[0])[1]
    assert group.clip.y + group.clip.height >= bounds(empty.contours[0])[3]


def test_colours_come_from_the_layer():
    red, blue = Color(255, 0, 0), Color(0, 0, 255)
    full, half_empty, half, empty = stars(star=1.5, max=3, color=red, empty_color=blue)
    assert (full.fill, half_empty.fill, half.items[0].fill, empty.fill) == (red, blue, red, blue)


def test_painted_half_star_is_gold_on_the_left_and_grey_on_the_right():
    spec = template(
        layer("star", "rating", x=0, y=0, width=300, height=60, star=2.5), width=300, height=60, background="#ffffff"
    )
    image = paint(layout_template(tk.load_template(spec), CTX)).convert("RGB")
    shapes = points(stars(star=2.5))
    left, top, right, bottom = bounds(shapes[2])
    middle_x, middle_y = round((left + right) / 2), round((top + bottom) / 2)
    assert image.getpixel((middle_x - 6, middle_y)) == GOLD.rgba[:3]
    assert image.getpixel((middle_x + 6, middle_y)) == GREY.rgba[:3]
    assert image.getpixel(tuple(map(round, bounds(shapes[0])[:2]))) == (255, 255, 255)  # outside the star
