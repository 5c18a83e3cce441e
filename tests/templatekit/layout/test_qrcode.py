"""QR code layout: whole-pixel modules, a centred square with its quiet zone, and
codes that a scanner reads back."""

from __future__ import annotations

import pytest

pytest.importorskip("zxingcpp")

import segno
import zxingcpp

import templatekit as tk
from templatekit.cache import RECENT_FIRST_USES
from templatekit.layout import qrcode
from templatekit.layout.compose import layout_template
from templatekit.layout.context import LayoutContext
from templatekit.model.layers import QRCodeLayer
from templatekit.model.values import Color
from templatekit.paint.canvas import paint
from templatekit.scene import Bars, Rect
from templatekit.text.fonts import FontBook
from tests.conftest import decode, layer, template

CTX = LayoutContext(fonts=FontBook.bundled(), assets=None)
#: Laid out for a request whose modifications changed the layers named "ticket" and "qr".
MODIFIED = LayoutContext(fonts=FontBook.bundled(), assets=None, modified=frozenset({"ticket", "qr"}))


def qr(**fields) -> QRCodeLayer:
    base = {"name": "qr", "x": 0, "y": 0, "width": 100, "height": 100, "qrcode": "hello"}
    return QRCodeLayer(**{**base, **fields})


def matrix(content: str, error: str = "M") -> list[list[int]]:
    code = segno.make(content, error=error, micro=False, boost_error=False)
    return [list(row) for row in code.matrix_iter(scale=1, border=0)]


def bars(items) -> Bars:
    (found,) = [item for item in items if isinstance(item, Bars)]
    return found


def test_module_size_is_the_largest_whole_pixel_size_that_fits():
    layer = qr(width=100, height=80)  # "hello" at M: 21 modules, 25 with the quiet zone
    geometry = qrcode.qr_geometry(layer.qrcode, "M", 2, 100, 80)
    assert (geometry.count, geometry.module, geometry.side) == (21, 3, 75)
    assert all(h == 3 and w % 3 == 0 for _, _, w, h in bars(qrcode.layout(layer, CTX)).rects)


def test_code_square_is_centred_on_whole_pixels_with_its_quiet_zone():
    layer = qr(x=10.4, y=20.7, width=103, height=90)  # 90 // 25 = 3 px, a 75 px square
    rects = bars(qrcode.layout(layer, CTX)).rects
    left, top = round(10.4 + (103 - 75) / 2), round(20.7 + (90 - 75) / 2)
    assert all(isinstance(v, int) for rect in rects for v in rect)
    assert min(x for x, _, _, _ in rects) == left + 2 * 3  # the finder patterns reach the quiet zone
    assert min(y for _, y, _, _ in rects) == top + 2 * 3
    assert max(x + w for x, _, w, _ in rects) == left + 75 - 2 * 3
    assert max(y + h for _, y, _, h in rects) == top + 75 - 2 * 3


def test_modules_are_merged_into_runs_per_row():
    layer = qr(qrcode="https://example.com/a/long/enough/path?q=1", width=200, height=200)
    geometry = qrcode.qr_geometry(layer.qrcode, "M", 2, 200, 200)
    rects = bars(qrcode.layout(layer, CTX)).rects
    dark = sum(map(sum, matrix(layer.qrcode)))
    assert sum(w for _, _, w, _ in rects) == dark * geometry.module
    assert len(rects) < dark
    ends = {(x + w, y) for x, y, w, _ in rects}
    assert not any((x, y) in ends for x, y, _, _ in rects)  # no two runs touch


def test_background_under_the_modules_in_the_layer_colours():
    layer = qr(color=Color(30, 64, 175), background=Color(254, 249, 195), x=5, y=6)
    first, second = qrcode.layout(layer, CTX)
    assert first == Rect(5, 6, 100, 100, fill=Color(254, 249, 195))
    assert isinstance(second, Bars) and second.color == Color(30, 64, 175)


@pytest.mark.parametrize("margin", [0, 4])
def test_margin_sets_the_quiet_zone(margin):
    geometry = qrcode.qr_geometry("hello", "M", margin, 200, 200)
    assert geometry.module == 200 // (21 + 2 * margin)
    assert min(x for x, _, _, _ in geometry.rects) == margin * geometry.module


