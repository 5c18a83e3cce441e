"""Bar, horizontal bar, line, area and scatter charts: a value axis with gridlines and
a category axis, fitted into the room the title and legend leave.

The plot keeps the larger share of its room: category labels take at most 30 % of the
height (40 % of the width when they stand beside horizontal bars) and wrap or thin out
rather than grow. Values below zero hang from a zero line; without them a baseline runs
under the plot. Value labels, when asked for, get room above (beside) the bars.
"""

from __future__ import annotations

from collections.abc import Sequence

from attrs import frozen

from templatekit.layout.charts import marks
from templatekit.layout.charts.axes import (
    CategoryLabels,
    Scale,
    Ticks,
    extent,
    label_format,
    side_by_side,
    stacked,
    ticks_along,
)
from templatekit.layout.charts.canvas import Box, Canvas
from templatekit.layout.charts.data import Series, categories
from templatekit.layout.charts.style import AXIS, GRID, STRONG_WEIGHT, text_on
from templatekit.model.layers import ChartPoint
from templatekit.model.values import Color
from templatekit.numbers import NumberFormat
from templatekit.scene import Line, Point
from templatekit.text.typeset import TextBlock

BAR_GAP = 0.3  # share of a category's slot left between groups of bars
GROUP_GAP = 0.12  # space between bars in a group, as a share of a bar's width


@frozen
class _Data:
    series: list[Series]
    names: list[str]  # categories, in order
    numeric: list[float] | None  # scatter: the labels as numbers, when they all are

    @classmethod
    def of(cls, series: list[Series], scatter: bool) -> _Data:
        names = categories(series)
        numeric = None
        if scatter and names:
            try:
                numeric = [float(name) for name in names]
            except ValueError:
                numeric = None
        return cls(series, names, numeric)

    def values(self) -> list[float]:
        return [p.value for s in self.series for p in s.points]


def draw(canvas: Canvas, series: list[Series], room: Box) -> None:
    layer = canvas.layer
    data = _Data.of(series, layer.chart_type == "scatter")
    if layer.chart_type == "horizontalBar":
        _Horizontal(canvas, data, room).draw()
    else:
        _Vertical(canvas, data, room).draw()


def stacks(data: _Data) -> list[tuple[float, float]]:
    """For each category, the sum of its values above zero and of those below."""
    totals = []
    for name in data.names:
        values = [s.value(name) or 0.0 for s in data.series]
        totals.append((sum(v for v in values if v > 0), sum(v for v in values if v < 0)))
    return totals


def _range(canvas: Canvas, data: _Data) -> tuple[float, float]:
    layer = canvas.layer
    if layer.stacked and layer.chart_type in ("bar", "horizontalBar", "area"):
        totals = stacks(data)
        return extent([v for pair in totals for v in pair], from_zero=True)
    return extent(data.values(), from_zero=layer.chart_type != "scatter")


class _Plot:
    """What both orientations start from: the canvas, the data, the box and the value range."""

    def __init__(self, canvas: Canvas, data: _Data, room: Box) -> None:
        self.canvas, self.data, self.room = canvas, data, room
        self.metrics = canvas.metrics
        self.layer = canvas.layer
        self.low, self.high = _range(canvas, data)
        self.labels = canvas.layer.value_labels


