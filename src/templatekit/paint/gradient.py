"""Linear gradients as RGBA images, as both painters need them."""

from __future__ import annotations

import math

from PIL import Image as PILImage
from PIL import ImageChops

from templatekit.cache import memoized
from templatekit.model.values import Gradient


@memoized("gradient.images", 32, lambda image: image.width * image.height * len(image.getbands()))
def gradient_image(gradient: Gradient, size: tuple[int, int]) -> PILImage.Image:
    """A CSS linear-gradient: angle 180 runs top to bottom, 90 left to right, and the
    gradient line is just long enough that the corners get the end colours.

    Along the line, t = 1/2 + ((x - w/2) dx + (y - h/2) dy) / span with
    span = |w dx| + |h dy|; measured from the corner where t = 0, that is a sum of
    a ramp in x and a ramp in y whose ranges add up to at most 1, so two 8-bit
    ramps added together give the mask exactly, in C, without float images."""
    width, height = size
    if gradient.kind == "radial":
        return _blended(gradient, _radial_mask(size))
    angle = math.radians(gradient.angle)
    dx, dy = math.sin(angle), -math.cos(angle)
    span = abs(width * dx) + abs(height * dy) or 1.0
    across = _ramp(width, abs(width * dx) / span, reverse=dx < 0).resize(size, PILImage.Resampling.NEAREST)
    down = _ramp(height, abs(height * dy) / span, reverse=dy < 0).transpose(PILImage.Transpose.TRANSPOSE)
    mask = ImageChops.add(across, down.resize(size, PILImage.Resampling.NEAREST))
    return _blended(gradient, mask)


def _radial_mask(size: tuple[int, int]) -> PILImage.Image:
    """0 at the box's centre to 255 at its corners along ellipses of the box's shape:
    Pillow's radial gradient, 255 at the corners of its square, stretched over the box."""
    return PILImage.radial_gradient("L").resize(size, PILImage.Resampling.BILINEAR)


def _blended(gradient: Gradient, mask: PILImage.Image) -> PILImage.Image:
    """``from`` where the mask is 0, ``to`` where it is 255."""
    size = mask.size
    start = PILImage.new("RGBA", size, gradient.from_.rgba)
    if gradient.from_.a == gradient.to.a == 255:
        # ``to`` filled through the mask: the pixels of a composite with a whole image of
        # it, without making that image (a first render's new memory is its page faults)
        start.paste(gradient.to.rgba, (0, 0, *size), mask)
        return start
    end = PILImage.new("RGBA", size, gradient.to.rgba)
    if gradient.from_.rgba[3] == gradient.to.rgba[3]:
        return PILImage.composite(end, start, mask)  # the same alpha: premultiplying changes nothing
    # Blended premultiplied, as CSS does: a transparent end adds no colour of its own
    # (``transparent`` is black at zero alpha, which would otherwise grey the middle).
    return PILImage.composite(end.convert("RGBa"), start.convert("RGBa"), mask).convert("RGBA")


def gradient_line(
    gradient: Gradient, bounds: tuple[float, float, float, float]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """Start and end of the CSS gradient line over a box (x, y, width, height): through
    its centre at ``angle``, long enough that the corners get the end colours, as
    ``gradient_image`` draws it."""
    x, y, width, height = bounds
    angle = math.radians(gradient.angle)
    dx, dy = math.sin(angle), -math.cos(angle)
    half = (abs(width * dx) + abs(height * dy)) / 2
    cx, cy = x + width / 2, y + height / 2
    return (cx - dx * half, cy - dy * half), (cx + dx * half, cy + dy * half)


def _ramp(length: int, share: float, reverse: bool) -> PILImage.Image:
    """One row rising from 0 to 255 * share over ``length`` pixels (at pixel centres)."""
    line = PILImage.new("L", (length, 1))
    line.putdata([round(255 * share * (i + 0.5) / length) for i in range(length)])
    return line.transpose(PILImage.Transpose.FLIP_LEFT_RIGHT) if reverse else line
