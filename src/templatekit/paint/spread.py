"""Coverage grown or shrunk in pixels, for a shadow's spread where the group has no
geometry to grow (text, pictures with transparency): every pixel within the spread of
the coverage is covered, as a geometric growth would have it, with round corners and
anti-aliased edges. numpy loads only when a shadow needs this.

The distance from each pixel to the nearest covered one is computed exactly (a column
pass, then the nearest column within reach along each row); a wide spread is computed
on a smaller copy and its distances scaled back smoothly, so that edges stay sharp.
"""

from __future__ import annotations

import math

import numpy as np
from PIL import Image as PILImage

#: Pixels of spread computed at full size; a wider one on a copy this many times smaller
#: per this many pixels.
_EXACT_SPREAD = 16


def spread(alpha: PILImage.Image, pixels: float) -> PILImage.Image:
    """``alpha`` grown by ``pixels`` (shrunk below zero)."""
    reach = abs(pixels)
    factor = max(1, math.ceil(reach / _EXACT_SPREAD))
    if min(alpha.size) < 4 * factor:
        factor = 1
    small = alpha.reduce(factor) if factor > 1 else alpha
    covered = np.asarray(small) >= 128
    distance = _distance(covered if pixels > 0 else ~covered, math.ceil(reach / factor) + 1)
    if factor > 1:
        box = (0, 0, alpha.width / factor, alpha.height / factor)
        field = PILImage.fromarray(distance).resize(alpha.size, PILImage.Resampling.BILINEAR, box=box)
        distance = np.asarray(field) * factor
    # a pixel whose centre is D from the nearest covered centre is D - 1/2 from its edge
    grown = np.clip(reach + 1 - distance, 0, 1)
    return PILImage.fromarray(np.round(255 * (grown if pixels > 0 else 1 - grown)).astype(np.uint8))


def _distance(covered: np.ndarray, reach: int) -> np.ndarray:
    """The distance from each pixel to the nearest covered one, exact up to ``reach``
    (farther ones: at least ``reach``)."""
    column = np.where(covered, 0, reach).astype(np.float32)
    for y in range(1, len(column)):
        np.minimum(column[y], column[y - 1] + 1, out=column[y])
    for y in range(len(column) - 2, -1, -1):
        np.minimum(column[y], column[y + 1] + 1, out=column[y])
    vertical = column * column
    nearest = vertical.copy()
    for dx in range(1, min(reach, covered.shape[1] - 1) + 1):
        np.minimum(nearest[:, dx:], vertical[:, :-dx] + dx * dx, out=nearest[:, dx:])
        np.minimum(nearest[:, :-dx], vertical[:, dx:] + dx * dx, out=nearest[:, :-dx])
    return np.sqrt(nearest)
