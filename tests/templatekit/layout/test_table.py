"""Table layers: columns, widths, alignment, row heights, overflow and themes, asserted
on the Scene; a few pixels through the public render."""

from __future__ import annotations

import pytest

import templatekit as tk
from templatekit.layout import table
from templatekit.layout.context import LayoutContext
from templatekit.model.values import Color, cell_text
from templatekit.scene import GlyphRun, Group, Rect
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template

BOOK = FontBook.bundled()
ROW = 34  # ceil(14 px * 1.4 line height + 2 * 7 px padding)
PAD_X = 10  # round(0.75 em)

PEOPLE = [
    {"name": "Ada", "city": "London", "age": 36},
    {"name": "Grace", "city": "New York", "age": 85},
    {"name": "Alan", "city": "Wilmslow", "age": 41},
    {"name": "Edsger", "city": "Nuenen", "age": 72},
]


def people(*keys: str) -> list[dict]:
    return [{key: person[key] for key in keys} for person in PEOPLE]


def table_layer(**fields):
    spec = layer("table", "t", **{"width": 400, "height": 300, "rows": PEOPLE, **fields})
    return tk.load_template(template(spec)).layers[0]


def lay_out(**fields) -> tuple[list, LayoutContext]:
    ctx = LayoutContext(fonts=BOOK, assets=None)
    return table.layout(table_layer(**fields), ctx), ctx


def flatten(items) -> list:
    flat = []
    for item in items:
        flat.extend(flatten(item.items) if isinstance(item, Group) else [item])
    return flat


def runs(items) -> dict[str, GlyphRun]:
    return {item.text: item for item in flatten(items) if isinstance(item, GlyphRun)}


def fills(items) -> list[Rect]:
    return [item for item in flatten(items) if isinstance(item, Rect) and item.fill is not None]


def rules(items) -> list[Rect]:
    """Horizontal rules: rects at most 2 px tall."""
    return [r for r in fills(items) if r.height <= 2 and r.width > 2]


def columns_of(geometry: table.TableGeometry) -> list[int]:
    lefts = [0]
    for width in geometry.widths:
        lefts.append(lefts[-1] + width)
    return lefts


# ------------------------------------------------------------------ cells and columns


def test_cells_sit_in_their_column_and_row():
    items, ctx = lay_out(x=20, y=30, rows=people("name", "city"), columns=["name", "city"])
    geometry = table.table_rows_layout(table_layer(rows=people("name", "city"), columns=["name", "city"]), BOOK)
    assert geometry.header.height == ROW and [row.height for row in geometry.rows] == [ROW] * 4
    left = [20 + edge for edge in columns_of(geometry)]
    cells = runs(items)
    for row, person in enumerate([{"name": "name", "city": "city"}, *PEOPLE]):
        for column, key in enumerate(["name", "city"]):
            run = cells[person[key]]
            assert run.x == left[column] + PAD_X
            assert 30 + row * ROW + 7 < run.y < 30 + (row + 1) * ROW - 7  # the baseline inside the padding
    baselines = sorted({run.y for run in cells.values()})
    assert [b - a for a, b in zip(baselines, baselines[1:], strict=False)] == pytest.approx([ROW] * 4)
    assert ctx.warnings == []


def test_column_widths_in_px_percent_and_auto():
    columns = [
        {"key": "name", "header": "name", "width": 100},
        {"key": "city", "header": "city", "width": "25%"},
        "age",
    ]
    geometry = table.table_rows_layout(table_layer(columns=columns), BOOK)
    assert geometry.widths == (100, 100, 200)
    items, _ = lay_out(columns=columns)
    assert runs(items)["London"].x == 100 + PAD_X


def test_auto_widths_share_the_rest_by_content_and_keep_short_columns_whole():
    assert table.column_widths([None, None], [100, 300], 600, adaptive=False) == [150, 450]
    assert table.column_widths([None, None, None], [40, 120, 900], 600, adaptive=False) == [40, 120, 440]
    assert table.column_widths([None, None], [100, 300], 600, adaptive=True) == [100, 300]
    assert table.column_widths([200, None], [0, 80], 600, adaptive=True) == [200, 80]
    assert table.column_widths([100, 100], [0, 0], 600, adaptive=False) == [100, 100]
    # set widths that leave no room are scaled down, so that auto columns keep a share
    assert table.column_widths([400, 400, None], [0, 0, 60], 600, adaptive=False) == [270, 270, 60]


