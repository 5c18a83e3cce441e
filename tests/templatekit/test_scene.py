"""Scene items answer for their own geometry: their box, every kind of primitive alike,
and a group its box once its transform places it."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from templatekit.model.values import Color
from templatekit.paint.canvas import forget, paint
from templatekit.scene import Bars, Clip, Ellipse, Group, Line, Path, Polygon, Rect, Scene
from templatekit.scene.geometry import Transform
from templatekit.text.fonts import FontBook
from templatekit.text.typeset import TextStyle, place, typeset

BLUE, RED = Color(0, 0, 255), Color(255, 0, 0)
TEXT = tuple(place(typeset("Moved ✓ مرحبا", TextStyle(size=18, color=BLUE), FontBook.bundled(), 200), 40, 120, 200, 30))
ITEMS = (
    Rect(20, 20, 60, 40, RED, BLUE, 3, radius=8),
    Ellipse(100, 20, 50, 30, BLUE),
    Line((20, 80), (150, 100), RED, 4),
    Polygon((((170, 20), (230, 40), (180, 90)),), BLUE),
    Path((("M", 20, 160), ("C", 60, 130, 100, 190, 140, 160), ("Z",)), RED, BLUE, 2),
    Bars(((160, 120, 10, 10), (175, 120, 10, 30)), RED),
    Group(TEXT, opacity=0.8, clip=Clip(30, 110, 180, 40, radius=5)),
)


def test_a_group_moved_by_whole_pixels_draws_the_same_pixels_elsewhere():
    forget()
    before = paint(Scene(320, 240, Color(255, 255, 255), (Group(ITEMS, transform=Transform(e=-10, f=-10)),)))
    after = paint(Scene(320, 240, Color(255, 255, 255), (Group(ITEMS, transform=Transform(e=30, f=20)),)))
    difference = ImageChops.difference(before.crop((0, 0, 280, 210)), after.crop((40, 30, 320, 240)))
    assert difference.getbbox(alpha_only=False) is None


def test_a_group_zoomed_about_a_point_holds_its_items_zoomed():
    zoom = Transform.zoom(2.0, (100.0, 100.0))
    x0, y0, x1, y1 = Group(ITEMS).bounds()
    zoomed = (2 * x0 - 100, 2 * y0 - 100, 2 * x1 - 100, 2 * y1 - 100)
    assert Group(ITEMS, transform=zoom).bounds() == pytest.approx(zoomed)
    turned = Transform.turn(10, (50, 50))
    assert turned.then(turned.inverse()).point((7.0, 3.0)) == pytest.approx((7.0, 3.0))
    assert Transform.turn(0, (50, 50)).is_identity and zoom.expansion() == 2.0


def test_every_item_paints_inside_its_bounds():
    forget()
    for item in ITEMS:
        drawn = paint(Scene(320, 240, None, (item,))).getchannel("A").getbbox()
        x0, y0, x1, y1 = item.bounds()
        assert drawn is not None and x0 <= drawn[0] and y0 <= drawn[1] and drawn[2] <= x1 + 1 and drawn[3] <= y1 + 1


def test_a_group_weighs_its_items_and_its_mask():
    group = Group(ITEMS)
    assert group.weight() == 200 + sum(item.weight() for item in ITEMS)
    assert group.weight() > 200 + 48 * len(TEXT[0].glyphs)
