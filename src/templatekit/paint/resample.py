"""Sampling placed pixels (``templatekit.paint.placing``): premultiplied RGBA arrays, so
that resampling does not darken edges, sampled bilinearly (as browsers draw transformed
layers) at pixel centres. OpenCV does it (the ``video`` extra brings it) ten to twenty
times faster than Pillow's ``transform``; without it Pillow samples the same points, to
within a level of rounding."""

from __future__ import annotations

import numpy as np
from PIL import Image as PILImage

from templatekit.paint.placing import Matrix, Placement

try:
    import cv2
except ImportError:  # the core install: Pillow samples
    cv2 = None  # type: ignore[assignment]


def sample(placement: Placement, pixels: np.ndarray, into: np.ndarray | None = None) -> np.ndarray:
    """Premultiplied RGBA ``pixels`` as they land on the placement's box: transparent
    where they do not reach, or, given ``into`` (the box's pixels, which are written),
    left as they were there (for a source that is opaque)."""
    shift = placement.shift
    width, height = placement.size
    if shift is not None and into is None:
        x, y = shift
        if min(x, y) >= 0 and x + width <= pixels.shape[1] and y + height <= pixels.shape[0]:
            return pixels[y : y + height, x : x + width]
    return warp(pixels, placement.matrix, placement.size, into, inside(placement, pixels))


#: How far inside its source's outer pixel centres a sample must fall to be sure that
#: it does not reach past them (OpenCV rounds sample points to 1/32 px).
SAMPLE_MARGIN = 1 / 16


def inside(placement: Placement, pixels: np.ndarray) -> bool:
    """Whether every pixel of the placement is sampled from the source's own pixels alone,
    never from past its edges: then the whole box is written, whatever lies outside."""
    width, height = placement.size
    source_height, source_width = pixels.shape[:2]
    if (shift := placement.shift) is not None:
        x, y = shift
        return x >= 0 and y >= 0 and x + width <= source_width and y + height <= source_height
    a, b, c, d, e, f = placement.matrix
    corners = [(x + 0.5, y + 0.5) for x in (0, width - 1) for y in (0, height - 1)]
    xs = [a * x + b * y + c - 0.5 for x, y in corners]  # source pixel centres sampled
    ys = [d * x + e * y + f - 0.5 for x, y in corners]
    low, high_x, high_y = SAMPLE_MARGIN, source_width - 1 - SAMPLE_MARGIN, source_height - 1 - SAMPLE_MARGIN
    return min(xs) >= low and min(ys) >= low and max(xs) <= high_x and max(ys) <= high_y


def sample_image(placement: Placement, image: PILImage.Image) -> PILImage.Image:
    """``sample`` for an RGBA Pillow image, to one."""
    pixels = sample(placement, np.asarray(image.convert("RGBa")))
    return PILImage.fromarray(np.ascontiguousarray(pixels), "RGBa").convert("RGBA")


def warp(
    pixels: np.ndarray,
    matrix: Matrix,
    size: tuple[int, int],
    into: np.ndarray | None = None,
    within_source: bool = False,
) -> np.ndarray:
    """Output pixel (X, Y) of ``size`` shows ``pixels`` at ``matrix`` (X, Y); see ``sample``.
    ``within_source``: no sample reaches past the source's edges (``inside``)."""
    if cv2 is None:
        if into is not None:
            raise RuntimeError("sampling into pixels needs OpenCV (the video extra)")
        # Pillow leaves out samples past the last pixel centre, OpenCV blends them with
        # the transparent border: a transparent pixel around the source does the same
        image = PILImage.fromarray(np.pad(pixels, ((1, 1), (1, 1), (0, 0))), "RGBa")
        a, b, c, d, e, f = matrix
        moved = (a, b, c + 1, d, e, f + 1)
        return np.asarray(image.transform(size, PILImage.Transform.AFFINE, moved, PILImage.Resampling.BILINEAR))
    a, b, c, d, e, f = matrix
    # OpenCV samples at pixel centres: output centre X + 1/2 -> source point -> minus 1/2
    cv_matrix = np.array([[a, b, c + (a + b) / 2 - 0.5], [d, e, f + (d + e) / 2 - 0.5]], dtype=np.float64)
    flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
    if into is not None:
        # the border is never sampled from within the source, and a constant one is a
        # quarter faster than keeping what ``into`` holds
        border = cv2.BORDER_CONSTANT if within_source else cv2.BORDER_TRANSPARENT
        return cv2.warpAffine(pixels, cv_matrix, size, dst=into, flags=flags, borderMode=border)
    return cv2.warpAffine(
        pixels, cv_matrix, size, flags=flags, borderMode=cv2.BORDER_CONSTANT, borderValue=(0, 0, 0, 0)
    )


def shrunk(pixels: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``pixels`` made smaller to ``size`` (width, height), each output pixel the mean of
    the source pixels it covers (area averaging: no moiré on text and fine lines)."""
    if cv2 is not None:
        return cv2.resize(pixels, size, interpolation=cv2.INTER_AREA)
    return np.asarray(PILImage.fromarray(pixels).resize(size, PILImage.Resampling.BOX))