def test_a_long_column_cannot_starve_the_others():
    rows = [{"id": 7, "title": "word " * 200}]
    geometry = table.table_rows_layout(table_layer(rows=rows, width=300), BOOK)
    narrow, wide = geometry.widths
    id_natural = table.cell_block("id", table.TextStyle(size=14, weight=600), float("inf"), None, BOOK).width
    assert narrow >= id_natural + 2 * PAD_X and narrow + wide == 300


def test_columns_come_from_the_rows_when_not_given():
    items, ctx = lay_out(rows=[{"b": 1}, {"a": "x", "b": 2}], columns=[])
    cells = runs(items)
    assert cells["b"].x < cells["a"].x  # first seen first
    assert ctx.warnings == []


def test_a_column_object_without_a_header_is_headed_by_its_key():
    ages = people("age")
    spec = layer("table", "t", width=400, height=300, rows=ages, columns=[{"key": "age", "align": "right"}])
    assert tk.load_template(template(spec), strict=True).layers[0].columns[0].header is None
    items, ctx = lay_out(rows=ages, columns=[{"key": "age", "align": "right"}])
    assert "age" in runs(items) and ctx.warnings == []


def test_numbers_right_align_and_other_cells_left_align():
    items, _ = lay_out(columns=["name", "age"])
    geometry = table.table_rows_layout(table_layer(columns=["name", "age"]), BOOK)
    right_edge = geometry.width - PAD_X
    cells = runs(items)
    assert cells["36"].x + cells["36"].width == pytest.approx(right_edge)
    assert cells["85"].x + cells["85"].width == pytest.approx(right_edge)
    assert cells["age"].x + cells["age"].width == pytest.approx(right_edge)  # a header over numbers
    assert cells["Ada"].x == PAD_X and cells["name"].x == PAD_X


def test_column_align_overrides_cells_and_header():
    columns = [{"key": "name", "header": "name", "align": "right"}, {"key": "age", "header": "age", "align": "center"}]
    items, _ = lay_out(columns=columns)
    geometry = table.table_rows_layout(table_layer(columns=columns), BOOK)
    split = geometry.widths[0]
    cells = runs(items)
    assert cells["Ada"].x + cells["Ada"].width == pytest.approx(split - PAD_X)
    assert cells["name"].x + cells["name"].width == pytest.approx(split - PAD_X)
    for text in ("36", "age"):
        middle = cells[text].x + cells[text].width / 2
        assert middle == pytest.approx((split + geometry.width) / 2)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        ("x", "x"),
        (3, "3"),
        (1.0, "1"),
        (2.50, "2.5"),
        (-0.125, "-0.125"),
        (True, "Yes"),
        (False, "No"),
        (None, ""),
        (1234567.5, "1234567.5"),
        (1e16, "10000000000000000"),
        (0.000125, "0.000125"),
        (5e-7, "5e-7"),
        (1e21, "1e+21"),
    ],
)
def test_cell_values_read_naturally(value, text):
    """Numbers as JavaScript's String(n) writes them: what a client that sent them expects."""
    assert cell_text(value) == text


def test_booleans_are_not_numbers():
    items, _ = lay_out(rows=[{"ok": True}, {"ok": False}], columns=["ok"])
    assert runs(items)["Yes"].x == PAD_X


def test_a_column_missing_from_every_row_shows_empty_cells():
    items, ctx = lay_out(rows=people("name"), columns=["name", {"key": "email", "header": "E-mail"}])
    assert set(runs(items)) == {"name", "E-mail", "Ada", "Grace", "Alan", "Edsger"}
    assert ctx.warnings == []


def test_row_keys_without_a_column_are_ignored_with_one_warning():
    items, ctx = lay_out(columns=["name"], rows=[*PEOPLE, {"name": "Tim", "lang": "en"}])
    assert "London" not in runs(items)
    assert ctx.warnings == ["layer 't': row keys not among the columns are ignored: 'city', 'age', 'lang'"]


def test_unknown_fonts_are_reported():
    _, ctx = lay_out(font="No Such Font")
    assert ctx.warnings == ["layer 't': font 'No Such Font' is not available; using Inter"]


# ------------------------------------------------------------------ rows and modes


def test_rows_that_do_not_fit_are_left_out_with_a_warning():
    items, ctx = lay_out(height=3 * ROW + 5, rows=people("name"))
    assert set(runs(items)) == {"name", "Ada", "Grace"}
    assert ctx.warnings == ["layer 't': showing 2 of 4 rows; the rest do not fit the box"]
    geometry = table.table_rows_layout(table_layer(height=3 * ROW + 5), BOOK)
    assert geometry.height == 5 * ROW  # the whole table, for writers that continue it on new pages
    assert geometry.rows_fitting(3 * ROW) == 2 and geometry.rows_fitting(3 * ROW, start=3) == 1


