"""Key-value layers: keys left, values right-aligned in one column, dividers between rows."""

from __future__ import annotations

import re

import pytest

import templatekit as tk
from templatekit.layout import keyvalue
from templatekit.layout.context import LayoutContext
from templatekit.model.values import Color
from templatekit.scene import GlyphRun, Line
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template

BOOK = FontBook.bundled()
X, Y, WIDTH, HEIGHT = 10, 20, 400, 300
SIZE = 16
KEY_GREY, VALUE_INK, HAIRLINE = Color(100, 116, 139), Color(15, 23, 42), Color(226, 232, 240)
SUMMARY = [
    {"key": "Subtotal", "value": "$120.00"},
    {"key": "Tax (8.25%)", "value": "$9.90"},
    {"key": "Total", "value": "$129.90"},
]


def lay(rows=SUMMARY, **fields) -> tuple[list, list[str]]:
    spec = layer("keyvalue", "summary", x=X, y=Y, width=WIDTH, height=HEIGHT, rows=rows, **fields)
    ctx = LayoutContext(fonts=BOOK, assets=None)
    return keyvalue.layout(tk.load_template(template(spec)).layers[0], ctx), ctx.warnings


def runs(items) -> list[GlyphRun]:
    return [item for item in items if isinstance(item, GlyphRun)]


def lines(items) -> list[Line]:
    return [item for item in items if isinstance(item, Line)]


def by_text(items) -> dict[str, GlyphRun]:
    return {run.text: run for run in runs(items)}


def font_name(run: GlyphRun) -> str:
    return run.font.path.rsplit("/", 1)[-1]


def test_each_row_has_its_key_at_the_left_edge_and_its_value_at_the_right_edge():
    items, warnings = lay()
    assert warnings == []
    assert [run.text for run in runs(items)] == ["Subtotal", "$120.00", "Tax (8.25%)", "$9.90", "Total", "$129.90"]
    for key, value in zip(runs(items)[::2], runs(items)[1::2], strict=True):
        assert key.x == X
        assert value.x + value.width == pytest.approx(X + WIDTH)
        assert key.y == pytest.approx(value.y)


def test_default_colours_and_weights_set_keys_apart_from_values():
    runs_ = by_text(lay()[0])
    assert runs_["Subtotal"].color == KEY_GREY and font_name(runs_["Subtotal"]) == "Inter-Regular.otf"
    assert runs_["$120.00"].color == VALUE_INK and font_name(runs_["$120.00"]) == "Inter-Medium.otf"
    assert {run.size for run in runs_.values()} == {SIZE}


def test_layer_font_size_and_colours_apply_to_every_row():
    runs_ = by_text(lay(size=20, keyColor="#111111", valueColor="#222222")[0])
    assert {run.size for run in runs_.values()} == {20}
    assert runs_["Total"].color == Color(17, 17, 17) and runs_["$129.90"].color == Color(34, 34, 34)


def test_rows_are_evenly_spaced():
    rows = [{"key": f"Key {n}", "value": str(n)} for n in range(5)]
    baselines = sorted({run.y for run in runs(lay(rows)[0])})
    steps = [b - a for a, b in zip(baselines, baselines[1:], strict=False)]
    assert len(steps) == 4 and max(steps) - min(steps) < 1.01  # dividers snap to whole pixels
    assert steps[0] > SIZE * 1.35 + 2 * keyvalue.PADDING * SIZE - 1


def test_key_column_is_the_widest_key_and_values_wrap_in_their_column():
    rows = [
        {"key": "Ship to", "value": "Acme Corporation, 1200 Long Avenue, Springfield"},
        {"key": "Carrier", "value": "UPS"},
    ]
    items, _ = lay(rows)
    widest = max(by_text(items)[key].width for key in ("Ship to", "Carrier"))
    value_left = X + widest + keyvalue.GAP * SIZE
    wrapped = [run for run in runs(items) if run.text not in ("Ship to", "Carrier", "UPS")]
    assert len(wrapped) >= 2
    assert all(run.x >= value_left - 0.01 for run in wrapped)
    assert all(run.x + run.width == pytest.approx(X + WIDTH) for run in wrapped)


def test_long_keys_wrap_at_the_key_column_cap():
    rows = [{"key": "Processor and graphics package of the laptop model", "value": "Core Ultra 7"}]
    items, _ = lay(rows)
    key_lines = [run for run in runs(items) if run.x == X]
    assert len(key_lines) >= 2
    assert all(run.x + run.width <= X + WIDTH * keyvalue.KEY_SHARE + 0.01 for run in key_lines)
    value = by_text(items)["Core Ultra 7"]
    assert value.y == pytest.approx(key_lines[0].y)  # the value sits on the key's first line


