"""Easings as the template format names them: CSS timing functions, each a cubic Bézier
curve from (0, 0) to (1, 1) given by its two inner control points."""

from __future__ import annotations

import re

NAMED: dict[str, tuple[float, float, float, float]] = {
    "linear": (0.0, 0.0, 1.0, 1.0),
    "ease-in": (0.42, 0.0, 1.0, 1.0),
    "ease-out": (0.0, 0.0, 0.58, 1.0),
    "ease-in-out": (0.42, 0.0, 0.58, 1.0),
}
_NUMBER = r"\s*(-?(?:\d+\.?\d*|\.\d+))\s*"
_CUBIC_BEZIER = re.compile(rf"cubic-bezier\({_NUMBER},{_NUMBER},{_NUMBER},{_NUMBER}\)")


def control_points(easing: str) -> tuple[float, float, float, float]:
    """(x1, y1, x2, y2) of a named easing or of ``cubic-bezier(x1,y1,x2,y2)``; x1 and x2
    must lie in 0..1 (as in CSS), so that the curve gives one value per moment."""
    if easing in NAMED:
        return NAMED[easing]
    match = _CUBIC_BEZIER.fullmatch(easing.strip())
    if match is None:
        raise ValueError(f"must be one of {', '.join(NAMED)} or cubic-bezier(x1,y1,x2,y2) (got {easing!r})")
    x1, y1, x2, y2 = (float(number) for number in match.groups())
    if not (0 <= x1 <= 1 and 0 <= x2 <= 1):
        raise ValueError(f"cubic-bezier x values must be between 0 and 1 (got {easing!r})")
    return x1, y1, x2, y2
