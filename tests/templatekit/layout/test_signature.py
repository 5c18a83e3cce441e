"""Signature layers: the name in a script face over a line, title and date under it."""

from __future__ import annotations

import pytest

import templatekit as tk
from templatekit.font_file import hb_font
from templatekit.layout import signature
from templatekit.layout.context import LayoutContext
from templatekit.model.values import Color
from templatekit.scene import GlyphRun, Line
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template

BOOK = FontBook.bundled()
X, Y, WIDTH, HEIGHT = 20, 30, 320, 130
NAME, TITLE, DATE = "Amelia Hartmann", "Chief Executive Officer", "12 March 2025"
_SCRIPT_FACE = hb_font(BOOK.match("Dancing Script").file)
ASCENT, DESCENT = _SCRIPT_FACE.ascender, _SCRIPT_FACE.descender


def spec(**fields) -> dict:
    return layer("signature", "sign", **{"x": X, "y": Y, "width": WIDTH, "height": HEIGHT, "text": NAME, **fields})


def lay(**fields) -> tuple[list, list[str]]:
    ctx = LayoutContext(fonts=BOOK, assets=None)
    return signature.layout(tk.load_template(template(spec(**fields))).layers[0], ctx), ctx.warnings


def parts(**fields) -> tuple[GlyphRun | None, Line, list[GlyphRun]]:
    """The name run, the line, and the runs under the line."""
    items, _ = lay(**fields)
    (line,) = [item for item in items if isinstance(item, Line)]
    runs = [item for item in items if isinstance(item, GlyphRun)]
    names = [run for run in runs if run.y < line.start[1]]
    return (names[0] if names else None), line, [run for run in runs if run.y > line.start[1]]


def font_name(run: GlyphRun) -> str:
    return run.font.path.rsplit("/", 1)[-1]


def test_name_is_in_dancing_script_in_the_layer_colour():
    name, _, _ = parts(title=TITLE, date=DATE, color="#1e3a8a")
    assert name.text == NAME and font_name(name) == "DancingScript-Regular.otf"
    assert name.color == Color(30, 58, 138)


def test_line_spans_the_box_under_the_name_in_the_line_colour():
    name, line, _ = parts(title=TITLE, date=DATE, lineColor="#ff0000")
    y = line.start[1]
    assert line.start == (X, y) and line.end == (X + WIDTH, y)
    assert line.color == Color(255, 0, 0)
    assert name.y == pytest.approx(y - name.size * signature.SINK, abs=0.01)
    assert Y + HEIGHT / 2 < y < Y + HEIGHT


def test_name_shrinks_to_one_line_within_the_width():
    short, _, _ = parts(text="Lee")
    long, _, _ = parts(text="Jonathan Alexander Pryce-Whitfield the Third")
    assert long.size < short.size
    inset = WIDTH * signature.NAME_INSET
    for run in (short, long):
        assert run.x == pytest.approx(X + inset) and run.x + run.width <= X + WIDTH - inset + 0.01


def test_a_short_name_fills_the_height_above_the_line():
    name, line, _ = parts(text="Lee", title=TITLE)
    assert name.y - name.size * ASCENT == pytest.approx(Y, abs=1.5)  # the tallest letters reach the top
    assert name.size * (ASCENT + signature.SINK) <= line.start[1] - Y + 0.01


def test_title_left_and_date_right_on_one_row_in_small_muted_inter():
    _, line, (title, date) = parts(title=TITLE, date=DATE)
    assert (title.text, date.text) == (TITLE, DATE)
    assert title.x == X and date.x + date.width == pytest.approx(X + WIDTH)
    assert title.y == date.y > line.start[1] + title.size
    assert font_name(title) == "Inter-Medium.otf" and font_name(date) == "Inter-Regular.otf"
    assert title.size == date.size <= signature.META_MAX
    assert (title.color, date.color) == (signature.TITLE_COLOR, signature.DATE_COLOR)


def test_title_and_date_stack_when_they_do_not_fit_side_by_side():
    long_title = "Head of Legal and Compliance, Northwind Trading"
    _, _, (title, date) = parts(title=long_title, date=DATE)
    assert title.x == date.x == X
    assert date.y > title.y


def test_an_empty_title_or_date_leaves_no_gap():
    _, both_line, _ = parts(title=TITLE, date=DATE)
    _, line, (date,) = parts(date=DATE)
    assert date.x == X and line.start[1] == both_line.start[1]
    _, line, (title,) = parts(title=TITLE)
    assert title.x == X
    name, bare_line, under = parts()
    assert under == [] and bare_line.start[1] > both_line.start[1] + 10
    assert bare_line.start[1] + name.size * (DESCENT - signature.SINK) <= Y + HEIGHT + 0.01  # descenders stay inside


def test_an_empty_name_still_draws_the_line_and_the_details():
    name, line, under = parts(text="", title=TITLE, date=DATE)
    assert name is None and line.color == Color(100, 116, 139) and len(under) == 2


def test_a_name_too_long_even_at_the_smallest_size_is_cut_with_a_warning():
    items, warnings = lay(text="Name " * 40, width=120)
    (name,) = [item for item in items if isinstance(item, GlyphRun)]
    assert name.text.endswith("\u2026") and name.size == signature.MIN_NAME_SIZE
    (warning,) = warnings
    assert name.text.endswith("Nam\u2026")  # the rest, from where "…" stands, is named
    assert warning.startswith("layer 'sign': name cut to fit the box; not shown: 'e Name Name")


def test_painted_line_is_under_the_name_ink():
    data = template(spec(title=TITLE, date=DATE, lineColor="#2563eb"), width=360, height=200, background="#ffffff")
    image = decode(tk.render_image(data).data).convert("RGB")
    name, line, _ = parts(title=TITLE, date=DATE)
    y = int(line.start[1])
    assert {image.getpixel((x, y)) for x in range(X + 2, X + 30)} == {(37, 99, 235)}
    above = image.crop((X, Y, X + WIDTH, y - 1))
    dark = sum(1 for pixel in above.get_flattened_data() if max(pixel) < 100)
    assert dark > 500  # the name's ink
    below = image.crop((X, y + 2, X + WIDTH, Y + HEIGHT))
    assert (37, 99, 235) not in {pixel for _, pixel in below.getcolors(1 << 16)}


def test_a_title_wider_than_the_box_is_cut_with_a_warning():
    items, warnings = lay(title="Senior Vice President of Global Strategic Partnerships", width=200)
    (title,) = [item for item in items if isinstance(item, GlyphRun) and item.font.path.endswith("Inter-Medium.otf")]
    assert title.text.endswith("\u2026") and title.x + title.width <= X + 200 + 0.01
    assert title.text == "Senior Vice President of Globa\u2026"  # the rest, from where "…" stands, is named
    assert warnings == ["layer 'sign': title or date cut to fit the width; not shown: 'l Strategic Partnerships'"]
