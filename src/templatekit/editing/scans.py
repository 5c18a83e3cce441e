"""Does each QR code and barcode of a render scan, and read as its value? Checked by
reading the rendered pixels back with zxing-cpp (the ``editor`` extra), as a phone would.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence

from attrs import frozen
from PIL import Image

from templatekit.model.layers import AnyLayer, BarcodeLayer, QRCodeLayer

#: The margin read around a code's box, as a share of its size: the quiet zone.
MARGIN = 0.1
#: Codes checked at most per render (the answer says each in a header).
MAX_CODES = 50


@frozen
class CodeScan:
    """``scans`` is None when no reader is installed."""

    layer: str
    scans: bool | None
    message: str

    def as_json(self) -> dict[str, object]:
        return {"layer": self.layer, "scans": self.scans, "message": self.message}


def code_scans(layers: Sequence[AnyLayer], png: bytes) -> tuple[CodeScan, ...]:
    """A scan of each visible code layer of ``layers`` (the first ``MAX_CODES``) in the
    rendered ``png``."""
    codes = [layer for layer in layers if isinstance(layer, (QRCodeLayer, BarcodeLayer)) and layer.visible]
    codes = codes[:MAX_CODES]
    if not codes:
        return ()
    try:
        import zxingcpp
    except ImportError:
        missing = "no scan check: install the editor extra (pip install 'templatekit[editor]')"
        return tuple(CodeScan(layer.name, None, missing) for layer in codes)
    with Image.open(io.BytesIO(png)) as image:
        rendered = image.convert("RGB")
    return tuple(_scan(layer, rendered, zxingcpp) for layer in codes)


def _scan(layer: QRCodeLayer | BarcodeLayer, image: Image.Image, zxingcpp: object) -> CodeScan:
    expected = layer.qrcode if isinstance(layer, QRCodeLayer) else layer.barcode
    side = max(layer.width, layer.height) * MARGIN
    box = (
        max(0, int(layer.x - side)),
        max(0, int(layer.y - side)),
        min(image.width, int(layer.x + layer.width + side + 1)),
        min(image.height, int(layer.y + layer.height + side + 1)),
    )
    if box[0] >= box[2] or box[1] >= box[3]:
        return CodeScan(layer.name, False, "the code is outside the canvas")
    found = [result.text for result in zxingcpp.read_barcodes(image.crop(box))]  # type: ignore[attr-defined]
    if not found:
        return CodeScan(layer.name, False, "does not scan: no code could be read here")
    if any(_same(text, expected) for text in found):
        return CodeScan(layer.name, True, "scans")
    return CodeScan(layer.name, False, f"reads as {found[0][:60]!r}, not the value")


def _same(read: str, expected: str) -> bool:
    """Equal, allowing what readers add: a check digit a symbology computes (EAN, UPC),
    and GS1's application-identifier brackets."""
    plain_read, plain_expected = (re.sub(r"[()\s]", "", text) for text in (read, expected))
    return plain_read == plain_expected or (plain_expected.isdigit() and plain_read.startswith(plain_expected))
