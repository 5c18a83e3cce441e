"""A chart layer's rows as series of labelled values, with their colours.

Both row shapes become a list of series; a series without its own colour takes the next
palette colour. Slices of pies take their colour by label instead, the same in every pie
and in the legend: the first colour a row gives the label, else the label's palette
colour. The smallest slices may be grouped into one "Other" slice.
"""

from __future__ import annotations

from attrs import frozen

from templatekit.layout.charts.style import OTHER, PALETTE
from templatekit.model.layers import ChartLayer, ChartPoint, ChartSeries
from templatekit.model.values import Color

OTHER_LABEL = "Other"


@frozen
class Series:
    name: str
    points: tuple[ChartPoint, ...]
    color: Color

    def value(self, label: str) -> float | None:
        """The value at a category, None where the series has none."""
        for point in self.points:
            if point.label == label:
                return point.value
        return None

    def color_of(self, point: ChartPoint) -> Color:
        return point.color or self.color


def series_of(layer: ChartLayer) -> list[Series]:
    palette = palette_of(layer)
    rows = layer.rows
    if not rows:
        return []
    if isinstance(rows[0], ChartSeries):
        colors = cycled(palette, len(rows))
        return [
            Series(s.name, s.data, s.color or color)
            for s, color in zip(rows, colors, strict=True)
            if isinstance(s, ChartSeries)
        ]
    points = tuple(p for p in rows if isinstance(p, ChartPoint))
    return [Series(layer.title or "", points, palette[0])]


def palette_of(layer: ChartLayer) -> tuple[Color, ...]:
    return layer.colors or PALETTE


def cycled(palette: tuple[Color, ...], count: int) -> list[Color]:
    """``count`` colours, the palette's in turn and again from its start, so that no two
    neighbours share one; round a pie the last is the first's neighbour too, so where it
    would repeat the first's colour it takes the palette's middle one instead."""
    colors = [palette[i % len(palette)] for i in range(count)]
    if count > 2 and len(palette) > 2 and colors[-1] == colors[0]:
        colors[-1] = palette[len(palette) // 2]
    return colors


def categories(series: list[Series]) -> list[str]:
    """Every label, in the order of first appearance."""
    return list(dict.fromkeys(p.label for s in series for p in s.points))


@frozen
class Slices:
    """The slices of every pie: series with labels outside the kept ones summed into
    one "Other" point, and the colour of each label."""

    series: list[Series]
    colors: dict[str, Color]
    grouped: int  # labels put into "Other"
    clashes: tuple[str, ...] = ()  # labels given different colours in different pies


def slices(layer: ChartLayer, series: list[Series]) -> Slices:
    """Pies with at most ``max_slices`` slices: the labels with the largest totals (over
    every pie) are kept, in their order, and the rest summed into "Other" (with a row
    of that name, if there is one)."""
    labels = categories(series)
    limit = layer.max_slices
    grouped: set[str] = set()
    if limit is not None and len(labels) > limit:
        totals = {label: sum(s.value(label) or 0.0 for s in series) for label in labels}
        ranked = sorted((label for label in labels if label != OTHER_LABEL), key=lambda label: -totals[label])
        grouped = set(labels) - set(ranked[: limit - 1])
        series = [_grouped(s, grouped) for s in series]
    colors = label_colors(series, palette_of(layer), OTHER_LABEL if grouped else None)
    return Slices(series, colors, len(grouped - {OTHER_LABEL}), _clashes(series))


def label_colors(series: list[Series], palette: tuple[Color, ...], other: str | None = None) -> dict[str, Color]:
    """The colour of each label in every pie and its legend: the first colour a row gives
    it, else its palette colour; ``other`` (the grouped slices) is grey."""
    given = _given(series)
    labels = [label for label in categories(series) if label != other]
    cycle = cycled(palette, len(labels))
    colors = {label: given[label][0] if label in given else color for label, color in zip(labels, cycle, strict=True)}
    if other is not None:
        colors[other] = OTHER
    return colors


def _clashes(series: list[Series]) -> tuple[str, ...]:
    """Labels whose rows give them different colours (in different pies)."""
    return tuple(label for label, colors in _given(series).items() if len(set(colors)) > 1)


def _given(series: list[Series]) -> dict[str, list[Color]]:
    """The colours the rows give each label, in the order of the rows."""
    given: dict[str, list[Color]] = {}
    for point in (p for s in series for p in s.points):
        if point.color is not None:
            given.setdefault(point.label, []).append(point.color)
    return given


def _grouped(series: Series, grouped: set[str]) -> Series:
    kept = tuple(p for p in series.points if p.label not in grouped)
    rest = sum(p.value for p in series.points if p.label in grouped)
    return Series(series.name, (*kept, ChartPoint(label=OTHER_LABEL, value=rest)), series.color)
