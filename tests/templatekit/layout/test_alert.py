"""Alert layers: a tinted rounded box per variant, a vector icon, the title over the body."""

from __future__ import annotations

import math

import pytest

import templatekit as tk
from templatekit.layout import alert
from templatekit.layout.context import LayoutContext
from templatekit.scene import Ellipse, GlyphRun, Group, Polygon, Rect
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template

BOOK = FontBook.bundled()
X, Y, WIDTH, HEIGHT = 20, 30, 480, 120
SIZE = 16
VARIANTS = ("info", "success", "warning", "error")
TITLE = "Payment received"
BODY = "We have received your payment. A receipt is on its way to your inbox."


def spec(**fields) -> dict:
    return layer("alert", "notice", **{"x": X, "y": Y, "width": WIDTH, "height": HEIGHT, "size": SIZE, **fields})


def lay(**fields) -> tuple[list, list[str]]:
    ctx = LayoutContext(fonts=BOOK, assets=None)
    return alert.layout(tk.load_template(template(spec(**fields))).layers[0], ctx), ctx.warnings


def runs(items) -> list[GlyphRun]:
    return [item for item in items if isinstance(item, GlyphRun)]


def icon(items) -> list:
    """The shapes after the box and its accent bar."""
    return [item for item in items[2:] if not isinstance(item, GlyphRun)]


def bounds(item) -> tuple[float, float, float, float]:
    if isinstance(item, Polygon):
        points = [p for contour in item.contours for p in contour]
        xs, ys = [x for x, _ in points], [y for _, y in points]
        return min(xs), min(ys), max(xs), max(ys)
    return item.x, item.y, item.x + item.width, item.y + item.height


def font_name(run: GlyphRun) -> str:
    return run.font.path.rsplit("/", 1)[-1]


def test_box_is_a_rounded_tinted_rect_with_a_border_and_an_accent_bar():
    items, _ = lay(variant="warning", title=TITLE, text=BODY)
    palette = alert.PALETTES["warning"]
    box, accent = items[0], items[1]
    assert box == Rect(X, Y, WIDTH, HEIGHT, palette.fill, palette.border, alert.BORDER, radius=alert.RADIUS)
    assert isinstance(accent, Group) and accent.clip.radius == alert.RADIUS
    assert (accent.clip.x, accent.clip.y, accent.clip.width, accent.clip.height) == (X, Y, WIDTH, HEIGHT)
    assert accent.items == (Rect(X, Y, alert.ACCENT, HEIGHT, fill=palette.accent),)


@pytest.mark.parametrize(
    ("variant", "kinds"),
    [
        ("info", [Ellipse, Ellipse, Rect]),  # disc, dot, bar
        ("success", [Ellipse, Polygon, Ellipse, Ellipse]),  # disc, check with two round ends
        ("warning", [Polygon, Rect, Ellipse]),  # triangle, bar, dot
        ("error", [Ellipse, Polygon, Ellipse, Ellipse, Polygon, Ellipse, Ellipse]),  # disc, two strokes
    ],
)
def test_each_variant_draws_its_icon_from_shapes(variant, kinds):
    items, _ = lay(variant=variant, title=TITLE, text=BODY)
    shapes = icon(items)
    palette = alert.PALETTES[variant]
    assert [type(shape) for shape in shapes] == kinds
    assert shapes[0].fill == palette.accent
    assert all(shape.fill == palette.fill for shape in shapes[1:])  # the mark is cut out in the box colour
    left, top, right, bottom = bounds(shapes[0])
    assert all(left - 0.01 <= bounds(s)[0] and bounds(s)[2] <= right + 0.01 for s in shapes[1:])
    assert all(top - 0.01 <= bounds(s)[1] and bounds(s)[3] <= bottom + 0.01 for s in shapes[1:])


def test_check_mark_is_a_stroke_of_even_width():
    (_, check, *_) = icon(lay(variant="success", title=TITLE)[0])
    (contour,) = check.contours
    assert len(contour) == 6  # three points on each side of the stroke
    width = alert.ICON * SIZE * 0.11
    for near, far in zip(contour[:3], reversed(contour[3:]), strict=True):
        assert math.dist(near, far) >= width - 0.01