def test_table_items_draw_any_slice_of_rows_with_stripes_counted_in_the_whole_table():
    geometry = table.table_rows_layout(table_layer(stripe="#fef3c7", columns=["name"]), BOOK)
    items = table.table_items(geometry, 0, 500, range(1, 3))
    assert set(runs(items)) == {"name", "Grace", "Alan"}
    stripes = [r for r in fills(items) if r.fill == Color.parse("#fef3c7")]
    assert [(s.y, s.height) for s in stripes] == [(500 + ROW, ROW)]  # Grace, the 2nd body row


def test_adaptive_width_fits_the_content_and_standard_fills_the_layer():
    adaptive = table.table_rows_layout(table_layer(widthMode="adaptive"), BOOK)
    assert adaptive.width < 200
    assert adaptive.widths == table.table_rows_layout(table_layer(widthMode="adaptive", width=900), BOOK).widths
    blocks = [cell.block for row in (adaptive.header, *adaptive.rows) for cell in row.cells]
    assert all(len(block.lines) == 1 and not block.truncated for block in blocks)
    assert table.table_rows_layout(table_layer(), BOOK).width == 400
    items, _ = lay_out(widthMode="adaptive")
    (header,) = [r for r in fills(items) if r.fill == Color.parse("#f1f5f9")]
    assert header.width == adaptive.width
    narrow = table.table_rows_layout(table_layer(widthMode="adaptive", width=120), BOOK)
    assert narrow.width == 120  # never wider than the layer


LONG = "Wrote the first published algorithm for a machine, in notes that run far longer than the paper they annotate"


def test_adaptive_height_wraps_up_to_three_lines_then_ellipsis():
    rows = [{"who": "Ada", "note": LONG}, {"who": "Alan", "note": "Enigma"}]
    geometry = table.table_rows_layout(table_layer(rows=rows, width=300, heightMode="adaptive"), BOOK)
    long_row, short_row = geometry.rows
    note = long_row.cells[1].block
    assert len(note.lines) == 3 and note.truncated and note.text[-1].endswith("\u2026")
    assert long_row.height == 73  # ceil(3 lines * 19.6 px + 2 * 7 px padding)
    assert short_row.height == ROW
    two = table.table_rows_layout(
        table_layer(rows=[{"note": "one two three four"}], width=110, heightMode="adaptive"), BOOK
    )
    assert len(two.rows[0].cells[0].block.lines) == 2 and not two.rows[0].cells[0].block.truncated


def test_standard_height_cuts_cells_to_one_line():
    rows = [{"who": "Ada", "note": LONG}, {"who": "Alan", "note": "Enigma"}]
    items, _ = lay_out(rows=rows, width=300)
    geometry = table.table_rows_layout(table_layer(rows=rows, width=300), BOOK)
    assert [row.height for row in geometry.rows] == [ROW, ROW]
    (cut,) = [text for text in runs(items) if text.startswith("Wrote")]
    assert cut.endswith("\u2026") and runs(items)[cut].x + runs(items)[cut].width <= 300 - PAD_X


# ------------------------------------------------------------------ themes


def header_fill(items, geometry) -> Color | None:
    top = [r for r in fills(items) if r.y == 0 and r.height == geometry.header.height]
    return top[0].fill if top else None


@pytest.mark.parametrize(
    ("theme", "fill"),
    [("none", None), ("default", "#f1f5f9"), ("bright", "#4f46e5"), ("simplify", None), ("arco", "#f2f3f5")],
)
def test_each_theme_fills_the_header_its_own_way(theme, fill):
    items, _ = lay_out(theme=theme)
    geometry = table.table_rows_layout(table_layer(theme=theme), BOOK)
    assert header_fill(items, geometry) == (Color.parse(fill) if fill else None)