class _Vertical(_Plot):
    """Categories (or a scatter's numbers) along the bottom, values up the left."""

    def __init__(self, canvas: Canvas, data: _Data, room: Box) -> None:
        super().__init__(canvas, data, room)
        self.label_room = self.metrics.small * 1.2 + self.metrics.text * 0.3 if self.labels else 0.0

    def draw(self) -> None:
        x, y, width, height = self.room
        metrics = self.metrics
        gap = metrics.text * 0.5
        top = y + max(metrics.line / 2, self.label_room if self.high > 0 else 0.0)
        band_lines = 2 if 2 * metrics.line <= height * 0.3 else 1
        estimate = ticks_along(self.canvas, self.low, self.high, height - metrics.line * (band_lines + 1), False)
        left = x + min(estimate.widest, width * 0.35) + gap
        right = x + width
        if self.data.numeric is not None:
            axis = ticks_along(self.canvas, min(self.data.numeric), max(self.data.numeric), right - left, True)
            right -= axis.labels[-1].width / 2
            band = axis.labels[0].height
        else:
            categories = side_by_side(
                self.canvas, self.data.names, (right - left) / max(1, len(self.data.names)), band_lines
            )
            band = min(categories.height, height * 0.3)
        bottom = y + height - band - gap
        if self.low < 0:
            bottom -= self.label_room
        ticks = ticks_along(self.canvas, self.low, self.high, bottom - top, False)
        scale = Scale(ticks.low, ticks.high, bottom, top)
        self._grid(ticks, scale, x, left - gap, left, right)
        label_top = y + height - band
        if self.data.numeric is not None:
            across = Scale(axis.low, axis.high, left, right)
            self._numbers(axis, across, label_top)
            self._markers(scale, [across(v) for v in self.data.numeric])
            return
        slot = (right - left) / max(1, len(self.data.names))
        centres = [left + slot * (i + 0.5) for i in range(len(self.data.names))]
        self._categories(categories, centres, slot, label_top)
        if self.layer.chart_type == "bar":
            self._bars(scale, centres, slot)
        elif self.layer.chart_type == "scatter":
            self._markers(scale, centres)
        else:
            self._lines(scale, centres, slot)

    def _grid(
        self, ticks: Ticks, scale: Scale, label_left: float, label_right: float, left: float, right: float
    ) -> None:
        """Gridlines and their labels; a zero line over them when values go below zero,
        else a baseline under the plot."""
        canvas = self.canvas
        for value, label in zip(ticks.values, ticks.labels, strict=True):
            at = scale(value)
            if value != 0 or self.low >= 0 and self.layer.chart_type == "scatter":
                canvas.items.append(Line((left, at), (right, at), GRID))
            canvas.put(label, label_left, at - label.height / 2, label_right - label_left, "right")
        if self.layer.chart_type != "scatter" or ticks.low <= 0 <= ticks.high:
            zero = scale(0.0) if ticks.low <= 0 <= ticks.high else scale(ticks.low)
            canvas.items.append(Line((left, zero), (right, zero), AXIS))

    def _categories(self, labels: CategoryLabels, centres: list[float], slot: float, top: float) -> None:
        labels.record(self.canvas)
        width = slot * labels.step - self.metrics.text * 0.5
        for index, block in labels.blocks.items():
            self.canvas.put(block, centres[index] - width / 2, top, width, "center")

    def _numbers(self, ticks: Ticks, scale: Scale, top: float) -> None:
        for value, label in zip(ticks.values, ticks.labels, strict=True):
            at = scale(value)
            self.canvas.put(label, at - label.width / 2 - 1, top, label.width + 2, "center")

    def _bars(self, scale: Scale, centres: list[float], slot: float) -> None:
        series = self.data.series
        count = 1 if self.layer.stacked else max(1, len(series))
        group = slot * (1 - BAR_GAP)
        thickness = group / (count + (count - 1) * GROUP_GAP)
        radius = self.metrics.text * 0.3
        labels = _ValueLabels(self.canvas, self.data)
        for name, centre in zip(self.data.names, centres, strict=True):
            start = centre - group / 2
            for value, point, owner, base, outer in _segments(self.data, name, self.layer.stacked):
                number = 0 if self.layer.stacked else series.index(owner)
                left = start + number * thickness * (1 + GROUP_GAP)
                y0, y1 = scale(base), scale(base + value)
                end: marks.End | None = ("top" if value > 0 else "bottom") if outer else None
                if y0 != y1:
                    self.canvas.items.append(
                        marks.bar(left, y0, left + thickness, y1, radius, end, owner.color_of(point))
                    )
                if not self.labels:
                    continue
                if self.layer.stacked:
                    labels.inside(value, (left, min(y0, y1), thickness, abs(y1 - y0)), owner.color_of(point))
                else:
                    room = thickness * (1 + GROUP_GAP) if count > 1 else slot
                    labels.beyond(value, left + thickness / 2, y1, room, upward=value >= 0)
        labels.finish()

    def _lines(self, scale: Scale, centres: list[float], slot: float) -> None:
        area = self.layer.chart_type == "area"
        metrics = self.metrics
        stroke = metrics.stroke
        size = marks.line_marker(stroke, slot)
        labels = _ValueLabels(self.canvas, self.data)
        if area and self.layer.stacked:
            self._stacked_areas(scale, centres)
        for s in self.data.series:
            for run in _runs(s, self.data.names, centres):
                points = [(x, scale(point.value)) for x, point in run]
                if area and not self.layer.stacked:
                    floor = [(x, scale(0.0)) for x, _ in points]
                    self.canvas.items.append(marks.band(points, floor, s.color.with_alpha(0.16)))
                if not (area and self.layer.stacked):
                    if len(points) > 1:
                        self.canvas.items.append(marks.polyline(points, s.color, stroke))
                    if not area or any(point.color for _, point in run):
                        self._dots(points, run, s, size)
                if self.labels:
                    for (x, y), (_, point) in zip(points, run, strict=True):
                        labels.over(point.value, x, y, stroke * 2)
        labels.finish()

    def _dots(
        self, points: list[Point], run: list[tuple[float, ChartPoint]], series: Series, size: float | None
    ) -> None:
        """A line's markers at ``size``; with no room for them (``size`` None), only the
        points with a colour of their own keep one, of the smallest size, so that the
        colour still shows."""
        least = self.metrics.stroke * marks.LEAST
        for (x, y), (_, point) in zip(points, run, strict=True):
            diameter = size if size is not None else least if point.color else None
            if diameter is not None:
                self.canvas.items.extend(marks.marker(x, y, diameter, series.color_of(point), diameter / 4))

    def _stacked_areas(self, scale: Scale, centres: list[float]) -> None:
        """Bands piled on one another, nearly solid, each with its upper edge drawn."""
        below = [0.0] * len(self.data.names)
        for s in self.data.series:
            above = [base + (s.value(name) or 0.0) for base, name in zip(below, self.data.names, strict=True)]
            upper = [(x, scale(v)) for x, v in zip(centres, above, strict=True)]
            lower = [(x, scale(v)) for x, v in zip(centres, below, strict=True)]
            if upper:
                self.canvas.items.append(marks.band(upper, lower, s.color.with_alpha(0.7)))
                if len(upper) > 1:
                    self.canvas.items.append(marks.polyline(upper, s.color, self.metrics.stroke * 0.75))
            below = above

    def _markers(self, scale: Scale, positions: list[float]) -> None:
        size = max(8.0, self.metrics.text * 0.75)
        labels = _ValueLabels(self.canvas, self.data)
        for s in self.data.series:
            for run in _runs(s, self.data.names, positions, joined=True):
                for x, point in run:
                    y = scale(point.value)
                    self.canvas.items.extend(marks.marker(x, y, size, s.color_of(point), 1.0))
                    if self.labels:
                        labels.over(point.value, x, y, size / 2)
        labels.finish()


