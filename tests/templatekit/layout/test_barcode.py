"""Barcode layout: whole-pixel bars with quiet zones, the human-readable line, clear
errors for values a symbology cannot encode, and codes that a scanner reads back."""

from __future__ import annotations

import pytest

pytest.importorskip("zxingcpp")

import zxingcpp

import templatekit as tk
from templatekit.cache import RECENT_FIRST_USES
from templatekit.layout import barcode
from templatekit.layout.compose import layout_template
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import BarcodeLayer
from templatekit.model.values import Color
from templatekit.paint.canvas import paint
from templatekit.scene import Bars, GlyphRun, Rect
from templatekit.text.fonts import FontBook
from tests.conftest import layer, template

CTX = LayoutContext(fonts=FontBook.bundled(), assets=None)
#: Laid out for a request whose modifications changed the layer named "code".
MODIFIED = LayoutContext(fonts=FontBook.bundled(), assets=None, modified=frozenset({"code"}))

# symbology -> (value, the full code that is printed and scanned)
VALUES = {
    "code128": ("Order #42-b/7", "Order #42-b/7"),
    "code39": ("CODE-39 $/+%.", "CODE-39 $/+%."),
    "ean13": ("400638133393", "4006381333931"),
    "ean8": ("9638507", "96385074"),
    "upca": ("03600029145", "036000291452"),
    "upce": ("0425261", "04252614"),
    "isbn13": ("978-3-16-148410-0", "9783161484100"),
    "issn": ("0317-8471", "9770317847001"),
    "itf": ("12345678", "12345678"),
    "gs1_128": ("(01)09501101530003(17)250101(10)AB-12(21)XYZ",) * 2,
}


def code(**fields) -> BarcodeLayer:
    base = {"name": "code", "x": 0, "y": 0, "width": 600, "height": 150, "barcode": "12345678"}
    return BarcodeLayer(**{**base, **fields})


def parts(layer: BarcodeLayer) -> tuple[Rect, Bars, list[GlyphRun]]:
    background, bars, *text = barcode.layout(layer, CTX)
    assert isinstance(background, Rect) and isinstance(bars, Bars)
    assert all(isinstance(run, GlyphRun) for run in text)
    return background, bars, text


def quiet(symbology: str) -> tuple[int, int]:
    return barcode.GEOMETRY.get(symbology, barcode.Geometry()).quiet


@pytest.mark.parametrize(
    ("symbology", "zones"),
    [
        ("ean13", (11, 7)),
        ("ean8", (7, 7)),
        ("upca", (9, 9)),
        ("upce", (9, 7)),
        ("code128", (10, 10)),
        ("itf", (10, 10)),
    ],
)
def test_quiet_zones_are_those_of_each_standard(symbology, zones):
    assert quiet(symbology) == zones


@pytest.mark.parametrize("symbology", sorted(VALUES))
def test_bars_are_whole_modules_centred_with_quiet_zones(symbology):
    value, full = VALUES[symbology]
    layer = code(symbology=symbology, barcode=value, x=3.3, width=577)
    modules = barcode.barcode_pattern(symbology, value).modules
    left_zone, right_zone = quiet(symbology)
    total = left_zone + len(modules) + right_zone
    module = 577 // total
    assert module >= 1 and total * (module + 1) > 577  # the largest that fits
    _, bars, _ = parts(layer)
    rects = bars.rects
    assert all(isinstance(v, int) for rect in rects for v in rect)
    assert sum(w for _, _, w, _ in rects) == modules.count("1") * module
    assert all(w % module == 0 for _, _, w, _ in rects)
    left, right = rects[0][0], rects[-1][0] + rects[-1][2]
    assert right - left == len(modules) * module
    assert abs((left - left_zone * module - 3.3) - (3.3 + 577 - right - right_zone * module)) <= 1  # centred
    assert left - 3.3 >= left_zone * module and 3.3 + 577 - right >= right_zone * module
    assert not {x + w for x, _, w, _ in rects} & {x for x, _, _, _ in rects}  # adjacent bars merged


def test_box_background_and_colours():
    background, bars, text = parts(code(color=Color(20, 40, 60), background=Color(250, 250, 240), x=4, y=5))
    assert background == Rect(4, 5, 600, 150, fill=Color(250, 250, 240))
    assert bars.color == Color(20, 40, 60)
    assert {run.color for run in text} == {Color(20, 40, 60)}


def test_human_readable_line_shows_the_full_code_under_the_bars():
    _, bars, text = parts(code(symbology="code128", barcode="Order 42", y=10, height=200))
    assert "".join(run.text for run in text) == "Order 42"
    band = round(200 * barcode.TEXT_SIZE * 1.2)
    assert {(y, h) for _, y, _, h in bars.rects} == {(10, 200 - band)}
    assert text[0].size == pytest.approx(200 * barcode.TEXT_SIZE)
    assert all(10 + 200 - band < run.y <= 210 for run in text)
    assert all(run.font.path.endswith("Inter-Regular.otf") for run in text)


