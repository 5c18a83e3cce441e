"""Pixels placed by an affine map: which target pixels they can cover, and which source
point each of those pixels shows. The one placement of the raster painters: a turned
group in a PNG and a moving layer in a video frame land on the same pixels
(``templatekit.paint.resample`` samples them)."""

from __future__ import annotations

import math

from attrs import frozen

from templatekit.scene.geometry import Box, Transform, overlap

#: Target pixel (X, Y) of a placement shows the source at (a X + b Y + c, d X + e Y + f),
#: in coordinates where pixels are unit squares from 0.
Matrix = tuple[float, float, float, float, float, float]
#: Whole target pixels: left, top, right, bottom.
PixelBox = tuple[int, int, int, int]


def pixels_to_scene(left: float, top: float, scale: float) -> Transform:
    """The map from the pixels of an image whose top-left pixel lies at (left, top) of a
    canvas at ``scale`` to scene px."""
    return Transform(1 / scale, 0.0, 0.0, 1 / scale, left / scale, top / scale)


@frozen
class Placement:
    """Where a source lands in the target (whole pixels) and the map of those pixels back
    to the source's."""

    matrix: Matrix
    box: PixelBox

    @property
    def size(self) -> tuple[int, int]:
        return self.box[2] - self.box[0], self.box[3] - self.box[1]

    @property
    def shift(self) -> tuple[int, int] | None:
        """Where the box starts in the source when the source only moves by whole pixels."""
        a, b, c, d, e, f = self.matrix
        if a == e == 1 and b == d == 0 and float(c).is_integer() and float(f).is_integer():
            return int(c), int(f)
        return None


def placement(
    source_to_target: Transform, source_size: tuple[int, int], target: Box, within: Box | None = None
) -> Placement | None:
    """Where a source of ``source_size`` pixels, mapped into target pixels by
    ``source_to_target``, lands inside ``target`` (a box of target pixels), and, given
    ``within``, inside the whole pixels of that box; None when nothing of it does."""
    width, height = source_size
    landed = overlap(source_to_target.box((0.0, 0.0, float(width), float(height))), target)
    if landed is None:
        return None
    x0, y0 = math.floor(landed[0] + 1e-6), math.floor(landed[1] + 1e-6)
    x1, y1 = math.ceil(landed[2] - 1e-6), math.ceil(landed[3] - 1e-6)
    if within is not None:
        x0, y0 = max(x0, math.ceil(within[0] - 1e-6)), max(y0, math.ceil(within[1] - 1e-6))
        x1, y1 = min(x1, math.floor(within[2] + 1e-6)), min(y1, math.floor(within[3] + 1e-6))
    if x1 <= x0 or y1 <= y0:
        return None
    back = source_to_target.inverse()
    matrix = (back.a, back.c, back.a * x0 + back.c * y0 + back.e, back.b, back.d, back.b * x0 + back.d * y0 + back.f)
    return Placement(matrix, (x0, y0, x1, y1))