class _Horizontal(_Plot):
    """Categories down the left, first at the top; values along the bottom."""

    def draw(self) -> None:
        x, y, width, height = self.room
        metrics = self.metrics
        gap = metrics.text * 0.5
        names = self.data.names
        fmt = label_format(self.canvas, self.data.values())
        value_width = (
            max(
                (self.canvas.set(fmt(v), self.canvas.style(self.metrics.small), 1e6).width for v in self.data.values()),
                default=0.0,
            )
            + gap
            if self.labels
            else 0.0
        )
        natural = max((self.canvas.set(name, self.canvas.style(), 1e6).width for name in names), default=0.0)
        column = min(natural, width * 0.4)
        left = x + column + gap
        bottom = y + height - metrics.line - gap
        slot = (bottom - y) / max(1, len(names))
        categories = stacked(self.canvas, names, slot, column)
        right = x + width
        ticks = ticks_along(self.canvas, self.low, self.high, right - left - value_width, True)
        right -= max(ticks.labels[-1].width / 2, value_width if self.high > 0 else 0.0)
        data_left = left + (value_width if self.low < 0 else 0.0)
        ticks = ticks_along(self.canvas, self.low, self.high, right - data_left, True)
        scale = Scale(ticks.low, ticks.high, data_left, right)
        for value, label in zip(ticks.values, ticks.labels, strict=True):
            at = scale(value)
            if value != 0:
                self.canvas.items.append(Line((at, y), (at, bottom), GRID))
            self.canvas.put(label, at - label.width / 2 - 1, bottom + gap, label.width + 2, "center")
        zero = scale(0.0)
        self.canvas.items.append(Line((zero, y), (zero, bottom), AXIS))
        categories.record(self.canvas)
        for index, block in categories.blocks.items():
            middle = y + slot * (index + 0.5)
            self.canvas.put(block, x, middle - block.height / 2, column, "right")
        self._bars(scale, slot, y)

    def _bars(self, scale: Scale, slot: float, top: float) -> None:
        series = self.data.series
        count = 1 if self.layer.stacked else max(1, len(series))
        group = slot * (1 - BAR_GAP)
        thickness = group / (count + (count - 1) * GROUP_GAP)
        radius = self.metrics.text * 0.3
        labels = _ValueLabels(self.canvas, self.data)
        for index, name in enumerate(self.data.names):
            start = top + slot * index + (slot - group) / 2
            for value, point, owner, base, outer in _segments(self.data, name, self.layer.stacked):
                number = 0 if self.layer.stacked else series.index(owner)
                upper = start + number * thickness * (1 + GROUP_GAP)
                x0, x1 = scale(base), scale(base + value)
                end: marks.End | None = ("right" if value > 0 else "left") if outer else None
                if x0 != x1:
                    self.canvas.items.append(
                        marks.bar(x0, upper, x1, upper + thickness, radius, end, owner.color_of(point))
                    )
                if not self.labels:
                    continue
                if self.layer.stacked:
                    labels.inside(value, (min(x0, x1), upper, abs(x1 - x0), thickness), owner.color_of(point))
                else:
                    labels.beside(value, x1, upper + thickness / 2, thickness, rightward=value >= 0)
        labels.finish()


