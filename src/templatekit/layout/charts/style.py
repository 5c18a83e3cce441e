"""The look of charts drawn by the engine: palette, colours, type sizes and spacing.

Text grows slowly with the chart's box, so a large chart stays legible when the design
is viewed small, and charts of different sizes in one design share nearly the same type.
"""

from __future__ import annotations

import math

from attrs import frozen

from templatekit.model.values import Color

# Petroff's 10-colour sequence ("petroff10" in Matplotlib; M. A. Petroff, "Accessible Color
# Sequences for Data Visualization", 2021): ten colours told apart with normal vision and
# each of the three colour-vision deficiencies, ordered so that the first n of them are
# the most distinct n. Blue, orange, red, grey, purple, brown, dark orange, khaki, slate,
# light cyan.
PALETTE = tuple(
    Color.parse(c)
    for c in (
        "#3f90da",
        "#ffa90e",
        "#bd1f01",
        "#94a4a2",
        "#832db6",
        "#a96b59",
        "#e76300",
        "#b9ac70",
        "#717581",
        "#92dadd",
    )
)
# The slice that groups the smallest ones: a light grey, apart from the palette's two
# greys and from its first nine colours (all a pie with the default maxSlices uses).
OTHER = Color.parse("#d1d5db")
TITLE = Color.parse("#0f172a")
TEXT = Color.parse("#475569")
GRID = Color.parse("#e2e8f0")
AXIS = Color.parse("#cbd5e1")
WHITE = Color(255, 255, 255)

BODY_WEIGHT = 400
STRONG_WEIGHT = 600


@frozen
class Metrics:
    """Sizes in px: ``text`` for labels, ticks and legends, ``title`` for the title,
    ``pad`` for the space between the parts of a chart."""

    text: float
    title: float
    pad: float

    @classmethod
    def of(cls, width: float, height: float) -> Metrics:
        text = min(20.0, max(11.0, round(9 + math.sqrt(width * height) / 90)))
        return cls(text=text, title=round(text * 1.3), pad=round(text * 0.75))

    @property
    def small(self) -> float:
        """Value labels and percentages: a little smaller than the axis text."""
        return round(self.text * 0.9, 1)

    @property
    def line(self) -> float:
        """The height of a line of axis text."""
        return self.text * 1.2

    @property
    def stroke(self) -> float:
        """The width of a line chart's lines."""
        return max(2.0, self.text / 5.5)


def text_on(fill: Color) -> Color:
    """White on a fill dark enough for it (contrast 3:1, WCAG's bar for bold text of
    this size), else near-black."""
    return WHITE if WHITE.contrast(fill) >= 3.0 else TITLE
