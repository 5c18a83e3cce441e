"""Pie and doughnut charts: one per series, side by side, slices clockwise from the top.

With a legend, slices show their percentage inside when it fits, and the legend goes
beside the pies in a wide room, under them in a tall one; the pies keep at least half
of the room's shorter side. Without a legend, each slice is labelled outside with its
label and percentage, the labels of a side spread so that none covers another.
Percentages are whole numbers that add up to 100 (largest remainders).
"""

from __future__ import annotations

import math

from attrs import frozen

from templatekit.layout.charts import marks
from templatekit.layout.charts.canvas import Box, Canvas
from templatekit.layout.charts.data import Series, categories, slices
from templatekit.layout.charts.legend import Entry, Legend, shown
from templatekit.layout.charts.style import AXIS, GRID, STRONG_WEIGHT, TEXT, WHITE, text_on
from templatekit.model.values import Color
from templatekit.scene import Line
from templatekit.text.typeset import TextBlock

HOLE = 0.58  # a doughnut's hole, as a share of its radius
TURN = 2 * math.pi


@frozen
class _Slice:
    label: str
    value: float
    color: Color
    start: float  # radians clockwise from the top
    end: float
    percent: str

    @property
    def middle(self) -> float:
        return (self.start + self.end) / 2


def draw(canvas: Canvas, series: list[Series], room: Box) -> None:
    layer = canvas.layer
    grouped = slices(layer, series)
    if grouped.grouped:
        canvas.notes.append(
            f"{grouped.grouped} of the smallest slices are grouped into 'Other' (maxSlices {layer.max_slices})"
        )
    for label in grouped.clashes:
        canvas.notes.append(
            f"label {label!r} is given different colours in different pies; "
            f"the legend shows the first ({grouped.colors[label].hex})"
        )
    pies = [_slices(s, grouped.colors) for s in grouped.series]
    if not any(pies):
        canvas.notes.append("no values above zero: the chart is drawn empty")
    entries = [Entry(label, grouped.colors[label]) for label in categories(grouped.series)]
    if layer.legend and entries:
        cells = _with_legend(canvas, entries, len(pies), room)
    else:
        cells = _cells(canvas, len(pies), room, outside=True)
    doughnut = layer.chart_type == "doughnut"
    for cell, pie, s in zip(cells, pies, grouped.series, strict=True):
        _Pie(canvas, cell, pie, doughnut, layer.legend and bool(entries)).draw(s.name if len(pies) > 1 else None)


def _slices(series: Series, colors: dict[str, Color]) -> list[_Slice]:
    points = [p for p in series.points if p.value > 0]
    total = sum(p.value for p in points)
    percents = _percents([p.value for p in points])
    found = []
    angle = 0.0
    for point, percent in zip(points, percents, strict=True):
        sweep = point.value / total * TURN
        color = point.color or colors.get(point.label, series.color)
        found.append(_Slice(point.label, point.value, color, angle, angle + sweep, percent))
        angle += sweep
    return found


def _percents(values: list[float]) -> list[str]:
    """Whole percentages adding up to 100 (the largest remainders round up); a slice
    that rounds to 0 reads "<1%"."""
    total = sum(values)
    if not total:
        return []
    exact = [v / total * 100 for v in values]
    whole = [math.floor(e) for e in exact]
    for index in sorted(range(len(exact)), key=lambda i: whole[i] - exact[i])[: 100 - sum(whole)]:
        whole[index] += 1
    return [f"{w}%" if w else "<1%" for w in whole]


@frozen
class _Cell:
    """Where one pie goes: its centre and radius, and room for its name under it."""

    cx: float
    cy: float
    radius: float
    name_top: float
    width: float  # of the cell: outside labels and names stay within it


def _cells(canvas: Canvas, count: int, room: Box, outside: bool) -> list[_Cell]:
    """Pies side by side filling ``room``; with room at their sides for outside labels."""
    x, y, width, height = room
    metrics = canvas.metrics
    gap = metrics.text * 2
    name = metrics.line + metrics.pad / 2 if count > 1 and canvas.layer.chart_type == "pie" else 0.0
    cell_width = (width - gap * (count - 1)) / count
    side = min(cell_width * 0.3, metrics.text * 9) if outside else 0.0
    radius = max(1.0, min((height - name) / 2 - (metrics.line if outside else 0.0), cell_width / 2 - side))
    top = y + (height - name - 2 * radius) / 2
    return [
        _Cell(
            x + i * (cell_width + gap) + cell_width / 2,
            top + radius,
            radius,
            top + 2 * radius + metrics.pad / 2,
            cell_width,
        )
        for i in range(count)
    ]


