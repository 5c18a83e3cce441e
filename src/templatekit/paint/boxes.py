"""Boxes with some corners rounded (a chart's bars), known again from their path and
given an exact mask cheaply.

A bar drawn as a path is rasterised at 4x4 samples a pixel over its whole area, then
blended through that mask everywhere: two thirds of a bar chart's painting. Its mask is
in fact plain: full inside, a fraction along each straight side (the share of the edge
pixel inside the box), and a rounded corner's few pixels. Those corners are drawn once
at 16x16 samples for each radius and position within the pixel (to a sixteenth of a
pixel) and kept; the rest is a handful of constant fills.
"""

from __future__ import annotations

import math

from PIL import Image as PILImage
from PIL import ImageDraw

from templatekit.cache import memoized
from templatekit.scene import Path
from templatekit.scene.geometry import Box, Corners, rounded_box_commands

#: Samples a pixel across, for drawing a corner; positions and radii are kept to this.
CORNER_SAMPLES = 16
#: Fewer pixels than this across or down, and a box is left to the path painter.
MIN_SIDE = 2


def rounded_box(path: Path) -> tuple[Box, float, Corners] | None:
    """The box, radius and rounded corners of a path that ``rounded_box_commands``
    wrote; None for any other path."""
    commands = path.commands
    if not 6 <= len(commands) <= 10 or commands[0][0] != "M" or commands[-1] != ("Z",):
        return None
    written: list[bool] = []  # top-right, bottom-right, bottom-left, top-left: as they are written
    radius = 0.0
    at = 1
    for _ in range(4):
        if at >= len(commands) - 1 or commands[at][0] != "L":
            return None
        rounded = commands[at + 1][0] == "C"
        if rounded and not radius:
            radius = abs(commands[at + 1][5] - commands[at][1])  # a quarter circle moves its radius across
        written.append(rounded)
        at += 1 + rounded
    if at != len(commands) - 1:
        return None
    xs, ys = [command[-2] for command in commands[:-1]], [command[-1] for command in commands[:-1]]
    box = (min(xs), min(ys), max(xs), max(ys))
    corners = (written[3], written[0], written[1], written[2])
    for mine, expected in zip(commands, rounded_box_commands(box, radius, corners), strict=True):
        if mine[0] != expected[0] or not all(
            math.isclose(a, float(b), rel_tol=1e-9, abs_tol=1e-9) for a, b in zip(mine[1:], expected[1:], strict=True)
        ):
            return None
    return box, radius, corners


def box_mask(size: tuple[int, int], box: Box, radius: float, corners: Corners) -> PILImage.Image | None:
    """The coverage of ``box`` (in the mask's pixels, which hold it from its first pixel
    to its last) with the flagged corners rounded by ``radius``; None when the box is
    too small for its corners to keep apart."""
    width, height = size
    left, top, right, bottom = box
    if right - left < 2 * radius + MIN_SIDE or bottom - top < 2 * radius + MIN_SIDE:
        return None
    across, down = _shares(width, left, right), _shares(height, top, bottom)
    mask = PILImage.new("L", size, 255)
    for x in {0, width - 1}:
        if across[x] < 255:
            mask.paste(across[x], (x, 0, x + 1, height))
    for y in {0, height - 1}:
        if down[y] < 255:
            mask.paste(down[y], (0, y, width, y + 1))
            for x in {0, width - 1}:
                mask.putpixel((x, y), round(across[x] * down[y] / 255))
    points = ((left, top), (right, top), (right, bottom), (left, bottom))
    for index, ((point_x, point_y), rounded) in enumerate(zip(points, corners, strict=True)):
        if rounded:
            column = math.floor(point_x - radius if index in (1, 2) else point_x)
            row = math.floor(point_y - radius if index in (2, 3) else point_y)
            place = (_sixteenths(point_x - column), _sixteenths(point_y - row))
            mask.paste(_corner(index, _sixteenths(radius), *place), (column, row))
    return mask


def _shares(count: int, start: float, end: float) -> list[int]:
    """How much of each of ``count`` pixels in a row lies in [start, end], 0-255."""
    shares = [255] * count
    for edge in {0, count - 1}:
        shares[edge] = max(0, min(255, round((min(edge + 1.0, end) - max(float(edge), start)) * 255)))
    return shares


def _sixteenths(value: float) -> int:
    return round(value * CORNER_SAMPLES)


@memoized("raster.corners", 4096, lambda patch: 200 + patch.width * patch.height)
def _corner(index: int, radius: int, x: int, y: int) -> PILImage.Image:
    """Coverage of one rounded corner (0: top-left, then clockwise) of ``radius``
    sixteenths, in the pixels of its square, the corner's point ``x``, ``y`` sixteenths
    from the square's first pixel; the box's straight sides run on past the square."""
    k = CORNER_SAMPLES
    # the square's pixels and no more: another corner may begin in the next pixel
    across = math.ceil((x + radius if index in (0, 3) else x) / k)
    down = math.ceil((y + radius if index in (0, 1) else y) / k)
    far = 2 * (across + down) * k  # the box's other sides, beyond the square
    left, right = (x, far) if index in (0, 3) else (-far, x)
    top, bottom = (y, far) if index in (0, 1) else (-far, y)
    big = PILImage.new("L", (across * k, down * k), 0)
    rounded = (index == 0, index == 1, index == 2, index == 3)
    ImageDraw.Draw(big).rounded_rectangle((left, top, right - 1, bottom - 1), radius=radius, fill=255, corners=rounded)
    return big.reduce(k)