def test_error_correction_level_changes_the_code():
    low = qrcode.qr_geometry("x" * 40, "L", 2, 400, 400)
    high = qrcode.qr_geometry("x" * 40, "H", 2, 400, 400)
    assert (low.count, high.count) == (len(matrix("x" * 40, "L")), len(matrix("x" * 40, "H")))
    assert high.count > low.count


def test_too_small_a_box_says_how_big_the_layer_must_be():
    content = "https://example.com/" + "p" * 60
    count = len(matrix(content))
    needed = (count + 4) * 2
    with pytest.raises(tk.ModificationError) as raised:
        qrcode.layout(qr(name="ticket", qrcode=content, width=needed - 1, height=300), MODIFIED)
    message = str(raised.value)
    assert message.startswith("layer 'ticket': ")
    assert f"{len(content)} characters" in message
    assert f"{count}x{count} modules" in message
    assert f"{needed - 1:g}x300 px" in message
    assert f"at least {needed}x{needed} px" in message
    assert len(qrcode.layout(qr(qrcode=content, width=needed, height=needed), CTX)) == 2


def test_content_too_long_for_any_qr_code_is_a_modification_error():
    with pytest.raises(tk.ModificationError, match="layer 'qr': 3000 characters do not fit .* correction H"):
        qrcode.layout(qr(qrcode="é" * 3000, error_correction="H", width=2000, height=2000), MODIFIED)


def test_a_code_too_small_in_the_template_is_the_templates_error_and_made_so_the_requests():
    """No modification involved: the template is wrong (TemplateError); a modification that
    makes the code too big for its box: the request is (ModificationError)."""
    small = template(layer("qrcode", "qr", qrcode="https://example.com/" + "p" * 60, width=40, height=40))
    with pytest.raises(tk.TemplateError, match="layer 'qr': a QR code of 80 characters"):
        tk.render_image(small)
    roomy = template(layer("qrcode", "qr", qrcode="https://example.com", width=120, height=120))
    assert decode(tk.render_image(roomy).data).size == (400, 200)
    with pytest.raises(tk.ModificationError, match="layer 'qr': a QR code of 500 characters"):
        tk.render_image(roomy, {"qr": "x" * 500})


def test_a_geometry_is_kept_once_it_is_made_again():
    """A code made once (new content on every render) is only held among the latest such,
    for the render that asks for it again; one made twice is kept."""
    arguments = ("cache me", "M", 2, 123.0, 123.0)
    kept = len(qrcode.qr_geometry.cache)
    first = qrcode.qr_geometry(*arguments)
    assert len(qrcode.qr_geometry.cache) == kept and qrcode.qr_geometry(*arguments) is first
    for number in range(RECENT_FIRST_USES):
        qrcode.qr_geometry(f"new {number}", "M", 2, 123.0, 123.0)
    second = qrcode.qr_geometry(*arguments)  # no longer held: made again, and kept
    assert len(qrcode.qr_geometry.cache) == kept + 1
    assert qrcode.qr_geometry(*arguments) is second and second == first
    layer = qr(qrcode="cache me", width=123, height=123)
    assert qrcode.layout(layer, CTX) == qrcode.layout(layer, CTX)


# ------------------------------------------------------------------ scanning


def scan(size: int, **fields) -> list[zxingcpp.Barcode]:
    spec = template(
        layer("qrcode", "qr", x=7, y=9, width=size, height=size, **fields),
        width=size + 20,
        height=size + 20,
        background="#ffffff",
    )
    image = paint(layout_template(tk.load_template(spec), CTX))
    return zxingcpp.read_barcodes(image, formats=zxingcpp.BarcodeFormat.QRCode)


@pytest.mark.parametrize(
    ("content", "level"),
    [
        ("hello", "L"),
        ("1234567890", "M"),
        ("HELLO WORLD 42", "Q"),
        ("Grüße aus Köln, 東京 and 😀", "H"),
        ("https://example.com/products/12345?utm_source=newsletter&utm_medium=email&ref=" + "a1b2" * 40, "M"),
    ],
)
def test_rendered_code_scans_back_to_its_content(content, level):
    (found,) = scan(300, qrcode=content, errorCorrection=level)
    assert found.text == content
    assert found.ec_level == level


def test_smallest_allowed_module_and_custom_colours_still_scan():
    count = len(matrix("scan me"))
    size = (count + 4) * qrcode.MIN_MODULE
    (found,) = scan(size, qrcode="scan me", color="#1e3a8a", background="#fef9c3")
    assert found.text == "scan me"