def _with_legend(canvas: Canvas, entries: list[Entry], count: int, room: Box) -> list[_Cell]:
    """Draw the legend beside the pies or under them, whichever leaves the pies larger
    (weighed by how well each shows the legend's entries), and give the pies' cells.
    The pies keep at least half of the room's shorter side."""
    x, y, width, height = room
    metrics = canvas.metrics
    legend = Legend(canvas)
    gap = metrics.text * 2
    name = metrics.line + metrics.pad / 2 if count > 1 and canvas.layer.chart_type == "pie" else 0.0
    least = 0.5 * min(height, width / count)  # the smallest diameter the pies keep
    natural = legend.natural_width(entries)
    column = max(0.0, min(natural, width * 0.45, width - count * (least + gap)))
    beside = min(height - name, (width - column - gap * count) / count)
    beside_shown = shown(legend.rows_in(height) < len(entries), column < natural)
    rows, under_shown = legend.flow_height(entries, width, max(metrics.line, height - least - name - metrics.pad))
    under = min(height - rows - metrics.pad - name, (width - gap * (count - 1)) / count)
    if beside * beside_shown >= under * under_shown:
        diameter = max(1.0, beside)
        group = count * diameter + (count - 1) * gap + gap + column
        left = x + (width - group) / 2
        legend.column(entries, left + count * diameter + count * gap, y, column, height)
        return _cells(canvas, count, (left, y, count * diameter + (count - 1) * gap, height), outside=False)
    diameter = max(1.0, under)
    top = y + (height - (diameter + name + metrics.pad + rows)) / 2
    cells = _cells(canvas, count, (x, top, width, diameter + name), outside=False)
    legend.flow(entries, x, top + diameter + name + metrics.pad, width, rows, centred=True)
    return cells


class _Pie:
    def __init__(self, canvas: Canvas, cell: _Cell, pie: list[_Slice], doughnut: bool, legend: bool) -> None:
        self.canvas, self.cell, self.pie, self.legend = canvas, cell, pie, legend
        self.inner = cell.radius * HOLE if doughnut else 0.0
        self.doughnut = doughnut

    def draw(self, name: str | None) -> None:
        cell, canvas = self.cell, self.canvas
        if not self.pie:
            canvas.items.append(marks.slice_(cell.cx, cell.cy, cell.radius, self.inner, 0.0, TURN, GRID))
        for part in self.pie:
            canvas.items.append(
                marks.slice_(cell.cx, cell.cy, cell.radius, self.inner, part.start, part.end, part.color)
            )
        self._separators()
        if self.legend:
            for part in self.pie:
                self._inside(part)
        else:
            _Outside(canvas, self).draw()
        if name is not None:
            self._name(name)

    def _separators(self) -> None:
        """White lines between slices, from the centre (the hole) to the rim."""
        if len(self.pie) < 2:
            return
        cell = self.cell
        width = max(1.5, self.canvas.metrics.text / 7)
        for part in self.pie:
            start = marks.on_circle(cell.cx, cell.cy, self.inner, part.start)
            end = marks.on_circle(cell.cx, cell.cy, cell.radius + 1, part.start)
            self.canvas.items.append(Line(start, end, WHITE, width))

    def _inside(self, part: _Slice) -> None:
        """The percentage in the slice, when all of it fits inside."""
        canvas, cell = self.canvas, self.cell
        style = canvas.style(canvas.metrics.small, STRONG_WEIGHT, text_on(part.color))
        block = canvas.set(part.percent, style, 1e6)
        if len(self.pie) == 1 and not self.doughnut:
            x, y = cell.cx, cell.cy
        else:
            x, y = marks.on_circle(
                cell.cx, cell.cy, (cell.radius + self.inner) / 2 if self.doughnut else cell.radius * 0.62, part.middle
            )
        left, top = x - block.width / 2, y - block.height / 2
        corners = [
            (left, top),
            (left + block.width, top),
            (left, top + block.height),
            (left + block.width, top + block.height),
        ]
        if all(self._inside_slice(corner, part) for corner in corners):
            canvas.put(canvas.keep(block, part.percent, "percentage"), left - 1, top, block.width + 2, "center")

    def _inside_slice(self, point: tuple[float, float], part: _Slice, margin: float = 2.0) -> bool:
        dx, dy = point[0] - self.cell.cx, point[1] - self.cell.cy
        distance = math.hypot(dx, dy)
        if not self.inner + margin <= distance <= self.cell.radius - margin:
            return False
        if part.end - part.start >= TURN - 1e-9:
            return True
        angle = math.atan2(dx, -dy) % TURN
        slack = margin / max(distance, 1.0)
        return part.start + slack <= angle <= part.end - slack

    def _name(self, name: str) -> None:
        """A pie's series name under it; a doughnut's in its hole."""
        canvas, cell = self.canvas, self.cell
        style = canvas.style(weight=STRONG_WEIGHT, color=TEXT)
        if self.doughnut:
            width = self.inner * 1.6
            block = canvas.text(name, style, width, "pie name", max_lines=2)
            canvas.put(block, cell.cx - width / 2, cell.cy - block.height / 2, width, "center")
        else:
            block = canvas.text(name, style, cell.width, "pie name")
            canvas.put(block, cell.cx - cell.width / 2, cell.name_top, cell.width, "center")