@pytest.mark.parametrize(
    ("symbology", "left", "groups", "right"),
    [
        ("ean13", "4", ["006381", "333931"], None),
        ("ean8", None, ["9638", "5074"], None),
        ("upca", "0", ["36000", "29145"], "2"),
        ("upce", "0", ["425261"], "4"),
    ],
)
def test_ean_and_upc_digits_stand_in_gs1_groups_between_longer_guard_bars(symbology, left, groups, right):
    _, bars, text = parts(code(symbology=symbology, barcode=VALUES[symbology][0], height=200))
    first_bar, last_bar = bars.rects[0][0], bars.rects[-1][0] + bars.rects[-1][2]
    heights = sorted({h for _, _, _, h in bars.rects})
    assert len(heights) == 2 and heights[1] - heights[0] >= 10  # guards run down into the digits
    guards = [x for x, _, _, h in bars.rects if h == heights[1]]
    inside = [run for run in text if first_bar < run.x < last_bar]
    runs_between = []  # the digits between each pair of neighbouring guard bar groups
    edges = [guards[0], *[b for a, b in zip(guards, guards[1:], strict=False) if b - a > 10 * bars.rects[0][2]]]
    for start, end in zip(edges, [*edges[1:], last_bar], strict=False):
        runs_between.append("".join(r.text for r in inside if start < r.x < end))
    assert [g for g in runs_between if g] == groups
    outside_left = "".join(r.text for r in text if r.x + r.width <= first_bar)
    outside_right = "".join(r.text for r in text if r.x >= last_bar)
    assert outside_left == (left or "") and outside_right == (right or "")
    if symbology in ("upca", "upce"):  # the number system and check digit are smaller
        assert max(r.size for r in text if r.x >= last_bar) < max(r.size for r in inside)


def test_without_text_the_bars_take_the_whole_height():
    _, bars, text = parts(code(show_text=False, y=10, height=120))
    assert text == []
    assert {(y, h) for _, y, _, h in bars.rects} == {(10, 120)}


def test_text_wider_than_the_box_is_made_smaller():
    value = "0123456789" * 3
    layer = code(barcode=value, width=len(barcode.barcode_pattern("code128", value).modules) + 20, height=300)
    _, _, text = parts(layer)
    assert "".join(run.text for run in text) == value
    assert sum(run.width for run in text) <= layer.width
    assert text[0].size < 300 * barcode.TEXT_SIZE


@pytest.mark.parametrize(
    ("symbology", "value", "detail"),
    [
        ("ean13", "40063813339A", None),
        ("ean13", "12345", None),
        ("ean13", "4006381333932", "the check digit of 400638133393 is 1, not 2"),
        ("ean8", "963850", None),
        ("upca", "0360002914X", None),
        ("upca", "036000291453", "the check digit of 03600029145 is 2, not 3"),
        ("upce", "2425261", None),
        ("upce", "04252615", "the check digit of 0425261 is 4, not 5"),
        ("upce", "42526", None),
        ("isbn13", "977-3-16-148410-0", None),
        ("isbn13", "9783161484101", "the check digit of 978316148410 is 0, not 1"),
        ("issn", "0317-8472", "the check digit of 0317847 is 1, not 2"),
        ("issn", "0317-84", None),
        ("itf", "12345", None),
        ("itf", "1234A6", None),
        ("code39", "Résumé", None),
        ("code39", "lower", None),
        ("code128", "Grüße", None),
        ("gs1_128", "0109501101530003", None),
        ("gs1_128", "(01)0950110153000", "(01) must be followed by 14 characters, not 13"),
    ],
)
def test_invalid_values_name_the_layer_and_the_rule(symbology, value, detail):
    with pytest.raises(tk.ModificationError) as raised:
        barcode.layout(code(symbology=symbology, barcode=value), MODIFIED)
    expected = f"layer 'code': {value!r} is not a valid {symbology} value: {barcode.RULES[symbology]}"
    if detail:
        expected += f"; {detail}"
    assert str(raised.value) == expected


def test_a_correct_check_digit_is_accepted():
    full = parts(code(symbology="ean13", barcode="4006381333931"))[1]
    computed = parts(code(symbology="ean13", barcode="400638133393"))[1]
    assert full == computed


def test_too_narrow_a_box_says_the_minimum_width():
    total = len(barcode.barcode_pattern("code128", "12345678").modules) + 2 * barcode.QUIET_ZONE
    with pytest.raises(tk.ModificationError, match=f"layer 'code': .* make it at least {total} px wide"):
        barcode.layout(code(width=total - 1), MODIFIED)
    with pytest.raises(tk.TemplateError, match=f"layer 'code': .* make it at least {total} px wide"):
        barcode.layout(code(width=total - 1), CTX)  # as the template has it
    assert parts(code(width=total))[1].rects[0][2] >= 1


