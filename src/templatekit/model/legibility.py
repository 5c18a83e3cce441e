"""Whether a scanner can tell a code's bars (or modules) from its background.

Scanners see reflectance, not colour. Laser and many imaging barcode scanners light the
code in red, under which red bars look as light as white paper; camera-based readers
see something like luminance. ISO/IEC 15416 grades the symbol contrast (the difference
of the two reflectances) and calls below 40 % poor; below 20 % fails. 1-D symbologies
need dark bars on a light ground; QR codes may be reversed (ISO/IEC 18004:2015), though
not every reader handles it, so only their contrast is checked.
"""

from __future__ import annotations

from templatekit.model.values import Color

LEAST_CONTRAST = 0.4


def _linear(channel: int) -> float:
    c = channel / 255
    return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4


def _over(color: Color, background: Color) -> Color:
    """``color`` composited over an opaque ``background``."""
    a = color.a / 255
    mix = (round(c * a + b * (1 - a)) for c, b in zip(color.rgba[:3], background.rgba[:3], strict=True))
    return Color(*mix)


def scan_problem(color: Color, background: Color, reversible: bool) -> str | None:
    """Why a code drawn in ``color`` on ``background`` may not scan, or None. Nothing is
    said of a background that is not opaque: what shows through it is not known here."""
    if background.a < 255:
        return None
    bars = _over(color, background)
    seen = background.luminance - bars.luminance
    if seen < 0 and not reversible:
        return (
            f"light bars ({color.hex}) on a darker background ({background.hex}): "
            "barcode scanners need dark bars on a light ground"
        )
    if abs(seen) < LEAST_CONTRAST:
        return (
            f"{color.hex} on {background.hex} differ by {abs(seen):.0%} in lightness; "
            f"scanners need {LEAST_CONTRAST:.0%} or more"
        )
    in_red = _linear(background.r) - _linear(bars.r)
    if not reversible and in_red < LEAST_CONTRAST:
        return (
            f"under the red light of laser scanners, {color.hex} bars differ from {background.hex} by "
            f"only {max(in_red, 0):.0%}: use darker bars (red looks white to them)"
        )
    return None