class _Outside:
    """Labels outside the slices, each joined to its slice by a short line. Labels on
    a side are spread apart to clear one another; where the side has no room for all,
    the smallest slices' labels are left out, with a warning."""

    def __init__(self, canvas: Canvas, pie: _Pie) -> None:
        self.canvas, self.pie = canvas, pie
        cell = pie.cell
        self.gap = canvas.metrics.text * 0.6
        self.width = max(1.0, cell.width / 2 - cell.radius - self.gap * 2)

    def draw(self) -> None:
        left_out = 0
        for right in (True, False):
            parts = [p for p in self.pie.pie if (math.sin(p.middle) >= 0) == right]
            left_out += self._side(parts, right)
        if left_out:
            self.canvas.notes.append(f"{left_out} slice label(s) left out: no room beside the pie")

    def _side(self, parts: list[_Slice], right: bool) -> int:
        canvas, cell = self.canvas, self.pie.cell
        blocks = {id(p): canvas.set(f"{p.label}\n{p.percent}", canvas.style(), self.width, 3) for p in parts}
        height = cell.radius * 2 + canvas.metrics.line * 2
        spacing = 2.0
        kept = sorted(parts, key=lambda p: -p.value)
        while kept and sum(blocks[id(p)].height + spacing for p in kept) > height:
            kept.pop()
        kept.sort(key=lambda p: -math.cos(p.middle))  # top to bottom
        tops = self._spread(
            [self._target(p, blocks[id(p)]) for p in kept], [blocks[id(p)].height for p in kept], spacing
        )
        for part, top in zip(kept, tops, strict=True):
            self._label(part, blocks[id(part)], top, right)
        return len(parts) - len(kept)

    def _target(self, part: _Slice, block: TextBlock) -> float:
        cell = self.pie.cell
        return cell.cy - (cell.radius + self.gap) * math.cos(part.middle) - block.height / 2

    def _spread(self, targets: list[float], heights: list[float], spacing: float) -> list[float]:
        """Tops as near their targets as they can be without overlapping, within the
        cell's height (a line above and below the pie)."""
        cell = self.pie.cell
        floor = cell.cy - cell.radius - self.canvas.metrics.line
        ceiling = cell.cy + cell.radius + self.canvas.metrics.line
        tops: list[float] = []
        for target in targets:
            tops.append(max(target, floor if not tops else tops[-1] + heights[len(tops) - 1] + spacing))
        for index in range(len(tops) - 1, -1, -1):
            limit = ceiling - heights[index] if index == len(tops) - 1 else tops[index + 1] - spacing - heights[index]
            tops[index] = max(floor, min(tops[index], limit))
        return tops

    def _label(self, part: _Slice, block: TextBlock, top: float, right: bool) -> None:
        canvas, cell = self.canvas, self.pie.cell
        rim = marks.on_circle(cell.cx, cell.cy, cell.radius, part.middle)
        elbow = marks.on_circle(cell.cx, cell.cy, cell.radius + self.gap * 0.7, part.middle)
        middle = top + block.height / 2
        side = 1 if right else -1
        end_x = cell.cx + side * (cell.radius + self.gap * 1.4)
        canvas.items.append(Line(rim, elbow, AXIS, 1.0))
        canvas.items.append(Line(elbow, (end_x, middle), AXIS, 1.0))
        canvas.keep(block, part.label, "slice label")
        left = end_x + self.gap * 0.3 if right else end_x - self.gap * 0.3 - self.width
        canvas.put(block, left, top, self.width, "left" if right else "right")