def test_patterns_are_kept_by_symbology_and_value_from_their_second_use():
    layer = code(barcode="kept 1")
    cache = barcode.barcode_pattern.cache
    entries = len(cache)
    barcode.layout(layer, CTX)
    held = cache.get((layer.symbology, "kept 1"))
    assert held is not None and len(cache) == entries  # a value seen once may never come again: only held
    for number in range(RECENT_FIRST_USES):
        barcode.layout(code(barcode=f"new {number}"), CTX)
    assert cache.get((layer.symbology, "kept 1")) is None
    barcode.layout(code(barcode="kept 1", width=700), CTX)
    kept = cache.get((layer.symbology, "kept 1"))
    assert kept is not None and kept.text and len(cache) == entries + 1
    barcode.layout(code(barcode="kept 1", width=500), CTX)
    assert cache.get((layer.symbology, "kept 1")) is kept


# ------------------------------------------------------------------ scanning


@pytest.mark.parametrize("symbology", sorted(VALUES))
def test_rendered_barcode_scans_back_to_its_value(symbology):
    value, full = VALUES[symbology]
    box = {"x": 10, "y": 10, "width": 600, "height": 140}
    spec = template(
        layer("barcode", "code", **box, barcode=value, symbology=symbology), width=620, height=160, background="#ffffff"
    )
    image = paint(layout_template(tk.load_template(spec), CTX))
    (found,) = zxingcpp.read_barcodes(image)
    expected = {"upca": "0" + full, "upce": "0042100005264"}.get(symbology, full)  # zxing: as EAN-13
    assert found.text == expected


@pytest.mark.parametrize("symbology", ["code128", "ean13", "itf"])
def test_one_pixel_modules_still_scan(symbology):
    value, full = VALUES[symbology]
    width = len(barcode.barcode_pattern(symbology, value).modules) + sum(quiet(symbology))
    spec = template(
        layer("barcode", "code", width=width, height=60, barcode=value, symbology=symbology),
        width=width,
        height=60,
        background="#ffffff",
    )
    image = paint(layout_template(tk.load_template(spec), CTX))
    assert [found.text for found in zxingcpp.read_barcodes(image)] == [full]


@pytest.mark.parametrize(
    ("value", "upca"), [("123456", "01234500006"), ("1234567", "12345600007"), ("0425261", "04210000526")]
)
def test_upce_scans_as_the_upc_a_it_stands_for(value, upca):
    spec = template(
        layer("barcode", "code", x=10, y=10, width=300, height=120, barcode=value, symbology="upce"),
        width=320,
        height=140,
        background="#ffffff",
    )
    image = paint(layout_template(tk.load_template(spec), CTX))
    (found,) = zxingcpp.read_barcodes(image)
    assert found.format == zxingcpp.BarcodeFormat.UPCE
    assert found.text[1:12] == upca  # as EAN-13, with the check digit zxing verified


# ------------------------------------------------------------------ legibility


@pytest.mark.parametrize(
    ("kind", "fields", "problem"),
    [
        ("barcode", {"color": "#ffffff", "background": "#1e3a8a"}, "light bars (#ffffff) on a darker background"),
        ("barcode", {"color": "#ef4444"}, "under the red light of laser scanners"),
        ("barcode", {"color": "#cbd5e1"}, "differ by 34% in lightness; scanners need 40% or more"),
        ("qrcode", {"color": "#cbd5e1"}, "differ by"),
    ],
)
def test_codes_a_scanner_may_not_read_are_a_warning_or_a_strict_error(kind, fields, problem):
    value = {"barcode": "INVERTED"} if kind == "barcode" else {"qrcode": "https://example.com"}
    spec = template(layer(kind, "code", width=380, height=150, **value, **fields), width=400, height=160)
    result = tk.render_image(spec)
    assert len(result.warnings) == 1
    assert result.warnings[0].startswith("layer 'code': may not scan: ") and problem in result.warnings[0]
    with pytest.raises(tk.TemplateError, match=r"layers\[0\]\.color: may not scan: "):
        tk.load_template(spec, strict=True)


def test_dark_on_light_and_reversed_qr_codes_say_nothing():
    navy = template(layer("barcode", "code", width=380, height=150, barcode="NAVY", color="#1e3a8a"), width=400)
    assert tk.render_image(navy).warnings == ()
    reversed_qr = layer("qrcode", "code", width=150, height=150, qrcode="hi", color="#ffffff", background="#0f172a")
    assert tk.render_image(template(reversed_qr)).warnings == ()
    tk.load_template(template(reversed_qr), strict=True)
