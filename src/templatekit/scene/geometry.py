"""Boxes in scene px: what the Scene's primitives answer for their extent, and what the
painters and the memory check cut, grow and turn them by."""

from __future__ import annotations

import math
from collections.abc import Iterable

from attrs import frozen

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


@frozen(cache_hash=True)
class Transform:
    """An affine map of scene px, in PDF's ``cm`` order: (x, y) becomes
    (a x + c y + e, b x + d y + f). y points down, so a positive turn is clockwise."""

    a: float = 1.0
    b: float = 0.0
    c: float = 0.0
    d: float = 1.0
    e: float = 0.0
    f: float = 0.0

    @staticmethod
    def turn(degrees: float, origin: tuple[float, float]) -> Transform:
        """A turn clockwise by ``degrees`` about ``origin``."""
        angle = math.radians(degrees)
        cos, sin = math.cos(angle), math.sin(angle)
        ox, oy = origin
        return Transform(cos, sin, -sin, cos, ox - cos * ox + sin * oy, oy - sin * ox - cos * oy)

    @staticmethod
    def zoom(scale: float, centre: tuple[float, float], dx: float = 0.0, dy: float = 0.0) -> Transform:
        """A scale about ``centre``, then a move by (dx, dy)."""
        cx, cy = centre
        return Transform(scale, 0.0, 0.0, scale, cx - scale * cx + dx, cy - scale * cy + dy)

    @property
    def is_identity(self) -> bool:
        return self == IDENTITY

    def then(self, outer: Transform) -> Transform:
        """This map followed by ``outer``."""
        return Transform(
            outer.a * self.a + outer.c * self.b,
            outer.b * self.a + outer.d * self.b,
            outer.a * self.c + outer.c * self.d,
            outer.b * self.c + outer.d * self.d,
            outer.a * self.e + outer.c * self.f + outer.e,
            outer.b * self.e + outer.d * self.f + outer.f,
        )

    def inverse(self) -> Transform:
        det = self.a * self.d - self.b * self.c
        a, b, c, d = self.d / det, -self.b / det, -self.c / det, self.a / det
        return Transform(a, b, c, d, -(a * self.e + c * self.f), -(b * self.e + d * self.f))

    def point(self, p: tuple[float, float]) -> tuple[float, float]:
        return (self.a * p[0] + self.c * p[1] + self.e, self.b * p[0] + self.d * p[1] + self.f)

    def box(self, box: Box) -> Box:
        """The bounding box of ``box`` mapped."""
        points = [self.point(p) for p in corners(box)]
        xs, ys = [p[0] for p in points], [p[1] for p in points]
        return min(xs), min(ys), max(xs), max(ys)

    def expansion(self) -> float:
        """How much the map enlarges lengths at most: 1 for a turn, k for a zoom by k."""
        most = math.sqrt(max(self.a**2 + self.b**2, self.c**2 + self.d**2))
        return 1.0 if abs(most - 1) < 1e-9 else most


IDENTITY = Transform()


#: A quarter circle's Bézier handles, as a share of its radius.
KAPPA = 0.5522847498
#: Which corners of a box are rounded: top-left, top-right, bottom-right, bottom-left.
Corners = tuple[bool, bool, bool, bool]


def rounded_box_commands(box: Box, radius: float, corners: Corners) -> tuple[tuple[float | str, ...], ...]:
    """The path of ``box`` with the flagged corners rounded by quarter circles of
    ``radius``, clockwise from the top-left: the one way charts write such a box, so
    that the raster painter knows it again and fills it as a box (``paint.boxes``)."""
    left, top, right, bottom = box
    k = radius * (1 - KAPPA)
    top_left, top_right, bottom_right, bottom_left = (radius if flag else 0.0 for flag in corners)
    commands: list[tuple[float | str, ...]] = [("M", left + top_left, top), ("L", right - top_right, top)]
    if top_right:
        commands.append(("C", right - k, top, right, top + k, right, top + radius))
    commands.append(("L", right, bottom - bottom_right))
    if bottom_right:
        commands.append(("C", right, bottom - k, right - k, bottom, right - radius, bottom))
    commands.append(("L", left + bottom_left, bottom))
    if bottom_left:
        commands.append(("C", left + k, bottom, left, bottom - k, left, bottom - radius))
    commands.append(("L", left, top + top_left))
    if top_left:
        commands.append(("C", left, top + k, left + k, top, left + radius, top))
    commands.append(("Z",))
    return tuple(commands)
