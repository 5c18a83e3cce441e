"""Easing functions: progress in 0..1 → eased progress, from the curve's control points."""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from templatekit.model.easing import control_points

Easing = Callable[[float], float]


@cache
def easing_function(easing: str) -> Easing:
    """The eased progress at progress ``x``: the y of the Bézier curve where its x is ``x``."""
    x1, y1, x2, y2 = control_points(easing)
    if (x1, y1, x2, y2) == (0.0, 0.0, 1.0, 1.0):
        return lambda x: min(1.0, max(0.0, x))

    def coordinate(t: float, p1: float, p2: float) -> float:
        return 3 * (1 - t) ** 2 * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3

    def slope(t: float, p1: float, p2: float) -> float:
        return 3 * (1 - t) ** 2 * p1 + 6 * (1 - t) * t * (p2 - p1) + 3 * t**2 * (1 - p2)

    def eased(x: float) -> float:
        if x <= 0:
            return 0.0
        if x >= 1:
            return 1.0
        t = x  # Newton's method from x, falling back to bisection where the slope is flat
        for _ in range(8):
            error = coordinate(t, x1, x2) - x
            if abs(error) < 1e-7:
                return coordinate(t, y1, y2)
            d = slope(t, x1, x2)
            if abs(d) < 1e-6:
                break
            t = min(1.0, max(0.0, t - error / d))
        low, high = 0.0, 1.0
        t = x
        for _ in range(60):
            if coordinate(t, x1, x2) < x:
                low = t
            else:
                high = t
            t = (low + high) / 2
        return coordinate(t, y1, y2)

    return eased