def test_themes_differ_in_rules_stripes_and_frame():
    drawn = {theme: lay_out(theme=theme)[0] for theme in ("none", "default", "bright", "simplify", "arco")}
    rule_counts = {theme: len(rules(items)) for theme, items in drawn.items()}
    assert rule_counts == {"none": 1, "default": 5, "bright": 4, "simplify": 5, "arco": 4}
    (strong,) = [r for r in rules(drawn["simplify"]) if r.height == 2]
    assert strong.fill == Color.parse("#0f172a") and strong.y == ROW - 1
    assert runs(drawn["simplify"])["name"].font.path.endswith("Inter-Bold.otf")
    assert runs(drawn["default"])["name"].font.path.endswith("Inter-SemiBold.otf")
    assert runs(drawn["bright"])["name"].color == Color(255, 255, 255)
    stripes = [r for r in fills(drawn["bright"]) if r.fill == Color.parse("#eef2ff")]
    assert [s.y for s in stripes] == [2 * ROW, 4 * ROW]  # the 2nd and 4th body rows
    group = next(item for item in drawn["arco"] if isinstance(item, Group))
    assert group.clip.radius == 4
    frame = next(item for item in drawn["arco"] if isinstance(item, Rect) and item.stroke is not None)
    assert frame.stroke == Color.parse("#e5e6eb") and frame.radius == 4 and frame.height == 5 * ROW
    verticals = [r for r in fills(drawn["arco"]) if r.width == 1]
    assert len(verticals) == 2  # between the three columns
    assert all(isinstance(item, (Rect, GlyphRun)) for item in drawn["none"])


def test_colour_fields_override_the_theme():
    items, _ = lay_out(
        theme="simplify", headerBackground="#111827", headerColor="#fbbf24", stripe="#f5f5f4", border="#ef4444"
    )
    geometry = table.table_rows_layout(table_layer(theme="simplify"), BOOK)
    assert header_fill(items, geometry) == Color.parse("#111827")
    assert runs(items)["name"].color == Color.parse("#fbbf24")
    assert [r.y for r in fills(items) if r.fill == Color.parse("#f5f5f4")] == [2 * ROW, 4 * ROW]
    assert {r.fill for r in rules(items)} == {Color.parse("#ef4444")}


def test_no_columns_and_no_rows_draw_nothing():
    items, ctx = lay_out(rows=[], columns=[])
    assert items == [] and ctx.warnings == []
    header_only, _ = lay_out(rows=[], columns=["a", "b"])
    assert set(runs(header_only)) == {"a", "b"}


# ------------------------------------------------------------------ pixels


def render(**fields):
    spec = layer("table", "t", x=10, y=10, width=380, height=280, rows=PEOPLE, **fields)
    result = tk.render_image(template(spec, width=400, height=300, background="#ffffff"))
    return decode(result.data).convert("RGB"), result.warnings


def test_pixels_of_the_header_stripe_and_rules():
    image, warnings = render(theme="default", stripe="#fef3c7", border="#dc2626")
    assert warnings == ()
    assert image.getpixel((380, 12)) == (0xF1, 0xF5, 0xF9)  # header fill, right of the text
    assert image.getpixel((380, 10 + 2 * ROW + 10)) == (0xFE, 0xF3, 0xC7)  # 2nd body row
    assert image.getpixel((380, 10 + ROW + 10)) == (255, 255, 255)  # 1st body row: no stripe
    assert image.getpixel((200, 10 + 2 * ROW - 1)) == (0xDC, 0x26, 0x26)  # rule under the 1st body row
    assert image.getpixel((200, 10 + 2 * ROW)) == (0xFE, 0xF3, 0xC7)  # the rule is one pixel


def test_pixels_of_bright_and_arco():
    bright, _ = render(theme="bright")
    assert bright.getpixel((380, 12)) == (0x4F, 0x46, 0xE5)
    assert bright.getpixel((380, 10 + 2 * ROW + 10)) == (0xEE, 0xF2, 0xFF)
    arco, _ = render(theme="arco")
    assert arco.getpixel((200, 10)) == (0xE5, 0xE6, 0xEB)  # the frame
    assert arco.getpixel((200, 12)) == (0xF2, 0xF3, 0xF5)  # header fill inside it
    assert arco.getpixel((10, 10)) != (0xF2, 0xF3, 0xF5)  # the rounded corner


def test_cells_cut_to_one_line_are_reported():
    long_text = "a description far too long for its narrow column " * 3
    rows = [{"item": long_text, "qty": 1}, {"item": "short", "qty": 2}]
    columns = [{"key": "item", "header": "item", "width": 120}, "qty"]
    _, ctx = lay_out(rows=rows, columns=columns, width=300, height=200)
    assert ctx.warnings == ["layer 't': 1 cell(s) cut to one line to fit their column; heightMode adaptive wraps them"]
    _, adaptive = lay_out(
        rows=rows, columns=[{"key": "item", "header": "item", "width": 120}, "qty"], heightMode="adaptive", width=300
    )
    assert adaptive.warnings == ["layer 't': 1 cell(s) cut after 3 lines to fit their column"]
