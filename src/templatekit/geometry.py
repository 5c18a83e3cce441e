"""Boxes in scene px: what the Scene's primitives answer for their extent, and what the
painters and the memory check cut, grow and turn them by."""

from __future__ import annotations

import math
from collections.abc import Iterable

Box = tuple[float, float, float, float]  # left, top, right, bottom


def grown(box: Box, reach: float) -> Box:
    """``box`` grown by ``reach`` on every side."""
    return (box[0] - reach, box[1] - reach, box[2] + reach, box[3] + reach)


def overlap(first: Box | None, second: Box) -> Box | None:
    """The part of ``first`` inside ``second``; None when they do not meet."""
    if first is None:
        return None
    box = (max(first[0], second[0]), max(first[1], second[1]), min(first[2], second[2]), min(first[3], second[3]))
    return box if box[0] < box[2] and box[1] < box[3] else None


def union(boxes: Iterable[Box | None]) -> Box | None:
    """The box around the boxes given (None ones left out); None when there are none."""
    found = [box for box in boxes if box is not None]
    if not found:
        return None
    return (min(b[0] for b in found), min(b[1] for b in found), max(b[2] for b in found), max(b[3] for b in found))


def corners(box: Box) -> list[tuple[float, float]]:
    return [(box[0], box[1]), (box[2], box[1]), (box[0], box[3]), (box[2], box[3])]


def turned(box: Box, degrees: float, origin: tuple[float, float]) -> Box:
    """The bounding box of ``box`` turned clockwise by ``degrees`` about ``origin``."""
    angle = math.radians(degrees)
    cos, sin = math.cos(angle), math.sin(angle)
    ox, oy = origin
    points = [(ox + (x - ox) * cos - (y - oy) * sin, oy + (x - ox) * sin + (y - oy) * cos) for x, y in corners(box)]
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    return min(xs), min(ys), max(xs), max(ys)


def swept(box: Box, origin: tuple[float, float]) -> Box:
    """The square about ``origin`` that ``box`` stays in however it is turned about it."""
    ox, oy = origin
    reach = max(math.hypot(x - ox, y - oy) for x, y in corners(box))
    return (ox - reach, oy - reach, ox + reach, oy + reach)