def test_row_styles_override_colour_weight_italic_and_size():
    rows = [
        {"key": "Discount", "value": "-$12.00", "valueColor": "#16a34a"},
        {"key": "Note", "value": "paid", "valueStyle": {"italic": True, "weight": 400, "color": "#dc2626"}},
        {"key": "Both", "value": "x", "valueColor": "#0000ff", "valueStyle": {"color": "#ff0000"}},
        {"key": "Total", "value": "$129.90", "keyStyle": {"weight": 600, "color": "#000000"},
         "valueStyle": {"weight": 700, "size": 22}},
    ]  # fmt: skip
    runs_ = by_text(lay(rows)[0])
    assert runs_["-$12.00"].color == Color(22, 163, 74)
    assert runs_["paid"].color == Color(220, 38, 38) and font_name(runs_["paid"]) == "Inter-Italic.otf"
    assert runs_["x"].color == Color(0, 0, 255)  # valueColor wins over valueStyle.color
    assert font_name(runs_["Total"]) == "Inter-SemiBold.otf" and runs_["Total"].color == Color(0, 0, 0)
    assert font_name(runs_["$129.90"]) == "Inter-Bold.otf" and runs_["$129.90"].size == 22
    assert runs_["$129.90"].color == VALUE_INK and runs_["Both"].color == KEY_GREY


def test_a_larger_value_shares_the_baseline_of_its_key():
    rows = [{"key": "Total", "value": "$129.90", "valueStyle": {"size": 28}}]
    runs_ = by_text(lay(rows)[0])
    assert runs_["Total"].y == pytest.approx(runs_["$129.90"].y)
    assert runs_["Total"].y > Y + 28 * 0.9  # the row is as tall as its larger text


def test_dividers_run_between_rows_and_not_after_the_last():
    items, _ = lay()
    dividers = lines(items)
    baselines = [run.y for run in runs(items)[::2]]
    assert len(dividers) == 2
    for divider, above, below in zip(dividers, baselines, baselines[1:], strict=False):
        assert divider.start == (X, divider.end[1]) and divider.end[0] == X + WIDTH
        assert above + SIZE * 0.2 < divider.start[1] < below - SIZE * 0.7
        assert divider.color == HAIRLINE and divider.width == 1
    assert all(item.start[1] < baselines[-1] for item in dividers)


def test_divider_colour_and_none():
    assert {line.color for line in lines(lay(divider="#ff0000")[0])} == {Color(255, 0, 0)}
    plain, _ = lay(divider=None)
    assert lines(plain) == [] and len(runs(plain)) == 6


def test_rows_without_dividers_sit_closer():
    def step(items) -> float:
        return runs(items)[2].y - runs(items)[0].y

    assert step(lay(divider=None)[0]) == pytest.approx(SIZE * (keyvalue.LINE_HEIGHT + keyvalue.ROW_GAP))
    assert step(lay(divider=None)[0]) < step(lay()[0]) - SIZE / 2


def test_rows_that_do_not_fit_are_left_out_with_a_warning():
    rows = [{"key": f"Item {n}", "value": f"${n}.00"} for n in range(1, 21)]
    items, warnings = lay(rows)
    shown = len(runs(items)) // 2
    assert 0 < shown < 20
    assert warnings == [f"layer 'summary': showing {shown} of 20 rows; the rest do not fit the box"]
    assert max(run.y for run in runs(items)) + SIZE * 0.3 <= Y + HEIGHT
    assert len(lines(items)) == shown - 1


def test_a_row_too_tall_for_the_rest_of_the_box_is_cut_with_an_ellipsis():
    long_value = " ".join(["word"] * 200)
    items, warnings = lay([{"key": "Notes", "value": long_value}, {"key": "After", "value": "x"}])
    assert runs(items)[-1].text.endswith("\u2026")
    assert max(run.y for run in runs(items)) <= Y + HEIGHT
    assert warnings == [
        "layer 'summary': row 1 cut to fit the box",
        "layer 'summary': showing 1 of 2 rows; the rest do not fit the box",
    ]


def test_no_rows_draws_nothing():
    assert lay([]) == ([], [])


def test_painted_divider_and_value_colour():
    rows = [{"key": "Subtotal", "value": "$120.00", "valueColor": "#dc2626"}, {"key": "Total", "value": "$129.90"}]
    spec = layer("keyvalue", "summary", x=X, y=Y, width=WIDTH, height=HEIGHT, rows=rows, divider="#2563eb", size=24)
    image = decode(tk.render_image(template(spec, width=420, height=340, background="#ffffff")).data).convert("RGB")
    divider = lines(lay(rows, divider="#2563eb", size=24)[0])[0]
    y = int(divider.start[1])
    assert {image.getpixel((x, y)) for x in range(X, X + WIDTH)} == {(37, 99, 235)}
    value = by_text(lay(rows, size=24)[0])["$120.00"]
    ink = image.crop((int(value.x), int(value.y - 18), int(value.x + value.width), int(value.y)))
    assert (220, 38, 38) in {pixel for _, pixel in ink.getcolors(4096)}


def test_a_value_sent_as_a_number_boolean_or_null_reads_as_a_table_cell_does():
    rows = [{"key": "Paid", "value": True}, {"key": "Due", "value": None}, {"key": "Total", "value": 1234567.5}]
    items, warnings = lay(rows=rows)
    assert warnings == []
    assert [run.text for run in runs(items)] == ["Paid", "Yes", "Due", "Total", "1234567.5"]


def test_a_value_that_is_no_text_is_refused_by_its_field():
    message = "layers[0].rows[0].value: must be a string, number, boolean or null"
    with pytest.raises(tk.TemplateError, match=re.escape(message)):
        lay(rows=[{"key": "Paid", "value": {"yes": 1}}])