def test_title_is_semibold_and_larger_with_the_body_below_it_in_the_variant_colours():
    items, warnings = lay(variant="error", title=TITLE, text=BODY)
    palette = alert.PALETTES["error"]
    title, *body = runs(items)
    assert warnings == []
    assert title.text == TITLE and font_name(title) == "Inter-SemiBold.otf"
    assert title.size == pytest.approx(SIZE * alert.TITLE_SCALE) and title.color == palette.title
    assert " ".join(run.text for run in body) == BODY and len(body) == 2  # wrapped
    assert all(font_name(run) == "Inter-Regular.otf" and run.size == SIZE and run.color == palette.text for run in body)
    assert title.y < body[0].y < body[1].y
    assert {run.x for run in (title, *body)} == {title.x}


def test_text_starts_after_the_icon_and_stays_inside_the_padding():
    items, _ = lay(title=TITLE, text=BODY)
    disc = icon(items)[0]
    assert disc.x == pytest.approx(X + alert.ACCENT + SIZE * alert.PADDING)
    for run in runs(items):
        assert run.x == pytest.approx(disc.x + disc.width + SIZE * alert.ICON_GAP)
        assert run.x + run.width <= X + WIDTH - SIZE * alert.PADDING + 0.01


def test_icon_is_centred_on_the_first_line():
    for fields, size in (({"title": TITLE, "text": BODY}, SIZE * alert.TITLE_SCALE), ({"text": BODY}, SIZE)):
        items, _ = lay(**fields)
        first = runs(items)[0]
        left, top, right, bottom = bounds(icon(items)[0])
        middle_of_capitals = first.y - size * 0.73 / 2
        assert (top + bottom) / 2 == pytest.approx(middle_of_capitals, abs=size * 0.15)


def test_content_is_centred_vertically():
    items, _ = lay(title=TITLE, text="Short body.", height=200)
    title, body = runs(items)
    above = title.y - SIZE * alert.TITLE_SCALE * 0.73 - Y
    below = Y + 200 - body.y
    assert above == pytest.approx(below, abs=SIZE * 0.5)


def test_empty_title_or_body_leaves_no_gap():
    (body,) = runs(lay(text="Only a body")[0])
    (title,) = runs(lay(title="Only a title")[0])
    assert font_name(body) == "Inter-Regular.otf" and font_name(title) == "Inter-SemiBold.otf"
    for run in (body, title):  # one line, centred: the baseline is a little below the middle
        assert Y + HEIGHT / 2 < run.y < Y + HEIGHT / 2 + SIZE * 0.6


def test_text_that_does_not_fit_ends_with_an_ellipsis_and_warns():
    items, warnings = lay(title=TITLE, text=" ".join([BODY] * 6), height=90)
    body = runs(items)[1:]
    assert body and body[-1].text.endswith("\u2026")
    assert max(run.y for run in body) <= Y + 90
    (warning,) = warnings
    assert warning.startswith("layer 'notice': body cut to 1 line(s) to fit the box; not shown: 'way to your inbox.")


def test_body_left_out_when_no_line_of_it_fits():
    items, warnings = lay(title=TITLE, text=BODY, height=40)
    assert [run.text for run in runs(items)] == [TITLE]
    assert warnings == [
        "layer 'notice': body left out: no room for a line of it under the title; not shown: " + repr(BODY[:59] + "…")
    ]


@pytest.mark.parametrize("variant", VARIANTS)
def test_painted_fill_accent_and_icon_colours(variant):
    palette = alert.PALETTES[variant]
    data = template(spec(variant=variant, title=TITLE, text=BODY), width=520, height=180, background="#ffffff")
    image = decode(tk.render_image(data).data).convert("RGB")
    assert image.getpixel((X + WIDTH - 6, Y + HEIGHT - 6)) == palette.fill.rgba[:3]
    assert image.getpixel((X + 1, Y + HEIGHT // 2)) == palette.accent.rgba[:3]
    assert image.getpixel((X + WIDTH // 2, Y)) == palette.border.rgba[:3]
    left, top, right, bottom = bounds(icon(lay(variant=variant, title=TITLE, text=BODY)[0])[0])
    cx, cy, d = (left + right) / 2, (top + bottom) / 2, right - left
    assert image.getpixel((round(cx - 0.25 * d), round(cy + 0.3 * d))) == palette.accent.rgba[:3]
