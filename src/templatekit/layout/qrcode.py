"""QR code layers: the code square, quiet zone included, centred in the box.

Modules are whole pixels and at least ``MIN_MODULE`` px wide, because scanners fail
on codes whose modules are blurred across pixel edges. Dark modules of a row are merged
into runs, so that a code is a few hundred rectangles instead of thousands.
"""

from __future__ import annotations

import re

import segno
from attrs import frozen

from templatekit.cache import memoized
from templatekit.layout.context import LayoutContext
from templatekit.layout.qr_masks import qr_matrix
from templatekit.model.layers import QRCodeLayer
from templatekit.scene import Bars, Item, Rect

MIN_MODULE = 2
_DARK = re.compile("1+")

BarRect = tuple[int, int, int, int]


@frozen
class QRGeometry:
    """A code laid out at a module size; ``rects`` are relative to the square's corner."""

    count: int  # modules per side, quiet zone excluded
    module: int  # px per module
    side: int  # px per side of the square, quiet zone included
    rects: tuple[BarRect, ...]


@memoized("qr.matrices", 256, lambda rows: 100 + len(rows) * (50 + len(rows)), second_use=True)
def _matrix(content: str, error: str) -> tuple[str, ...]:
    """The rows of the plain matrix as strings, "1" for a dark module (segno's code)."""
    return qr_matrix(content, error)


@memoized("qr.geometry", 256, lambda geometry: 200 + 80 * len(geometry.rects), second_use=True)
def qr_geometry(content: str, error: str, margin: int, width: float, height: float) -> QRGeometry:
    """The largest whole-pixel layout of the code, quiet zone included, that fits the box."""
    matrix = _matrix(content, error)
    count = len(matrix)
    module = int(min(width, height) // (count + 2 * margin))
    rects = tuple(
        ((margin + run.start()) * module, (margin + y) * module, (run.end() - run.start()) * module, module)
        for y, row in enumerate(matrix)
        for run in _DARK.finditer(row)
    )
    return QRGeometry(count, module, (count + 2 * margin) * module, rects)


def layout(layer: QRCodeLayer, ctx: LayoutContext) -> list[Item]:
    geometry = _geometry(layer, ctx)
    if geometry.module < MIN_MODULE:
        raise ctx.layer_error(layer.name, _too_small(layer, geometry))
    ctx.scan_warning(layer.name, layer.scan_problem())
    left = round(layer.x + (layer.width - geometry.side) / 2)
    top = round(layer.y + (layer.height - geometry.side) / 2)
    rects = tuple((left + x, top + y, w, h) for x, y, w, h in geometry.rects)
    return [
        Rect(layer.x, layer.y, layer.width, layer.height, fill=layer.background),
        Bars(rects, layer.color),
    ]


def _geometry(layer: QRCodeLayer, ctx: LayoutContext) -> QRGeometry:
    try:
        return qr_geometry(layer.qrcode, layer.error_correction, layer.margin, layer.width, layer.height)
    except segno.DataOverflowError:
        raise ctx.layer_error(
            layer.name,
            f"layer {layer.name!r}: {len(layer.qrcode)} characters do not fit in a QR code at error "
            f"correction {layer.error_correction}; shorten the content or use a lower level (L holds most)",
        ) from None


def _too_small(layer: QRCodeLayer, geometry: QRGeometry) -> str:
    total = geometry.count + 2 * layer.margin
    needed = total * MIN_MODULE
    return (
        f"layer {layer.name!r}: a QR code of {len(layer.qrcode)} characters has "
        f"{geometry.count}x{geometry.count} modules, {total}x{total} with a quiet zone of "
        f"{layer.margin} on each side; the box is {layer.width:g}x{layer.height:g} px, which leaves "
        f"less than {MIN_MODULE} px per module. Make the layer at least {needed}x{needed} px "
        f"to keep the code scannable, or shorten the content"
    )
