"""Star rating layers: ``max`` stars in a row, the first ``star`` of them filled.

Ratings are shown to the nearest half star. A half star is an empty star with the
full one drawn over it, clipped to its left half, so that both painters draw it with
the primitives they already have.
"""

from __future__ import annotations

import math

from templatekit.layout.context import LayoutContext
from templatekit.model.layers import StarLayer
from templatekit.model.values import Color
from templatekit.scene import Clip, Group, Item, Point, Polygon

GAP = 0.15  # space between stars, as a share of a star's size
INNER = math.sin(math.radians(18)) / math.sin(math.radians(54))  # inner radius of a regular star, ≈ 0.382
_WIDTH = 2 * math.cos(math.radians(18))  # width of a star over its outer radius
_DROP = (1 - math.cos(math.radians(36))) / 2  # centre offset that centres a star's height in its cell


def rounded(rating: float) -> float:
    """The rating to the nearest half, halves rounding up."""
    return math.floor(rating * 2 + 0.5) / 2


def star_points(cx: float, cy: float, radius: float) -> tuple[Point, ...]:
    """The 10 corners of a five-pointed star, point up, clockwise from the top."""
    points = []
    for index in range(10):
        r = radius if index % 2 == 0 else radius * INNER
        angle = math.radians(36 * index)
        points.append((cx + r * math.sin(angle), cy - r * math.cos(angle)))
    return tuple(points)


def layout(layer: StarLayer, ctx: LayoutContext) -> list[Item]:
    count = layer.max
    size = min(layer.height, layer.width / (count + GAP * (count - 1)))
    step = size * (1 + GAP)
    row_width = size * count + size * GAP * (count - 1)
    left = layer.x + (layer.width - row_width) / 2
    top = layer.y + (layer.height - size) / 2
    radius = size / _WIDTH
    rating = rounded(layer.star)
    items: list[Item] = []
    for index in range(count):
        cell = left + index * step
        points = star_points(cell + size / 2, top + size / 2 + radius * _DROP, radius)
        left_half = Clip(cell, top, size / 2, size)
        items.extend(_star(points, rating - index, layer.color, layer.empty_color, left_half))
    return items


def _star(points: tuple[Point, ...], fill: float, color: Color, empty: Color, left_half: Clip) -> list[Item]:
    """A full (``fill`` ≥ 1), half (0.5) or empty star."""
    if fill >= 1:
        return [Polygon((points,), color)]
    if fill == 0.5:
        return [Polygon((points,), empty), Group((Polygon((points,), color),), clip=left_half)]
    return [Polygon((points,), empty)]
