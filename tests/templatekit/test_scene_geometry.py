"""Scene items answer for their own geometry: their box, and where a move puts them (a
video layer mid-move, in vector outputs), every kind of primitive alike."""

from __future__ import annotations

import pytest
from PIL import ImageChops

from templatekit.geometry import Transform
from templatekit.model.values import Color
from templatekit.paint.canvas import forget, paint
from templatekit.scene import Bars, Clip, Ellipse, Group, Line, Move, Path, Polygon, Rect, Scene
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


def test_a_move_by_whole_pixels_draws_the_same_pixels_elsewhere():
    forget()
    before = paint(Scene(320, 240, Color(255, 255, 255), ITEMS))
    shifted = Scene(320, 240, Color(255, 255, 255), tuple(item.moved(Move(dx=40, dy=30)) for item in ITEMS))
    after = paint(shifted)
    assert ImageChops.difference(before.crop((0, 0, 280, 210)), after.crop((40, 30, 320, 240))).getbbox() is None


def test_a_scale_about_the_centre_scales_every_box():
    move = Move(scale=2.0, centre=(100.0, 100.0))
    for item in ITEMS:
        x0, y0, x1, y1 = item.bounds()
        mx0, my0, mx1, my1 = item.moved(move).bounds()
        assert (mx1 - mx0) / (x1 - x0) > 1.6 and (my1 - my0) / (y1 - y0) > 1.6, item
        assert (mx0 + mx1) / 2 - 100 == 2 * ((x0 + x1) / 2 - 100) or isinstance(item, Group), item
    group = Group(ITEMS, transform=Transform.turn(10, (50, 50))).moved(move)
    assert group.transform.point((0.0, 0.0)) == pytest.approx((0.0, 0.0))  # it turns about the moved origin
    assert group.transform.a == pytest.approx(Transform.turn(10, (0, 0)).a)


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
