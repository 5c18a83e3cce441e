"""The CSS filter functions of image layers on pixels (Filter Effects 1): brightness,
contrast, saturate, hue-rotate, sepia, invert and grayscale are each a colour matrix or
a linear transfer on sRGB values, applied one after another with the result clamped
between them, as a browser does; alpha is left alone."""

from __future__ import annotations

import math

from PIL import Image as PILImage

from templatekit.model.layers import ImageFilters

Matrix = tuple[float, ...]  # Pillow's 3x4 RGB matrix: each row three factors and an offset
#: CSS grayscale(1)'s row: the luminance coefficients of sRGB (Rec. 709) that the Filter
#: Effects matrix uses, applied to sRGB values as browsers do.
_LUMINANCE = (0.2126, 0.7152, 0.0722, 0.0)


def filtered(image: PILImage.Image, filters: ImageFilters) -> PILImage.Image:
    """``image`` (RGB or RGBA) through ``filters``, in the same mode."""
    alpha = image.getchannel("A") if image.mode == "RGBA" else None
    rgb = image.convert("RGB")
    for matrix in matrices(filters):
        rgb = rgb.convert("RGB", matrix)
    if alpha is None:
        return rgb
    rgb.putalpha(alpha)
    return rgb


def matrices(filters: ImageFilters) -> list[Matrix]:
    """The steps ``filters`` take, leaving out those that change nothing."""
    steps: list[Matrix] = []
    if filters.brightness != 1:
        steps.append(_linear(filters.brightness, 0.0))
    if filters.contrast != 1:
        steps.append(_linear(filters.contrast, 0.5 - 0.5 * filters.contrast))
    if filters.saturation != 1:
        s = filters.saturation
        steps.append(
            _rows(
                (0.213 + 0.787 * s, 0.715 - 0.715 * s, 0.072 - 0.072 * s),
                (0.213 - 0.213 * s, 0.715 + 0.285 * s, 0.072 - 0.072 * s),
                (0.213 - 0.213 * s, 0.715 - 0.715 * s, 0.072 + 0.928 * s),
            )
        )
    if filters.hue_rotate % 360:
        a = math.radians(filters.hue_rotate)
        c, n = math.cos(a), math.sin(a)
        steps.append(
            _rows(
                (0.213 + c * 0.787 - n * 0.213, 0.715 - c * 0.715 - n * 0.715, 0.072 - c * 0.072 + n * 0.928),
                (0.213 - c * 0.213 + n * 0.143, 0.715 + c * 0.285 + n * 0.140, 0.072 - c * 0.072 - n * 0.283),
                (0.213 - c * 0.213 - n * 0.787, 0.715 - c * 0.715 + n * 0.715, 0.072 + c * 0.928 + n * 0.072),
            )
        )
    if filters.sepia:
        q = 1 - filters.sepia
        steps.append(
            _rows(
                (0.393 + 0.607 * q, 0.769 - 0.769 * q, 0.189 - 0.189 * q),
                (0.349 - 0.349 * q, 0.686 + 0.314 * q, 0.168 - 0.168 * q),
                (0.272 - 0.272 * q, 0.534 - 0.534 * q, 0.131 + 0.869 * q),
            )
        )
    if filters.invert:
        steps.append(_linear(1 - 2 * filters.invert, filters.invert))
    return steps


def _linear(slope: float, intercept: float) -> Matrix:
    """Each channel times ``slope`` plus ``intercept`` (in 0..1)."""
    offset = 255 * intercept
    return (slope, 0, 0, offset, 0, slope, 0, offset, 0, 0, slope, offset)


def _rows(*rows: tuple[float, float, float]) -> Matrix:
    return tuple(value for row in rows for value in (*row, 0.0))


def grayscale(image: PILImage.Image) -> PILImage.Image:
    """``image`` (RGB or RGBA) through CSS ``grayscale(1)``, in the same mode: painters
    see only RGB or RGBA."""
    gray = image.convert("RGB").convert("L", _LUMINANCE)
    if image.mode == "RGBA":
        return PILImage.merge("RGBA", (gray, gray, gray, image.getchannel("A")))
    return gray.convert("RGB")
