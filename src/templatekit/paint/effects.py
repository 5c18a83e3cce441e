"""Layer effects on pixels: blur and drop shadows.

A group with effects is painted on a surface of its own (``raster._paint_on_own_surface``);
this module turns that surface into what lands on the canvas (``blending`` then composites
it with the group's blend mode). As in CSS, a layer's blur is ``filter: blur()``, its value
the Gaussian's standard deviation (Filter Effects 1), a shadow's is ``box-shadow``'s blur
radius, twice the deviation; shadows sit under the pixels, the first shadow on top. A
shadow's spread grows the group's shape as CSS grows a box (each primitive's ``spread``),
or, where the group has no shape to grow (text, pictures), its pixels (``spread``).
"""

from __future__ import annotations

from collections.abc import Callable

from PIL import Image as PILImage
from PIL import ImageChops, ImageFilter

from templatekit.scene import DropShadow, Effects

#: The coverage of the group grown by a spread in px, drawn from its geometry as CSS grows
#: a shape, on an image of the group's; None where the group can only be grown in pixels.
Spreader = Callable[[float], "PILImage.Image | None"]
#: The images of a layer's size that its blur or shadows hold at once.
EFFECT_IMAGES = 3
#: A blur is computed on a copy this many times smaller per this many px of its
#: standard deviation, up to _MAX_REDUCTION.
_SIGMA_PER_REDUCTION = 3.0
_MAX_REDUCTION = 4


def with_effects(image: PILImage.Image, effects: Effects, scale: float, spread: Spreader) -> PILImage.Image:
    """``image`` (RGBA, with room around it for the effects) blurred and with its
    shadows under it. Each effect needs about three more images of this size at once
    (``EFFECT_IMAGES``)."""
    shadows = shadows_of(image, effects.shadows, scale, spread) if effects.shadows else None
    if shadows is not None:
        shadows.alpha_composite(image)
        image = shadows
    return blurred(image, effects.blur * scale) if effects.blur > 0 else image


def shadows_of(
    image: PILImage.Image, shadows: tuple[DropShadow, ...], scale: float, spread: Spreader
) -> PILImage.Image:
    """The shadows ``image`` casts, without the image: the last shadow lowest."""
    alpha = image.getchannel("A")
    drawn = [_shadow(alpha, shadow, scale, spread) for shadow in reversed(shadows)]
    result = drawn[0]
    for shadow in drawn[1:]:
        result.alpha_composite(shadow)
    return result


def blurred(image: PILImage.Image, sigma: float) -> PILImage.Image:
    """A Gaussian blur of standard deviation ``sigma`` px on premultiplied colours, so
    that transparent pixels do not darken the edges."""
    return gaussian(image.convert("RGBa"), sigma).convert("RGBA")


def gaussian(image: PILImage.Image, sigma: float, fade: int = 255) -> PILImage.Image:
    """A Gaussian blur of standard deviation ``sigma`` px, its values times ``fade`` / 255.
    A wide one is computed on a smaller copy and scaled back (what browsers do too): a
    blur that wide has no detail a smaller copy loses, and it costs a fraction."""
    factor = max(1, min(_MAX_REDUCTION, int(sigma // _SIGMA_PER_REDUCTION)))
    if min(image.size) < 4 * factor:
        factor = 1
    small = image.reduce(factor) if factor > 1 else image
    small = small.filter(ImageFilter.GaussianBlur(sigma / factor))
    if fade < 255:  # on the small copy: a ninth of the pixels or fewer
        small = small.point(lambda value: value * fade // 255)
    return _scaled_back(small, image.size, factor)


def _scaled_back(small: PILImage.Image, size: tuple[int, int], factor: int) -> PILImage.Image:
    """A copy reduced ``factor`` times scaled back to ``size``. Its last pixels may stand
    for fewer than ``factor`` pixels: exactly the part that stands for the image is
    scaled, so that edges stay where they were."""
    if factor == 1:
        return small
    covered = (0, 0, size[0] / factor, size[1] / factor)
    return small.resize(size, PILImage.Resampling.BILINEAR, box=covered)


def _shadow(alpha: PILImage.Image, shadow: DropShadow, scale: float, spread: Spreader) -> PILImage.Image:
    coverage = _spread(alpha, shadow.spread, scale, spread)
    if shadow.blur > 0:
        coverage = gaussian(coverage, shadow.blur * scale / 2, shadow.color.a)
    elif shadow.color.a < 255:
        coverage = coverage.point(lambda value: value * shadow.color.a // 255)
    moved = PILImage.new("L", alpha.size, 0)
    moved.paste(coverage, (round(shadow.x * scale), round(shadow.y * scale)))
    painted = PILImage.new("RGBA", alpha.size, (*shadow.color.rgba[:3], 0))
    painted.putalpha(moved)
    return painted


def _spread(alpha: PILImage.Image, by: float, scale: float, spread: Spreader) -> PILImage.Image:
    """The coverage grown by ``by`` px: drawn from the group's geometry grown where it
    has one, else grown in pixels."""
    if by == 0:
        return alpha
    drawn = spread(by)
    if drawn is not None:
        return drawn
    from templatekit.paint.spread import spread as spread_pixels  # numpy loads only for this

    return spread_pixels(alpha, by * scale)


def grown(mask: PILImage.Image, pixels: int) -> PILImage.Image:
    """``mask`` grown by ``pixels`` in every direction, the steps alternating between a
    square and a cross so that corners come out near round (an octagon), as an outline
    around letters should."""
    for step in range(pixels):
        if step % 2 == 0:
            mask = mask.filter(ImageFilter.MaxFilter(3))
        else:
            cross = mask
            for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                cross = ImageChops.lighter(cross, ImageChops.offset(mask, dx, dy))
            mask = cross
    return mask