def _segments(data: _Data, name: str, stacked_: bool) -> list[tuple[float, ChartPoint, Series, float, bool]]:
    """The bars of a category: (value, point, series, base, whether it is the outermost
    on its side of zero, so rounded). Side by side every bar starts at zero; stacked,
    each starts where the one before it on its side of zero ended."""
    found = []
    for s in data.series:
        for point in s.points:
            if point.label == name:
                found.append((point.value, point, s))
                break
    if not stacked_:
        return [(value, point, s, 0.0, True) for value, point, s in found]
    last_up = max((i for i, (v, _, _) in enumerate(found) if v > 0), default=-1)
    last_down = max((i for i, (v, _, _) in enumerate(found) if v < 0), default=-1)
    up = down = 0.0
    segments = []
    for i, (value, point, s) in enumerate(found):
        base = up if value >= 0 else down
        segments.append((value, point, s, base, i in (last_up, last_down)))
        if value >= 0:
            up += value
        else:
            down += value
    return segments


def _runs(
    series: Series, names: list[str], positions: Sequence[float], joined: bool = False
) -> list[list[tuple[float, ChartPoint]]]:
    """The series' points at their positions, split where a category has no value (a
    line breaks there); ``joined`` keeps them all in one run."""
    runs: list[list[tuple[float, ChartPoint]]] = [[]]
    by_label = {p.label: p for p in series.points}
    for name, position in zip(names, positions, strict=True):
        point = by_label.get(name)
        if point is None:
            if runs[-1] and not joined:
                runs.append([])
            continue
        runs[-1].append((position, point))
    return [run for run in runs if run]


class _ValueLabels:
    """Value labels at bar ends, inside stacked segments, or over points; a label that
    would not fit, or would cover another, is left out and counted for a warning."""

    def __init__(self, canvas: Canvas, data: _Data) -> None:
        self.canvas = canvas
        self.format: NumberFormat = label_format(canvas, data.values())
        self.style = canvas.style(canvas.metrics.small)
        self.taken: list[tuple[float, float, float, float]] = []
        self.left_out = 0
        self.gap = canvas.metrics.text * 0.3

    def beyond(self, value: float, x: float, end: float, room: float | None, upward: bool) -> None:
        """Centred over (under, for ``upward`` False) ``x, end``, within ``room`` across."""
        block = self.canvas.set(self.format(value), self.style, 1e6)
        if room is not None and block.width > room:
            self.left_out += 1
            return
        top = end - self.gap - block.height if upward else end + self.gap
        self._put(block, x - block.width / 2, top)

    def over(self, value: float, x: float, y: float, clearance: float) -> None:
        """Over a point (under it, for a value below zero), ``clearance`` px off it."""
        upward = value >= 0
        self.beyond(value, x, y - clearance if upward else y + clearance, None, upward)

    def beside(self, value: float, end: float, middle: float, thickness: float, rightward: bool) -> None:
        block = self.canvas.set(self.format(value), self.style, 1e6)
        if block.height > thickness * 1.6:
            self.left_out += 1
            return
        left = end + self.gap if rightward else end - self.gap - block.width
        self._put(block, left, middle - block.height / 2)

    def inside(self, value: float, box: Box, fill: Color) -> None:
        """Centred in a stacked segment, in white or black as reads best on it."""
        x, y, width, height = box
        style = self.canvas.style(self.canvas.metrics.small, STRONG_WEIGHT, text_on(fill))
        block = self.canvas.set(self.format(value), style, 1e6)
        if block.width + self.gap > width or block.height > height:
            if value:
                self.left_out += 1
            return
        self._put(block, x + (width - block.width) / 2, y + (height - block.height) / 2)

    def _put(self, block: TextBlock, left: float, top: float) -> None:
        box = (left, top, left + block.width, top + block.height)
        if any(box[0] < b[2] and b[0] < box[2] and box[1] < b[3] and b[1] < box[3] for b in self.taken):
            self.left_out += 1
            return
        self.taken.append(box)
        self.canvas.put(block, left - 1, top, block.width + 2, "center")
        self.canvas.keep(block, block.lines[0].text if block.lines else "", "value label")

    def finish(self) -> None:
        if self.left_out:
            self.canvas.notes.append(f"{self.left_out} value label(s) left out: no room beside their bar or point")
