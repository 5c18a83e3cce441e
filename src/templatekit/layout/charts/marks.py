"""The shapes charts are drawn with, as Scene paths: bars rounded at their outer end,
pie and doughnut slices, lines and the areas under them, markers."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Literal

from templatekit.model.values import Color
from templatekit.scene import Ellipse, Item, Path, Point
from templatekit.scene.geometry import Corners, rounded_box_commands

End = Literal["top", "bottom", "left", "right"]
#: The corners rounded at each end of a bar: top-left, top-right, bottom-right, bottom-left.
_ROUNDED: dict[str, Corners] = {
    "top": (True, True, False, False),
    "bottom": (False, False, True, True),
    "left": (True, False, False, True),
    "right": (False, True, True, False),
}
Command = tuple[Any, ...]


def bar(x0: float, y0: float, x1: float, y1: float, radius: float, end: End | None, fill: Color) -> Path:
    """A bar from ``x0, y0`` to ``x1, y1`` with its corners at ``end`` rounded."""
    left, right, top, bottom = min(x0, x1), max(x0, x1), min(y0, y1), max(y0, y1)
    r = max(0.0, min(radius, (right - left) / 2, (bottom - top) / 2)) if end else 0.0
    rounded = _ROUNDED[end] if end and r > 0 else (False, False, False, False)
    return Path(rounded_box_commands((left, top, right, bottom), r, rounded), fill=fill)


def on_circle(cx: float, cy: float, radius: float, angle: float) -> Point:
    """The point at ``angle`` radians clockwise from the top."""
    return (cx + radius * math.sin(angle), cy - radius * math.cos(angle))


def arc(cx: float, cy: float, radius: float, start: float, end: float) -> list[Command]:
    """Cubic segments along a circle from ``start`` to ``end`` (radians clockwise from
    the top; either way round), at most a quarter turn each."""
    pieces = max(1, math.ceil(abs(end - start) / (math.pi / 2) - 1e-9))
    step = (end - start) / pieces
    handle = 4 / 3 * math.tan(step / 4) * radius
    commands: list[Command] = []
    for index in range(pieces):
        a, b = start + index * step, start + (index + 1) * step
        (x0, y0), (x1, y1) = on_circle(cx, cy, radius, a), on_circle(cx, cy, radius, b)
        commands.append(
            (
                "C",
                x0 + handle * math.cos(a),
                y0 + handle * math.sin(a),
                x1 - handle * math.cos(b),
                y1 - handle * math.sin(b),
                x1,
                y1,
            )
        )
    return commands


def slice_(cx: float, cy: float, outer: float, inner: float, start: float, end: float, fill: Color) -> Path:
    """A pie slice (``inner`` 0) or a doughnut's, from ``start`` to ``end`` radians
    clockwise from the top; a whole turn is a disc or a ring."""
    whole = end - start >= 2 * math.pi - 1e-9
    if whole:
        ring = [("M", *on_circle(cx, cy, outer, 0)), *arc(cx, cy, outer, 0, 2 * math.pi), ("Z",)]
        if inner > 0:
            ring += [("M", *on_circle(cx, cy, inner, 0)), *arc(cx, cy, inner, 2 * math.pi, 0), ("Z",)]
        return Path(tuple(ring), fill=fill)
    commands: list[Command] = [("M", *on_circle(cx, cy, outer, start)), *arc(cx, cy, outer, start, end)]
    if inner > 0:
        commands += [("L", *on_circle(cx, cy, inner, end)), *arc(cx, cy, inner, end, start)]
    else:
        commands.append(("L", cx, cy))
    commands.append(("Z",))
    return Path(tuple(commands), fill=fill)


def polyline(points: Sequence[Point], color: Color, width: float) -> Path:
    commands = [("M", *points[0]), *(("L", *p) for p in points[1:])]
    return Path(tuple(commands), stroke=color, stroke_width=width, line_cap="round", line_join="round")


def band(upper: Sequence[Point], lower: Sequence[Point], fill: Color) -> Path:
    """The area between two lines over the same positions (``lower`` left to right)."""
    outline = [*upper, *reversed(lower)]
    return Path((("M", *outline[0]), *(("L", *p) for p in outline[1:]), ("Z",)), fill=fill)


MARKER = 3.0  # a line's marker: its dot's diameter in widths of the line
LEAST = 2.0  # the smallest such dot: any smaller, it no longer shows apart from its line


def line_marker(stroke: float, spacing: float) -> float | None:
    """The dot of a line's markers on points ``spacing`` px apart, ringed by a quarter of
    its width (``marker``): three times the line's width while a whole marker's width is
    left between neighbours (so they read as points, not as a bead chain), smaller to
    keep that room down to twice the line's width, and None below that: the line alone."""
    diameter = min(MARKER * stroke, spacing / 3)  # a ringed marker is 1.5 dots wide
    return diameter if diameter >= LEAST * stroke else None


def marker(x: float, y: float, diameter: float, fill: Color, ring: float) -> list[Item]:
    """A dot centred on ``x, y`` in a white ring that parts it from lines under it."""
    outer = diameter + 2 * ring
    return [
        Ellipse(x - outer / 2, y - outer / 2, outer, outer, Color(255, 255, 255)),
        Ellipse(x - diameter / 2, y - diameter / 2, diameter, diameter, fill),
    ]
